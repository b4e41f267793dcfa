#include "app/player/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace vp {

ProgressBar::ProgressBar(int64_t total, bool enabled) : total_(total), enabled_(enabled && isatty(STDERR_FILENO)) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(int64_t done, double fps) {
  if (!enabled_) return;
  done_ = done;
  fps_ = fps;
  const auto now = Clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  draw();
}

void ProgressBar::draw() {
  drawn_ = true;
  const int64_t done = done_;
  const double fps = fps_;
  if (total_ > 0) {
    constexpr int kWidth = 30;
    const double f = std::min(1.0, double(done) / double(total_));
    char bar[kWidth + 1];
    const int filled = int(f * kWidth);
    for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
    bar[kWidth] = 0;
    const double eta = fps > 0 ? double(std::max<int64_t>(0, total_ - done)) / fps : 0;
    std::fprintf(stderr, "\r[%s] %3d%% %lld/%lld frames %7.1f fps ETA %d:%02d ", bar, int(f * 100), (long long)done,
                 (long long)total_, fps, int(eta) / 60, int(eta) % 60);
  } else {
    std::fprintf(stderr, "\r%lld frames %7.1f fps ", (long long)done, fps);
  }
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!enabled_ || !drawn_) return;
  draw();
  std::fputc('\n', stderr);
  drawn_ = false;
}

}  // namespace vp
