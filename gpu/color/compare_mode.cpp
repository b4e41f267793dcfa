#include "gpu/color/compare_mode.h"

namespace vp {

std::string_view compareModeName(CompareMode mode) {
  switch (mode) {
    case CompareMode::Off: return "off";
    case CompareMode::Split: return "split";
    case CompareMode::Side: return "side";
  }
  return "unknown";
}

bool parseCompareMode(std::string_view name, CompareMode& out) {
  for (CompareMode m : {CompareMode::Off, CompareMode::Split, CompareMode::Side})
    if (compareModeName(m) == name) {
      out = m;
      return true;
    }
  return false;
}

}  // namespace vp
