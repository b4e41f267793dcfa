#include "io/frame_queue.h"

#include <stdexcept>
#include <utility>

namespace vp {

HostAllocator HostAllocator::plain() {
  return {[](size_t bytes) -> void* { return new uint8_t[bytes]; },
          [](void* p) { delete[] static_cast<uint8_t*>(p); }};
}

FrameQueue::FrameQueue(int capacity, const HostAllocator& alloc, bool dropOldestWhenFull)
    : dropOldest_(dropOldestWhenFull) {
  if (capacity < 1) throw std::invalid_argument("FrameQueue: capacity must be at least 1");
  frames_.reserve(size_t(capacity));
  for (int i = 0; i < capacity; ++i) frames_.push_back(std::make_unique<HostFrame>(alloc));
}

// Removes the unread entry `k` places after the head (k >= 1) by moving the
// later entries (and the producer's slot) down one place; the removed frame's
// buffer becomes the last slot of the ring. Frame objects never move, only the
// owning pointers, so pointers handed out stay valid. Caller holds mutex_.
void FrameQueue::removeAfterHead(int k) {
  const int n = capacity();
  for (int i = k; i < n - 1; ++i) std::swap(frames_[(read_ + i) % n], frames_[(read_ + i + 1) % n]);
}

HostFrame* FrameQueue::peekWritable() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (aborted_) return nullptr;
    if (size_ < capacity()) break;
    if (dropOldest_) {
      if (!peeked_) {  // drop the head
        read_ = (read_ + 1) % capacity();
        --size_;
        ++dropped_;
        break;
      }
      if (size_ >= 2) {  // the consumer holds the head: drop the next oldest
        removeAfterHead(1);
        --size_;
        ++dropped_;
        break;
      }
    }
    cond_.wait(lock);
  }
  return frames_[(read_ + size_) % capacity()].get();
}

void FrameQueue::push() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (aborted_ || size_ >= capacity()) return;
    ++size_;
    ++pushes_;
  }
  cond_.notify_all();
}

HostFrame* FrameQueue::peekReadable() {
  std::unique_lock<std::mutex> lock(mutex_);
  cond_.wait(lock, [&] { return aborted_ || size_ > 0; });
  if (aborted_) return nullptr;
  peeked_ = true;
  return frames_[read_].get();
}

HostFrame* FrameQueue::tryPeekReadable() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (aborted_ || size_ == 0) return nullptr;
  peeked_ = true;
  return frames_[read_].get();
}

uint64_t FrameQueue::pushes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pushes_;
}

bool FrameQueue::waitPush(uint64_t since, std::chrono::microseconds most) {
  std::unique_lock<std::mutex> lock(mutex_);
  return cond_.wait_for(lock, most, [&] { return aborted_ || pushes_ != since; }) && !aborted_;
}

void FrameQueue::pop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (size_ == 0) return;
    read_ = (read_ + 1) % capacity();
    --size_;
    peeked_ = false;
  }
  cond_.notify_all();
}

void FrameQueue::abort() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
  }
  cond_.notify_all();
}

void FrameQueue::flush() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (peeked_ && size_ > 0) {
      // Keep the head the consumer is using; it pops it as usual. The producer's
      // slot (after the unread entries) moves down to follow it.
      // (A full ring has no producer slot: the producer waits in peekWritable.)
      if (size_ > 1 && size_ < capacity())
        std::swap(frames_[(read_ + 1) % capacity()], frames_[(read_ + size_) % capacity()]);
      size_ = 1;
    } else {
      read_ = (read_ + size_) % capacity();
      size_ = 0;
    }
  }
  cond_.notify_all();
}

int FrameQueue::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return size_;
}

int64_t FrameQueue::dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

}  // namespace vp
