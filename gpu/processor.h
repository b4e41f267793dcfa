// The processing backend interface: native frame in host memory -> processed
// packed RGB24 in host memory, through N in-flight slots.
//
// Backends: cuda (slots = CUDA streams overlapping upload, compute, download),
// cpu (the OpenMP CPU twins, synchronous), null (copies nothing: tests, bench of
// the rest of the program). The caller's loop is:
//   ticket = submit(frame, params)   -> nullopt while every slot is busy
//   inputReleased(ticket, wait)      -> true once the input memory may be reused
//   out = poll(wait)                 -> oldest finished frame, in submission order
//   release()                        -> done with `out`; its slot becomes free
#pragma once

#include "gpu/blur/box_blur.h"
#include "gpu/color/pixel_format.h"
#include "gpu/color/device_surface.h"
#include "gpu/kmeans/kmeans.h"

#include <vector_types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace vp {

enum class Mode : uint8_t { Kmeans, Blur, None };
inline constexpr int kModeCount = 3;          // cycles step through Mode in this order
inline constexpr int kBorderModeCount = 4;    // BorderMode: Zero, Replicate, Reflect, Wrap
static_assert(static_cast<int>(BorderMode::Wrap) == kBorderModeCount - 1, "BorderMode changed: update the count");
std::string_view modeName(Mode mode);
bool parseMode(std::string_view name, Mode& out);
std::string_view borderModeName(BorderMode mode);  // "zero", "replicate", "reflect", "wrap"
bool parseBorderMode(std::string_view name, BorderMode& out);
std::string_view kmeansInitName(KmeansInit init);  // "uniform", "kmeans++", "warm"
bool parseKmeansInit(std::string_view name, KmeansInit& out);

struct ProcessParams {
  Mode mode = Mode::Kmeans;
  KmeansParams kmeans;  // init applies when (re)initialising; later frames warm-start
  bool warmStart = true;  // K-means frame n starts from frame n-1's centres
  BlurParams blur;
};

// The stages of one frame's trip, in pipeline order: the one list the processors, the
// statistics, the JSON and the HUD share. A processor times Upload..Download; the
// players time Present (window) and Encode (-o).
enum class Stage : uint8_t { Upload, Convert, Kmeans, Blur, Download, Present, Encode };
inline constexpr int kStageCount = 7;
std::string_view stageName(Stage stage);  // "upload", "convert", ... "encode"

// Milliseconds each stage took for one frame; negative when the stage did not run.
struct StageTimes {
  std::array<float, kStageCount> ms;  // indexed by Stage
  StageTimes() { ms.fill(-1.f); }
  float& operator[](Stage s) { return ms[static_cast<size_t>(s)]; }
  float operator[](Stage s) const { return ms[static_cast<size_t>(s)]; }
};

// When each stage of one frame ran, in ms since the processor was created (cuda
// only; zeros on cpu). Shows how the streams overlap.
struct StageTimeline {
  float uploadStart = 0, uploadEnd = 0;
  float computeStart = 0, computeEnd = 0;  // convert + K-means/blur
  float downloadStart = 0, downloadEnd = 0;
};

struct InputFrame {
  const void* data = nullptr;  // planes laid out as `layout`, host memory (pinned for cuda)
  FrameLayout layout;
  ColorSpace color;
  int64_t ptsUs = 0;           // carried through to the output
  // present(): the frame is already in device memory (nvdec), laid out as `layout`
  // says but at these pointers and pitches; `data` is unused (cuda backend only).
  DeviceSurface device{};
};

struct OutputFrame {
  // Packed RGB24 rows in host memory, valid until release(). Not RGBA: alpha is
  // always 255, and leaving it on the device cuts the download, the pipeline's
  // bound, by a quarter.
  const uint8_t* rgb = nullptr;
  size_t pitch = 0;              // bytes
  int width = 0;
  int height = 0;
  int64_t ptsUs = 0;
  uint64_t ticket = 0;
  ProcessParams params;          // what this frame was processed with
  StageTimes times;
  StageTimeline timeline;
  int kmeansIterations = 0;      // iterations K-means used on this frame (0 if not run)
  uint64_t kmeansCost = 0;       // squared error of the K-means output (0 if not run)
  bool kmeansReinit = false;     // this frame (re)initialised K-means instead of warm-starting
};

namespace detail {
// An output record for `frame` (ticket, timestamp, size, parameters), times unset.
OutputFrame outputFor(uint64_t ticket, const InputFrame& frame, const ProcessParams& params);
}  // namespace detail

class Processor {
 public:
  virtual ~Processor() = default;
  // "cuda", "cpu" or "null".
  virtual std::string backendName() const = 0;
  // Device name ("NVIDIA H200"), or the CPU thread count for cpu.
  virtual std::string deviceName() const = 0;
  // Starts processing `frame` with `params`; returns its ticket, or nullopt when no
  // slot is free (poll and release first). A frame whose layout differs from the
  // slots' is accepted only once nothing is in flight (slots are then reallocated).
  // Throws std::invalid_argument on bad parameters.
  virtual std::optional<uint64_t> submit(const InputFrame& frame, const ProcessParams& params) = 0;
  // True once the input memory of `ticket` is no longer read (upload finished, or for
  // a device surface its convert); with wait, blocks until then.
  virtual bool inputReleased(uint64_t ticket, bool wait) = 0;
  // The oldest submitted, finished and not yet released frame; nullptr if none is
  // finished (wait=false) or none is in flight. Returns the same frame until release().
  virtual const OutputFrame* poll(bool wait) = 0;
  // Ends the use of the frame poll() returned.
  virtual void release() = 0;
  // Frames submitted and not yet released.
  virtual int inFlight() const = 0;
  // Of those, how many (counted from the oldest, in order) have finished; never blocks.
  virtual int finished() = 0;
};

enum class Backend : uint8_t { Auto, Cuda, Cpu };
bool parseBackend(std::string_view name, Backend& out);

// Creates the backend. Auto: cuda when a device is present, else cpu (with a one-line
// warning). Cuda without a device: throws std::runtime_error with a clear message.
std::unique_ptr<Processor> makeProcessor(Backend backend, int streams);
std::unique_ptr<Processor> makeCudaProcessor(int streams);
std::unique_ptr<Processor> makeCpuProcessor(int slots);

}  // namespace vp
