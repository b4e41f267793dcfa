// How long OpenMP's idle workers spin before they sleep. libgomp's default (300,000 spins
// after every parallel region) keeps cores busy that the decoder thread, the display server
// and a live stream's sender need. On the 2-core build machine, a 640x360 H.264 UDP stream
// (ffmpeg sending beside it) in the window under Xvfb, CPU backend, chain none: convert took
// 7.2 ms a frame and arrival -> shown p50 48 ms with the default, 1.7 ms and 22 ms with
// 10,000 spins (GOMP_SPINCOUNT=300000 in the environment brings the default back).
// libgomp reads the setting from the environment when it is loaded, before main(); an
// executable's .preinit_array runs before any library's initialisers, so it can still set
// it. A user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT wins.
#include <cstdlib>

namespace {

void setOmpSpinCount(int, char**, char**) {
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT")) setenv("GOMP_SPINCOUNT", "10000", 0);
}

__attribute__((section(".preinit_array"), used)) void (*const kSetOmpSpinCount)(int, char**, char**) = setOmpSpinCount;

}  // namespace
