#include "app/player/stats.h"

#include <nlohmann/json.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace vp {

void TimeStats::add(double ms) {
  if (!(ms >= 0)) return;  // stage did not run (negative) or NaN
  const int bin = ms <= kMinMs ? 0 : std::min(kBins - 1, int(std::log(ms / kMinMs) / std::log(kGrowth)));
  ++bins_[size_t(bin)];
  ++count_;
  sumMs_ += ms;
  maxMs_ = std::max(maxMs_, ms);
  lastMs_ = ms;
}

double TimeStats::percentileMs(double q) const {
  if (count_ == 0) return 0;
  const int64_t rank = std::max<int64_t>(1, int64_t(std::ceil(q * double(count_))));
  int64_t seen = 0;
  for (int b = 0; b < kBins; ++b) {
    seen += bins_[size_t(b)];
    if (seen >= rank) {
      // The bin's geometric centre, clamped to the exact maximum.
      return std::min(maxMs_, kMinMs * std::pow(kGrowth, b + 0.5));
    }
  }
  return maxMs_;
}

double processCpuSeconds() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

void RunStats::addFrame(const OutputFrame& f) {
  ++framesProcessed;
  for (int i = 0; i < kStageCount; ++i) stages[size_t(i)].add(f.times.ms[size_t(i)]);
  if (f.kmeansIterations > 0) kmeansIterations.add(f.kmeansIterations);
  finalParams = f.params;
}

std::string formatSummary(const RunStats& s) {
  std::string out;
  char line[256];
  out += "input      " + s.input + "\nbackend    " + s.backend + " (" + s.device + ")\n";
  std::snprintf(line, sizeof line,
                "frames     %lld in, %lld processed, %lld dropped (late %lld, queue %lld), %lld decode errors\n",
                (long long)s.framesIn, (long long)s.framesProcessed, (long long)(s.droppedLate + s.droppedQueue),
                (long long)s.droppedLate, (long long)s.droppedQueue, (long long)s.decodeErrors);
  out += line;
  std::snprintf(line, sizeof line, "rate       %.1f frames/s over %.2f s\n", s.fps(), s.wallSeconds);
  out += line;
  if (s.cpuSeconds > 0) {
    std::snprintf(line, sizeof line, "cpu        %.3f ms per frame (user + system %.2f s, %.2f cores busy)\n",
                  s.cpuMsPerFrame(), s.cpuSeconds, s.wallSeconds > 0 ? s.cpuSeconds / s.wallSeconds : 0.0);
    out += line;
  }
  if (!s.decodePath.empty())
    out += "decode     " + s.decodePath + (s.surfaceFormat.empty() ? "" : ", " + s.surfaceFormat) +
           (s.colorMatrix.empty() ? "" : ", " + s.colorMatrix) + (s.hdr.empty() ? "" : "; HDR " + s.hdr) + "\n";
  if (s.queueDepth.count()) {
    std::snprintf(line, sizeof line, "queue      depth mean %.2f, max %.0f of %d\n", s.queueDepth.meanMs(),
                  s.queueDepth.maxMs(), s.queueCapacity);
    out += line;
  }
  if (s.controlCommands || s.controlRejected) {
    std::snprintf(line, sizeof line, "control    %lld commands, %lld ignored\n", (long long)s.controlCommands,
                  (long long)s.controlRejected);
    out += line;
  }
  if (!s.audio.empty()) {
    out += "audio      " + s.audio + "\n";
    if (s.avDiffMs.count()) {
      std::snprintf(line, sizeof line, "a-v        mean %.1f ms, max %.1f ms over %lld frames; %lld underruns\n",
                    s.avDiffMs.meanMs(), s.avDiffMs.maxMs(), (long long)s.avDiffMs.count(),
                    (long long)s.audioUnderruns);
      out += line;
    }
  }
  if (s.kmeansIterations.count())
    out += "k-means    " + std::to_string(s.kmeansIterations.count()) + " frames, mean iterations " +
           std::to_string(s.kmeansIterations.meanMs()).substr(0, 5) + "\n";
  std::snprintf(line, sizeof line, "%-10s %8s %10s %10s %10s %10s\n", "stage", "frames", "mean ms", "p50 ms",
                "p99 ms", "max ms");
  out += line;
  for (int i = 0; i < kStageCount; ++i) {
    const TimeStats& st = s.stages[size_t(i)];
    if (!st.count()) continue;
    std::snprintf(line, sizeof line, "%-10s %8lld %10.4f %10.4f %10.4f %10.4f\n",
                  std::string(stageName(Stage(i))).c_str(),
                  (long long)st.count(), st.meanMs(), st.percentileMs(0.5), st.percentileMs(0.99), st.maxMs());
    out += line;
  }
  return out;
}

std::string statsJson(const RunStats& s) {
  nlohmann::json j;
  j["input"] = s.input;
  j["backend"] = s.backend;
  j["device"] = s.device;
  j["frames"] = {{"in", s.framesIn},
                 {"processed", s.framesProcessed},
                 {"dropped", s.droppedLate + s.droppedQueue},
                 {"dropped_late", s.droppedLate},
                 {"dropped_queue", s.droppedQueue},
                 {"decode_errors", s.decodeErrors}};
  j["queue"] = {{"capacity", s.queueCapacity},
                {"depth_mean", s.queueDepth.meanMs()},
                {"depth_max", s.queueDepth.maxMs()},
                {"depth_last", s.queueDepth.lastMs()}};
  j["control"] = {{"commands", s.controlCommands}, {"rejected", s.controlRejected}};
  if (!s.audio.empty())
    j["audio"] = {{"stream", s.audio},
                  {"av_diff_frames", s.avDiffMs.count()},
                  {"av_diff_mean_ms", s.avDiffMs.count() ? s.avDiffMs.meanMs() : 0.0},
                  {"av_diff_max_ms", s.avDiffMs.count() ? s.avDiffMs.maxMs() : 0.0},
                  {"underruns", s.audioUnderruns},
                  {"damaged_packets", s.audioDamaged}};
  j["fps"] = s.fps();
  j["cpu"] = {{"seconds", s.cpuSeconds}, {"ms_per_frame", s.cpuMsPerFrame()}};
  j["decode"] = {{"path", s.decodePath}, {"surface", s.surfaceFormat}, {"matrix", s.colorMatrix}, {"hdr", s.hdr}};
  j["wall_seconds"] = s.wallSeconds;
  nlohmann::json stages = nlohmann::json::object();
  for (int i = 0; i < kStageCount; ++i) {
    const TimeStats& st = s.stages[size_t(i)];
    if (!st.count()) continue;
    stages[std::string(stageName(Stage(i)))] = {{"frames", st.count()},
                            {"mean_ms", st.meanMs()},
                            {"p50_ms", st.percentileMs(0.5)},
                            {"p99_ms", st.percentileMs(0.99)},
                            {"max_ms", st.maxMs()}};
  }
  j["stages_ms"] = stages;
  const ProcessParams& p = s.finalParams;
  j["params"] = {{"mode", std::string(modeName(p.mode))},
                 {"k", p.kmeans.k},
                 {"radius", p.blur.radius},
                 {"passes", p.blur.passes},
                 {"border", std::string(borderModeName(p.blur.border))},
                 {"iterations", p.kmeans.maxIterations},
                 {"epsilon", p.kmeans.epsilon}};
  if (s.kmeansIterations.count())
    j["kmeans_iterations"] = {{"mean", s.kmeansIterations.meanMs()}, {"max", s.kmeansIterations.maxMs()}};
  return j.dump(2);
}

void writeStatsJson(const RunStats& s, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write stats to '" + path + "'");
  f << statsJson(s) << "\n";
  if (!f) throw std::runtime_error("cannot write stats to '" + path + "'");
}

}  // namespace vp
