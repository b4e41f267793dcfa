// Runs a program the way a user's shell would, for end-to-end tests: separate
// stdout and stderr, its own working folder, a hard time limit, and how it ended
// (exit code, or the signal and whether it dumped core).
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

namespace vp::test {

struct ProgramRun {
  int exitCode = -1;  // when it exited by itself
  int signal = 0;     // the signal that ended it, 0 if none
  bool coreDumped = false;
  bool timedOut = false;  // killed at the time limit
  double seconds = 0;     // wall time
  std::string out, err;   // stdout, stderr
};

// Runs `command` (a path, or a command prefix such as ".gpu/run build/vidproc")
// with `args` (each quoted for the shell) in folder `cwd`; its process group is
// killed after `timeoutS` seconds. interruptAfterS > 0: SIGINT (a user's Ctrl-C) goes to
// the program that long after its start. Throws std::runtime_error if it cannot start.
ProgramRun runProgram(const std::string& command, const std::vector<std::string>& args,
                      const std::string& cwd, double timeoutS, double interruptAfterS = 0);

// `s` in single quotes for /bin/sh.
std::string shellQuote(const std::string& s);

// The vidproc under test: $VP_VIDPROC (a path, or a command prefix such as
// ".gpu/run build-server/vidproc" on the GPU machine), else the one built with the tests
// (VP_VIDPROC_PATH, defined for the test binary only).
#ifdef VP_VIDPROC_PATH
inline std::string vidproc() {
  const char* env = std::getenv("VP_VIDPROC");
  return env && *env ? env : VP_VIDPROC_PATH;
}
#endif

// The backend end-to-end runs use: $VP_E2E_BACKEND (cuda on the GPU machine), else cpu.
inline std::string backend() {
  const char* env = std::getenv("VP_E2E_BACKEND");
  return env && *env ? env : "cpu";
}

}  // namespace vp::test
