// vidproc running in the background with a control channel, for end-to-end tests that
// drive it while it runs (tests/e2e): the process, its FIFO or control file, its log.
#pragma once

#include "support/clips.h"
#include "support/run_program.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

// Header only: vidproc() exists in the test binary alone (VP_VIDPROC_PATH).
namespace vp::test {

// The whole file as text ("" when it cannot be read).
inline std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// vidproc running in the background with its control channel: a FIFO, or with
// `preload` a regular file holding those lines before vidproc starts (then
// followed like tail -f). Killed if still alive when destroyed.
class Running {
  using Clock = std::chrono::steady_clock;

 public:
  Running(const TempDir& dir, const std::string& args, const std::string& preload = "")
      : log_(dir.file("vidproc.log")), regular_(!preload.empty()) {
    fifo_ = dir.file("ctl");
    if (regular_)
      std::ofstream(fifo_) << preload;
    else if (::mkfifo(fifo_.c_str(), 0600) != 0)
      throw std::runtime_error("mkfifo failed");
    // exec: a wrapper that execs too ($VP_VIDPROC) keeps this pid for the real process.
    const std::string cmd = "exec " + vidproc() + " --headless --no-progress --backend " + backend() +
                            " --control '" + fifo_ + "' " + args + " >'" + log_ + "' 2>&1";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~Running() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  // Writes lines into the FIFO (waits up to 10 s for vidproc to open it).
  ::testing::AssertionResult send(const std::string& lines) {
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    int fd = -1;
    const int flags = regular_ ? O_WRONLY | O_APPEND : O_WRONLY | O_NONBLOCK;
    while ((fd = ::open(fifo_.c_str(), flags | O_CLOEXEC)) < 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // ENXIO until vidproc has opened its end
    if (fd < 0) return ::testing::AssertionFailure() << "vidproc never opened the FIFO; log:\n" << log();
    const bool ok = ::write(fd, lines.data(), lines.size()) == ssize_t(lines.size());
    ::close(fd);
    return ok ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << "write failed";
  }

  // Exit code, or -1 if still running after `timeout` (then killed).
  int wait(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  // CPU seconds (user + system) the process has used so far.
  double cpuSeconds() const {
    std::istringstream stat(readFile("/proc/" + std::to_string(pid_) + "/stat"));
    std::string field;
    double ticks = 0;
    for (int i = 1; i <= 15 && stat >> field; ++i)
      if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime (after "(comm)" without blanks)
    return ticks / double(::sysconf(_SC_CLK_TCK));
  }

  pid_t pid() const { return pid_; }
  std::string log() const { return readFile(log_); }

 private:
  std::string fifo_, log_;
  bool regular_;
  pid_t pid_ = -1;
};

inline bool waitForFile(const std::string& path, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    if (std::filesystem::file_size(path, ec) > 0 && !ec) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace vp::test
