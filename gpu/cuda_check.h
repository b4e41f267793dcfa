// Forwarding header: the error-check macro lives in gpu/cuda/cuda_check.h. Kept for
// gpu/color_convert.cu until the colour files move to gpu/color/; then delete it.
#pragma once
#include "gpu/cuda/cuda_check.h"
