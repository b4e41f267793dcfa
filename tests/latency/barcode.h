// A frame number drawn as a barcode that survives H.264, a player's scaling and a screen
// grab: two bands of kBarcodeBits black/white cells across the lower part of the picture,
// the second band the complement of the first (a read counts only when every pair
// disagrees), each cell read at its centre against mid grey. Positions are fractions of
// the picture's size, so a picture scaled to any size reads the same.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vp::latency {

inline constexpr int kBarcodeBits = 20;                            // numbers below 2^20: 4.8 hours at 60 fps
inline constexpr uint8_t kBarcodeBlack = 16, kBarcodeWhite = 235;  // video-range luma

// Pixels to read: one 8-bit channel every `step` bytes from `data + offset` (a luma plane:
// step 1; packed RGB such as x11grab's bgr0: step 4 and the green byte), rows `stride` apart.
struct PictureView {
  const uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  ptrdiff_t stride = 0;
  int step = 1;
  int offset = 0;
};

// The rows of a picture `height` rows tall that reading looks at: a probe need grab only those.
struct RowSpan {
  int top = 0;
  int count = 0;
};
RowSpan barcodeRows(int height);

// Draws `n` (below 2^kBarcodeBits) into a luma plane; the rest of the plane is left as it is.
void drawBarcode(uint8_t* luma, int width, int height, ptrdiff_t stride, uint32_t n);

// Reads the number from `strip`: rows [top, top + strip.height) of a picture `fullHeight`
// rows tall and strip.width wide. -1 when there is no valid barcode (a cell too close to
// mid grey, or the bands do not complement each other).
int64_t readBarcode(const PictureView& strip, int fullHeight, int top);

}  // namespace vp::latency
