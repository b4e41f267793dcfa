#include "support/clips_audio.h"

#include "support/clip_mux.h"

extern "C" {
#include <libavutil/channel_layout.h>
}

#include <algorithm>
#include <cmath>

namespace vp::test {
namespace {

using mux::check;
using mux::fail;

// x mod 1, in [0, 1) also for negative x.
double wrap(double x) { return x - std::floor(x); }

// One sample in the frame's format: integers full scale, clipped as libswresample does.
void store(AVFrame* f, int channel, int index, float v) {
  const auto fmt = AVSampleFormat(f->format);
  const bool planar = av_sample_fmt_is_planar(fmt);
  const int channels = f->ch_layout.nb_channels;
  uint8_t* base = f->data[planar ? channel : 0];
  const size_t at = planar ? size_t(index) : size_t(index) * size_t(channels) + size_t(channel);
  switch (av_get_packed_sample_fmt(fmt)) {
    case AV_SAMPLE_FMT_S16:
      reinterpret_cast<int16_t*>(base)[at] = int16_t(std::clamp(std::lrint(v * 32768.0), -32768L, 32767L));
      break;
    case AV_SAMPLE_FMT_S32:
      reinterpret_cast<int32_t*>(base)[at] =
          int32_t(std::clamp(std::llrint(v * 2147483648.0), -2147483648LL, 2147483647LL));
      break;
    case AV_SAMPLE_FMT_FLT: reinterpret_cast<float*>(base)[at] = v; break;
    case AV_SAMPLE_FMT_DBL: reinterpret_cast<double*>(base)[at] = v; break;
    default: fail(std::string("no samples in format ") + av_get_sample_fmt_name(fmt));
  }
}

}  // namespace

float clipAudioSample(const AudioSpec& a, int channel, int64_t index) {
  const double t = double(index) / a.sampleRate;
  const auto tone = [t](double hz, double level) { return level * std::sin(2 * M_PI * hz * t); };
  switch (a.sound) {
    case Sound::Beeps: return wrap(t - a.leadS - 0.4) < 0.05 ? float(tone(1000, 0.8)) : 0.f;
    case Sound::Sine: return float(tone(a.frequency, a.amplitude));
    case Sound::Silence: return 0.f;
    case Sound::Levels: return float(tone(100, 0.05 * (channel + 1)));
    case Sound::Turns: return t >= 0.25 * channel && t < 0.25 * channel + 0.2 ? float(tone(440, 0.5)) : 0.f;
  }
  return 0.f;
}

ClipAudioTrack::ClipAudioTrack(AVFormatContext* oc, const AudioSpec& spec, double videoSeconds)
    : oc_(oc), spec_(spec) {
  const AVCodec* codec = avcodec_find_encoder_by_name(spec.codec.c_str());
  if (!codec || codec->type != AVMEDIA_TYPE_AUDIO) fail("no audio encoder '" + spec.codec + "'");
  enc_.reset(avcodec_alloc_context3(codec));
  enc_->sample_rate = spec.sampleRate;
  enc_->sample_fmt = codec->sample_fmts ? codec->sample_fmts[0] : AV_SAMPLE_FMT_S16;
  check(av_channel_layout_from_string(&enc_->ch_layout, spec.layout.c_str()), "channel layout '" + spec.layout + "'");
  enc_->time_base = {1, spec.sampleRate};
  if (spec.bitRate > 0) enc_->bit_rate = spec.bitRate;
  enc_->thread_count = 1;
  if (oc->oformat->flags & AVFMT_GLOBALHEADER) enc_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  check(avcodec_open2(enc_.get(), codec, nullptr), "open audio encoder " + spec.codec);
  st_ = avformat_new_stream(oc, nullptr);
  if (!st_) fail("audio stream");
  check(avcodec_parameters_from_context(st_->codecpar, enc_.get()), "audio codec parameters");
  st_->time_base = enc_->time_base;
  const double seconds = spec.seconds >= 0 ? spec.seconds : videoSeconds + spec.leadS;
  total_ = std::llround(seconds * spec.sampleRate);
  // PCM takes any size: 1024 samples, as FFmpeg's audio sources deliver them.
  if (enc_->frame_size > 0) chunk_ = enc_->frame_size;
}

void ClipAudioTrack::writeUntil(double seconds) {
  const int64_t until = std::min<int64_t>(total_, std::llround(seconds * spec_.sampleRate));
  while (done_ < until) {
    av::FramePtr f = av::makeFrame();
    // Whole frames (the last one may be short: libavcodec pads it when the encoder needs).
    f->nb_samples = int(std::min<int64_t>(chunk_, total_ - done_));
    f->format = enc_->sample_fmt;
    f->sample_rate = enc_->sample_rate;
    check(av_channel_layout_copy(&f->ch_layout, &enc_->ch_layout), "layout");
    check(av_frame_get_buffer(f.get(), 0), "audio buffer");
    for (int c = 0; c < f->ch_layout.nb_channels; ++c)
      for (int k = 0; k < f->nb_samples; ++k) store(f.get(), c, k, clipAudioSample(spec_, c, done_ + k));
    f->pts = done_;
    mux::writePackets(enc_.get(), f.get(), oc_, st_);
    done_ += f->nb_samples;
  }
}

void ClipAudioTrack::finish() {
  writeUntil(double(total_) / spec_.sampleRate);
  mux::writePackets(enc_.get(), nullptr, oc_, st_);
}

std::string makeAudioOnly(const std::string& path, const AudioSpec& audio) {
  av::initLibav();
  mux::OutputPtr oc = mux::openOutput(path);
  ClipAudioTrack track(oc.get(), audio, audio.seconds >= 0 ? audio.seconds : 1.0);
  check(avio_open(&oc->pb, path.c_str(), AVIO_FLAG_WRITE), "cannot write '" + path + "'");
  check(avformat_write_header(oc.get(), nullptr), "header");
  track.finish();
  check(av_write_trailer(oc.get()), "trailer");
  return path;
}

std::string makeAudioOnly(const std::string& path, double seconds) {
  av::initLibav();
  AudioSpec a;
  a.codec = std::string(mux::openOutput(path)->oformat->name) == "wav" ? "pcm_s16le" : "flac";
  a.sampleRate = 8000;
  a.sound = Sound::Sine;
  a.frequency = 440;
  a.amplitude = 8000 / 32768.0;
  a.seconds = seconds;
  return makeAudioOnly(path, a);
}

}  // namespace vp::test
