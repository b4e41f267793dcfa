#include "app/player/latency.h"

#include <algorithm>

namespace vp {

std::string_view latencyPartName(LatencyPart part) {
  switch (part) {
    case LatencyPart::Decode: return "decode";
    case LatencyPart::Queue: return "queue";
    case LatencyPart::Process: return "process";
    case LatencyPart::Wait: return "wait";
    case LatencyPart::Present: return "present";
  }
  return "?";
}

bool latencySample(const FrameTrip& t, int64_t shownUs, LatencySample& out) {
  if (t.arrivalUs <= 0 || shownUs < t.arrivalUs) return false;
  // Each stamp no earlier than the one before (a missing stamp counts as the one before),
  // so the parts are never negative and add up to the total.
  const int64_t stamps[] = {t.arrivalUs, t.decodedUs, t.submittedUs, t.processedUs, t.presentedUs, shownUs};
  int64_t previous = stamps[0];
  for (int i = 0; i < kLatencyPartCount; ++i) {
    const int64_t next = std::clamp(stamps[i + 1] > 0 ? stamps[i + 1] : previous, previous, shownUs);
    out.partMs[size_t(i)] = double(next - previous) * 1e-3;
    previous = next;
  }
  out.totalMs = double(shownUs - t.arrivalUs) * 1e-3;
  return true;
}

}  // namespace vp
