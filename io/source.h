// A video source: opens an input, runs the threads that demux it and decode its video into
// a FrameQueue.
#pragma once

#include "io/audio/audio_stream.h"
#include "io/frame_queue.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vp {

// Thrown when an input cannot be opened or used; what() is one line naming the
// input and the reason, fit to print as is.
class SourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Hardware decoding (--hwdec): No = software; Auto = nvdec when the codec is in
// SourceOptions::hwdecCodecs and its profile and size allow it, else software with one
// notice; Nvdec = nvdec or a SourceError (whatever the codec list says).
enum class HwDecodeMode : uint8_t { No, Auto, Nvdec };

// --hwdec-codecs, after mpv's: the codecs `auto` may decode on NVDEC, FFmpeg's names
// separated by commas, or "all". The default lists the codecs whose decoding the
// standards make exact, so `auto` never changes a picture; MPEG-1/2, MPEG-4 Part 2 and
// VC-1 (an inverse DCT with tolerances) decode in software unless listed.
inline constexpr const char* kDefaultHwdecCodecs = "h264,hevc,vp8,vp9,av1";
// "" when `list` is "all" or FFmpeg's names of codecs separated by commas, else why not
// (one line naming the first bad entry).
std::string hwdecCodecsError(std::string_view list);
// Whether `codec` (FFmpeg's codec name, "h264") is in a valid `list`.
bool hwdecCodecListed(std::string_view codec, std::string_view list);

// --latency: how a source trades delay for smoothness. Low: live handling (no input
// buffering, a short probe, slice-threaded decoding, the newest frame wins); Normal:
// buffered like a file; Auto: Low for capture devices and live network streams
// (liveStreamKind), Normal for the rest.
enum class LatencyMode : uint8_t { Auto, Low, Normal };
bool parseLatencyMode(std::string_view name, LatencyMode& out);  // "auto", "low", "normal"

// The protocol of a live network stream ("udp", "rtp", "rtsp", "srt", "rtmp", "tcp",
// "sdp" for an RTP session description file), or "" when `url` does not name one.
// http(s) is not live by name: an HLS playlist without an end is found live once opened.
std::string liveStreamKind(std::string_view url);

struct SourceOptions {
  std::string url;                 // file path, device ("/dev/video0") or lavfi graph
  std::string format;              // forced input format ("v4l2", "lavfi"); empty = probe
  std::map<std::string, std::string> deviceOptions;  // e.g. video_size, framerate, input_format
  bool loop = false;               // restart at EOF (files only)
  LatencyMode latency = LatencyMode::Auto;  // see LatencyMode; SourceInfo::live says what was chosen
  // A capture device that goes away, or a live network stream that ends, fails or (over a
  // connection: not udp / rtp) stalls for stallTimeoutUs: wait for it, reopen, go on. A
  // silent udp / rtp stream is read on: it plays again as soon as packets come back.
  bool reconnect = false;
  int64_t stallTimeoutUs = 3'000'000;  // --reconnect: a connection this long silent is reopened
  // A live network stream that sends nothing for this long while opening fails (one line).
  int64_t openTimeoutUs = 10'000'000;
  // Polled while opening or reading blocks (libav's interrupt callback, before start() as
  // well): true gives up, e.g. on SIGINT while a network stream has sent nothing yet.
  std::function<bool()> cancel;
  int decoderThreads = 0;          // 0 = FFmpeg's choice (all cores)
  // The input's bytes, read from memory instead of opening `url` (which then only
  // names the input in messages and hints the container by its extension). A
  // memory input is self-contained: demuxers may not open other files from it.
  std::shared_ptr<const std::vector<uint8_t>> memory;
  // Frames larger than this are refused ("frame too large") instead of
  // exhausting memory on a damaged or hostile header: 2 x 8K UHD by default.
  int64_t maxPixels = int64_t(7680) * 4320 * 2;
  bool autorotate = true;  // turn frames upright as the stream's display matrix says
  // nvdec leaves frames in device memory (FrameInfo::device); only for the cuda backend.
  HwDecodeMode hwdec = HwDecodeMode::No;
  std::string hwdecCodecs = kDefaultHwdecCodecs;  // what Auto may decode on NVDEC
  int gpu = 0;            // CUDA device the decoder runs on (the pipeline's)
  // Audio (files only; io/audio/audio_stream.h): demux the track too when `audio`; audioTrack
  // < 0 picks the best one, N the N-th audio stream (from 0).
  bool audio = false;
  int audioTrack = -1;
  // The bytes the video packet queue and the audio's may hold together before the demuxer
  // waits (ffplay's MAX_QUEUE_SIZE; io/source/video_packet_queue.h).
  int64_t maxQueuedBytes = int64_t(15) * 1024 * 1024;
};

struct SourceInfo {
  std::string url;
  std::string codec;         // "h264"
  std::string pixelFormat;   // the stream's own, e.g. "yuv420p10le"
  int width = 0;
  int height = 0;            // as delivered: after autorotation
  int rotation = 0;          // clockwise degrees applied to every frame (0, 90, 180, 270)
  double fps = 0;            // average frame rate, 0 if unknown
  int64_t durationUs = 0;    // 0 if unknown or live
  bool seekable = false;
  std::string decodePath = "software";  // "nvdec" (frames stay on the GPU) or "software"
  std::string surfaceFormat;  // layout the GPU converter reads: "nv12", "p010le", "yuv420p10le" ...
  std::string colorMatrix;    // matrix used and how it was chosen: "bt709", "bt601 (guessed: ...)"
  std::string hdr;            // "" for SDR, else e.g. "PQ (smpte2084), shown without tone mapping"
  bool live = false;          // low-latency handling (LatencyMode), as decided at open
  std::string liveReason;     // why: "udp stream", "capture device", "--latency low", "live HLS"
};

struct SourceStats {
  int64_t framesDecoded = 0;
  int64_t decodeErrors = 0;   // packets/frames that failed to decode (damaged stream)
  double decodeFps = 0;       // recent decode rate
};

class Source {
 public:
  virtual ~Source() = default;
  // Info known after opening; width/height/pixelFormat follow the latest frame.
  virtual SourceInfo info() const = 0;
  // Starts the source's threads, which fill `queue` until EOF (then push one
  // endOfStream marker), abort, or stop(). Once per source. `queue` must outlive
  // them: stop() (or destroy) the source before the queue. Demuxing and video decoding
  // run on two threads, so a full `queue` holds back the video only, never the audio
  // (bounded by maxQueuedBytes).
  virtual void start(FrameQueue& queue) = 0;
  // Stops and joins the source's threads; safe to call twice and from the destructor.
  virtual void stop() = 0;
  // Requests a seek to `targetUs` (absolute position in the file, microseconds);
  // returns at once, the source's threads carry it out. Bumps serial(): queued
  // frames are flushed, frames after it carry the new serial, and the first one
  // is the frame shown at `targetUs` (decoded from the keyframe before it), with
  // pts counted from the file start again (a loop's offset is dropped). Works
  // after the end of stream too. Returns false (and does nothing) for
  // live/unseekable inputs.
  virtual bool seek(int64_t targetUs) = 0;
  virtual SourceStats stats() const = 0;
  // Error that ended decoding (empty if none), one line naming the input, e.g.
  // "'/dev/video0': device unplugged" or "'x.mkv': no frame could be decoded".
  virtual std::string fatalError() const = 0;
  // Serial of the latest seek request: a frame with an older serial was decoded
  // before that seek and is stale. Frames before any seek carry 0.
  virtual uint32_t serial() const { return 0; }
  // The audio track demuxed beside the video (SourceOptions::audio); empty if none.
  virtual AudioTrackInfo audioTrack() const { return {}; }
  // Where the demux thread hands the track's packets; set before start(), and `sink`
  // must outlive the source's threads (stop() first).
  virtual void setAudioSink(AudioPacketSink* sink) { (void)sink; }
};

// Opens `options.url` with libavformat (and libavdevice when built with devices).
// Throws SourceError with a clear one-line message on failure.
std::unique_ptr<Source> openSource(const SourceOptions& options);

// The built-in default input: a moving, colourful lavfi pattern ~20 s long.
SourceOptions defaultSourceOptions();

}  // namespace vp
