// The barcode's self-test (vp_latency_probe --self-test, ctest latency.barcode): numbers
// drawn, then read back from the plain picture, a player's 2x window grabbed as the probe
// does, a blurred and noisy copy, a 0.75x copy and a libx264 round trip at a harsh quality;
// grey, black, noise and a picture torn between two frames must give no read.
#pragma once

namespace vp::latency {

// 0 when every read is right; else 1, the wrong reads named on stderr.
int barcodeSelfTest();

}  // namespace vp::latency
