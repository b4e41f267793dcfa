// vp_io_devices: capture devices and lavfi through libavdevice (+ libavfilter).
#include "io/input_devices.h"

extern "C" {
#include <libavdevice/avdevice.h>
}

#include <mutex>

namespace vp {

bool registerInputDevices() {
  static std::once_flag once;
  std::call_once(once, [] { avdevice_register_all(); });
  return true;
}

}  // namespace vp
