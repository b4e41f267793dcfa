#include "app/ui/hud.h"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "app/input/command_table.h"
#include "app/ui/keymap.h"

namespace vp {
namespace {

constexpr float kMargin = 10.f;    // pixels between the overlay and the window edge
constexpr float kBgAlpha = 0.55f;  // overlay background opacity: video stays visible behind
constexpr ImGuiWindowFlags kOverlayFlags =
    ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
    ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove;
const ImVec4 kDim(0.65f, 0.65f, 0.65f, 1.f);
const ImVec4 kWarn(1.f, 0.6f, 0.3f, 1.f);
const ImVec4 kStatusColor(0.5f, 1.f, 0.5f, 1.f);

}  // namespace

void Hud::draw(const HudData& data, const KeyMap& keys) {
  if (data.status != lastStatus_ || data.statusSerial != lastSerial_) {
    lastStatus_ = data.status;
    lastSerial_ = data.statusSerial;
    statusSince_ = ImGui::GetTime();
  }
  const bool showStatus = !data.status.empty() && ImGui::GetTime() - statusSince_ < kStatusSeconds;
  if (visible) {
    drawOverlay(data, keys, showStatus);
  } else if (showStatus) {
    drawStatusOnly(data);  // feedback to a key press even with the HUD hidden
  }
  if (helpVisible) drawHelp(keys);
}

void Hud::drawOverlay(const HudData& d, const KeyMap& keys, bool showStatus) {
  ImGui::SetNextWindowPos(ImVec2(kMargin, kMargin), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(kBgAlpha);
  if (!ImGui::Begin("##vp_hud", nullptr, kOverlayFlags)) {
    ImGui::End();
    return;
  }
  // Processing parameters first: what the keys change, one line per chain element.
  if (d.chain.empty()) ImGui::Text("chain: none (passthrough)");
  for (const HudData::ChainLine& line : d.chain) {
    ImGui::TextColored(line.enabled ? ImGui::GetStyleColorVec4(ImGuiCol_Text) : kDim, "%s%s  %s", line.label.c_str(),
                       line.enabled ? "" : " (off)", line.options.c_str());
    if (!line.metrics.empty()) ImGui::TextColored(kDim, "    %s", line.metrics.c_str());
  }
  if (d.compare == CompareMode::Split) ImGui::Text("compare split at %d %%", int(d.split * 100.f + 0.5f));
  else if (d.compare == CompareMode::Side) ImGui::Text("compare side by side");
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
    for (const StageStats* row : d.timingRows()) {  // UI path: the vector allocates
      const StageStats& s = *row;
      if (s.historyMs.size() == 0) continue;  // a stage this run has not used (yet)
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
  if (d.latency.historyMs.size() > 0)
    ImGui::Text("latency p50 %.1f  p99 %.1f ms  (packet -> screen%s)", d.latencyP50Ms, d.latencyP99Ms,
                d.live ? ", live" : "");
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
  if (!d.audio.empty()) {
    ImGui::Text("audio %s", d.audio.c_str());
    ImGui::Text("A-V %+.1f ms (max %.1f)  volume %d%%%s  underruns %llu", d.avDiffMs, d.avDiffMaxMs, d.volume,
                d.muted ? " muted" : "", (unsigned long long)d.audioUnderruns);
  }
  if (showStatus) ImGui::TextColored(kStatusColor, "%s", d.status.c_str());
  const std::string hint = keys.describe("help") + ": keys   " + keys.describe("hud") + ": hide";  // UI-only path
  ImGui::TextColored(kDim, "%s", hint.c_str());
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
      // UI-only path: allocation is fine here.
      for (const auto& [chord, command] : keys.bindings()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(chordName(chord).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(describeCommand(command).c_str());
        ImGui::TableNextColumn();
        ImGui::TextColored(kDim, "%s", command.text.c_str());
      }
      ImGui::EndTable();
    }
    ImGui::TextColored(kDim, "double-click: fullscreen");
  }
  ImGui::End();
}

}  // namespace vp
