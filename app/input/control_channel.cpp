#include "app/input/control_channel.h"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace vp {
namespace {

constexpr int kTailPollMs = 100;  // how often a regular file's end is checked for new lines

std::runtime_error openError(const std::string& path) {
  return std::runtime_error("cannot open control file '" + path + "': " + std::strerror(errno));
}

}  // namespace

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

ControlChannel::ControlChannel(const std::string& path) {
  if (path == "-") {
    fd_ = STDIN_FILENO;
  } else {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw openError(path);
    // Read-write on a FIFO: open() does not wait for a writer, and our own write end
    // keeps read() from ever seeing EOF when a writer closes.
    const int flags = S_ISFIFO(st.st_mode) ? O_RDWR : O_RDONLY;
    file_ = UniqueFd(::open(path.c_str(), flags | O_CLOEXEC));
    if (file_.get() < 0) throw openError(path);
    fd_ = file_.get();
    tail_ = S_ISREG(st.st_mode);
  }
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("control: pipe: ") + std::strerror(errno));
  wakeRead_ = UniqueFd(wake[0]);
  wakeWrite_ = UniqueFd(wake[1]);
  thread_ = std::thread([this] { readLoop(); });
}

ControlChannel::~ControlChannel() {
  const char byte = 'q';
  while (::write(wakeWrite_.get(), &byte, 1) < 0 && errno == EINTR) {
  }
  if (thread_.joinable()) thread_.join();
}

void ControlChannel::readLoop() {
  std::string line;
  bool overlong = false;  // dropping the rest of a line longer than kMaxLine
  bool atEnd = false;     // regular file: nothing more to read for now
  off_t offset = 0;       // regular file: bytes read so far
  char chunk[4096];
  for (;;) {
    pollfd fds[2] = {{wakeRead_.get(), POLLIN, 0}, {fd_, POLLIN, 0}};
    const bool waitTail = tail_ && atEnd;
    const int n = ::poll(fds, waitTail ? 1 : 2, waitTail ? kTailPollMs : -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || fds[0].revents != 0) return;  // poll failure, or the destructor asks us to end
    if (waitTail) {
      struct stat st {};
      if (::fstat(fd_, &st) == 0 && st.st_size < offset) {
        spdlog::warn("control: the file was truncated; reading it again from the start");
        ::lseek(fd_, 0, SEEK_SET);
        offset = 0;
        line.clear();
        overlong = false;
      }
    }
    const ssize_t got = ::read(fd_, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) {
      spdlog::warn("control: read failed ({}); no more commands", std::strerror(errno));
      return;
    }
    if (got == 0) {
      if (tail_) {
        atEnd = true;
        continue;
      }
      if (!line.empty() && !overlong) onLine(line);  // a last line without a newline
      spdlog::info("control: end of input; no more commands");
      return;
    }
    atEnd = false;
    offset += got;
    for (ssize_t i = 0; i < got; ++i) {
      const char c = chunk[i];
      if (c == '\n') {
        if (!overlong) onLine(line);
        line.clear();
        overlong = false;
      } else if (!overlong) {
        line += c;
        if (line.size() > kMaxLine) {
          spdlog::warn("control: ignoring a line longer than {} bytes ('{}...')", kMaxLine,
                       line.substr(0, 40));
          std::lock_guard<std::mutex> lock(mutex_);
          ++rejected_;
          line.clear();
          overlong = true;
        }
      }
    }
  }
}

void ControlChannel::onLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::optional<Command> command;
  try {
    command = parseCommand(line);
  } catch (const std::invalid_argument& e) {
    spdlog::warn("control: ignoring '{}': {}", line, e.what());
    std::lock_guard<std::mutex> lock(mutex_);
    ++rejected_;
    return;
  }
  if (!command) return;  // blank or comment
  std::lock_guard<std::mutex> lock(mutex_);
  if (queue_.size() >= kMaxQueued) {
    spdlog::warn("control: ignoring '{}': {} commands already waiting", line, kMaxQueued);
    ++rejected_;
    return;
  }
  queue_.push_back(std::move(*command));
  ++accepted_;
  ready_.notify_all();
}

std::vector<Command> ControlChannel::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Command> out(std::make_move_iterator(queue_.begin()),
                                  std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

void ControlChannel::waitFor(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  ready_.wait_for(lock, timeout, [this] { return !queue_.empty(); });
}

int64_t ControlChannel::accepted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return accepted_;
}

int64_t ControlChannel::rejected() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return rejected_;
}

std::unique_ptr<ControlChannel> openControlChannel(const std::string& path) {
  return path.empty() ? nullptr : std::make_unique<ControlChannel>(path);
}

}  // namespace vp
