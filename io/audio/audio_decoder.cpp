#include "io/audio/audio_decoder.h"

#include "io/audio/audio_transcoder.h"  // SwrDeleter
#include "io/av_util.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace vp {
namespace {

// Decoded audio kept ahead of the device: enough to ride out a slow moment of the
// decode thread, short so a seek or a volume change is heard soon.
constexpr int64_t kBufferUs = 200'000;

// The speaker order of a device with `channels` interleaved channels: SDL2's
// (SDL_audio.h). FFmpeg's default layouts agree for 1-3 and 6-8 channels, not for 4
// (SDL: quad FL FR BL BR; FFmpeg: 4.0 FL FR FC BC) and 5 (SDL: FL FR LFE BL BR).
void deviceLayout(int channels, AVChannelLayout& out) {
  if (channels == 4) av_channel_layout_from_mask(&out, AV_CH_LAYOUT_QUAD);
  else if (channels == 5) av_channel_layout_from_mask(&out, AV_CH_LAYOUT_QUAD | AV_CH_LOW_FREQUENCY);
  else av_channel_layout_default(&out, channels);
}

}  // namespace

struct AudioDecoder::Codec {
  av::CodecPtr dec;
  std::unique_ptr<SwrContext, SwrDeleter> swr;
  av::FramePtr frame = av::makeFrame();
  int swrFormat = -1, swrRate = 0;
  AVChannelLayout swrLayout{};
  AVChannelLayout out{};
  uint32_t serial = 0;  // serial of the packets the decoder has seen
  ~Codec() {
    av_channel_layout_uninit(&swrLayout);
    av_channel_layout_uninit(&out);
  }
};

AudioDecoder::AudioDecoder(const AudioTrackInfo& track, int deviceRate, int deviceChannels)
    : rate_(deviceRate), channels_(deviceChannels), codec_(std::make_unique<Codec>()) {
  const AVCodecParameters& par = *track.params;
  const AVCodec* c = avcodec_find_decoder(par.codec_id);
  if (!c) throw std::runtime_error("no decoder for " + track.codec + " audio");
  codec_->dec.reset(avcodec_alloc_context3(c));
  if (!codec_->dec) throw std::bad_alloc();
  int r = avcodec_parameters_to_context(codec_->dec.get(), &par);
  if (r >= 0) {
    codec_->dec->pkt_timebase = {track.timeBaseNum, track.timeBaseDen};
    r = avcodec_open2(codec_->dec.get(), c, nullptr);
  }
  if (r < 0) throw std::runtime_error("cannot open the " + track.codec + " decoder (" + av::errorText(r) + ")");
  deviceLayout(channels_, codec_->out);
}

AudioDecoder::~AudioDecoder() { stop(); }

void AudioDecoder::start() { thread_ = std::thread([this] { run(); }); }

void AudioDecoder::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);  // under the lock: output() cannot miss the wake-up
    abort_ = true;
  }
  packets_.abort();
  room_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AudioDecoder::seek(uint32_t serial, int64_t targetUs) {
  packets_.dropBefore(serial);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    serial_ = serial;
    skipBeforeUs_ = targetUs;
    chunks_.clear();
    bufferedFrames_ = 0;
  }
  room_.notify_all();
}

int64_t AudioDecoder::bufferedUs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bufferedFrames_ * 1'000'000 / rate_;
}

void AudioDecoder::run() {
  AudioPacket p;
  while (!abort_) {
    if (!packets_.pop(p, 20'000)) continue;
    uint32_t wanted;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // A newer serial: the source has sought and the player's seek() is on its way (it
      // follows the source's at once, but a loaded machine may hold it up). Its first
      // packets wait for it rather than being lost, which would start the sound after the
      // target. Bounded, so that a serial nobody announces cannot stall the track.
      if (serialBefore(serial_, p.serial))
        room_.wait_for(lock, std::chrono::seconds(1), [&] { return abort_ || !serialBefore(serial_, p.serial); });
      wanted = serial_;
    }
    if (p.serial != wanted) continue;  // from before the latest seek
    if (codec_->serial != wanted) {
      avcodec_flush_buffers(codec_->dec.get());
      codec_->serial = wanted;
    }
    try {
      decode(p);
    } catch (const std::exception& e) {
      spdlog::warn("audio: {}; no more sound", e.what());
      // Take no more packets: queued up, they would reach the demuxer's limit and stop the video.
      packets_.abort();
      packets_.flush();
      return;
    }
  }
}

void AudioDecoder::decode(const AudioPacket& p) {
  Codec& c = *codec_;
  if (avcodec_send_packet(c.dec.get(), p.packet.get()) < 0) {
    ++damaged_;  // damaged: skipped, the next packets go on
    return;
  }
  for (;;) {
    const int r = avcodec_receive_frame(c.dec.get(), c.frame.get());
    if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
    if (r < 0) {
      ++damaged_;
      return;
    }
    AVFrame& f = *c.frame;
    if (!c.swr || f.format != c.swrFormat || f.sample_rate != c.swrRate ||
        av_channel_layout_compare(&f.ch_layout, &c.swrLayout)) {
      AVChannelLayout in{};
      if (f.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) av_channel_layout_default(&in, f.ch_layout.nb_channels);
      else av_channel_layout_copy(&in, &f.ch_layout);
      SwrContext* s = nullptr;
      int e = swr_alloc_set_opts2(&s, &c.out, AV_SAMPLE_FMT_FLT, rate_, &in, AVSampleFormat(f.format), f.sample_rate,
                                  0, nullptr);
      av_channel_layout_uninit(&in);
      c.swr.reset(s);
      if (e < 0 || (e = swr_init(s)) < 0) throw std::runtime_error("cannot resample (" + av::errorText(e) + ")");
      c.swrFormat = f.format;
      c.swrRate = f.sample_rate;
      av_channel_layout_uninit(&c.swrLayout);
      av_channel_layout_copy(&c.swrLayout, &f.ch_layout);
    }
    Chunk chunk;
    const int capacity = swr_get_out_samples(c.swr.get(), f.nb_samples);
    chunk.samples.resize(size_t(std::max(0, capacity)) * size_t(channels_));
    uint8_t* out[1] = {reinterpret_cast<uint8_t*>(chunk.samples.data())};
    const int n = swr_convert(c.swr.get(), out, capacity, const_cast<const uint8_t**>(f.extended_data), f.nb_samples);
    const int64_t ts = f.best_effort_timestamp;
    chunk.ptsUs = ts == AV_NOPTS_VALUE ? INT64_MIN : av_rescale_q(ts, c.dec->pkt_timebase, av::kMicros) + p.offsetUs;
    chunk.serial = p.serial;
    av_frame_unref(c.frame.get());
    if (n <= 0) continue;
    chunk.samples.resize(size_t(n) * size_t(channels_));
    output(std::move(chunk));
  }
}

// Queues a chunk, waiting while the buffer is full; trims what lies before a seek target.
void AudioDecoder::output(Chunk&& chunk) {
  std::unique_lock<std::mutex> lock(mutex_);
  room_.wait(lock, [&] { return abort_ || chunk.serial != serial_ || bufferedFrames_ * 1'000'000 / rate_ < kBufferUs; });
  if (abort_ || chunk.serial != serial_) return;
  const int64_t frames = int64_t(chunk.samples.size()) / channels_;
  if (chunk.ptsUs == INT64_MIN) {  // no timestamp: right after the previous chunk
    chunk.ptsUs = chunks_.empty() ? 0 : chunks_.back().ptsUs + int64_t(chunks_.back().samples.size()) / channels_ * 1'000'000 / rate_;
  }
  if (skipBeforeUs_ != INT64_MIN) {
    const int64_t endUs = chunk.ptsUs + frames * 1'000'000 / rate_;
    if (endUs <= skipBeforeUs_) return;
    const int64_t skip = std::max<int64_t>(0, (skipBeforeUs_ - chunk.ptsUs) * rate_ / 1'000'000);
    chunk.read = size_t(skip);
    skipBeforeUs_ = INT64_MIN;
  }
  bufferedFrames_ += frames - int64_t(chunk.read);
  chunks_.push_back(std::move(chunk));
}

int AudioDecoder::read(float* out, int frames, int64_t& firstUs, uint32_t& serial) {
  std::lock_guard<std::mutex> lock(mutex_);
  int done = 0;
  firstUs = INT64_MIN;
  serial = serial_;
  while (done < frames && !chunks_.empty()) {
    Chunk& c = chunks_.front();
    const size_t have = c.samples.size() / size_t(channels_) - c.read;
    if (firstUs == INT64_MIN) firstUs = c.ptsUs + int64_t(c.read) * 1'000'000 / rate_;
    const size_t n = std::min(have, size_t(frames - done));
    std::memcpy(out + size_t(done) * size_t(channels_), c.samples.data() + c.read * size_t(channels_),
                n * size_t(channels_) * sizeof(float));
    c.read += n;
    done += int(n);
    if (c.read * size_t(channels_) >= c.samples.size()) chunks_.pop_front();
  }
  bufferedFrames_ -= done;
  room_.notify_all();
  return done;
}

}  // namespace vp
