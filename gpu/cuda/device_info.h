// Whether a usable CUDA device is present, and what it is called.
#pragma once

#include <string>

namespace vp {

// Number of CUDA devices the runtime can use; 0 when there is no driver or no device
// (never throws: "no GPU" is an ordinary condition on CI and laptops).
int cudaDeviceCountOrZero() noexcept;

// Name of the current device, e.g. "NVIDIA H200"; "none" when there is no device.
std::string cudaDeviceName();

}  // namespace vp
