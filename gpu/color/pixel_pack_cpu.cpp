// CPU twin of pixel_pack.cu, and the argument checks both share.
#include "gpu/color/pixel_pack.h"

#include <stdexcept>
#include <string>

namespace vp {

int packedChannels(PixelFormat format) {
  switch (format) {
    case PixelFormat::Gray: return 1;
    case PixelFormat::Rgb24:
    case PixelFormat::Bgr24: return 3;
    case PixelFormat::Rgba:
    case PixelFormat::Bgra: return 4;
    default: return 0;
  }
}

namespace detail {
void checkToPackedArgs(const ConstRgbaView& src, PixelFormat format, const uint8_t* dst, size_t dstPitch,
                       const char* who) {
  const std::string w(who);
  if (src.empty() || !src.data) throw std::invalid_argument(w + ": empty source");
  if (!dst) throw std::invalid_argument(w + ": null destination");
  const int c = packedChannels(format);
  if (c == 0) throw std::invalid_argument(w + ": " + std::string(pixelFormatName(format)) + " is not a packed 8-bit format");
  if (dstPitch < size_t(src.width) * size_t(c)) throw std::invalid_argument(w + ": destination pitch too small");
}
}  // namespace detail

void rgbaToPackedCpu(ConstRgbaView src, PixelFormat format, uint8_t* dst, size_t dstPitch) {
  detail::checkToPackedArgs(src, format, dst, dstPitch, "rgbaToPackedCpu");
  const int c = packedChannels(format);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < src.height; ++y) {
    const uchar4* in = src.row(y);
    uint8_t* out = dst + size_t(y) * dstPitch;
    for (int x = 0; x < src.width; ++x) detail::packPixel(in[x], format, out + size_t(x) * c);
  }
}

}  // namespace vp
