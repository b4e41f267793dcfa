// What a display shows besides the video: rates, drops, queue, per-stage timings with
// rolling histories, processing parameters, input and position, a status line. The
// window player fills it every frame; ui/hud.h draws it with Dear ImGui.
#pragma once

#include "gpu/processor.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vp {

// Fixed-capacity ring of samples, laid out for ImGui::PlotLines (values + offset of the oldest).
// Storage is allocated once; push() never allocates.
class FloatRing {
 public:
  explicit FloatRing(size_t capacity = 240);
  void push(float value);
  void clear();
  size_t size() const { return count_; }
  size_t capacity() const { return values_.size(); }
  // i-th oldest sample, i < size().
  float at(size_t i) const;
  // Raw storage and the index of the oldest sample in it: PlotLines(values, size(), offset()).
  const float* data() const { return values_.data(); }
  int offset() const { return count_ < values_.size() ? 0 : static_cast<int>(head_); }

 private:
  std::vector<float> values_;  // capacity samples
  size_t head_ = 0;            // next slot to write
  size_t count_ = 0;           // samples held, <= capacity
};

// Timings of one pipeline stage; record() once per frame the stage ran.
struct StageStats {
  static constexpr size_t kHistory = 240;  // samples kept: 4 s at 60 fps
  std::string name;                        // "upload", "convert", ...
  float lastMs = 0.f;                      // ms, latest sample
  float avgMs = 0.f;                       // ms, mean over the history
  float maxMs = 0.f;                       // ms, max over the history
  FloatRing historyMs{kHistory};           // ms, oldest first

  void record(float ms);
};

struct HudData {
  HudData();  // names the stages after stageName()
  StageStats& stage(Stage s) { return stages[static_cast<size_t>(s)]; }
  const StageStats& stage(Stage s) const { return stages[static_cast<size_t>(s)]; }

  // Rates and flow.
  float displayFps = 0.f;         // new frames/s drawn on the display
  float decodeFps = 0.f;          // frames/s out of the decoder
  float processedFps = 0.f;       // frames/s out of the pipeline
  uint64_t droppedLate = 0;       // frames dropped for missing their display time, since start
  uint64_t droppedQueueFull = 0;  // frames dropped because the slot queue was full, since start
  int queueFill = 0;              // frames waiting in the slot queue
  int queueCapacity = 0;          // frames the slot queue holds
  std::array<StageStats, kStageCount> stages;  // indexed by Stage; rows appear once a stage has run
  std::vector<StageStats> elements;  // one per chain element that has run, by label ("kmeans#2")
  // Arrival -> shown per frame shown (app/player/latency.h), and its run percentiles.
  StageStats latency;
  float latencyP50Ms = 0.f, latencyP99Ms = 0.f;
  bool live = false;  // low-latency handling of a live input
  // The chain's element rows, found or added by label (UI path: adding allocates once).
  StageStats& element(const std::string& label);
  // The timing rows in pipeline order: upload, convert, the elements, download, present,
  // encode, and last the latency (arrival -> shown).
  std::vector<const StageStats*> timingRows() const;

  // Processing: one line per element of the chain, and the compare view.
  struct ChainLine {
    std::string label;    // "kmeans#2"
    std::string options;  // "k=8 iterations=20 ..."
    std::string metrics;  // of the frame shown: "iterations 6, cost 1.2e+06"
    bool enabled = true;
  };
  std::vector<ChainLine> chain;
  CompareMode compare = CompareMode::Off;
  float split = 0.5f;        // compare line, fraction of the width
  std::string backend;       // "cuda" or "cpu"
  std::string gpuName;       // device name, empty on the CPU backend

  // Input.
  int inputWidth = 0;       // pixels
  int inputHeight = 0;      // pixels
  std::string pixelFormat;  // "yuv420p", "nv12", ...
  std::string codec;        // "h264", "rawvideo", ...
  std::string decodePath;   // "nvdec" or "software"
  std::string surface;      // layout the converter reads: "nv12", "p010le", "yuv420p10le", ...
  std::string colorMatrix;  // "bt709", "bt601 (guessed: ...)", ...
  std::string hdr;          // "" for SDR, else "PQ (smpte2084), shown without tone mapping" ...
  double inputFps = 0.0;    // nominal frames/s of the input
  double positionS = 0.0;   // seconds, presentation time of the frame shown
  double durationS = 0.0;   // seconds; 0 = live source
  bool paused = false;

  // Sound (window playback); audio empty: the input has none.
  std::string audio;            // "aac 48000 Hz stereo -> pulseaudio 48000 Hz 2 ch", or why none
  int volume = 100;             // percent
  bool muted = false;
  float avDiffMs = 0.f;         // latest frame shown minus the audio clock
  float avDiffMaxMs = 0.f;      // largest |A-V| since the start
  uint64_t audioUnderruns = 0;  // device callbacks that ran dry

  // One status message ("screenshot saved: /path.png"), shown for Hud::kStatusSeconds after it
  // changes or statusSerial is bumped (bump it to show the same text again).
  std::string status;
  uint32_t statusSerial = 0;
};

// "1:02:03.4", "02:03.4": position / duration text for the HUD.
std::string formatClock(double seconds);

}  // namespace vp
