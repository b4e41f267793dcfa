// Linux thread probes for tests that must know another thread is blocked (parked in
// the kernel: a condition-variable or mutex futex, poll, a pipe read), instead of
// sleeping for a while and hoping it got there.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>

namespace vp::test {

// The kernel id of the calling thread.
pid_t currentThreadId();
// The ids of this process's threads (/proc/self/task).
std::set<pid_t> threadIds();
// Waits until thread `tid` of this process is asleep in the kernel (state S or D in
// /proc/self/task/tid/stat) and stays so on two reads 2 ms apart; false after timeoutS.
// A thread that is running or runnable (R) has not blocked yet.
bool waitUntilBlocked(pid_t tid, double timeoutS);
// The thread's state letter (R, S, D, ...) or '?' when it is gone.
char threadState(pid_t tid);

}  // namespace vp::test
