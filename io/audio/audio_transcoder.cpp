#include "io/audio/audio_transcoder.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace vp {
namespace {

[[noreturn]] void failed(const std::string& what, int err) {
  throw std::runtime_error(what + " (" + av::errorText(err) + ")");
}

// The encoder's sample rate: the input's when it takes it, else the nearest it takes.
int pickRate(const AVCodec* c, int wanted) {
  if (!c->supported_samplerates) return wanted;
  int best = 0;
  for (const int* r = c->supported_samplerates; *r; ++r)
    if (!best || std::abs(*r - wanted) < std::abs(best - wanted)) best = *r;
  return best ? best : wanted;
}

// The input's layout when the encoder takes it; else the encoder's default for that
// many channels, else stereo.
void pickLayout(const AVCodec* c, const AVChannelLayout& in, AVChannelLayout& out) {
  AVChannelLayout wanted{};
  if (in.order == AV_CHANNEL_ORDER_NATIVE) av_channel_layout_copy(&wanted, &in);
  else av_channel_layout_default(&wanted, in.nb_channels);
  if (!c->ch_layouts) {
    av_channel_layout_copy(&out, &wanted);
    return;
  }
  for (const AVChannelLayout* l = c->ch_layouts; l->nb_channels; ++l)
    if (!av_channel_layout_compare(l, &wanted)) {
      av_channel_layout_copy(&out, l);
      return;
    }
  const AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO;
  av_channel_layout_copy(&out, &stereo);
  spdlog::warn("audio: the {} encoder cannot keep {} channels; encoding stereo", c->name, in.nb_channels);
}

}  // namespace

AudioTranscoder::AudioTranscoder(const AudioTrackInfo& track, const AVCodec* encoder, const AVFormatContext* oc,
                                 int64_t startUs, std::function<void(AVPacket*)> write)
    : write_(std::move(write)), startUs_(startUs) {
  const AVCodecParameters& par = *track.params;
  const AVCodec* decoder = avcodec_find_decoder(par.codec_id);
  if (!decoder) throw std::runtime_error("no decoder for " + track.codec);
  dec_.reset(avcodec_alloc_context3(decoder));
  if (!dec_) throw std::bad_alloc();
  int r = avcodec_parameters_to_context(dec_.get(), &par);
  if (r < 0) failed("bad audio parameters", r);
  dec_->pkt_timebase = {track.timeBaseNum, track.timeBaseDen};
  if ((r = avcodec_open2(dec_.get(), decoder, nullptr)) < 0) failed("cannot open the audio decoder", r);

  enc_.reset(avcodec_alloc_context3(encoder));
  if (!enc_) throw std::bad_alloc();
  AVCodecContext* e = enc_.get();
  e->sample_fmt = encoder->sample_fmts ? encoder->sample_fmts[0] : AVSampleFormat(par.format);
  e->sample_rate = pickRate(encoder, par.sample_rate);
  pickLayout(encoder, par.ch_layout, e->ch_layout);
  e->bit_rate = 64000 * std::min(e->ch_layout.nb_channels, 6);  // 128 kb/s stereo: transparent for AAC-LC
  e->time_base = {1, e->sample_rate};
  if (oc->oformat->flags & AVFMT_GLOBALHEADER) e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if ((r = avcodec_open2(e, encoder, nullptr)) < 0)
    failed(std::string("cannot open the ") + encoder->name + " encoder", r);
  const bool variable = encoder->capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE;
  frameSize_ = e->frame_size > 0 && !variable ? e->frame_size : 1024;

  fifo_.reset(av_audio_fifo_alloc(e->sample_fmt, e->ch_layout.nb_channels, frameSize_ * 4));
  decoded_ = av::makeFrame();
  chunk_ = av::makeFrame();
  packet_ = av::makePacket();
  if (!fifo_) throw std::bad_alloc();
}

void AudioTranscoder::configureResampler(const AVFrame& f) {
  if (swr_ && f.format == swrFormat_ && f.sample_rate == swrRate_ && !av_channel_layout_compare(&f.ch_layout, &swrLayout_))
    return;
  // The input changed (or first frame): rebuild, dropping the old resampler's few buffered samples.
  SwrContext* s = nullptr;
  AVChannelLayout in{};
  if (f.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) av_channel_layout_default(&in, f.ch_layout.nb_channels);
  else av_channel_layout_copy(&in, &f.ch_layout);
  int r = swr_alloc_set_opts2(&s, &enc_->ch_layout, enc_->sample_fmt, enc_->sample_rate, &in, AVSampleFormat(f.format),
                              f.sample_rate, 0, nullptr);
  av_channel_layout_uninit(&in);
  swr_.reset(s);
  if (r < 0 || (r = swr_init(s)) < 0) failed("cannot convert the audio", r);
  swrFormat_ = f.format;
  swrRate_ = f.sample_rate;
  av_channel_layout_uninit(&swrLayout_);
  av_channel_layout_copy(&swrLayout_, &f.ch_layout);
}

bool AudioTranscoder::add(const AudioPacket& p, int64_t endUs) {
  offsetUs_ = p.offsetUs;
  const int r = avcodec_send_packet(dec_.get(), p.packet.get());
  if (r < 0 && r != AVERROR(EAGAIN)) {
    spdlog::debug("audio: damaged packet skipped ({})", av::errorText(r));
    receiveDecoded(endUs);
    return false;
  }
  return receiveDecoded(endUs);
}

bool AudioTranscoder::receiveDecoded(int64_t endUs) {
  bool ok = true;
  for (;;) {
    const int r = avcodec_receive_frame(dec_.get(), decoded_.get());
    if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) break;
    if (r < 0) {
      ok = false;
      break;
    }
    if (decoded_->decode_error_flags || (decoded_->flags & AV_FRAME_FLAG_CORRUPT)) ok = false;
    const int64_t ts = decoded_->best_effort_timestamp;
    int64_t t = ts != AV_NOPTS_VALUE ? av_rescale_q(ts, dec_->pkt_timebase, av::kMicros) + offsetUs_
                                     : (lastDecodedUs_ == INT64_MIN ? 0 : lastDecodedUs_);
    lastDecodedUs_ = t + av_rescale(decoded_->nb_samples, 1000000, std::max(1, decoded_->sample_rate));
    queueSamples(*decoded_, t, endUs);
    av_frame_unref(decoded_.get());
  }
  encodeFrames(false);
  return ok;
}

// Resamples `f` (session time timeUs) into the FIFO. The FIFO stays contiguous in time:
// a gap (skipped damaged packets, a loop pass shorter in audio than in video) is filled
// with silence, an overlap (a loop restart, a seek back) drops the repeated samples, so
// every sample keeps its input time within a few milliseconds.
void AudioTranscoder::queueSamples(const AVFrame& f, int64_t timeUs, int64_t endUs) {
  configureResampler(f);
  const int rate = enc_->sample_rate;
  const int channels = enc_->ch_layout.nb_channels;
  const int capacity = swr_get_out_samples(swr_.get(), f.nb_samples);
  if (capacity <= 0) return;
  uint8_t** data = nullptr;
  int r = av_samples_alloc_array_and_samples(&data, nullptr, channels, capacity, enc_->sample_fmt, 0);
  if (r < 0) throw std::bad_alloc();
  struct Free {
    uint8_t**& d;
    ~Free() {
      if (d) av_freep(&d[0]);
      av_freep(&d);
    }
  } freeData{data};
  const int n = swr_convert(swr_.get(), data, capacity, const_cast<const uint8_t**>(f.extended_data), f.nb_samples);
  if (n <= 0) return;
  int64_t startPts = av_rescale(timeUs, rate, 1000000);
  int lead = 0;  // samples before startUs_
  if (startUs_ != INT64_MIN) {
    const int64_t first = av_rescale(startUs_, rate, 1000000);
    if (startPts + n <= first) return;
    if (startPts < first) lead = int(first - startPts);
  }
  if (!haveBase_) {
    basePts_ = startPts + lead;
    haveBase_ = true;
  }
  const int64_t expected = basePts_ + av_audio_fifo_size(fifo_.get());
  const int64_t tolerance = rate / 50;  // 20 ms: below that, timestamps jitter is not a gap
  int skip = lead;
  if (startPts > expected + tolerance) {  // a gap: silence up to this frame
    const int64_t gap = std::min<int64_t>(startPts - expected, int64_t(rate) * 10);
    uint8_t** silence = nullptr;
    if (av_samples_alloc_array_and_samples(&silence, nullptr, channels, int(gap), enc_->sample_fmt, 0) < 0)
      throw std::bad_alloc();
    av_samples_set_silence(silence, 0, int(gap), channels, enc_->sample_fmt);
    av_audio_fifo_write(fifo_.get(), reinterpret_cast<void**>(silence), int(gap));
    av_freep(&silence[0]);
    av_freep(&silence);
    encodeFrames(false);
  } else if (startPts < expected - tolerance) {  // an overlap: drop what was already queued
    skip = std::max(skip, int(std::min<int64_t>(expected - startPts, n)));
  }
  // Nothing after the end (the last video frame when the run is cut).
  const int64_t endPts = endUs == INT64_MAX ? INT64_MAX : av_rescale(endUs, rate, 1000000);
  const int64_t at = basePts_ + av_audio_fifo_size(fifo_.get());
  const int64_t room = endPts == INT64_MAX ? n : std::max<int64_t>(0, endPts - at);
  const int take = int(std::min<int64_t>(n - skip, room));
  if (take <= 0) return;
  uint8_t* planes[AV_NUM_DATA_POINTERS] = {};
  const int bytesPerSample = av_get_bytes_per_sample(enc_->sample_fmt);
  const bool planar = av_sample_fmt_is_planar(enc_->sample_fmt);
  for (int c = 0; c < (planar ? channels : 1); ++c)
    planes[c] = data[c] + size_t(skip) * size_t(bytesPerSample) * size_t(planar ? 1 : channels);
  if (av_audio_fifo_write(fifo_.get(), reinterpret_cast<void**>(planes), take) < take) throw std::bad_alloc();
}

// Encodes whole encoder frames from the FIFO (with `flush`, the partial last one too);
// samples from endPts on (encoder time base) are dropped.
void AudioTranscoder::encodeFrames(bool flush, int64_t endPts) {
  for (;;) {
    const int available = av_audio_fifo_size(fifo_.get());
    if (available == 0 || (available < frameSize_ && !flush)) return;
    // (endPts - basePts_ would overflow for INT64_MAX and audio before the video: basePts_ < 0.)
    const int64_t room = endPts == INT64_MAX ? frameSize_ : endPts - basePts_;
    const int n = int(std::min<int64_t>(std::min(available, frameSize_), room));
    if (n <= 0) {
      av_audio_fifo_reset(fifo_.get());
      return;
    }
    av_frame_unref(chunk_.get());
    chunk_->nb_samples = n;
    chunk_->format = enc_->sample_fmt;
    chunk_->sample_rate = enc_->sample_rate;
    av_channel_layout_copy(&chunk_->ch_layout, &enc_->ch_layout);
    if (av_frame_get_buffer(chunk_.get(), 0) < 0) throw std::bad_alloc();
    av_audio_fifo_read(fifo_.get(), reinterpret_cast<void**>(chunk_->data), n);
    chunk_->pts = basePts_;
    basePts_ += n;
    encode(chunk_.get());
  }
}

void AudioTranscoder::encode(const AVFrame* frame) {
  int r = avcodec_send_frame(enc_.get(), frame);
  if (r < 0 && r != AVERROR_EOF) failed("audio encoding failed", r);
  for (;;) {
    r = avcodec_receive_packet(enc_.get(), packet_.get());
    if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
    if (r < 0) failed("audio encoding failed", r);
    write_(packet_.get());
    av_packet_unref(packet_.get());
  }
}

void AudioTranscoder::endSegment(int64_t endUs) {
  avcodec_send_packet(dec_.get(), nullptr);
  receiveDecoded(endUs);
  avcodec_flush_buffers(dec_.get());
  lastDecodedUs_ = INT64_MIN;
}

void AudioTranscoder::finish(int64_t endUs) {
  avcodec_send_packet(dec_.get(), nullptr);  // drain the decoder
  receiveDecoded(endUs);
  // Samples queued before the end was known stop at it too.
  encodeFrames(true, endUs == INT64_MAX ? INT64_MAX : av_rescale(endUs, enc_->sample_rate, 1000000));
  encode(nullptr);
}

}  // namespace vp
