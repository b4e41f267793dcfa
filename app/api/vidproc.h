// vidproc as a library: the filter chain of the vidproc program on caller-owned images.
//
//   vp::Chain chain("blur=r=3,kmeans=k=6");          // --vf syntax, the same parser and errors
//   chain.process(in, out);                           // host images: the CPU twins
//   chain.process(devIn, devOut, stream);             // CUDA device images: the kernels on `stream`
//
// An image is a non-owning view: pointer, row pitch in bytes, width, height, pixel layout
// (8-bit RGBA, RGB, BGR, BGRA or GRAY) and where it lives (host or CUDA device memory).
// Each frame is converted to the chain's RGBA work format, runs through the elements and
// is written in the output's layout: RGB/BGR/GRAY inputs get alpha 255; a GRAY output is
// the rounded luma (77 R + 150 G + 29 B) / 256, so grey in gives the same grey out.
// Host memory and device memory give the same bytes (the kernels equal their CPU twins),
// and so does `vidproc --vf` on the same RGB frames.
//
// Device calls enqueue on the caller's stream and return: no copy through the host and no
// synchronisation, except where a temporal element reads an earlier frame's result (a
// K-means element decides on warm start from the cost of the frame two calls back and
// waits for that frame if it is still running; automatic K waits for its scores on the
// frames it chooses on). `in` and `out` may be the same image (in place).
//
// The chain keeps its state between calls as on a video (K-means warm starts, automatic K,
// scene cuts): reset() forgets it. State is kept per memory kind (host calls and device
// calls each continue their own sequence). A Chain is used from one thread at a time.
//
// Errors: std::invalid_argument for a bad chain text (the message names the position:
// "at 7: unknown option 'q' of kmeans (...)"), a bad option value, or a bad image
// (null, empty, pitch too small, sizes of in and out differ); std::runtime_error for a
// device image without a CUDA device, or a CUDA failure.
//
// VideoReader (below) decodes files and streams as the program does, into such images.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The CUDA runtime's stream handle, declared so that this header needs no CUDA headers.
typedef struct CUstream_st* cudaStream_t;

namespace vp {

enum class PixelLayout : uint8_t { RGBA, RGB, BGR, BGRA, GRAY };
int channelsOf(PixelLayout layout);  // 4, 3, 3, 4, 1
std::string_view layoutName(PixelLayout layout);  // "rgba", "rgb", "bgr", "bgra", "gray"

enum class MemoryKind : uint8_t { Host, Device };

// A caller-owned 8-bit image. For Device memory, `device` is the CUDA device ordinal.
struct Image {
  void* data = nullptr;
  size_t pitch = 0;  // bytes between the starts of two rows; at least width * channels
  int width = 0;
  int height = 0;
  PixelLayout layout = PixelLayout::RGBA;
  MemoryKind memory = MemoryKind::Host;
  int device = 0;
};

// Which implementation runs a chain: Auto follows each image's memory (host: the CPU
// twins; device: the kernels). Cuda also runs host images on the GPU (uploaded and
// downloaded inside the call, which then waits for them); Cpu refuses device images.
enum class Device : uint8_t { Auto, Cpu, Cuda };

// One element's numbers after a call: its label ("kmeans#1") and metrics (K-means:
// iterations, cost, reinit, and with automatic K k and score; SLIC: its own). ms: the
// element's time on a host call, or on a device call when timing is on; else negative.
struct ElementMetrics {
  std::string label;
  double ms = -1;
  std::vector<std::pair<std::string, double>> values;
  // The metric `name`, or `fallback` when the element did not report it.
  double get(std::string_view name, double fallback = 0) const;
};

class Chain {
 public:
  // Parses `spec` ("none" or "" for no filter). Throws std::invalid_argument.
  explicit Chain(std::string_view spec = "none", Device device = Device::Auto);
  ~Chain();
  Chain(Chain&&) noexcept;
  Chain& operator=(Chain&&) noexcept;
  Chain(const Chain&) = delete;
  Chain& operator=(const Chain&) = delete;

  // Runs the chain on `in`, writing `out` (same width and height; layouts may differ).
  // `in` and `out` must be both host or both device images (on the same device). `stream`
  // is used by device work only (nullptr: the legacy default stream).
  void process(const Image& in, const Image& out, cudaStream_t stream = nullptr);
  // As process() on `count` frames in a row: images `i` at in.data + i * inStride bytes
  // (out likewise), each continuing the chain's state like successive calls.
  void processBatch(const Image& in, size_t inStride, const Image& out, size_t outStride, int count,
                    cudaStream_t stream = nullptr);

  // The canonical text of the chain, every option written ("blur=r=3:border=replicate,...").
  std::string spec() const;
  // The options that differ from the defaults ("blur=r=3,kmeans=k=6"; "none").
  std::string describe() const;
  int size() const;  // elements

  // Chain editing, the verbs of the program's `vf` and `set` commands. An element is
  // addressed as "kmeans" (the first kmeans), "kmeans#2" (position 2, a kmeans) or "2".
  // set("kmeans.k", 5), set("blur#1.border", "wrap"), set("k", 5) (the first element that
  // has the option). Throws std::invalid_argument naming the reason.
  void set(std::string_view path, double value);
  void set(std::string_view path, std::string_view value);
  double get(std::string_view path) const;
  void setSpec(std::string_view spec);        // replaces the whole chain (kept state: as the program does)
  void append(std::string_view element);      // "median=r=2"
  void insert(int position, std::string_view element);  // 0-based position
  void remove(std::string_view target);
  void enable(std::string_view target, bool on);  // a disabled element passes its input through

  // Forgets the state carried between frames (K-means starts cold on the next frame).
  void reset();

  // The elements' numbers for the latest frame (of process(), or the last of a batch).
  // After a device call this waits for that frame to finish.
  std::vector<ElementMetrics> metrics();
  // Times each element of device calls with CUDA events (off by default: two events per
  // element per frame).
  void setTiming(bool on);

  Device device() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One decoded frame's place in its video.
struct FrameStamp {
  int64_t ptsUs = 0;  // presentation time, microseconds from the start
  int64_t index = 0;  // decode order, from 0
};

// The frames of a video file or network stream, decoded and converted to 8-bit images
// exactly as the program does it before its chain (the same bytes as `vidproc --vf`
// receives). Device::Cuda decodes on NVDEC where the program's `--hwdec auto` would (the
// frames never leave the GPU) and converts on the GPU; Cpu decodes in software and
// converts on the CPU; Auto is Cuda when a device is present. Decoding runs ahead on its
// own threads. Throws std::runtime_error with the program's one-line message when the
// input cannot be opened or decoding fails.
class VideoReader {
 public:
  explicit VideoReader(std::string_view url, Device device = Device::Auto);
  ~VideoReader();
  VideoReader(VideoReader&&) noexcept;
  VideoReader& operator=(VideoReader&&) noexcept;
  VideoReader(const VideoReader&) = delete;
  VideoReader& operator=(const VideoReader&) = delete;

  // Waits for the next frame and gives its size; false at the end of the video.
  bool peek(int* width, int* height);
  // Writes the next frame into `out` (its size, any layout; device memory for a Cuda
  // reader, host memory for Cpu), ordered on `stream`. False at the end of the video. A
  // stream that changes size mid-way: peek() says the new size, read() refuses another.
  bool read(const Image& out, FrameStamp* stamp = nullptr, cudaStream_t stream = nullptr);

  int width() const;   // of the latest decoded frame (before the first: the stream's)
  int height() const;
  double fps() const;  // average frame rate; 0 when unknown
  int64_t durationUs() const;  // 0 when unknown or live
  std::string codec() const;   // "hevc"
  std::string decodePath() const;  // of the latest decoded frame: "nvdec" or "software"
  MemoryKind memory() const;  // where read() writes: Device for a Cuda reader

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether a CUDA device is usable from this process.
bool cudaAvailable();

// The filters a chain may use, from the registry: for documentation and bindings.
struct OptionDescription {
  std::string name, type, help;  // type: "int", "float", "choice", "bool"
  double lo = 0, hi = 0, def = 0;
  std::vector<std::string> choices;  // choice options
  std::string defText;               // the default as the chain text writes it
  bool runtime = false;              // may change between frames
};
struct FilterDescription {
  std::string name, summary;
  bool temporal = false;
  std::vector<OptionDescription> options;
};
std::vector<FilterDescription> filters();

}  // namespace vp
