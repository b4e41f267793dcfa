#include "self_test.h"

#include "barcode.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/opt.h>
}

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace vp::latency {
namespace {

// An 8-bit picture, `channels` bytes per pixel.
struct Image {
  int width = 0, height = 0, channels = 1;
  std::vector<uint8_t> px;
  Image(int w, int h, int c, uint8_t fill) : width(w), height(h), channels(c), px(size_t(w) * h * c, fill) {}
  PictureView view(int offset = 0) const {
    return {px.data(), width, height, static_cast<ptrdiff_t>(width) * channels, channels, offset};
  }
  uint8_t at(int x, int y) const { return px[(size_t(y) * width + x) * channels]; }
};

Image barcodePicture(int w, int h, uint32_t n) {
  Image img(w, h, 1, 96);
  vp::latency::drawBarcode(img.px.data(), w, h, w, n);
  return img;
}

// What a player shows: video range to full range, bilinear scaling to w x h, as bgr0.
Image toScreen(const Image& luma, int w, int h) {
  Image out(w, h, 4, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double sx = std::clamp((x + 0.5) * luma.width / w - 0.5, 0.0, luma.width - 1.0);
      const double sy = std::clamp((y + 0.5) * luma.height / h - 0.5, 0.0, luma.height - 1.0);
      const int x0 = static_cast<int>(sx), y0 = static_cast<int>(sy);
      const int x1 = std::min(x0 + 1, luma.width - 1), y1 = std::min(y0 + 1, luma.height - 1);
      const double fx = sx - x0, fy = sy - y0;
      const double v = (luma.at(x0, y0) * (1 - fx) + luma.at(x1, y0) * fx) * (1 - fy) +
                       (luma.at(x0, y1) * (1 - fx) + luma.at(x1, y1) * fx) * fy;
      const auto full = static_cast<uint8_t>(std::clamp((v - 16) * 255 / 219 + 0.5, 0.0, 255.0));
      uint8_t* p = &out.px[(size_t(y) * w + x) * 4];
      p[0] = p[1] = p[2] = full;
    }
  return out;
}

// A 5x5 box blur and uniform noise of +-amplitude.
Image blurred(const Image& luma, int amplitude, std::mt19937& rng) {
  Image out(luma.width, luma.height, 1, 0);
  std::uniform_int_distribution<int> noise(-amplitude, amplitude);
  for (int y = 0; y < luma.height; ++y)
    for (int x = 0; x < luma.width; ++x) {
      int sum = 0;
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx)
          sum += luma.at(std::clamp(x + dx, 0, luma.width - 1), std::clamp(y + dy, 0, luma.height - 1));
      out.px[size_t(y) * luma.width + x] = static_cast<uint8_t>(std::clamp(sum / 25 + noise(rng), 0, 255));
    }
  return out;
}

// Rows [top, top + count) of a picture: what the probe grabs.
PictureView stripOf(const Image& img, int top, int offset) {
  PictureView v = img.view(offset);
  v.data += static_cast<ptrdiff_t>(top) * v.stride;
  v.height = vp::latency::barcodeRows(img.height).count;
  return v;
}

struct PacketFree {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct CodecFree {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameFree {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};

// Encodes `numbers` with libx264 at the sender's settings but a harsher quality, decodes
// them with FFmpeg's H.264 decoder and reads each picture back. Returns the failures,
// or -1 when this FFmpeg cannot encode H.264 (the step is skipped).
int h264RoundTrip(const std::vector<uint32_t>& numbers) {
  const AVCodec* x264 = avcodec_find_encoder_by_name("libx264");
  const AVCodec* h264 = avcodec_find_decoder(AV_CODEC_ID_H264);
  if (!x264 || !h264) return -1;
  const int w = 640, h = 360;
  std::unique_ptr<AVCodecContext, CodecFree> enc(avcodec_alloc_context3(x264)),
      dec(avcodec_alloc_context3(h264));
  enc->width = w;
  enc->height = h;
  enc->pix_fmt = AV_PIX_FMT_YUV420P;
  enc->time_base = {1, 30};
  enc->max_b_frames = 0;
  enc->thread_count = 1;
  av_opt_set(enc->priv_data, "preset", "ultrafast", 0);
  av_opt_set(enc->priv_data, "tune", "zerolatency", 0);
  av_opt_set(enc->priv_data, "crf", "40", 0);
  if (avcodec_open2(enc.get(), x264, nullptr) < 0 || avcodec_open2(dec.get(), h264, nullptr) < 0) return -1;
  std::unique_ptr<AVFrame, FrameFree> in(av_frame_alloc()), out(av_frame_alloc());
  in->format = AV_PIX_FMT_YUV420P;
  in->width = w;
  in->height = h;
  if (av_frame_get_buffer(in.get(), 0) < 0) return -1;
  std::unique_ptr<AVPacket, PacketFree> pkt(av_packet_alloc());
  size_t next = 0;
  int failures = 0;
  const auto drain = [&] {
    while (avcodec_receive_packet(enc.get(), pkt.get()) >= 0) {
      avcodec_send_packet(dec.get(), pkt.get());
      av_packet_unref(pkt.get());
      while (avcodec_receive_frame(dec.get(), out.get()) >= 0) {
        const PictureView v{out->data[0], out->width, out->height, out->linesize[0], 1, 0};
        const int64_t got = readBarcode(v, out->height, 0);
        if (next >= numbers.size() || got != numbers[next]) {
          std::fprintf(stderr, "self-test: H.264 frame %zu reads %lld\n", next, static_cast<long long>(got));
          ++failures;
        }
        ++next;
      }
    }
  };
  for (size_t i = 0; i < numbers.size(); ++i) {
    av_frame_make_writable(in.get());
    for (int p = 0; p < 3; ++p)
      for (int y = 0; y < (p ? h / 2 : h); ++y)
        std::memset(in->data[p] + y * in->linesize[p], p ? 128 : 96, p ? w / 2 : w);
    vp::latency::drawBarcode(in->data[0], w, h, in->linesize[0], numbers[i]);
    in->pts = static_cast<int64_t>(i);
    avcodec_send_frame(enc.get(), in.get());
    drain();
  }
  avcodec_send_frame(enc.get(), nullptr);
  drain();
  avcodec_send_packet(dec.get(), nullptr);
  drain();
  if (next != numbers.size()) {
    std::fprintf(stderr, "self-test: H.264 gave %zu of %zu frames\n", next, numbers.size());
    ++failures;
  }
  return failures;
}

}  // namespace

int barcodeSelfTest() {
  av_log_set_level(AV_LOG_ERROR);
  std::mt19937 rng(12345);
  std::vector<uint32_t> numbers = {0, 1, 2, 0x55555, 0xAAAAA, (1u << vp::latency::kBarcodeBits) - 1};
  for (uint32_t n = 3; n < 40; ++n) numbers.push_back(n);
  std::uniform_int_distribution<uint32_t> any(0, (1u << vp::latency::kBarcodeBits) - 1);
  for (int i = 0; i < 60; ++i) numbers.push_back(any(rng));

  int failures = 0, reads = 0;
  const auto expect = [&](int64_t got, int64_t want, const char* what, uint32_t n) {
    ++reads;
    if (got == want) return;
    ++failures;
    std::fprintf(stderr, "self-test: %s of %u reads %lld, want %lld\n", what, n, static_cast<long long>(got),
                 static_cast<long long>(want));
  };
  for (const uint32_t n : numbers) {
    const Image plain = barcodePicture(640, 360, n);
    expect(readBarcode(plain.view(), plain.height, 0), n, "the plain picture", n);
    // A player's 2x window, grabbed as the probe does: only the barcode's rows, green byte.
    const Image screen = toScreen(plain, 1280, 720);
    const int top = vp::latency::barcodeRows(720).top;
    expect(readBarcode(stripOf(screen, top, 1), 720, top), n, "the 2x screen strip", n);
    expect(readBarcode(stripOf(screen, top + 1, 1), 720, top + 1), -1, "a strip a row short", n);
    expect(readBarcode(blurred(plain, 40, rng).view(), plain.height, 0), n, "the blurred, noisy picture", n);
    const Image small = toScreen(plain, 480, 270);
    expect(readBarcode(small.view(1), small.height, 0), n, "the 0.75x picture", n);
  }
  // Pictures that are no barcode must not read as one.
  Image grey(640, 360, 1, 128), black(640, 360, 1, 16), noise(640, 360, 1, 0);
  for (auto& p : noise.px) p = static_cast<uint8_t>(rng());
  expect(readBarcode(grey.view(), 360, 0), -1, "plain grey", 0);
  expect(readBarcode(black.view(), 360, 0), -1, "plain black", 0);
  expect(readBarcode(noise.view(), 360, 0), -1, "noise", 0);
  // A torn picture, band 1 from one frame and band 2 from the next.
  Image torn = barcodePicture(640, 360, 0x12345);
  const Image next = barcodePicture(640, 360, 0x12346);
  const vp::latency::RowSpan rows = vp::latency::barcodeRows(360);
  const size_t half = size_t(rows.top + rows.count / 2) * 640;
  std::copy(next.px.begin() + half, next.px.end(), torn.px.begin() + half);
  expect(readBarcode(torn.view(), 360, 0), -1, "a torn picture", 0x12345);

  std::vector<uint32_t> stream;
  for (uint32_t i = 0; i < 60; ++i) stream.push_back(1000 + i * 997);
  const int h264 = h264RoundTrip(stream);
  if (h264 < 0) std::fprintf(stderr, "self-test: no libx264 here; the H.264 round trip is skipped\n");
  failures += std::max(h264, 0);
  reads += h264 < 0 ? 0 : static_cast<int>(stream.size());

  if (failures) {
    std::fprintf(stderr, "vp_latency_probe: self-test FAILED: %d of %d reads wrong\n", failures, reads);
    return 1;
  }
  std::printf("vp_latency_probe: self-test passed (%d reads)\n", reads);
  return 0;
}

}  // namespace vp::latency
