// A fixed ring of preallocated HostFrames between the decode thread (producer)
// and the main thread (consumer), after ffplay's FrameQueue.
//
// Producer: peekWritable() blocks until a slot is free (or abort), fill it, push().
// Consumer: peekReadable() blocks (or tryPeekReadable() polls), use the frame,
// pop() once the frame's memory is no longer needed (e.g. its upload finished).
// abort() wakes both sides; after it every wait returns nullptr.
// Low-latency mode (live sources): when full, the producer overwrites nothing but
// drops the oldest unread frame instead of blocking (newest frame wins); counted.
// A frame the consumer has peeked (and not yet popped) is never dropped, flushed
// or handed to the producer, so its memory (host, or the device copy of a hardware
// decoder's picture) stays valid until pop().
// Every method is thread-safe; one producer thread and one consumer thread.
#pragma once

#include "io/frame.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

namespace vp {

class FrameQueue {
 public:
  FrameQueue(int capacity, const HostAllocator& alloc, bool dropOldestWhenFull = false);

  // Producer side.
  HostFrame* peekWritable();  // nullptr after abort()
  void push();

  // Consumer side.
  HostFrame* peekReadable();  // blocks; nullptr after abort()
  HostFrame* tryPeekReadable();  // never blocks; nullptr if empty
  // Frames pushed so far; waitPush(since, most) waits at most `most` until a push after
  // that count (true: at once if one came already), false on timeout or abort. A consumer
  // that polls sleeps on it instead of a fixed interval and wakes the moment a frame comes.
  uint64_t pushes() const;
  bool waitPush(uint64_t since, std::chrono::microseconds most);
  void pop();

  void abort();
  // Drops every unread frame (after a seek) except a head the consumer has
  // peeked; the producer may be mid-fill, which is kept. Either side may call it.
  void flush();
  int size() const;        // unread frames
  int capacity() const { return int(frames_.size()); }
  int64_t dropped() const; // frames discarded in drop-oldest mode

 private:
  std::vector<std::unique_ptr<HostFrame>> frames_;
  const bool dropOldest_;
  void removeAfterHead(int k);

  mutable std::mutex mutex_;  // guards frames_' order, read_, size_, peeked_, aborted_, dropped_, pushes_
  std::condition_variable cond_;  // both sides wait on it; every state change notifies all
  int read_ = 0;   // index of the oldest unread frame
  int size_ = 0;   // unread frames (the peeked head included)
  bool peeked_ = false;  // the consumer holds frames_[read_] until pop()
  bool aborted_ = false;
  int64_t dropped_ = 0;
  uint64_t pushes_ = 0;  // frames pushed since construction
};

}  // namespace vp
