#include "io/source.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace vp {

bool parseLatencyMode(std::string_view name, LatencyMode& out) {
  if (name == "auto") out = LatencyMode::Auto;
  else if (name == "low") out = LatencyMode::Low;
  else if (name == "normal") out = LatencyMode::Normal;
  else return false;
  return true;
}

std::string liveStreamKind(std::string_view url) {
  const size_t colon = url.find("://");
  if (colon == std::string_view::npos) {
    // An RTP session described by an SDP file: the packets arrive as they are sent.
    const bool sdp = url.size() > 4 && url.substr(url.size() - 4) == ".sdp";
    return sdp ? "sdp" : "";
  }
  std::string scheme(url.substr(0, colon));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const char* live : {"udp", "rtp", "rtsp", "rtsps", "srt", "rtmp", "rtmps", "rtmpt", "tcp", "mmsh", "mmst"})
    if (scheme == live) return scheme;
  return "";
}

}  // namespace vp
