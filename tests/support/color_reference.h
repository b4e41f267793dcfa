// Colour conversion by its definition, in double precision, for end-to-end checks of
// vidproc's outputs against a reference that shares no code or arithmetic with gpu/:
// ITU-R BT.601 (Kr 0.299, Kb 0.114) and BT.709 (Kr 0.2126, Kb 0.0722),
//   limited range: Y = 16 + 219 E'Y, Cb/Cr = 128 + 224 E'Pb/Pr;
//   full range:    Y = 255 E'Y,      Cb/Cr = 128 + 255 E'Pb/Pr (JPEG);
// E'Pb = (E'B - E'Y) / (2 (1 - Kb)), E'Pr = (E'R - E'Y) / (2 (1 - Kr)).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vp::test::ref {

struct Colour {
  bool bt709 = true;   // else BT.601
  bool full = false;   // else limited ("tv") range
};

// Y, Cb, Cr of an 8-bit R'G'B' colour (unrounded).
std::array<double, 3> rgbToYuv(double r, double g, double b, Colour c);
// R', G', B' (0..255 scale, unrounded and unclamped) of 8-bit Y, Cb, Cr.
std::array<double, 3> yuvToRgb(double y, double cb, double cr, Colour c);

// A yuv420p frame (planes packed: Y w*h, then Cb and Cr ceil(w/2)*ceil(h/2)) as rgb24,
// rounded to nearest and clamped, with the chroma siting vidproc's converter states
// (pixel x, y reads chroma sample x/2, y/2).
std::vector<uint8_t> yuv420pToRgb24(const std::vector<uint8_t>& frame, int width, int height, Colour c);

// Largest and mean absolute difference of two equally long byte arrays.
struct ByteDiff {
  int max = 0;
  double mean = 0;
  size_t at = 0;  // index of the first largest difference
};
ByteDiff diffBytes(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);

}  // namespace vp::test::ref
