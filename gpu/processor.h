// The processing backend interface: native frame in host memory -> processed
// packed RGB24 in host memory, through N in-flight slots.
//
// Backends: cuda (slots = CUDA streams overlapping upload, compute, download) and
// cpu (the OpenMP CPU twins, synchronous). Each frame runs its params.chain: on the GPU
// every element in the slot's stream, between ping-pong buffers allocated once per frame
// size and chain shape, with no host round trip; each element has its own events. The
// caller's loop is:
//   ticket = submit(frame, params)   -> nullopt while every slot is busy
//   inputReleased(ticket, wait)      -> true once the input memory may be reused
//   out = poll(wait)                 -> oldest finished frame, in submission order
//   release()                        -> done with `out`; its slot becomes free
#pragma once

#include "gpu/color/compare_mode.h"
#include "gpu/color/device_surface.h"
#include "gpu/color/pixel_format.h"
#include "gpu/filters/chain.h"

#include <vector_types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace vp {


struct ProcessParams {
  FilterChain chain;  // the filters, in order; empty: the converted frame as it is
  CompareMode compare = CompareMode::Off;
  float split = 0.5f;          // Split: the line's position as a fraction of the width, 0..1
  bool keepProcessed = false;  // compare on: also download the processed frame alone
};

// The fixed stages of one frame's trip, in pipeline order: the one list the processors,
// the statistics, the JSON and the HUD share. The chain's elements are timed apart
// (OutputFrame::chain). A processor times Upload, Convert and Download (the pack to RGB24
// or the compare view, and the copy to the host); the players time Present (window) and
// Encode (-o).
enum class Stage : uint8_t { Upload, Convert, Download, Present, Encode };
inline constexpr int kStageCount = 5;
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
  float computeStart = 0, computeEnd = 0;  // convert + the chain
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

// Packed RGB24 rows in host memory.
struct RgbPicture {
  const uint8_t* rgb = nullptr;  // nullptr: not available
  size_t pitch = 0;              // bytes
  int width = 0, height = 0;     // pixels
};

struct OutputFrame {
  // What is shown: packed RGB24 rows in host memory, valid until release(); the processed
  // frame, or with params.compare its comparison (Side: 2 x frameWidth wide). Not RGBA:
  // alpha is always 255, and leaving it on the device cuts the download, the pipeline's
  // bound, by a quarter.
  const uint8_t* rgb = nullptr;
  size_t pitch = 0;              // bytes
  int width = 0;                 // pixels of rgb
  int height = 0;
  // The processed frame alone (frameWidth x frameHeight): rgb when compare is off; with
  // compare, present only when params.keepProcessed (else nullptr).
  const uint8_t* processed = nullptr;
  size_t processedPitch = 0;     // bytes
  int frameWidth = 0;            // pixels of the input frame
  int frameHeight = 0;
  int64_t ptsUs = 0;
  uint64_t ticket = 0;
  ProcessParams params;          // what this frame was processed with
  StageTimes times;
  StageTimeline timeline;
  std::array<ElementResult, kMaxChainLength> chain;  // per element of params.chain: time, metrics

  RgbPicture shown() const { return {rgb, pitch, width, height}; }
  RgbPicture processedPicture() const { return {processed, processedPitch, frameWidth, frameHeight}; }
};

namespace detail {
// An output record for `frame` (ticket, timestamp, sizes, parameters), times unset.
OutputFrame outputFor(uint64_t ticket, const InputFrame& frame, const ProcessParams& params);
// Argument checks both backends share: the chain's options within their bounds, split in
// 0..1; throws std::invalid_argument.
void checkParams(const ProcessParams& params);
}  // namespace detail

class Processor {
 public:
  virtual ~Processor() = default;
  // "cuda" or "cpu".
  virtual std::string backendName() const = 0;
  // Device name ("NVIDIA H200"), or the CPU thread count for cpu.
  virtual std::string deviceName() const = 0;
  // Starts processing `frame` with `params`; returns its ticket, or nullopt when no
  // slot is free (poll and release first). On cuda a frame whose layout differs from the
  // slots', or whose chain has another shape (filters added, removed or reordered), is
  // accepted only once nothing is in flight; cpu, which finishes each frame inside
  // submit(), takes it at once. Buffers and elements are then rebuilt; an element keeps
  // its state across the change when the same filter holds the same place among its
  // kind (the 2nd kmeans stays the 2nd kmeans).
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
