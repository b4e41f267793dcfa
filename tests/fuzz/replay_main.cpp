// Replays fuzz inputs without libFuzzer (any compiler): every file named, and
// every file in every folder named, goes through the fuzz target's code once.
// ctest runs it on the seed corpus and the committed regression inputs.
//   vp_fuzz_replay PATH...
#include "fuzz/fuzz_pipeline.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr auto kHang = std::chrono::seconds(30);  // one input taking longer is a hang (libFuzzer: -timeout)

// Runs one input; ends the program (exit 3) naming the input if it hangs.
void runWithTimeout(const fs::path& p, const std::vector<char>& bytes) {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(m);
    if (!cv.wait_for(lock, kHang, [&] { return done; })) {
      std::fprintf(stderr, "vp_fuzz_replay: hang: %s still running after %lld s\n", p.c_str(),
                   static_cast<long long>(kHang.count()));
      std::_Exit(3);
    }
  });
  vp::fuzz::runOne(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
    return 2;
  }
  vp::fuzz::initialize();
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path p = argv[i];
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      inputs.push_back(p);
    } else {
      std::fprintf(stderr, "vp_fuzz_replay: no such file or folder: %s\n", argv[i]);
      return 1;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "vp_fuzz_replay: no inputs\n");
    return 1;
  }
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("%s (%zu bytes)\n", p.c_str(), bytes.size());
    std::fflush(stdout);  // a crash names the input it happened on
    runWithTimeout(p, bytes);
  }
  std::printf("replayed %zu inputs\n", inputs.size());
  return 0;
}
