// The filter type: what every element of the processing chain is, described once.
//
// A filter is a name, an option table, its command words and default keys, and two
// factories (a CUDA implementation and its CPU twin), after FFmpeg's AVFilter + AVOption
// and mpv's m_option tables. Everything a user meets is written from these tables: --vf
// parsing and its errors, --vf NAME=help, the commands and their bounds (set / add /
// cycle and the filter's own words such as `radius +1`), the default key bindings, the
// HUD's parameter lines, the JSON, README's tables, config/default.toml and
// docs/filters.md. Adding a filter: its folder under gpu/filters/ (kernel, CPU twin,
// option table, commands and keys, factories; common/stateless_filter.h declares a
// filter without state in one place), one line in registry.cpp, its reference test.
//
// Values are held as double in a fixed array (no allocation when a frame copies its
// chain): integers and choice indices are exact, seeds up to 2^53.
#pragma once

#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace vp {

enum class OptionType : uint8_t {
  Int,     // whole numbers within lo..hi
  Float,   // reals within lo..hi
  Choice,  // one of `choices` ("zero|replicate|reflect|wrap"), held as its index
  Bool,    // 0 or 1; written 0|1, no|yes, off|on, false|true
};

struct OptionInfo {
  const char* name;     // "k"
  OptionType type;
  double lo, hi;        // bounds (Choice: 0..choices-1; Bool: 0..1)
  double def;           // default value (Choice: index)
  const char* choices;  // Choice: names separated by '|'; else nullptr
  const char* help;     // "clusters"
  double stepLo;        // add / cycle stay at or above this (k steps within 2..32; set takes 1)
  bool runtime;         // may change while playing (set / add / cycle commands)
  const char* zeroName = nullptr;  // Int: a word that stands for 0 outside lo..hi (kmeans k: "auto")
};

// A command word bound to one option, for the keys and the control channel: `radius 5`,
// `radius +1`, `passes cycle`, `border reflect`, `edges-overlay toggle`. What follows it
// comes from the option's type (N | +N | -N | cycle for numbers, a choice or cycle, on |
// off | toggle for a switch). It acts on the first element of the filter that declares
// it; a word that several filters declare for the same option (view: kmeans and slic)
// acts on the first element that has that option.
struct OptionCommand {
  const char* name;    // "radius"; further names after '|' are accepted too ("k|clusters")
  const char* option;  // "r": an option of the declaring filter
  const char* help;    // "radius in pixels" (help appends the bounds)
  // on | off | toggle between the option's zero word (k auto) and the value it had
  // before (`k-auto`), instead of the option's own values.
  bool autoSwitch = false;
};

// A default key binding (config [keys]): the keys, the command text they run, and what
// it does, for help. A filter brings its own; the program adds the rest.
struct KeyBinding {
  const char* keys;         // one or more key names, comma separated: "q, escape"
  const char* command;      // command text: "radius +1"
  const char* description;  // "blur radius +1"
};

constexpr int kMaxFilterOptions = 12;  // options one filter may have
constexpr int kMaxFilterMetrics = 6;  // metrics one element may report per frame
constexpr int kMaxChainLength = 8;    // elements one chain may hold

// A named number an element reports for one frame (K-means: iterations, cost, reinit).
struct FilterMetric {
  const char* name = nullptr;  // "iterations"; nullptr: unused
  double value = 0;
};

class FilterElement;

// What one element did to one frame: its GPU (cuda events) or CPU time and its metrics.
struct ElementResult {
  float ms = -1.f;  // negative: the element did not run (disabled)
  std::array<FilterMetric, kMaxFilterMetrics> metrics{};
  // Sets (or adds) the metric `name`.
  void set(const char* name, double value);
  // The metric `name`, or `fallback` when it was not reported.
  double get(std::string_view name, double fallback = 0) const;
};

// The CUDA implementation of one chain element. The processor owns one per element and
// calls it from one thread; `slot` names the in-flight slot (0..slots-1) whose stream the
// work goes to, so per-frame state (a warm start's centres) can live per slot.
class GpuFilter {
 public:
  virtual ~GpuFilter() = default;
  // Sizes everything for frames of width x height in `slots` slots; called with nothing
  // in flight (before the first frame and at each frame-size change). Forgets any state
  // carried between frames.
  virtual void configure(int width, int height, int slots) = 0;
  // Enqueues the element on `stream` for the frame in `slot`: reads `in`, writes `out`
  // (same size; distinct buffers, or the same one where inPlace(element) allows it). May
  // write metrics that are known at once (reinit).
  virtual void enqueue(int slot, ConstRgbaView in, RgbaView out, const FilterElement& element,
                       ElementResult& result, cudaStream_t stream) = 0;
  // Whether enqueue, with these settings, may be given out == in: it reads nothing of `in`
  // after it has written any of `out`. The processor then saves the element a frame
  // buffer (a slot's output image: 33 MB at 4K). Default: no.
  virtual bool inPlace(const FilterElement& element) const { (void)element; return false; }
  // The slot's work has completed (frames finish in submission order): metrics that
  // needed the device (iterations, cost). Default: none.
  virtual void finish(int slot, ElementResult& result) { (void)slot, (void)result; }

  // Whether the slots' frames run at once on several streams (the program's pipeline: the
  // default) or one after another on one stream (the library, whose slots only keep state
  // apart). A filter may choose its launch policy by it; set before configure().
  void setConcurrentSlots(bool on) { concurrentSlots_ = on; }
  bool concurrentSlots() const { return concurrentSlots_; }

 private:
  bool concurrentSlots_ = true;
};

// The CPU twin of a GpuFilter: the same output bit for bit, synchronously.
class CpuFilter {
 public:
  virtual ~CpuFilter() = default;
  // As GpuFilter::configure, for one frame at a time.
  virtual void configure(int width, int height) = 0;
  virtual void run(ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult& result) = 0;
};

struct FilterInfo {
  const char* name;     // "kmeans": the word in --vf and in commands
  const char* summary;  // one line for --help and docs
  const OptionInfo* options;
  int optionCount;
  int mainOption;       // option the `param +N` command and the HUD's first line use; -1: none
  bool temporal;        // frame n depends on frame n-1 (K-means warm starts)
  std::unique_ptr<GpuFilter> (*makeGpu)();
  std::unique_ptr<CpuFilter> (*makeCpu)();
  const OptionCommand* commands = nullptr;  // its command words
  int commandCount = 0;
  const KeyBinding* keys = nullptr;  // its default key bindings, in help order
  int keyCount = 0;

  const OptionInfo& option(int i) const { return options[i]; }
  // Index of the option called `name`, or -1.
  int optionIndex(std::string_view name) const;
};

// One element of a chain: a filter and a value for each of its options.
class FilterElement {
 public:
  FilterElement() = default;
  explicit FilterElement(const FilterInfo& filter);  // every option at its default

  const FilterInfo& filter() const { return *filter_; }
  bool valid() const { return filter_ != nullptr; }
  std::string_view name() const { return filter_ ? filter_->name : ""; }
  double value(int option) const { return values_[size_t(option)]; }
  int intValue(int option) const { return int(values_[size_t(option)]); }
  bool boolValue(int option) const { return values_[size_t(option)] != 0; }
  // Sets option `option` to `v`; throws std::invalid_argument naming the option and its
  // bounds when v is out of them (or not whole for Int / Choice / Bool).
  void set(int option, double v);
  bool enabled() const { return enabled_; }
  void setEnabled(bool on) { enabled_ = on; }

  bool operator==(const FilterElement& o) const {
    return filter_ == o.filter_ && values_ == o.values_ && enabled_ == o.enabled_;
  }
  bool operator!=(const FilterElement& o) const { return !(*this == o); }

 private:
  const FilterInfo* filter_ = nullptr;
  std::array<double, kMaxFilterOptions> values_{};
  bool enabled_ = true;  // vf toggle: a disabled element passes its input through
};

// Option value text, for help, logs and the canonical chain string: "8", "0.01",
// "replicate", "1".
std::string formatOptionValue(const OptionInfo& option, double value);
// Reads option value text; throws std::invalid_argument("k must be 1..32", ...).
double parseOptionValue(const OptionInfo& option, std::string_view text);
// Whether `option` takes `value`: finite, within its bounds, whole unless Float.
bool optionAccepts(const OptionInfo& option, double value);
// "k must be 1..32" / "border must be zero, replicate, reflect or wrap".
std::string optionBounds(const OptionInfo& option);
// What the option takes: "1..32", "zero|replicate|reflect|wrap", "0|1".
std::string optionRange(const OptionInfo& option);

}  // namespace vp
