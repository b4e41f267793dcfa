#include "support/run_program.h"

#include "support/clips.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace vp::test {

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

ProgramRun runProgram(const std::string& command, const std::vector<std::string>& args,
                      const std::string& cwd, double timeoutS, double interruptAfterS) {
  TempDir logs;  // outside cwd, so the program's folder holds only what it wrote
  const std::string outPath = logs.file("stdout"), errPath = logs.file("stderr");
  std::string line = "exec " + command;
  for (const std::string& a : args) line += " " + shellQuote(a);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);  // its own group: the time limit kills a wrapper's children too
    const int out = open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || chdir(cwd.c_str()) != 0) _exit(126);
    dup2(out, 1);
    dup2(err, 2);
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ProgramRun r;
  int status = 0;
  const auto deadline = t0 + std::chrono::duration<double>(timeoutS);
  const auto interruptAt = t0 + std::chrono::duration<double>(interruptAfterS);
  bool interrupted = interruptAfterS <= 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (!interrupted && std::chrono::steady_clock::now() > interruptAt) {
      kill(pid, SIGINT);  // the program itself (exec'd by the shell), not its whole group
      interrupted = true;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      r.timedOut = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.coreDumped = WCOREDUMP(status);
  }
  const std::vector<uint8_t> out = readFileBytes(outPath), err = readFileBytes(errPath);
  r.out.assign(out.begin(), out.end());
  r.err.assign(err.begin(), err.end());
  return r;
}

}  // namespace vp::test
