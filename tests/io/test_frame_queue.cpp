// FrameQueue: ordering across threads, blocking, abort, flush, drop-oldest mode.
#include "io/frame_queue.h"
#include "support/clips.h"
#include "support/threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

namespace vp {
namespace {

using namespace std::chrono_literals;

// The id of a thread that has published it, waiting for it to do so.
pid_t awaitId(const std::atomic<pid_t>& id) {
  while (id.load() == 0) std::this_thread::yield();
  return id.load();
}

// Producer side in one call: fills the writable slot with index `i` and pushes.
bool pushIndex(FrameQueue& q, int64_t i) {
  HostFrame* f = q.peekWritable();
  if (!f) return false;
  f->reserve(16);
  f->data()[0] = uint8_t(i);
  f->info = FrameInfo{};
  f->info.index = i;
  q.push();
  return true;
}

int64_t popIndex(FrameQueue& q) {
  HostFrame* f = q.tryPeekReadable();
  if (!f) return -1;
  const int64_t i = f->info.index;
  q.pop();
  return i;
}

TEST(FrameQueue, ProducerConsumerKeepOrder) {
  test::Watchdog dog(30, "FrameQueue order");
  FrameQueue q(3, HostAllocator::plain());
  constexpr int kFrames = 500;
  std::thread producer([&] {
    for (int i = 0; i < kFrames; ++i) ASSERT_TRUE(pushIndex(q, i));
  });
  for (int i = 0; i < kFrames; ++i) {
    HostFrame* f = q.peekReadable();
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->info.index, i);
    EXPECT_EQ(f->data()[0], uint8_t(i));
    EXPECT_LE(q.size(), q.capacity());
    q.pop();
  }
  producer.join();
  EXPECT_EQ(q.size(), 0);
  EXPECT_EQ(q.dropped(), 0);
}

TEST(FrameQueue, ProducerBlocksWhenFull) {
  test::Watchdog dog(30, "FrameQueue full");
  FrameQueue q(2, HostAllocator::plain());
  ASSERT_TRUE(pushIndex(q, 0));
  ASSERT_TRUE(pushIndex(q, 1));
  std::atomic<bool> got{false};
  std::atomic<pid_t> id{0};
  std::thread producer([&] {
    id = test::currentThreadId();
    EXPECT_NE(q.peekWritable(), nullptr);
    got = true;
    q.push();
  });
  // Asleep in the kernel while nobody else touches the queue: it waits inside peekWritable.
  EXPECT_TRUE(test::waitUntilBlocked(awaitId(id), 10)) << "the producer never blocked";
  EXPECT_FALSE(got) << "peekWritable returned while the queue was full";
  EXPECT_EQ(popIndex(q), 0);
  producer.join();
  EXPECT_TRUE(got);
  EXPECT_EQ(q.size(), 2);
}

TEST(FrameQueue, AbortWakesBothSides) {
  test::Watchdog dog(30, "FrameQueue abort");
  FrameQueue empty(2, HostAllocator::plain());
  FrameQueue full(1, HostAllocator::plain());
  ASSERT_TRUE(pushIndex(full, 0));
  std::atomic<pid_t> consumerId{0}, producerId{0};
  auto consumer = std::async(std::launch::async, [&] {
    consumerId = test::currentThreadId();
    return empty.peekReadable();
  });
  auto producer = std::async(std::launch::async, [&] {
    producerId = test::currentThreadId();
    return full.peekWritable();
  });
  ASSERT_TRUE(test::waitUntilBlocked(awaitId(consumerId), 10)) << "the consumer never blocked";
  ASSERT_TRUE(test::waitUntilBlocked(awaitId(producerId), 10)) << "the producer never blocked";
  EXPECT_EQ(consumer.wait_for(0ms), std::future_status::timeout);
  EXPECT_EQ(producer.wait_for(0ms), std::future_status::timeout);
  empty.abort();
  full.abort();
  ASSERT_EQ(consumer.wait_for(5s), std::future_status::ready);
  ASSERT_EQ(producer.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(consumer.get(), nullptr);
  EXPECT_EQ(producer.get(), nullptr);
  // After abort every wait returns at once.
  EXPECT_EQ(full.peekReadable(), nullptr);
  EXPECT_EQ(full.tryPeekReadable(), nullptr);
  EXPECT_EQ(empty.peekWritable(), nullptr);
}

TEST(FrameQueue, FlushDropsUnreadFrames) {
  FrameQueue q(4, HostAllocator::plain());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pushIndex(q, i));
  q.flush();
  EXPECT_EQ(q.size(), 0);
  EXPECT_EQ(q.tryPeekReadable(), nullptr);
  for (int i = 10; i < 14; ++i) ASSERT_TRUE(pushIndex(q, i));  // the whole ring is usable again
  for (int i = 10; i < 14; ++i) EXPECT_EQ(popIndex(q), i);
}

TEST(FrameQueue, FlushKeepsPeekedHeadAndProducerSlot) {
  FrameQueue q(4, HostAllocator::plain());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pushIndex(q, i));
  HostFrame* head = q.tryPeekReadable();  // the consumer is using frame 0
  ASSERT_NE(head, nullptr);
  HostFrame* filling = q.peekWritable();  // the producer is mid-fill
  filling->info.index = 42;
  q.flush();
  EXPECT_EQ(q.size(), 1);
  EXPECT_EQ(head->info.index, 0);
  q.push();  // the producer finishes its frame after the flush
  EXPECT_EQ(popIndex(q), 0);
  EXPECT_EQ(popIndex(q), 42);
  EXPECT_EQ(q.size(), 0);
}

TEST(FrameQueue, DropOldestKeepsTheNewest) {
  test::Watchdog dog(30, "FrameQueue drop-oldest");
  FrameQueue q(3, HostAllocator::plain(), /*dropOldestWhenFull=*/true);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(pushIndex(q, i));  // never blocks
  EXPECT_EQ(q.dropped(), 7);
  EXPECT_EQ(q.size(), 3);
  EXPECT_EQ(popIndex(q), 7);
  EXPECT_EQ(popIndex(q), 8);
  EXPECT_EQ(popIndex(q), 9);
}

TEST(FrameQueue, DropOldestNeverDropsThePeekedFrame) {
  FrameQueue q(3, HostAllocator::plain(), true);
  ASSERT_TRUE(pushIndex(q, 0));
  HostFrame* head = q.tryPeekReadable();
  ASSERT_NE(head, nullptr);
  const uint8_t* pixels = head->data();
  for (int i = 1; i < 8; ++i) ASSERT_TRUE(pushIndex(q, i));
  EXPECT_EQ(head->info.index, 0);  // untouched while in use
  EXPECT_EQ(head->data(), pixels);
  EXPECT_EQ(q.dropped(), 5);  // 1..5 dropped, 6 and 7 kept behind the head
  EXPECT_EQ(popIndex(q), 0);
  EXPECT_EQ(popIndex(q), 6);
  EXPECT_EQ(popIndex(q), 7);
}

TEST(FrameQueue, DropOldestWithOneSlotWaitsForThePeekedFrame) {
  test::Watchdog dog(30, "FrameQueue one slot");
  FrameQueue q(1, HostAllocator::plain(), true);
  ASSERT_TRUE(pushIndex(q, 0));
  ASSERT_NE(q.tryPeekReadable(), nullptr);
  std::atomic<pid_t> id{0};
  auto producer = std::async(std::launch::async, [&] {
    id = test::currentThreadId();
    return pushIndex(q, 1);
  });
  ASSERT_TRUE(test::waitUntilBlocked(awaitId(id), 10)) << "the producer never blocked";
  EXPECT_EQ(producer.wait_for(0ms), std::future_status::timeout);
  q.pop();
  ASSERT_EQ(producer.wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(producer.get());
  EXPECT_EQ(popIndex(q), 1);
}

TEST(FrameQueue, LiveProducerAndSlowConsumerSeeIncreasingFrames) {
  test::Watchdog dog(30, "FrameQueue live");
  FrameQueue q(2, HostAllocator::plain(), true);
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (int i = 0; i < 2000; ++i) pushIndex(q, i);
    done = true;
  });
  int64_t last = -1, seen = 0;
  while (!done || q.size() > 0) {
    const int64_t i = popIndex(q);
    if (i < 0) {
      std::this_thread::yield();
      continue;
    }
    EXPECT_GT(i, last);
    last = i;
    ++seen;
  }
  producer.join();
  EXPECT_EQ(last, 1999);  // the newest frame always arrives
  EXPECT_EQ(seen + q.dropped(), 2000);
}

TEST(FrameQueue, HostFrameGrowsOnlyForLargerLayouts) {
  HostFrame f(HostAllocator::plain());
  f.reserve(100);
  uint8_t* p = f.data();
  f.reserve(50);
  EXPECT_EQ(f.data(), p);
  EXPECT_EQ(f.capacity(), 100u);
  f.reserve(200);
  EXPECT_GE(f.capacity(), 200u);
}

TEST(FrameQueue, RejectsZeroCapacity) {
  EXPECT_THROW(FrameQueue(0, HostAllocator::plain()), std::invalid_argument);
}

}  // namespace
}  // namespace vp

namespace vp {
namespace {

// waitPush: the window player's sleep, cut short the moment the decoder pushes a frame.
TEST(FrameQueue, WaitPushWakesOnTheNextPushOnly) {
  FrameQueue q(4, HostAllocator::plain());
  const uint64_t start = q.pushes();
  EXPECT_FALSE(q.waitPush(start, 20ms));  // nothing pushed: times out
  ASSERT_TRUE(pushIndex(q, 0));
  EXPECT_EQ(q.pushes(), start + 1);
  EXPECT_TRUE(q.waitPush(start, 0ms));  // pushed since `start`: at once
  const uint64_t seen = q.pushes();
  EXPECT_FALSE(q.waitPush(seen, 20ms));  // a frame waits, but none came after `seen`
  std::thread producer([&] {
    std::this_thread::sleep_for(50ms);
    pushIndex(q, 1);
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(q.waitPush(seen, 10s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  producer.join();
  q.abort();
  EXPECT_FALSE(q.waitPush(q.pushes(), 10s));  // aborted: at once, false
}

}  // namespace
}  // namespace vp
