#include "fuzz/fuzz_pipeline.h"

#include "gpu/filters/blur/blur_filter.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/processor.h"
#include "io/source.h"

extern "C" {
#include <libavutil/mem.h>
}

#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <vector>

namespace vp::fuzz {
namespace {

void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "vp_fuzz: invariant broken: %s\n", what);
  std::abort();
}

// Submits one frame to the synchronous CPU backend and returns its output.
const OutputFrame& process(Processor& p, const InputFrame& in, const ProcessParams& params) {
  require(p.submit(in, params).has_value(), "the CPU backend takes a frame when idle");
  const OutputFrame* out = p.poll(true);
  require(out && out->rgb, "a submitted frame comes back");
  require(out->width == in.layout.width && out->height == in.layout.height, "output size = input size");
  return *out;
}

// Pixel (x, y) of the packed RGB24 output (alpha 255).
uchar4 pixel(const OutputFrame& o, int x, int y) {
  const uint8_t* p = o.rgb + size_t(y) * o.pitch + size_t(x) * 3;
  return make_uchar4(p[0], p[1], p[2], 255);
}

// Converted frame (mode none), then K-means (at most k colours) and a box blur
// (every channel within the range of the converted frame's).
void checkFrame(Processor& p, const HostFrame& f, bool firstFrame) {
  const FrameLayout& l = f.info.layout;
  require(l.width > 0 && l.height > 0 && int64_t(l.width) * l.height <= kMaxPixels,
          "frame size within the cap");
  require(l.bytes == frameLayout(l.format, l.width, l.height).bytes, "tightly packed layout");
  InputFrame in;
  in.data = f.data();
  in.layout = l;
  in.color = f.info.color;

  ProcessParams params;  // the empty chain: the converted frame
  const OutputFrame& converted = process(p, in, params);
  int lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x) {
      const uchar4 c = pixel(converted, x, y);
      const int v[3] = {c.x, c.y, c.z};
      for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], v[i]), hi[i] = std::max(hi[i], v[i]);
    }
  p.release();

  KmeansParams kp;
  kp.k = 3;
  kp.maxIterations = 4;
  kp.init = firstFrame ? KmeansInit::KmeansPlusPlus : KmeansInit::Uniform;
  params.chain.add(kmeansElement(kp));
  const OutputFrame& km = process(p, in, params);
  std::set<uint32_t> colours;
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x) {
      const uchar4 c = pixel(km, x, y);
      colours.insert(uint32_t(c.x) << 16 | uint32_t(c.y) << 8 | c.z);
    }
  require(colours.size() <= 3, "K-means paints at most k colours");
  const double iterations = km.chain[0].get("iterations", -1);
  require(iterations >= 0 && iterations <= 4, "K-means iterations within the limit");
  p.release();

  params.chain.clear();
  params.chain.add(blurElement(BlurParams{2, 2, firstFrame ? BorderMode::Reflect : BorderMode::Wrap}));
  const OutputFrame& blur = process(p, in, params);
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x) {
      const uchar4 c = pixel(blur, x, y);
      const int v[3] = {c.x, c.y, c.z};
      for (int i = 0; i < 3; ++i)
        require(v[i] >= lo[i] && v[i] <= hi[i], "a blur stays within the input's range");
    }
  p.release();
}

}  // namespace

void initialize() {
  spdlog::set_level(spdlog::level::off);
  omp_set_num_threads(1);        // inputs are tiny: a thread team costs more than it gives
  av_max_alloc(kMaxAllocBytes);  // a damaged size field fails an allocation instead of eating RAM
}

void runOne(const uint8_t* data, size_t size) {
  // The input's size picks how it is read, so the corpus covers every path of the
  // decode thread: plain, looping, one seek (to a target from its first byte), both.
  const bool loop = size % 2 == 1, seekOnce = size % 4 >= 2;
  const int64_t seekTargetUs = size > 0 ? int64_t(data[0]) * 20000 : 0;
  SourceOptions o;
  o.loop = loop;
  o.url = "fuzz input";
  o.memory = std::make_shared<const std::vector<uint8_t>>(data, data + size);
  o.maxPixels = kMaxPixels;
  o.decoderThreads = 1;                         // no thread pool per input
  FrameQueue queue(2, HostAllocator::plain());  // outlives the source's decode thread
  std::unique_ptr<Source> source;
  try {
    source = openSource(o);
  } catch (const SourceError& e) {
    require(e.what()[0] != '\0', "a refused input says why");
    return;
  }
  const SourceInfo info = source->info();
  require(info.rotation % 90 == 0 && info.rotation >= 0 && info.rotation < 360, "rotation is a quarter turn");
  source->start(queue);
  std::unique_ptr<Processor> processor = makeCpuProcessor(1);
  int frames = 0;
  bool seeked = false;
  for (int reads = 0; frames < kMaxFrames && reads < 4 * kMaxFrames; ++reads) {
    HostFrame* f = queue.peekReadable();
    require(f != nullptr, "the queue ends with an end-of-stream marker, not an abort");
    require(f->info.serial <= source->serial(), "no frame from the future");
    if (f->info.serial != source->serial()) {  // decoded before the seek: stale
      queue.pop();
      continue;
    }
    const bool end = f->info.endOfStream;
    if (!end) checkFrame(*processor, *f, frames++ == 0);
    queue.pop();
    if (seekOnce && !seeked && (frames == 1 || end)) {
      seeked = true;
      if (source->seek(seekTargetUs)) continue;  // a seek works after the end too
    }
    if (end) break;
  }
  source->stop();
}

}  // namespace vp::fuzz
