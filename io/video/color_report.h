// How a source's frames are read colour-wise, said once: the matrix of YUV frames
// (tagged; guessed from the size, as players do, at debug level; approximated or
// unsupported, named in the log) and HDR transfers (PQ, HLG), which vidproc shows
// without tone mapping. One per source, decode thread.
#pragma once

#include "io/av_util.h"
#include "io/video/pixel_format_map.h"

#include <set>
#include <string>
#include <utility>

namespace vp::av {

class ColorReport {
 public:
  explicit ColorReport(std::string url) : url_(std::move(url)) {}
  // Notes the colour of `f`, converted with `matrix`; logs each new (matrix code,
  // choice) and each HDR transfer once. Returns true when matrixText() or hdrText()
  // changed.
  bool note(const AVFrame& f, const MatrixChoice& matrix);
  // "bt709", "bt709 (guessed: unspecified, 1920x1080)", "bt2020nc (approximated: bt2020c)" ...;
  // "" for RGB and grey frames.
  const std::string& matrixText() const { return matrixText_; }
  // "" for SDR, else e.g. "PQ (smpte2084), shown without tone mapping".
  const std::string& hdrText() const { return hdrText_; }

 private:
  std::string url_;
  std::set<std::pair<int, int>> loggedMatrices_;  // (AVColorSpace, MatrixChoice::How) already logged
  std::set<int> loggedTransfers_;                 // AVColorTransferCharacteristic already logged
  std::string matrixText_;
  std::string hdrText_;
};

}  // namespace vp::av
