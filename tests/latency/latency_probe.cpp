// vp_latency_probe: the "eye" of a glass-to-glass latency run (scripts/latency.sh).
//   vp_latency_probe --display :99 --region 1280x720+0+0 [--fps 113] --seconds 62 --out seen.log
//     grabs the screen with libavdevice's x11grab and reads the barcode (barcode.h) of the
//     frame a player shows in the region (its window, the stream's picture filling it).
//     Only the rows that hold the barcode are grabbed: the grab is the probe's main cost.
//     x11grab stamps each grab with av_gettime() (wall clock, us) before taking it; the log
//     has one line per grab, "grab_wall_us N" (N = -1: no valid barcode). The default rate
//     is no multiple of common frame rates, so grabs sweep every phase of the frames.
//     A frame shown at t is seen at the next grab: on average 1/(2 fps) later.
//   vp_latency_probe --analyze send.log seen.log [--skip 5] [--tail 1] [--label NAME]
//     latency of frame N = first grab showing N - its send time, for the frames sent from
//     `skip` seconds after both logs start until `tail` seconds before the probe stopped.
//     Prints a summary and a "latency: key=value ..." line for scripts.
//   vp_latency_probe --self-test
//     round-trips the barcode through scaling, blur, noise and H.264 (self_test.h; ctest).
#include "barcode.h"
#include "self_test.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
}

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using vp::latency::PictureView;
using vp::latency::readBarcode;

int fail(const std::string& why) {
  std::fprintf(stderr, "vp_latency_probe: %s\n", why.c_str());
  return 1;
}

int usage(const std::string& why) {
  std::fprintf(stderr,
               "vp_latency_probe: %s\n"
               "usage: vp_latency_probe --display :N --region WxH+X+Y [--fps 113] --seconds S --out FILE\n"
               "       vp_latency_probe --analyze SEND_LOG SEEN_LOG [--skip S] [--tail S] [--label NAME]\n"
               "       vp_latency_probe --self-test\n",
               why.c_str());
  return 2;
}

bool parseNumber(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && std::isfinite(out);
}

std::string avError(int err) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(err, text, sizeof text);
  return text;
}

// ---- grabbing ---------------------------------------------------------------------------

struct GrabOptions {
  std::string display;
  int width = 0, height = 0, x = 0, y = 0;
  double fps = 113;
  double seconds = 0;
  std::string out;
};

struct InputClose {
  void operator()(AVFormatContext* ic) const { avformat_close_input(&ic); }
};
struct PacketFree {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};

int grab(const GrabOptions& o, const sigset_t& stops) {
  avdevice_register_all();
  const AVInputFormat* format = av_find_input_format("x11grab");
  if (!format) return fail("this FFmpeg has no x11grab input");
  const vp::latency::RowSpan rows = vp::latency::barcodeRows(o.height);
  const std::string url = o.display + "+" + std::to_string(o.x) + "," + std::to_string(o.y + rows.top);
  AVDictionary* opts = nullptr;
  av_dict_set(&opts, "framerate", std::to_string(o.fps).c_str(), 0);
  av_dict_set(&opts, "video_size", (std::to_string(o.width) + "x" + std::to_string(rows.count)).c_str(), 0);
  av_dict_set(&opts, "draw_mouse", "0", 0);
  AVFormatContext* raw = nullptr;
  const int err = avformat_open_input(&raw, url.c_str(), format, &opts);
  av_dict_free(&opts);
  if (err < 0) return fail("cannot grab " + url + ": " + avError(err));
  std::unique_ptr<AVFormatContext, InputClose> ic(raw);

  // x11grab hands raw packed RGB (bgr0 on a 24-bit screen): read the green byte.
  const AVStream* st = ic->streams[0];
  const auto pixels = static_cast<AVPixelFormat>(st->codecpar->format);
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(pixels);
  if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_PLANAR | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM)) ||
      desc->nb_components < 3 || desc->comp[1].depth != 8)
    return fail(std::string("cannot read the screen's pixel format ") + (desc ? desc->name : "?"));
  PictureView view;
  view.width = st->codecpar->width;
  view.height = st->codecpar->height;
  view.step = desc->comp[1].step;
  view.offset = desc->comp[1].offset;

  std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(o.out.c_str(), "w"), &std::fclose);
  if (!out) return fail("cannot write " + o.out + ": " + std::strerror(errno));
  std::fprintf(out.get(), "# vp_latency_probe %s region %dx%d+%d+%d rows %d..%d fps %g\n", o.display.c_str(),
               o.width, o.height, o.x, o.y, rows.top, rows.top + rows.count, o.fps);

  std::unique_ptr<AVPacket, PacketFree> pkt(av_packet_alloc());
  const auto stop = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.seconds);
  int64_t grabs = 0, read = 0, grabCostUs = 0, first = -1, last = -1;
  const timespec poll{};
  while (std::chrono::steady_clock::now() < stop && sigtimedwait(&stops, nullptr, &poll) < 0) {
    const int got = av_read_frame(ic.get(), pkt.get());
    if (got < 0) return fail("grabbing failed: " + avError(got));
    const int64_t now = av_gettime();
    const int64_t seen = av_rescale_q(pkt->pts, st->time_base, {1, 1000000});
    view.data = pkt->data;
    view.stride = pkt->size / std::max(1, view.height);
    const bool whole = view.stride >= static_cast<ptrdiff_t>(view.width) * view.step;
    const int64_t n = whole ? readBarcode(view, o.height, rows.top) : -1;
    av_packet_unref(pkt.get());
    std::fprintf(out.get(), "%lld %lld\n", static_cast<long long>(seen), static_cast<long long>(n));
    ++grabs;
    read += n >= 0;
    grabCostUs += now - seen;
    if (first < 0) first = seen;
    last = seen;
  }
  const double span = (last - first) / 1e6;
  std::fprintf(stderr, "vp_latency_probe: %lld grabs (%.1f/s), %lld with a barcode; a grab takes %.2f ms\n",
               static_cast<long long>(grabs), span > 0 ? (grabs - 1) / span : 0.0,
               static_cast<long long>(read), grabs ? grabCostUs / 1e3 / grabs : 0.0);
  return 0;
}

// ---- analysis ---------------------------------------------------------------------------

struct Frame {
  int64_t sentUs = 0;
  int64_t seenUs = -1;  // first grab that showed it
};

// Reads "a b" pairs of integers, skipping '#' comments; false when the file cannot be read.
bool readPairs(const std::string& path, std::vector<std::pair<int64_t, int64_t>>& pairs) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    long long a = 0, b = 0;
    if (fields >> a >> b) pairs.emplace_back(a, b);
  }
  return true;
}

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return NAN;
  const size_t rank = static_cast<size_t>(std::ceil(p / 100 * sorted.size()));
  return static_cast<double>(sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1]);
}

std::string ms(double us) {
  if (std::isnan(us)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", us / 1000);
  return text;
}

// A pause in the stream (the sender's --pause-at/--pause-for): the longest silence between
// two frames sent, when it exceeds a second. Recovery is the time from the first frame sent
// after it to the first grab showing a frame (sent after it) as early as the run's steady
// p95 (every frame but those of the 2 s after the resume); the latency after is measured
// from 2 s after the resume on.
struct Recovery {
  int64_t gapUs = 0;  // 0: no pause
  double recoveryUs = NAN, afterP50Us = NAN, afterP99Us = NAN;
};
Recovery recoveryAfterGap(const std::map<int64_t, Frame>& frames, int64_t from, int64_t to) {
  std::vector<Frame> sent;
  for (const auto& [n, f] : frames)
    if (f.sentUs >= from && f.sentUs <= to) sent.push_back(f);
  std::sort(sent.begin(), sent.end(), [](const Frame& a, const Frame& b) { return a.sentUs < b.sentUs; });
  Recovery r;
  size_t resume = 0;
  for (size_t i = 1; i < sent.size(); ++i)
    if (sent[i].sentUs - sent[i - 1].sentUs > std::max<int64_t>(r.gapUs, 1'000'000)) {
      r.gapUs = sent[i].sentUs - sent[i - 1].sentUs;
      resume = i;
    }
  if (r.gapUs == 0) return r;
  const int64_t resumeUs = sent[resume].sentUs;
  std::vector<int64_t> steady, after;
  for (const Frame& f : sent)
    if (f.seenUs >= 0 && (f.sentUs < resumeUs || f.sentUs >= resumeUs + 2'000'000))
      steady.push_back(f.seenUs - f.sentUs);
  std::sort(steady.begin(), steady.end());
  const double level = percentile(steady, 95);
  for (size_t i = resume; i < sent.size(); ++i) {
    const Frame& f = sent[i];
    if (f.seenUs < 0) continue;
    const int64_t latency = f.seenUs - f.sentUs;
    if (std::isnan(r.recoveryUs) && latency <= level) r.recoveryUs = double(f.seenUs - resumeUs);
    if (f.sentUs >= resumeUs + 2'000'000) after.push_back(latency);
  }
  std::sort(after.begin(), after.end());
  r.afterP50Us = percentile(after, 50);
  r.afterP99Us = percentile(after, 99);
  return r;
}

int analyze(const std::string& sendLog, const std::string& seenLog, double skip, double tail,
            const std::string& label) {
  std::vector<std::pair<int64_t, int64_t>> sends, grabs;
  if (!readPairs(sendLog, sends)) return fail("cannot read " + sendLog);
  if (!readPairs(seenLog, grabs)) return fail("cannot read " + seenLog);
  if (sends.empty()) return fail(sendLog + " has no frames");
  if (grabs.empty()) return fail(seenLog + " has no grabs");

  std::map<int64_t, Frame> frames;
  for (const auto& [n, us] : sends) frames[n].sentUs = us;
  int64_t firstGrab = grabs.front().first, lastGrab = firstGrab, misread = 0, withCode = 0;
  for (const auto& [us, n] : grabs) {
    firstGrab = std::min(firstGrab, us);
    lastGrab = std::max(lastGrab, us);
    if (n < 0) continue;
    ++withCode;
    const auto it = frames.find(n);
    // A number never sent, or seen before it was sent, cannot be: a misread.
    if (it == frames.end() || us < it->second.sentUs) {
      ++misread;
      continue;
    }
    if (it->second.seenUs < 0 || us < it->second.seenUs) it->second.seenUs = us;
  }

  const int64_t from = std::max(frames.begin()->second.sentUs, firstGrab) + static_cast<int64_t>(skip * 1e6);
  const int64_t to = std::min(frames.rbegin()->second.sentUs, lastGrab - static_cast<int64_t>(tail * 1e6));
  // Growth compares the first and the last 10 s (half the window each when shorter).
  const int64_t part = std::min<int64_t>(10000000, std::max<int64_t>(0, to - from) / 2);
  std::vector<int64_t> all, early, late;
  int64_t sent = 0;
  for (const auto& [n, f] : frames) {
    if (f.sentUs < from || f.sentUs > to) continue;
    ++sent;
    if (f.seenUs < 0) continue;
    const int64_t latency = f.seenUs - f.sentUs;
    all.push_back(latency);
    if (f.sentUs < from + part) early.push_back(latency);
    if (f.sentUs > to - part) late.push_back(latency);
  }
  for (auto* v : {&all, &early, &late}) std::sort(v->begin(), v->end());
  const int64_t shown = static_cast<int64_t>(all.size());
  const Recovery recovery = recoveryAfterGap(frames, from, to);
  const double growth = percentile(late, 50) - percentile(early, 50);
  const double grabHz = lastGrab > firstGrab ? (grabs.size() - 1) * 1e6 / (lastGrab - firstGrab) : 0;
  const std::string name = label.empty() ? seenLog : label;

  std::printf(
      "%s: %lld frames in %.1f s, %lld shown, %lld never; latency ms p50 %s p95 %s p99 %s max %s;"
      " growth %s ms over %.0f s; probe %.1f grabs/s, %lld misread\n",
      name.c_str(), static_cast<long long>(sent), std::max<int64_t>(0, to - from) / 1e6,
      static_cast<long long>(shown), static_cast<long long>(sent - shown), ms(percentile(all, 50)).c_str(),
      ms(percentile(all, 95)).c_str(), ms(percentile(all, 99)).c_str(),
      ms(all.empty() ? NAN : all.back()).c_str(), ms(growth).c_str(), (to - from - part) / 1e6, grabHz,
      static_cast<long long>(misread));
  std::printf(
      "latency: label=%s sent=%lld shown=%lld never=%lld p50_ms=%s p95_ms=%s p99_ms=%s max_ms=%s"
      " growth_ms=%s grab_hz=%.1f misread=%lld",
      name.c_str(), static_cast<long long>(sent), static_cast<long long>(shown),
      static_cast<long long>(sent - shown), ms(percentile(all, 50)).c_str(), ms(percentile(all, 95)).c_str(),
      ms(percentile(all, 99)).c_str(), ms(all.empty() ? NAN : all.back()).c_str(), ms(growth).c_str(), grabHz,
      static_cast<long long>(misread));
  if (recovery.gapUs > 0)
    std::printf(" gap_s=%.1f recovery_ms=%s after_p50_ms=%s after_p99_ms=%s", recovery.gapUs / 1e6,
                ms(recovery.recoveryUs).c_str(), ms(recovery.afterP50Us).c_str(), ms(recovery.afterP99Us).c_str());
  std::printf("\n");
  return 0;
}

// ---- command line -----------------------------------------------------------------------

int grabMain(const std::vector<std::string>& args) {
  GrabOptions o;
  if (const char* d = std::getenv("DISPLAY")) o.display = d;
  for (size_t i = 0; i < args.size(); i += 2) {
    if (i + 1 >= args.size()) return usage("missing value for " + args[i]);
    const std::string& a = args[i];
    const std::string& v = args[i + 1];
    char tail = 0;
    if (a == "--display") {
      o.display = v;
    } else if (a == "--region") {
      if (std::sscanf(v.c_str(), "%dx%d+%d+%d%c", &o.width, &o.height, &o.x, &o.y, &tail) != 4)
        return usage("--region wants WxH+X+Y, e.g. 1280x720+0+0");
    } else if (a == "--fps") {
      if (!parseNumber(v, o.fps) || o.fps <= 0 || o.fps > 1000) return usage("--fps wants 0 < fps <= 1000");
    } else if (a == "--seconds") {
      if (!parseNumber(v, o.seconds) || o.seconds <= 0) return usage("--seconds wants a number > 0");
    } else if (a == "--out") {
      o.out = v;
    } else {
      return usage("unknown option " + a);
    }
  }
  if (o.display.empty()) return usage("--display is required (no $DISPLAY)");
  if (o.out.empty()) return usage("--out is required");
  if (o.seconds <= 0) return usage("--seconds is required");
  if (o.width < 160 || o.height < 90 || o.x < 0 || o.y < 0)
    return usage("--region: at least 160x90, at x, y >= 0");

  // Blocked before any thread starts, and polled between grabs: a clean stop, no handler.
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stops, nullptr);
  av_log_set_level(AV_LOG_ERROR);
  return grab(o, stops);
}

int analyzeMain(const std::vector<std::string>& args) {
  if (args.size() < 2) return usage("--analyze needs SEND_LOG SEEN_LOG");
  double skip = 5, tail = 1;
  std::string label;
  for (size_t i = 2; i < args.size(); i += 2) {
    if (i + 1 >= args.size()) return usage("missing value for " + args[i]);
    const std::string& a = args[i];
    const std::string& v = args[i + 1];
    if (a == "--skip" && parseNumber(v, skip) && skip >= 0) continue;
    if (a == "--tail" && parseNumber(v, tail) && tail >= 0) continue;
    if (a == "--label") {
      label = v;
      continue;
    }
    return usage("bad option or value: " + a + " " + v);
  }
  return analyze(args[0], args[1], skip, tail, label);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage("nothing to do");
  if (args[0] == "--self-test") return args.size() == 1 ? vp::latency::barcodeSelfTest() : usage("--self-test takes no options");
  if (args[0] == "--analyze") return analyzeMain({args.begin() + 1, args.end()});
  return grabMain(args);
}
