// Benchmark modes of the real pipeline, reached from the command line:
//  --synthetic WxH : frames made once in (pinned) host memory and submitted round
//                    robin, no decode: measures upload + convert + compute + download
//                    and how well the streams overlap.
//  --decode-only   : the decode thread alone (frames popped unprocessed): the rate
//                    the full pipeline is compared with.
#pragma once

#include "app/options.h"
#include "app/input/signals.h"
#include "app/player/stats.h"

namespace vp {

int runSynthetic(const Options& options, const SignalWatcher& signals, RunStats& stats);
int runDecodeOnly(const Options& options, const SignalWatcher& signals, RunStats& stats);

}  // namespace vp
