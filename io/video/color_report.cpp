#include "io/video/color_report.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <spdlog/spdlog.h>

namespace vp::av {

bool ColorReport::note(const AVFrame& f, const MatrixChoice& choice) {
  // RGB and grey frames use no matrix: nothing to say about it.
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(AVPixelFormat(f.format));
  const bool yuv = f.format == AV_PIX_FMT_CUDA ||
                   (d && !(d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) && d->nb_components >= 3);
  const int code = enumValue(f.colorspace);
  const char* codeName = av_color_space_name(AVColorSpace(code));
  const std::string tagged = codeName ? codeName : "code " + std::to_string(code);
  const std::string chosen(colorMatrixName(choice.matrix));
  std::string matrix = chosen;
  const std::string size = std::to_string(f.width) + "x" + std::to_string(f.height);
  switch (choice.how) {
    case MatrixChoice::Tagged: break;
    case MatrixChoice::Guessed: matrix += " (guessed: unspecified, " + size + ")"; break;
    case MatrixChoice::Approximated: matrix += " (approximated: " + tagged + ")"; break;
    case MatrixChoice::Unsupported: matrix += " (guessed: " + tagged + " unsupported, " + size + ")"; break;
  }
  if (!yuv) matrix.clear();
  if (yuv && choice.how != MatrixChoice::Tagged && loggedMatrices_.insert({code, int(choice.how)}).second) {
    if (choice.how == MatrixChoice::Guessed)  // what every player does: a debug note only
      spdlog::debug("'{}': colour matrix unspecified; {} guessed from the frame size {}", url_, chosen, size);
    else if (choice.how == MatrixChoice::Approximated)
      spdlog::info("'{}': colour matrix {} read as {}", url_, tagged, chosen);
    else
      spdlog::warn("'{}': colour matrix {} is not supported; converted as {} (guessed from the frame size {})", url_,
                   tagged, chosen, size);
  }

  const int trc = enumValue(f.color_trc);
  std::string hdr;
  if (trc == AVCOL_TRC_SMPTE2084 || trc == AVCOL_TRC_ARIB_STD_B67) {
    hdr = std::string(trc == AVCOL_TRC_SMPTE2084 ? "PQ" : "HLG") + " (" +
          av_color_transfer_name(AVColorTransferCharacteristic(trc)) + "), shown without tone mapping";
    if (loggedTransfers_.insert(trc).second)
      spdlog::warn("'{}': HDR video ({}): shown without tone mapping, so it looks dim and washed out", url_,
                   trc == AVCOL_TRC_SMPTE2084 ? "PQ" : "HLG");
  }
  const bool changed = matrix != matrixText_ || hdr != hdrText_;
  matrixText_ = std::move(matrix);
  hdrText_ = std::move(hdr);
  return changed;
}

}  // namespace vp::av
