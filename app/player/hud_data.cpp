#include "app/player/hud_data.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace vp {

FloatRing::FloatRing(size_t capacity) : values_(std::max<size_t>(capacity, 1), 0.f) {}

void FloatRing::push(float value) {
  values_[head_] = value;
  head_ = (head_ + 1) % values_.size();
  count_ = std::min(count_ + 1, values_.size());
}

void FloatRing::clear() {
  head_ = 0;
  count_ = 0;
}

float FloatRing::at(size_t i) const {
  const size_t oldest = count_ < values_.size() ? 0 : head_;
  return values_[(oldest + i) % values_.size()];
}

// O(history) per call: 240 samples x 7 stages per frame is negligible next to a frame.
StageStats& HudData::element(const std::string& label) {
  for (StageStats& e : elements)
    if (e.name == label) return e;
  elements.emplace_back();
  elements.back().name = label;
  return elements.back();
}

std::vector<const StageStats*> HudData::timingRows() const {
  std::vector<const StageStats*> rows = {&stage(Stage::Upload), &stage(Stage::Convert)};
  for (const StageStats& e : elements) rows.push_back(&e);
  for (Stage s : {Stage::Download, Stage::Present, Stage::Encode}) rows.push_back(&stage(s));
  rows.push_back(&latency);
  return rows;
}

void StageStats::record(float ms) {
  historyMs.push(ms);
  lastMs = ms;
  double sum = 0.0;
  float peak = 0.f;
  for (size_t i = 0; i < historyMs.size(); ++i) {
    const float v = historyMs.at(i);
    sum += v;
    peak = std::max(peak, v);
  }
  avgMs = static_cast<float>(sum / static_cast<double>(historyMs.size()));
  maxMs = peak;
}

HudData::HudData() {
  for (int i = 0; i < kStageCount; ++i) stages[size_t(i)].name = std::string(stageName(static_cast<Stage>(i)));
  latency.name = "latency";
}

std::string formatClock(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  const auto tenths = static_cast<int64_t>(std::floor(seconds * 10.0));
  const int64_t h = tenths / 36000, m = (tenths / 600) % 60, s = (tenths / 10) % 60, t = tenths % 10;
  char buf[48];
  if (h > 0) {
    std::snprintf(buf, sizeof buf, "%" PRId64 ":%02" PRId64 ":%02" PRId64 ".%" PRId64, h, m, s, t);
  } else {
    std::snprintf(buf, sizeof buf, "%02" PRId64 ":%02" PRId64 ".%" PRId64, m, s, t);
  }
  return buf;
}

}  // namespace vp
