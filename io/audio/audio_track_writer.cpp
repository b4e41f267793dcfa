#include "io/audio/audio_track_writer.h"

#include "io/output/encoder_sink.h"

#include <spdlog/spdlog.h>

#include <cstring>
#include <stdexcept>

namespace vp {
namespace {

bool isPcm(AVCodecID id) { return id >= AV_CODEC_ID_FIRST_AUDIO && id < AV_CODEC_ID_ADPCM_IMA_QT; }

// Whether `oc`'s container takes `id` as is. PCM in MP4 is refused although FFmpeg can
// write it: most players cannot play it (the case: PCM into MP4 -> AAC).
bool containerTakes(const AVFormatContext* oc, AVCodecID id) {
  if (isPcm(id) && std::strcmp(oc->oformat->name, "mp4") == 0) return false;
  return avformat_query_codec(oc->oformat, id, FF_COMPLIANCE_NORMAL) == 1;
}

// The encoder used when the track cannot be copied: AAC (FFmpeg's native encoder) where
// the container takes it, else the container's own default audio codec.
const AVCodec* defaultEncoder(const AVFormatContext* oc) {
  for (const char* name : {"aac", "libmp3lame", "ac3"}) {
    const AVCodec* c = avcodec_find_encoder_by_name(name);
    if (c && containerTakes(oc, c->id)) return c;
  }
  const AVCodecID id = av_guess_codec(oc->oformat, nullptr, nullptr, nullptr, AVMEDIA_TYPE_AUDIO);
  return id == AV_CODEC_ID_NONE ? nullptr : avcodec_find_encoder(id);
}

}  // namespace

AudioTrackWriter::AudioTrackWriter(AVFormatContext* oc, const EncoderAudio& audio)
    : oc_(oc), queue_(*audio.packets), delayUs_(audio.delayUs) {
  for (const char* name : {"mp4", "mov", "ipod", "3gp", "3g2", "psp", "ismv", "f4v"})
    keepNegative_ = keepNegative_ || std::strcmp(oc->oformat->name, name) == 0;
  const AudioTrackInfo& track = audio.track;
  const AVCodecParameters& par = *track.params;
  const std::string container = oc->oformat->name;
  const bool takes = containerTakes(oc, par.codec_id);
  stream_ = avformat_new_stream(oc, nullptr);
  if (!stream_) throw std::bad_alloc();
  if (audio.codec == "copy" || (audio.codec.empty() && takes)) {
    if (!takes)
      throw std::runtime_error("the " + container + " container cannot hold " + track.codec +
                               " audio (use --audio-codec aac, or --audio-codec none)");
    int r = avcodec_parameters_copy(stream_->codecpar, &par);
    if (r < 0) throw std::runtime_error("cannot copy the audio parameters (" + av::errorText(r) + ")");
    stream_->codecpar->codec_tag = 0;  // the input container's tag may mean nothing here
    stream_->time_base = {track.timeBaseNum, track.timeBaseDen};
    spdlog::info("audio: {} copied as is", track.describe());
    return;
  }
  const AVCodec* encoder = audio.codec.empty() ? defaultEncoder(oc) : avcodec_find_encoder_by_name(audio.codec.c_str());
  if (!encoder || encoder->type != AVMEDIA_TYPE_AUDIO)
    throw std::runtime_error("audio encoder '" + (audio.codec.empty() ? std::string("default") : audio.codec) +
                             "' not available (try --audio-codec aac, copy or none)");
  if (!containerTakes(oc, encoder->id))
    throw std::runtime_error("the " + container + " container cannot hold " + encoder->name + " audio");
  transcoder_ = std::make_unique<AudioTranscoder>(track, encoder, oc, keepNegative_ ? INT64_MIN : 0, [this](AVPacket* p) {
    av_packet_rescale_ts(p, transcoder_->encoder().time_base, stream_->time_base);
    mux(p);
  });
  const AVCodecContext& e = transcoder_->encoder();
  int r = avcodec_parameters_from_context(stream_->codecpar, &e);
  if (r < 0) throw std::runtime_error("bad audio encoder parameters (" + av::errorText(r) + ")");
  stream_->time_base = e.time_base;
  const std::string why = audio.codec.empty() ? " (the " + container + " container cannot hold " + track.codec + ")"
                                              : " (--audio-codec)";
  spdlog::info("audio: {} transcoded to {} {} Hz, {} kb/s{}", track.describe(), encoder->name, e.sample_rate,
               e.bit_rate / 1000, why);
}

AudioTrackWriter::~AudioTrackWriter() = default;

void AudioTrackWriter::mux(AVPacket* p) {
  // A seek back or a loop pass whose audio overlaps the previous one: the muxer wants
  // increasing timestamps, so the repeated audio is dropped.
  if (p->dts != AV_NOPTS_VALUE && lastDts_ != INT64_MIN && p->dts <= lastDts_) {
    ++dropped_;
    av_packet_unref(p);
    return;
  }
  if (p->dts != AV_NOPTS_VALUE) lastDts_ = p->dts;
  p->stream_index = stream_->index;
  const int r = av_interleaved_write_frame(oc_, p);  // takes the packet's reference
  if (r < 0) throw std::runtime_error("cannot write audio (" + av::errorText(r) + ")");
  ++written_;
}

void AudioTrackWriter::copy(const AudioPacket& in) {
  if (in.packet->flags & AV_PKT_FLAG_CORRUPT) {
    ++damaged_;
    return;
  }
  const int64_t startUs = audioPacketTimeUs(in), durationUs = audioPacketDurationUs(in);
  // Before the video (see keepNegative_), or repeating what was written (a loop pass or a
  // seek whose audio overlaps the previous segment's: a packet mostly inside it goes, so
  // the seam is off by at most half a packet and timestamps keep increasing).
  if ((!keepNegative_ && startUs < 0) ||
      (lastEndUs_ != INT64_MIN && startUs != INT64_MIN && startUs < lastEndUs_ - durationUs / 2)) {
    ++dropped_;
    return;
  }
  av::PacketPtr p(av_packet_clone(in.packet.get()));
  if (!p) throw std::bad_alloc();
  const AVRational from = in.packet->time_base, to = stream_->time_base;
  const int64_t offset = av_rescale_q(in.offsetUs, av::kMicros, to);
  if (p->pts != AV_NOPTS_VALUE) p->pts = av_rescale_q(p->pts, from, to) + offset;
  if (p->dts != AV_NOPTS_VALUE) p->dts = av_rescale_q(p->dts, from, to) + offset;
  if (p->duration > 0) p->duration = av_rescale_q(p->duration, from, to);
  p->time_base = to;
  p->pos = -1;
  const int64_t before = written_;
  mux(p.get());
  if (written_ > before && startUs != INT64_MIN) lastEndUs_ = startUs + durationUs;
}

// Pops the next packet of the current segment that starts before untilUs (output time),
// dropping those of older serials on the way; false when there is none (yet).
bool AudioTrackWriter::takeNext(int64_t untilUs, AudioPacket& out) {
  for (;;) {
    bool older = false;
    const bool got = queue_.popIf(
        [&](const AudioPacket& q) {
          if (q.serial != serial_) return older = int32_t(q.serial - serial_) < 0;  // newer: wait
          const int64_t t = audioPacketTimeUs(q);
          return t == INT64_MIN || t + delayUs_ + shiftUs_ < untilUs;
        },
        out);
    if (!got) return false;
    if (!older) {
      out.offsetUs += delayUs_ + shiftUs_;  // from here on the packet speaks output time
      return true;
    }
    ++dropped_;  // read before a seek whose video never reached the file
  }
}

void AudioTrackWriter::write(const AudioPacket& p, int64_t endUs) {
  if (transcoder_) damaged_ += transcoder_->add(p, endUs) ? 0 : 1;
  else copy(p);
}

void AudioTrackWriter::writeUntil(int64_t untilUs) {
  AudioPacket p;
  while (takeNext(untilUs, p)) write(p, INT64_MAX);
}

void AudioTrackWriter::startSegment(uint32_t serial, int64_t shiftUs, int64_t endUs) {
  AudioPacket p;
  // The current segment up to the video's end; then the rest of it goes.
  if (endUs != INT64_MIN) {
    while (takeNext(endUs, p)) write(p, endUs);
    if (transcoder_) transcoder_->endSegment(endUs);
  }
  while (queue_.popIf([&](const AudioPacket& q) { return q.serial != serial; }, p)) ++dropped_;
  serial_ = serial;
  shiftUs_ = shiftUs;
}

void AudioTrackWriter::finish(int64_t endUs) {
  AudioPacket p;
  while (takeNext(INT64_MAX, p)) {
    if (endUs != INT64_MAX && audioPacketTimeUs(p) >= endUs) {
      ++dropped_;
      continue;
    }
    write(p, endUs);
  }
  while (queue_.pop(p)) ++dropped_;  // a segment the video never reached
  if (transcoder_) transcoder_->finish(endUs);
  if (damaged_ > 0) spdlog::warn("audio: {} damaged packets skipped", damaged_);
  spdlog::debug("audio: {} packets written, {} dropped (after the end or repeated)", written_, dropped_);
}

}  // namespace vp
