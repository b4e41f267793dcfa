// The application side of hardware decoding: --hwdec / --gpu / --list-gpus options,
// the source options they become, and the CPU-time and decode fields of the statistics.
#include "app/player/source_setup.h"
#include "app/options.h"
#include "app/player/stats.h"
#include "gpu/cuda/device_info.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <vector>

namespace vp {
namespace {

bool parse(std::vector<const char*> args, Options& o, int& code) {
  args.insert(args.begin(), "vidproc");
  return parseOptions(int(args.size()), args.data(), o, code);
}

TEST(HwdecOptions, ValuesAndDefaults) {
  Options o;
  int code = -1;
  ASSERT_TRUE(parse({}, o, code));
  EXPECT_EQ(o.hwdec, "auto");  // NVDEC for the exact codecs, when there is a GPU
  EXPECT_EQ(o.hwdecCodecs, "h264,hevc,vp8,vp9,av1");
  EXPECT_EQ(o.gpu, 0);
  EXPECT_FALSE(o.listGpus);
  Options p;
  ASSERT_TRUE(parse({"in.mp4", "--hwdec", "nvdec", "--gpu", "1", "--list-gpus"}, p, code));
  EXPECT_EQ(p.hwdec, "nvdec");
  Options q;
  ASSERT_TRUE(parse({"in.mp4", "--hwdec-codecs", "all"}, q, code));
  EXPECT_EQ(q.hwdecCodecs, "all");
  EXPECT_EQ(p.gpu, 1);
  EXPECT_TRUE(p.listGpus);
}

TEST(HwdecOptions, BadValuesAreUsageErrors) {
  for (const std::vector<const char*>& args : {std::vector<const char*>{"--hwdec", "cuda"},
                                               std::vector<const char*>{"--hwdec", "nvdec", "--backend", "cpu"},
                                               std::vector<const char*>{"--hwdec-codecs", "h265"},
                                               std::vector<const char*>{"--hwdec-codecs", ""},
                                               std::vector<const char*>{"--gpu", "-1"}}) {
    Options o;
    int code = -1;
    EXPECT_FALSE(parse(args, o, code)) << args[0] << " " << args[1];
    EXPECT_EQ(code, kExitUsage);
  }
}

TEST(HwdecOptions, SourceOptionsFollowTheBackend) {
  Options o;
  o.input = "in.mp4";
  o.hwdec = "nvdec";
  o.gpu = 2;
  EXPECT_EQ(sourceOptionsFrom(o).hwdec, HwDecodeMode::Nvdec);
  EXPECT_EQ(sourceOptionsFrom(o).gpu, 2);
  EXPECT_EQ(sourceOptionsFrom(o).hwdecCodecs, kDefaultHwdecCodecs);
  o.hwdecCodecs = "mpeg4";
  EXPECT_EQ(sourceOptionsFrom(o).hwdecCodecs, "mpeg4");
  o.hwdec = "no";
  EXPECT_EQ(sourceOptionsFrom(o).hwdec, HwDecodeMode::No);
  o.hwdec = "auto";
  EXPECT_EQ(sourceOptionsFrom(o).hwdec, cudaDeviceCountOrZero() > 0 ? HwDecodeMode::Auto : HwDecodeMode::No);
  o.backend = Backend::Cpu;  // frames on the GPU only for the cuda backend
  EXPECT_EQ(sourceOptionsFrom(o).hwdec, HwDecodeMode::No);
}

TEST(HwdecStats, CpuTimeAndDecodePathInSummaryAndJson) {
  RunStats s;
  s.framesProcessed = 200;
  s.wallSeconds = 2;
  s.cpuSeconds = 0.5;
  s.decodePath = "nvdec";
  s.surfaceFormat = "p010le";
  s.colorMatrix = "bt2020nc";
  s.hdr = "PQ (smpte2084), shown without tone mapping";
  EXPECT_DOUBLE_EQ(s.cpuMsPerFrame(), 2.5);
  const std::string text = formatSummary(s);
  EXPECT_NE(text.find("cpu        2.500 ms per frame (user + system 0.50 s, 0.25 cores busy)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("decode     nvdec, p010le, bt2020nc; HDR PQ (smpte2084), shown without tone mapping"),
            std::string::npos)
      << text;
  const nlohmann::json j = nlohmann::json::parse(statsJson(s));
  EXPECT_DOUBLE_EQ(j["cpu"]["ms_per_frame"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(j["cpu"]["seconds"].get<double>(), 0.5);
  EXPECT_EQ(j["decode"]["path"], "nvdec");
  EXPECT_EQ(j["decode"]["surface"], "p010le");
  EXPECT_EQ(RunStats{}.cpuMsPerFrame(), 0.0);
  EXPECT_GE(processCpuSeconds(), 0.0);
}

}  // namespace
}  // namespace vp
