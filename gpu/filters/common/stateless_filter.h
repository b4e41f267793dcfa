// A filter without state between frames (blur, median, gauss, edges, bilateral), declared
// once: its parameters struct, each option row bound to the member it fills, its GPU
// workspace and CPU scratch, and its two entry points. StatelessFilter<Decl> builds the
// option table, the element <-> params conversion (indices found by name in the table,
// never kept by hand), and the GpuFilter / CpuFilter pair that the chain runs.
//
//   struct MedianDecl {
//     using Params = MedianParams;
//     using Workspace = MedianWorkspace;       // constructed from (width, height)
//     using Scratch = MedianCpuScratch;        // constructed from (width, height)
//     static constexpr bool kWorkspacePerSlot = false;
//     static constexpr ParamOption<MedianParams> kOptions[] = {
//         bindOption<&MedianParams::radius>({"r", OptionType::Int, ...}), ...};
//     static void gpu(ConstRgbaView, RgbaView, const Params&, Workspace&, cudaStream_t);
//     static void cpu(ConstRgbaView, RgbaView, const Params&, Scratch&);
//   };
//   using Median = StatelessFilter<MedianDecl>;
//   const FilterInfo kMedianFilter = Median::info("median", "summary", "r", kCommands, kKeys);
#pragma once

#include "gpu/filters/filter.h"

#include <array>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <vector>

namespace vp {

// An option row and the member of P it fills.
template <class P>
struct ParamOption {
  OptionInfo info;
  void (*store)(P&, double);  // the element's value into the member
  double (*load)(const P&);   // the member as the element's value
};

// Reads and writes one member of a params struct as an option value (int, float,
// double, bool, or an enum held as its index).
template <auto Member>
struct MemberOption;
template <class P, class T, T P::*Member>
struct MemberOption<Member> {
  using Params = P;
  static void store(P& p, double v) {
    if constexpr (std::is_same_v<T, bool>) p.*Member = v != 0;
    else if constexpr (std::is_enum_v<T>) p.*Member = static_cast<T>(static_cast<std::underlying_type_t<T>>(v));
    else p.*Member = static_cast<T>(v);
  }
  static double load(const P& p) {
    if constexpr (std::is_enum_v<T>) return double(static_cast<std::underlying_type_t<T>>(p.*Member));
    else return double(p.*Member);
  }
};

// `info`'s row bound to the member it fills.
template <auto Member>
constexpr ParamOption<typename MemberOption<Member>::Params> bindOption(const OptionInfo& info) {
  return {info, &MemberOption<Member>::store, &MemberOption<Member>::load};
}

// For filters without a workspace (or without a scratch) on one side.
struct NoWorkspace {
  NoWorkspace(int, int) {}
};

template <class Decl>
class StatelessFilter {
 public:
  using Params = typename Decl::Params;
  static constexpr size_t kOptionCount = std::size(Decl::kOptions);
  static_assert(kOptionCount <= size_t(kMaxFilterOptions), "too many options for FilterElement");

  // The option table, in the order Decl::kOptions lists it.
  static constexpr std::array<OptionInfo, kOptionCount> kTable = [] {
    std::array<OptionInfo, kOptionCount> t{};
    for (size_t i = 0; i < kOptionCount; ++i) t[i] = Decl::kOptions[i].info;
    return t;
  }();

  // The index of option `name`; a name the table lacks does not compile where a
  // constant is needed, and is -1 elsewhere.
  static constexpr int index(std::string_view name) {
    for (size_t i = 0; i < kOptionCount; ++i)
      if (name == kTable[i].name) return int(i);
    return -1;
  }

  // The filter's description for the registry. `mainOption` names the option that
  // `param +N` and the HUD's first line use (a name the table lacks: std::logic_error at
  // start). The command and key tables must outlive it (static arrays).
  template <size_t C, size_t K>
  static constexpr FilterInfo info(const char* name, const char* summary, std::string_view mainOption,
                                   const OptionCommand (&commands)[C], const KeyBinding (&keys)[K]) {
    if (index(mainOption) < 0) throw std::logic_error("main option not in the filter's table");
    return {name,  summary,  kTable.data(), int(kOptionCount), index(mainOption), false, &makeGpu, &makeCpu,
            commands, int(C), keys, int(K)};
  }

  static Params paramsOf(const FilterElement& e) {
    Params p{};
    for (size_t i = 0; i < kOptionCount; ++i) Decl::kOptions[i].store(p, e.value(int(i)));
    return p;
  }
  // An element of `filter` (this declaration's FilterInfo) holding `p`'s values.
  static FilterElement elementOf(const FilterInfo& filter, const Params& p) {
    FilterElement e(filter);
    for (size_t i = 0; i < kOptionCount; ++i) e.set(int(i), Decl::kOptions[i].load(p));
    return e;
  }

 private:
  class Gpu final : public GpuFilter {
   public:
    void configure(int width, int height, int slots) override {
      // Per slot when slots run concurrently on their own streams and the workspace holds
      // device memory they would share; else one serves every slot.
      ws_.clear();
      const int count = Decl::kWorkspacePerSlot ? slots : 1;
      for (int i = 0; i < count; ++i) ws_.push_back(std::make_unique<typename Decl::Workspace>(width, height));
    }
    void enqueue(int slot, ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&,
                 cudaStream_t stream) override {
      Decl::gpu(in, out, paramsOf(element), *ws_[Decl::kWorkspacePerSlot ? size_t(slot) : 0], stream);
    }

   private:
    std::vector<std::unique_ptr<typename Decl::Workspace>> ws_;
  };

  class Cpu final : public CpuFilter {
   public:
    void configure(int width, int height) override {
      scratch_ = std::make_unique<typename Decl::Scratch>(width, height);
    }
    void run(ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&) override {
      Decl::cpu(in, out, paramsOf(element), *scratch_);
    }

   private:
    std::unique_ptr<typename Decl::Scratch> scratch_;
  };

  static std::unique_ptr<GpuFilter> makeGpu() { return std::make_unique<Gpu>(); }
  static std::unique_ptr<CpuFilter> makeCpu() { return std::make_unique<Cpu>(); }
};

}  // namespace vp
