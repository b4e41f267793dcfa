// The compare view's modes (compare_view.h draws them): the unprocessed frame beside the
// processed one, composed on the device from the converted input the pipeline holds.
#pragma once

#include <cstdint>
#include <string_view>

namespace vp {

enum class CompareMode : uint8_t {
  Off,    // the processed frame
  Split,  // the original left of a vertical line, the processed frame right of it (same size)
  Side,   // the original and the processed frame side by side (twice as wide)
};
inline constexpr int kCompareModeCount = 3;
std::string_view compareModeName(CompareMode mode);  // "off", "split", "side"
bool parseCompareMode(std::string_view name, CompareMode& out);

}  // namespace vp
