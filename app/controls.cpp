#include "app/controls.h"

#include <algorithm>
#include <ctime>
#include <utility>

namespace vp {
namespace {

bool setClamped(int& value, int wanted, int lo, int hi) {
  const int v = std::clamp(wanted, lo, hi);
  if (v == value) return false;
  value = v;
  return true;
}

}  // namespace

bool isParamAction(Action action) {
  switch (action) {
    case Action::KDec:
    case Action::KInc:
    case Action::RadiusDec:
    case Action::RadiusInc:
    case Action::ParamDec:
    case Action::ParamInc:
    case Action::CyclePasses:
    case Action::CycleBorder:
    case Action::CycleMode:
    case Action::ModeKmeans:
    case Action::ModeBlur:
    case Action::ModeNone:
      return true;
    default:
      return false;
  }
}

bool applyParamAction(Action action, ProcessParams& p) {
  int& k = p.kmeans.k;
  int& r = p.blur.radius;
  switch (action) {
    case Action::KDec: return setClamped(k, k - 1, kMinHotkeyClusters, kMaxHotkeyClusters);
    case Action::KInc: return setClamped(k, k + 1, kMinHotkeyClusters, kMaxHotkeyClusters);
    case Action::RadiusDec: return setClamped(r, r - 1, 0, kMaxHotkeyRadius);
    case Action::RadiusInc: return setClamped(r, r + 1, 0, kMaxHotkeyRadius);
    case Action::ParamDec:
    case Action::ParamInc: {
      const int d = action == Action::ParamInc ? 1 : -1;
      if (p.mode == Mode::Kmeans) return setClamped(k, k + d, kMinHotkeyClusters, kMaxHotkeyClusters);
      if (p.mode == Mode::Blur) return setClamped(r, r + d, 0, kMaxHotkeyRadius);
      return false;
    }
    case Action::CyclePasses: p.blur.passes = p.blur.passes % 3 + 1; return true;
    case Action::CycleBorder: p.blur.border = BorderMode((int(p.blur.border) + 1) % 4); return true;
    case Action::CycleMode: p.mode = Mode((int(p.mode) + 1) % 3); return true;
    case Action::ModeKmeans: return std::exchange(p.mode, Mode::Kmeans) != Mode::Kmeans;
    case Action::ModeBlur: return std::exchange(p.mode, Mode::Blur) != Mode::Blur;
    case Action::ModeNone: return std::exchange(p.mode, Mode::None) != Mode::None;
    default: return false;
  }
}

std::string describeParams(const ProcessParams& p) {
  switch (p.mode) {
    case Mode::Kmeans: return "kmeans k=" + std::to_string(p.kmeans.k);
    case Mode::Blur:
      return "blur r=" + std::to_string(p.blur.radius) + " passes=" + std::to_string(p.blur.passes) + " border=" +
             std::string(borderModeName(p.blur.border));
    case Mode::None: return "none (passthrough)";
  }
  return "";
}

std::string screenshotPath(const std::string& dir, int64_t index) {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::tm local{};
  localtime_r(&t, &local);  // localtime() shares a static buffer between threads
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  return dir + "/vidproc-" + stamp + "-" + std::to_string(index) + ".png";
}

}  // namespace vp
