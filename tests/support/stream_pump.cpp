#include "support/stream_pump.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>

namespace vp::test {
namespace {

constexpr size_t kDatagram = 1316;  // 7 TS packets, what ffmpeg's udp output sends

sockaddr_in localAddress(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

// Owns a socket descriptor.
struct Socket {
  explicit Socket(int type) : fd(::socket(AF_INET, type, 0)) {}
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd;
};

}  // namespace

int freeLocalPort(bool tcp) {
  Socket s(tcp ? SOCK_STREAM : SOCK_DGRAM);
  sockaddr_in a = localAddress(0);
  if (s.fd < 0 || ::bind(s.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return 0;
  socklen_t len = sizeof a;
  if (::getsockname(s.fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return 0;
  return ntohs(a.sin_port);
}

StreamPump::StreamPump(PumpSpec spec) : spec_(std::move(spec)) { thread_ = std::thread([this] { run(); }); }

StreamPump::~StreamPump() {
  stop_ = true;
  thread_.join();
}

void StreamPump::run() {
  std::ifstream in(spec_.path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) {
    failed_ = true;
    return;
  }
  for (int pass = 0; pass < spec_.passes && !stop_; ++pass) {
    if (pass > 0) {  // the stream goes silent, then comes back
      const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(spec_.pauseS);
      while (!stop_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!sendPass(bytes)) {
      if (!stop_) failed_ = true;
      return;
    }
    ++passes_;
  }
}

// One pass at the clip's rate: datagram k leaves at k/n of the pass's duration.
bool StreamPump::sendPass(const std::string& bytes) {
  Socket s(spec_.tcp ? SOCK_STREAM : SOCK_DGRAM);
  if (s.fd < 0) return false;
  const sockaddr_in to = localAddress(spec_.port);
  if (spec_.tcp) {  // the player listens; it may not be listening yet (reopening)
    bool connected = false;
    for (int i = 0; i < 500 && !stop_ && !connected; ++i) {
      connected = ::connect(s.fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) == 0;
      if (!connected) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!connected) return false;
  }
  const size_t chunks = (bytes.size() + kDatagram - 1) / kDatagram;
  const auto start = std::chrono::steady_clock::now();
  for (size_t k = 0; k < chunks && !stop_; ++k) {
    std::this_thread::sleep_until(start + std::chrono::duration<double>(spec_.seconds * double(k) / double(chunks)));
    const size_t size = std::min(kDatagram, bytes.size() - k * kDatagram);
    const char* data = bytes.data() + k * kDatagram;
    const ssize_t sent = spec_.tcp ? ::send(s.fd, data, size, MSG_NOSIGNAL)
                                   : ::sendto(s.fd, data, size, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
    if (sent != ssize_t(size) && spec_.tcp) return false;  // UDP to a port nobody reads yet is not a failure
  }
  return true;
}

}  // namespace vp::test
