// The registration hook for capture devices (v4l2 ...) and lavfi graphs.
//
// vp_io calls it before opening any input. Exactly one definition is linked
// into a program: vp_io_devices (libavdevice + libavfilter; returns true) or
// vp_io_nodevices (a no-op returning false, for headless builds and tests that
// must not depend on those libraries).
#pragma once

namespace vp {

// Registers libavdevice's input formats (idempotent, thread-safe); returns
// whether capture devices and lavfi are available in this build.
bool registerInputDevices();

}  // namespace vp
