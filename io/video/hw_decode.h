// FFmpeg's nvdec hwaccel, set up on the CUDA runtime's own context: the decoder
// writes AV_PIX_FMT_CUDA frames (NV12 / P010 / 4:4:4 surfaces) into device memory,
// which the GPU converter reads in place (no host copy).
//
// Setup (before avcodec_open2): av_hwdevice_ctx_alloc(CUDA) with
// AVCUDADeviceContext.cuda_ctx = the runtime's primary context of the chosen GPU and
// .stream = a stream of ours, so no second context exists and the decoder's copies
// run on a stream we can record events on; extra_hw_frames = kExtraFrames: the 5.1
// decoder hands out its own surfaces, but the source copies each picture out and
// unreferences it before the next is received, so the consumer holds none; one
// decoder thread (kFrameThreads): each picture is decoded and
// mapped before the next is sent, which is what was measured and checked for
// exactness on the H200. More frame threads would keep several pictures in the engine
// at once (each reserves one more surface; NVDEC takes at most 32): not measured yet.
//
// Fallback: get_format picks CUDA only when it is offered and the stream's software
// format is 8- or 10-bit; when FFmpeg's hwaccel init fails (unsupported profile,
// size, no NVDEC engine) it calls get_format again without CUDA, and the decoder goes
// on in software. state() and fallbackReason() tell the source, which logs the one
// notice (or, for --hwdec nvdec, fails). The errors FFmpeg logs for that failed init
// ("Failed setup for format cuda", the hwaccel's own reason) say nothing about the
// stream: they are taken off the tap's count, which counts decode errors.
#pragma once

#include "gpu/color/pixel_format.h"
#include "gpu/cuda/cuda_devices.h"
#include "io/av_util.h"

#include <atomic>
#include <memory>
#include <string>

namespace vp::av {

class HwDecode {
 public:
  enum class State { Pending, Hardware, Software };

  // The CUDA device context for `gpu`; throws std::runtime_error (one line) when the
  // device or FFmpeg's CUDA support cannot be set up.
  explicit HwDecode(int gpu);
  ~HwDecode();
  HwDecode(const HwDecode&) = delete;
  HwDecode& operator=(const HwDecode&) = delete;

  // "" when `codec` has an nvdec hwaccel in this libavcodec, else why not (one phrase).
  static std::string unsupportedReason(const AVCodec* codec);

  // Prepares `dec` (not yet opened) for hardware decoding; `tap` must be dec->opaque.
  void attach(AVCodecContext* dec, LogTap& tap);

  // Surfaces beyond the decoder's own: the one picture the source holds while it copies it.
  static constexpr int kExtraFrames = 1;

  // Frame threads of a hardware decoder; $VP_NVDEC_THREADS (1..8) overrides it for
  // measurements only (scripts/hwdec_bench.sh's nvdec3 rows).
  static constexpr int kFrameThreads = 1;

  State state() const { return state_.load(); }
  const std::string& fallbackReason() const { return reason_; }
  // Selects the decoder's GPU on the calling thread (the decode thread).
  void bindThread() const { device_.bindThread(); }
  cudaStream_t stream() const { return device_.stream(); }

  // The layout of a decoded AV_PIX_FMT_CUDA frame's surface; false if vp has none.
  static bool surfaceFormat(const AVFrame& f, PixelFormat& out);

 private:
  static AVPixelFormat getFormat(AVCodecContext* c, const AVPixelFormat* formats);

  DecodeStream device_;
  AVBufferRef* deviceRef_ = nullptr;  // the AVHWDeviceContext (CUDA)
  std::atomic<State> state_{State::Pending};  // written by get_format (FFmpeg calls it on the decode thread)
  std::string reason_;                // why the decoder went to software
  // The tap's error count and the decoder's frame count when get_format last chose
  // CUDA: a call without CUDA before another frame is that choice's failed init.
  int64_t errorsAtChoice_ = -1;
  int64_t framesAtChoice_ = -1;
};

}  // namespace vp::av
