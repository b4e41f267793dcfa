#include "app/hud.h"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "app/keymap.h"

namespace vp {
namespace {

constexpr const char* kStageNames[kHudStageCount] = {"upload", "convert",  "kmeans",
                                                     "blur",   "download", "present"};
constexpr float kMargin = 10.f;    // pixels between the overlay and the window edge
constexpr float kBgAlpha = 0.55f;  // overlay background opacity: video stays visible behind
constexpr ImGuiWindowFlags kOverlayFlags =
    ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
    ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove;
const ImVec4 kDim(0.65f, 0.65f, 0.65f, 1.f);
const ImVec4 kWarn(1.f, 0.6f, 0.3f, 1.f);
const ImVec4 kStatusColor(0.5f, 1.f, 0.5f, 1.f);

}  // namespace

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

// O(history) per call: 240 samples x 6 stages per frame is negligible next to a frame.
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
  for (size_t i = 0; i < kHudStageCount; ++i) stages[i].name = kStageNames[i];
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

void Hud::draw(const HudData& data, const KeyMap& keys) {
  if (data.status != lastStatus_ || data.statusSerial != lastSerial_) {
    lastStatus_ = data.status;
    lastSerial_ = data.statusSerial;
    statusSince_ = ImGui::GetTime();
  }
  const bool showStatus = !data.status.empty() && ImGui::GetTime() - statusSince_ < kStatusSeconds;
  if (visible) {
    drawOverlay(data, showStatus);
  } else if (showStatus) {
    drawStatusOnly(data);  // feedback to a key press even with the HUD hidden
  }
  if (helpVisible) drawHelp(keys);
}

void Hud::drawOverlay(const HudData& d, bool showStatus) {
  ImGui::SetNextWindowPos(ImVec2(kMargin, kMargin), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(kBgAlpha);
  if (!ImGui::Begin("##vp_hud", nullptr, kOverlayFlags)) {
    ImGui::End();
    return;
  }
  // Processing parameters first: what the keys change.
  ImGui::Text("%s", d.mode.empty() ? "-" : d.mode.c_str());
  ImGui::SameLine();
  ImGui::Text(" K %d   radius %d   passes %d   border %s", d.k, d.radius, d.passes,
              d.border.empty() ? "-" : d.border.c_str());
  ImGui::Text("K-means iterations %d", d.kmeansIterations);
  ImGui::TextColored(kDim, "%s%s%s", d.backend.empty() ? "-" : d.backend.c_str(),
                     d.gpuName.empty() ? "" : "  ", d.gpuName.c_str());
  ImGui::Separator();

  ImGui::Text("display %5.1f fps   decode %5.1f   processed %5.1f", d.displayFps, d.decodeFps,
              d.processedFps);
  const bool dropping = d.droppedLate + d.droppedQueueFull > 0;
  ImGui::TextColored(dropping ? kWarn : ImGui::GetStyleColorVec4(ImGuiCol_Text),
                     "dropped %" PRIu64 " late, %" PRIu64 " queue-full   queue %d/%d", d.droppedLate,
                     d.droppedQueueFull, d.queueFill, d.queueCapacity);

  constexpr ImGuiTableFlags kTableFlags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg;
  if (ImGui::BeginTable("##vp_stages", 5, kTableFlags)) {
    ImGui::TableSetupColumn("stage");
    ImGui::TableSetupColumn("last ms");
    ImGui::TableSetupColumn("avg");
    ImGui::TableSetupColumn("max");
    ImGui::TableSetupColumn("history");
    ImGui::TableHeadersRow();
    for (const StageStats& s : d.stages) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%6.3f", s.lastMs);
      ImGui::TableNextColumn();
      ImGui::Text("%6.3f", s.avgMs);
      ImGui::TableNextColumn();
      ImGui::Text("%6.3f", s.maxMs);
      ImGui::TableNextColumn();
      ImGui::PushID(s.name.c_str());
      // Fixed 0 floor and a headroom ceiling so spikes are visible without rescaling jitter.
      ImGui::PlotLines("##h", s.historyMs.data(), static_cast<int>(s.historyMs.size()), s.historyMs.offset(),
                       nullptr, 0.f, std::max(s.maxMs * 1.2f, 0.01f),
                       ImVec2(140.f, ImGui::GetTextLineHeight()));
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  ImGui::Separator();

  ImGui::Text("input %dx%d %s %s @ %.2f fps", d.inputWidth, d.inputHeight,
              d.pixelFormat.empty() ? "-" : d.pixelFormat.c_str(), d.codec.empty() ? "-" : d.codec.c_str(),
              d.inputFps);
  if (!d.decodePath.empty())
    ImGui::Text("decode %s -> %s, %s", d.decodePath.c_str(), d.surface.empty() ? "-" : d.surface.c_str(),
                d.colorMatrix.empty() ? "-" : d.colorMatrix.c_str());
  if (!d.hdr.empty()) ImGui::TextColored(kStatusColor, "HDR %s", d.hdr.c_str());
  const std::string position = formatClock(d.positionS);
  if (d.durationS > 0) {
    ImGui::Text("%s / %s%s", position.c_str(), formatClock(d.durationS).c_str(),
                d.paused ? "   [paused]" : "");
  } else {
    ImGui::Text("%s  live%s", position.c_str(), d.paused ? "   [paused]" : "");
  }
  if (showStatus) ImGui::TextColored(kStatusColor, "%s", d.status.c_str());
  ImGui::TextColored(kDim, "? / F1: keys   h: hide");
  ImGui::End();
}

void Hud::drawStatusOnly(const HudData& d) {
  ImGui::SetNextWindowPos(ImVec2(kMargin, kMargin), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(kBgAlpha);
  if (ImGui::Begin("##vp_status", nullptr, kOverlayFlags)) {
    ImGui::TextColored(kStatusColor, "%s", d.status.c_str());
  }
  ImGui::End();
}

void Hud::drawHelp(const KeyMap& keys) {
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.85f);
  constexpr ImGuiWindowFlags kFlags =
      ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse;
  if (ImGui::Begin("Keys (? / F1 closes)", &helpVisible, kFlags)) {
    if (ImGui::BeginTable("##vp_keys", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
      for (int i = 0; i < kActionCount; ++i) {
        const auto action = static_cast<Action>(i);
        const std::string bound = keys.describe(action);  // UI-only path: allocation is fine here
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(bound.empty() ? "(unbound)" : bound.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(actionDescription(action));
        ImGui::TableNextColumn();
        ImGui::TextColored(kDim, "%s", actionName(action));
      }
      ImGui::EndTable();
    }
    ImGui::TextColored(kDim, "double-click: fullscreen");
  }
  ImGui::End();
}

}  // namespace vp
