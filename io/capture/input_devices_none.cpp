// vp_io_nodevices: a build without libavdevice/libavfilter (files only).
#include "io/capture/input_devices.h"

namespace vp {

bool registerInputDevices() { return false; }

std::string listCaptureDevices() { return "built without capture-device support (VP_WITH_DEVICES=OFF)\n"; }

}  // namespace vp
