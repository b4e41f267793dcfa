#include "barcode.h"

#include <cmath>

namespace vp::latency {
namespace {

// The layout, in fractions of the picture: cells span 5 %..95 % of the width (a margin
// keeps them clear of a window's edge); band 1 covers rows 62 %..72 %, band 2 72 %..82 %,
// below the top-left corner where a player may draw its HUD.
constexpr double kLeft = 0.05, kRight = 0.95;
constexpr double kBandTop[2] = {0.62, 0.72};
constexpr double kBandHeight = 0.10;
// A cell reads as black below kMid - kMargin and white above kMid + kMargin; between,
// the picture is no barcode (noise, a blend of two frames): the read fails.
constexpr int kMid = 128, kMargin = 48;

struct Span {
  int begin = 0;
  int end = 0;
};

Span scaled(int size, double from, double to) {
  return {static_cast<int>(std::lround(size * from)), static_cast<int>(std::lround(size * to))};
}

Span cellColumns(int width, int bit) {
  const double cell = (kRight - kLeft) / kBarcodeBits;
  return scaled(width, kLeft + cell * bit, kLeft + cell * (bit + 1));
}

Span bandRows(int height, int band) { return scaled(height, kBandTop[band], kBandTop[band] + kBandHeight); }

// The middle half of a span: scaling and compression blur cells' edges, not their centres.
Span middle(Span s) {
  const int quarter = (s.end - s.begin) / 4;
  return {s.begin + quarter, s.end - quarter};
}

// A bit per cell, MSB first; band 2 holds the complement.
bool bitOf(uint32_t n, int band, int bit) {
  const bool b = (n >> (kBarcodeBits - 1 - bit)) & 1u;
  return band == 0 ? b : !b;
}

// Mean of the channel over rows `rows` (picture rows) and columns `cols` of the strip.
int meanOver(const PictureView& strip, int top, Span rows, Span cols) {
  int64_t sum = 0;
  for (int y = rows.begin; y < rows.end; ++y) {
    const uint8_t* row = strip.data + (y - top) * strip.stride + strip.offset;
    for (int x = cols.begin; x < cols.end; ++x) sum += row[static_cast<ptrdiff_t>(x) * strip.step];
  }
  const int64_t count = static_cast<int64_t>(rows.end - rows.begin) * (cols.end - cols.begin);
  return static_cast<int>(sum / count);
}

}  // namespace

RowSpan barcodeRows(int height) {
  const Span first = middle(bandRows(height, 0)), last = middle(bandRows(height, 1));
  return {first.begin, last.end - first.begin};
}

void drawBarcode(uint8_t* luma, int width, int height, ptrdiff_t stride, uint32_t n) {
  for (int band = 0; band < 2; ++band) {
    const Span rows = bandRows(height, band);
    for (int bit = 0; bit < kBarcodeBits; ++bit) {
      const Span cols = cellColumns(width, bit);
      const uint8_t value = bitOf(n, band, bit) ? kBarcodeWhite : kBarcodeBlack;
      for (int y = rows.begin; y < rows.end; ++y)
        for (int x = cols.begin; x < cols.end; ++x) luma[y * stride + x] = value;
    }
  }
}

int64_t readBarcode(const PictureView& strip, int fullHeight, int top) {
  // Cells narrower than 2 pixels cannot be read at their centres.
  if (!strip.data || strip.width < 2 * kBarcodeBits * 4 || fullHeight < 40) return -1;
  uint32_t bands[2] = {0, 0};
  for (int band = 0; band < 2; ++band) {
    const Span rows = middle(bandRows(fullHeight, band));
    if (rows.begin < top || rows.end > top + strip.height || rows.end <= rows.begin) return -1;
    for (int bit = 0; bit < kBarcodeBits; ++bit) {
      const int mean = meanOver(strip, top, rows, middle(cellColumns(strip.width, bit)));
      if (std::abs(mean - kMid) < kMargin) return -1;
      bands[band] = (bands[band] << 1) | (mean > kMid ? 1u : 0u);
    }
  }
  const uint32_t mask = (1u << kBarcodeBits) - 1;
  if ((bands[0] ^ bands[1]) != mask) return -1;
  return bands[0];
}

}  // namespace vp::latency
