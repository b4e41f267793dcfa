#include "app/player/stats.h"

#include "app/input/commands.h"

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

const TimeStats* ElementStats::metric(std::string_view name) const {
  for (const auto& [n, st] : metrics)
    if (n == name) return &st;
  return nullptr;
}

const ElementStats* RunStats::element(std::string_view label) const {
  for (const ElementStats& e : elements)
    if (e.label == label) return &e;
  return nullptr;
}

void RunStats::addFrame(const OutputFrame& f) {
  ++framesProcessed;
  for (int i = 0; i < kStageCount; ++i) stages[size_t(i)].add(f.times.ms[size_t(i)]);
  const FilterChain& chain = f.params.chain;
  for (int i = 0; i < chain.size(); ++i) {
    const ElementResult& r = f.chain[size_t(i)];
    if (r.ms < 0) continue;  // toggled off
    const std::string label = elementLabel(chain, i);
    auto e = std::find_if(elements.begin(), elements.end(), [&](const ElementStats& x) { return x.label == label; });
    if (e == elements.end()) e = elements.insert(elements.end(), ElementStats{label, {}, {}});
    e->ms.add(r.ms);
    for (const FilterMetric& m : r.metrics) {
      if (!m.name) continue;
      auto it = std::find_if(e->metrics.begin(), e->metrics.end(), [&](const auto& x) { return x.first == m.name; });
      if (it == e->metrics.end()) it = e->metrics.insert(e->metrics.end(), {m.name, TimeStats{}});
      it->second.add(m.value);
    }
  }
  finalParams = f.params;
}

double RunStats::addLatency(const FrameTrip& trip, int64_t shownUs) {
  LatencySample sample;
  if (!latencySample(trip, shownUs, sample)) return -1;
  latencyMs.add(sample.totalMs);
  for (int i = 0; i < kLatencyPartCount; ++i) latencyParts[size_t(i)].add(sample.partMs[size_t(i)]);
  return sample.totalMs;
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
  if (s.latencyMs.count()) {
    std::snprintf(line, sizeof line, "latency    p50 %.1f ms, p95 %.1f, p99 %.1f, max %.1f over %lld frames (arrival -> %s%s)\n",
                  s.latencyMs.percentileMs(0.5), s.latencyMs.percentileMs(0.95), s.latencyMs.percentileMs(0.99),
                  s.latencyMs.maxMs(), (long long)s.latencyMs.count(), s.stages[size_t(Stage::Present)].count() ? "shown" : "written",
                  s.live ? ", live" : "");
    out += line;
    out += "           mean ms:";
    for (int i = 0; i < kLatencyPartCount; ++i) {
      std::snprintf(line, sizeof line, " %s %.2f", std::string(latencyPartName(LatencyPart(i))).c_str(),
                    s.latencyParts[size_t(i)].meanMs());
      out += line;
    }
    out += "\n";
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
  out += "chain      " + describeParams(s.finalParams) + "\n";
  for (const ElementStats& e : s.elements)
    if (const TimeStats* it = e.metric("iterations")) {
      std::snprintf(line, sizeof line, "%-10s %lld frames, mean iterations %.2f\n", e.label.c_str(),
                    (long long)it->count(), it->meanMs());
      out += line;
    }
  std::snprintf(line, sizeof line, "%-10s %8s %10s %10s %10s %10s\n", "stage", "frames", "mean ms", "p50 ms",
                "p99 ms", "max ms");
  out += line;
  const auto row = [&](const std::string& name, const TimeStats& st) {
    if (!st.count()) return;
    std::snprintf(line, sizeof line, "%-10s %8lld %10.4f %10.4f %10.4f %10.4f\n", name.c_str(), (long long)st.count(),
                  st.meanMs(), st.percentileMs(0.5), st.percentileMs(0.99), st.maxMs());
    out += line;
  };
  // Pipeline order: the chain's elements run between convert and download.
  for (Stage st : {Stage::Upload, Stage::Convert}) row(std::string(stageName(st)), s.stages[size_t(st)]);
  for (const ElementStats& e : s.elements) row(e.label, e.ms);
  for (Stage st : {Stage::Download, Stage::Present, Stage::Encode}) row(std::string(stageName(st)), s.stages[size_t(st)]);
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
  const auto timeJson = [](const TimeStats& st) {
    return nlohmann::json{{"frames", st.count()},
                          {"mean_ms", st.meanMs()},
                          {"p50_ms", st.percentileMs(0.5)},
                          {"p99_ms", st.percentileMs(0.99)},
                          {"max_ms", st.maxMs()}};
  };
  nlohmann::json stages = nlohmann::json::object();
  for (int i = 0; i < kStageCount; ++i)
    if (s.stages[size_t(i)].count()) stages[std::string(stageName(Stage(i)))] = timeJson(s.stages[size_t(i)]);
  j["stages_ms"] = stages;
  if (s.latencyMs.count()) {
    // Arrival (the demuxer returned the packet) -> shown (window, after the swap) or written.
    const auto withP95 = [&](const TimeStats& st) {
      nlohmann::json t = timeJson(st);
      t["p95_ms"] = st.percentileMs(0.95);
      return t;
    };
    nlohmann::json latency = withP95(s.latencyMs);
    latency["live"] = s.live;
    nlohmann::json parts = nlohmann::json::object();
    for (int i = 0; i < kLatencyPartCount; ++i)
      parts[std::string(latencyPartName(LatencyPart(i)))] = withP95(s.latencyParts[size_t(i)]);
    latency["breakdown_ms"] = parts;
    j["latency"] = latency;
  }
  // The chain in force at the end, each element with its options and, when it ran, its
  // times and metrics over the run (summed by label: "kmeans#2" is whatever held place 2
  // as a kmeans).
  const ProcessParams& p = s.finalParams;
  nlohmann::json chain = nlohmann::json::array();
  for (int i = 0; i < p.chain.size(); ++i) {
    const FilterElement& e = p.chain[i];
    nlohmann::json options = nlohmann::json::object();
    for (int o = 0; o < e.filter().optionCount; ++o) {
      const OptionInfo& info = e.filter().option(o);
      if (info.type == OptionType::Choice || (info.zeroName && e.value(o) == 0))  // "kmeans++", k "auto"
        options[info.name] = formatOptionValue(info, e.value(o));
      else if (info.type == OptionType::Float) options[info.name] = e.value(o);
      else options[info.name] = int64_t(e.value(o));
    }
    const std::string label = elementLabel(p.chain, i);
    nlohmann::json row = {{"label", label}, {"name", std::string(e.name())}, {"enabled", e.enabled()},
                          {"options", options}};
    if (const ElementStats* st = s.element(label)) {
      row["ms"] = timeJson(st->ms);
      nlohmann::json metrics = nlohmann::json::object();
      for (const auto& [name, m] : st->metrics)
        metrics[name] = {{"mean", m.meanMs()}, {"max", m.maxMs()}, {"last", m.lastMs()}};
      row["metrics"] = metrics;
    }
    chain.push_back(row);
  }
  j["chain"] = chain;
  j["params"] = {{"vf", formatChain(p.chain)}, {"compare", std::string(compareModeName(p.compare))},
                 {"split", p.split}};
  return j.dump(2);
}

void writeStatsJson(const RunStats& s, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write stats to '" + path + "'");
  f << statsJson(s) << "\n";
  if (!f) throw std::runtime_error("cannot write stats to '" + path + "'");
}

}  // namespace vp
