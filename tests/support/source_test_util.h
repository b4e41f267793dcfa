// Helpers shared by the FfmpegSource suites (test_source_*.cpp).
#pragma once

#include "io/frame_queue.h"
#include "io/source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace vp::test {

inline SourceOptions file(const std::string& path) {
  SourceOptions o;
  o.url = path;
  return o;
}

inline int64_t ptsOf(int i, int fps) { return int64_t(std::llround(double(i) * 1e6 / fps)); }

// Max and mean absolute difference of two byte buffers of the same size.
struct Diff {
  int max = 0;
  double mean = 0;
};
inline Diff diff(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  Diff d;
  if (a.size() != b.size() || a.empty()) return {256, 256};
  int64_t sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const int e = std::abs(int(a[i]) - int(b[i]));
    d.max = std::max(d.max, e);
    sum += e;
  }
  d.mean = double(sum) / double(a.size());
  return d;
}

// Reads frames until one of the source's current serial arrives (stale ones are dropped).
inline const HostFrame* firstFresh(FrameQueue& q, const Source& src) {
  for (;;) {
    HostFrame* f = q.peekReadable();
    if (!f) return nullptr;
    if (f->info.serial == src.serial()) return f;
    q.pop();
  }
}

// Every bad input: a SourceError whose message names the input (and says why).
inline void expectSourceError(const SourceOptions& o, const std::string& reason) {
  try {
    openSource(o);
    ADD_FAILURE() << "'" << o.url << "' opened";
  } catch (const SourceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'" + o.url + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(reason), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}
inline void expectSourceError(const std::string& path, const std::string& reason) { expectSourceError(file(path), reason); }

}  // namespace vp::test
