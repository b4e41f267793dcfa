// The registration hook for capture devices (v4l2 ...) and lavfi graphs.
//
// vp_io calls it before opening any input. Exactly one definition is linked
// into a program: vp_io_devices (libavdevice + libavfilter; returns true) or
// vp_io_nodevices (a no-op returning false, for headless builds and tests that
// must not depend on those libraries).
#pragma once

#include <string>

namespace vp {

// Registers libavdevice's input formats (idempotent, thread-safe); returns
// whether capture devices and lavfi are available in this build.
bool registerInputDevices();

// Capture devices (v4l2) and the formats each offers, as text for --list-devices;
// one line saying so when there are none or the build has no device support.
// It swaps libav's process-wide log callback while it asks the driver (v4l2 prints
// its formats through av_log): call it as a standalone action, with no input open.
std::string listCaptureDevices();

}  // namespace vp
