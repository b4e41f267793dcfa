#include "app/player/feeder.h"

#include <chrono>
#include <thread>

namespace vp {

Feeder::Feeder(Source& source, FrameQueue& queue, Processor& processor)
    : source_(source), queue_(queue), processor_(processor) {}

bool Feeder::feed(const ProcessParams& params) {
  bool progressed = false;
  if (pending_ && processor_.inputReleased(*pending_, false)) {
    queue_.pop();
    pending_.reset();
    progressed = true;
  }
  // Only the oldest queued frame can be peeked, so one upload is pending at a time;
  // uploads are short next to downloads, which bound the rate.
  if (pending_ || eos_ || !feeding_) return progressed;
  HostFrame* f = queue_.tryPeekReadable();
  if (!f) return progressed;
  if (f->info.endOfStream) {
    queue_.pop();
    eos_ = true;
    return true;
  }
  if (f->info.serial != source_.serial()) {  // from before a seek
    queue_.pop();
    return true;
  }
  if (queue_.size() > 1 && (newestOnly_ || (late_ && late_(f->info.ptsUs)))) {
    queue_.pop();
    ++skipped_;
    return true;
  }
  InputFrame in;
  in.data = f->data();
  in.layout = f->info.layout;
  in.color = f->info.color;
  in.ptsUs = f->info.ptsUs;
  in.device = f->info.device;
  const int64_t submittedUs = steadyMicros();
  if (auto ticket = processor_.submit(in, params)) {
    if (serials_.empty() || serials_.back().second != f->info.serial) serials_.emplace_back(*ticket, f->info.serial);
    FrameTrip trip;
    trip.arrivalUs = f->info.arrivalUs;
    trip.decodedUs = f->info.decodedUs;
    trip.submittedUs = submittedUs;
    trips_.emplace_back(*ticket, trip);
    pending_ = ticket;
    lastTicket_ = *ticket;
    ++framesIn_;
    return true;
  }
  return progressed;
}

uint32_t Feeder::serialOf(uint64_t ticket) {
  while (serials_.size() > 1 && serials_[1].first <= ticket) serials_.pop_front();
  return serials_.empty() ? 0 : serials_.front().second;
}

FrameTrip Feeder::takeTrip(uint64_t ticket) {
  while (!trips_.empty() && trips_.front().first < ticket) trips_.pop_front();
  if (trips_.empty() || trips_.front().first != ticket) return {};
  const FrameTrip trip = trips_.front().second;
  trips_.pop_front();
  return trip;
}

void Feeder::waitForWork() {
  if (pending_) {
    processor_.inputReleased(*pending_, true);
  } else if (processor_.inFlight() > 0 && queue_.size() > 0) {
    processor_.poll(true);  // slots full (or a layout change draining): wait for the oldest
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(100));  // waiting on the decoder
  }
}

void Feeder::settle() {
  if (!pending_) return;
  processor_.inputReleased(*pending_, true);
  queue_.pop();
  pending_.reset();
}

bool Feeder::finished() const {
  return (eos_ || !feeding_) && !pending_ && processor_.inFlight() == 0;
}

}  // namespace vp
