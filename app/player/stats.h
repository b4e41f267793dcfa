// Run statistics: per-stage time distributions and frame counters, printed as a
// table at the end of a headless run and written as JSON (--stats-json).
#pragma once

#include "app/player/latency.h"
#include "gpu/processor.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vp {

// Distribution of one stage's times in constant memory: exact count, mean and max,
// percentiles from a log-spaced histogram (bins 1% wide from 0.1 us to 10 s).
class TimeStats {
 public:
  void add(double ms);
  int64_t count() const { return count_; }
  double meanMs() const { return count_ ? sumMs_ / double(count_) : 0; }
  double maxMs() const { return maxMs_; }
  double lastMs() const { return lastMs_; }
  // The q-quantile (0..1), to within one bin (1%).
  double percentileMs(double q) const;

 private:
  static constexpr int kBins = 1852;         // log(1e5 ms / 1e-4 ms) / log(1.0115)
  static constexpr double kMinMs = 1e-4;
  static constexpr double kGrowth = 1.0115;  // ratio between neighbouring bin edges
  std::vector<uint32_t> bins_ = std::vector<uint32_t>(kBins, 0);
  int64_t count_ = 0;
  double sumMs_ = 0;
  double maxMs_ = 0;
  double lastMs_ = 0;
};

// One chain element's figures over a run, by its label ("kmeans#2"): GPU / CPU time per
// frame and each metric it reports (iterations, cost, reinit), as plain numbers.
struct ElementStats {
  std::string label;
  TimeStats ms;
  std::vector<std::pair<std::string, TimeStats>> metrics;  // in the order first reported
  const TimeStats* metric(std::string_view name) const;
};

struct RunStats {
  int64_t framesIn = 0;         // frames the source delivered
  int64_t framesProcessed = 0;  // frames that came out of the processor
  int64_t droppedLate = 0;      // not presented: too late for their timestamp
  int64_t droppedQueue = 0;     // discarded by a full live queue (newest wins)
  int64_t decodeErrors = 0;
  double wallSeconds = 0;
  std::array<TimeStats, kStageCount> stages;  // indexed by Stage (gpu/processor.h)
  std::vector<ElementStats> elements;  // the chain's elements that ran, by label, in the order first seen
  // Arrival -> shown (window) or written (headless) per frame, and its parts (app/player/latency.h).
  TimeStats latencyMs;
  std::array<TimeStats, kLatencyPartCount> latencyParts;  // indexed by LatencyPart
  bool live = false;            // the input ran with low-latency handling (--latency)
  TimeStats queueDepth;         // decoded frames waiting, sampled at each processed frame (plain numbers)
  int queueCapacity = 0;        // frames the decode queue holds
  int64_t controlCommands = 0;  // --control: commands received
  int64_t controlRejected = 0;  // --control: bad lines ignored
  std::string backend, device, input;
  std::string audio;            // window sound: "aac 48000 Hz stereo -> pulseaudio 48000 Hz 2 ch", or why none
  TimeStats avDiffMs;           // |frame shown - audio clock| per frame shown, ms (window with sound)
  int64_t audioUnderruns = 0;   // device callbacks that ran dry while playing
  int64_t audioDamaged = 0;     // audio packets that failed to decode (skipped)
  ProcessParams finalParams;
  double cpuSeconds = 0;        // process user + system CPU time over the run (getrusage), seconds
  // From the source at the end (SourceInfo): "nvdec" / "software", the layout the
  // converter read ("p010le" ...), the colour matrix used and an HDR note ("" for SDR).
  std::string decodePath, surfaceFormat, colorMatrix, hdr;

  // Adds one processed frame's stage and element times and metrics.
  void addFrame(const OutputFrame& frame);
  // Adds the latency of a frame shown or written at shownUs; returns it in ms, or a
  // negative value (nothing added) when its arrival is not known.
  double addLatency(const FrameTrip& trip, int64_t shownUs);
  const ElementStats* element(std::string_view label) const;
  double fps() const { return wallSeconds > 0 ? double(framesProcessed) / wallSeconds : 0; }
  // CPU milliseconds per processed frame (0 before any frame).
  double cpuMsPerFrame() const { return framesProcessed > 0 ? cpuSeconds * 1e3 / double(framesProcessed) : 0; }
};

// User + system CPU seconds this process has used so far (getrusage RUSAGE_SELF).
double processCpuSeconds();

// A human table (stages x mean/p50/p99/max) with the counters above it.
std::string formatSummary(const RunStats& stats);
// JSON document with the same content; throws std::runtime_error if it cannot write.
void writeStatsJson(const RunStats& stats, const std::string& path);
std::string statsJson(const RunStats& stats);

}  // namespace vp
