// libFuzzer entry points (vp_fuzz, built with -DVP_BUILD_FUZZ=ON and clang):
// scripts/fuzz.sh runs it on the seed corpus.
#include "fuzz/fuzz_pipeline.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  vp::fuzz::initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vp::fuzz::runOne(data, size);
  return 0;
}
