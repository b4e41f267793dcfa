// What the parameter keys do: Action -> change of ProcessParams, within bounds
// (K 2..32, radius 0..100, passes 1..3). Pure logic, unit-tested.
#pragma once

#include "app/actions.h"
#include "gpu/processor.h"

#include <cstdint>
#include <string>

namespace vp {

constexpr int kMinHotkeyClusters = 2;
constexpr int kMaxHotkeyClusters = 32;
constexpr int kMaxHotkeyRadius = 100;

// True for the actions applyParamAction handles (K, radius, passes, border, mode).
bool isParamAction(Action action);

// Applies a parameter action; returns true if `params` changed. Other actions
// (pause, seek, quit, ...) return false and leave `params` alone.
bool applyParamAction(Action action, ProcessParams& params);

// One line describing the parameters, for the status line ("kmeans k=8").
std::string describeParams(const ProcessParams& params);

// A new screenshot file name in `dir`: vidproc-YYYYmmdd-HHMMSS-INDEX.png.
std::string screenshotPath(const std::string& dir, int64_t index);

}  // namespace vp
