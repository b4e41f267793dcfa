// Latency: how long after its packet arrived each frame reached the user, and where the
// time went. A frame's trip is stamped as it goes (steadyNowUs microseconds): the demuxer
// returns its packet (arrival), the decoder queues the frame, the feeder submits it, the
// processor hands it back, the player begins to show or write it, and it is shown (the
// window: after the buffer swap) or written (headless: after the encoder took it).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace vp {

struct FrameTrip {
  int64_t arrivalUs = 0;    // the demuxer returned the frame's packet; 0: not known (synthetic input)
  int64_t decodedUs = 0;    // the decoder queued the frame
  int64_t submittedUs = 0;  // the feeder handed it to the processor
  int64_t processedUs = 0;  // the processor handed it back (the player polled it)
  int64_t presentedUs = 0;  // the player decided to show / write it
};

// The parts of arrival -> shown, in trip order.
enum class LatencyPart : uint8_t {
  Decode,   // arrival -> decoded: the packet queue and the decoder
  Queue,    // decoded -> submitted: the frame queue (waiting for a free slot)
  Process,  // submitted -> processed: upload, convert, the chain, download, and waiting for them
  Wait,     // processed -> presented: pacing to the timestamp (files), a seek's discard
  Present,  // presented -> shown: texture upload and the buffer swap, or the encoder's write
};
inline constexpr int kLatencyPartCount = 5;
std::string_view latencyPartName(LatencyPart part);  // "decode", "queue", ...

// A finished trip's parts and total in milliseconds; false when its arrival is unknown.
struct LatencySample {
  double totalMs = 0;
  std::array<double, kLatencyPartCount> partMs{};
};
bool latencySample(const FrameTrip& trip, int64_t shownUs, LatencySample& out);

}  // namespace vp
