// A frame that already lives in device memory (a hardware decoder's picture): its
// planes and the event after which they may be read. No libav types.
#pragma once

#include "gpu/color/pixel_format.h"

#include <driver_types.h>

namespace vp {

struct DeviceSurface {
  // Device pointers and pitches of the planes; data[0] == nullptr means "no surface"
  // (the frame is in host memory). Valid until the owner releases the surface.
  PlanarView planes;
  // Recorded on the decoder's stream after its last write to the planes; readers
  // wait on it (cudaStreamWaitEvent) before reading. nullptr: already complete.
  cudaEvent_t ready = nullptr;

  bool present() const { return planes.data[0] != nullptr; }
};

}  // namespace vp
