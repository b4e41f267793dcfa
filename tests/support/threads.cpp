#include "support/threads.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace vp::test {

pid_t currentThreadId() { return pid_t(::syscall(SYS_gettid)); }

std::set<pid_t> threadIds() {
  std::set<pid_t> ids;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ids.insert(pid_t(std::atoi(e->d_name)));
    ::closedir(d);
  }
  return ids;
}

char threadState(pid_t tid) {
  std::ifstream f("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold blanks and parentheses
  if (close == std::string::npos || close + 2 >= text.size()) return '?';
  return text[close + 2];
}

bool waitUntilBlocked(pid_t tid, double timeoutS) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
  auto asleep = [&] {
    const char s = threadState(tid);
    return s == 'S' || s == 'D';
  };
  while (std::chrono::steady_clock::now() < deadline) {
    if (asleep()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      if (asleep()) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

}  // namespace vp::test
