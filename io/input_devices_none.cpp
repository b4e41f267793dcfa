// vp_io_nodevices: a build without libavdevice/libavfilter (files only).
#include "io/input_devices.h"

namespace vp {

bool registerInputDevices() { return false; }

}  // namespace vp
