// FfmpegSource's audio: the track is picked at open and its packets are handed, as read,
// to the AudioPacketSink from the decode thread (io/audio/audio_stream.h). Kept apart from the
// video decode path: the demuxer only routes packets here.
#include "io/source/ffmpeg_source.h"

#include <spdlog/spdlog.h>

namespace vp {

void FfmpegSource::openAudio() {
  // Live inputs and lavfi graphs stay silent unless an audio input is named (a later step).
  if (!options_.audio || device_ || live_) return;
  try {
    audio_ = selectAudioTrack(fmt_.get(), stream_, options_.audioTrack, options_.url);
  } catch (const std::invalid_argument& e) {
    throw SourceError(e.what());
  }
  if (audio_) fmt_->streams[audio_.index]->discard = AVDISCARD_DEFAULT;  // openDecoder discarded it
}

// `serial` and `loopOffsetUs`: the seek serial and --loop offset the packet was read under.
void FfmpegSource::passAudio(const AVPacket& packet, uint32_t serial, int64_t loopOffsetUs) {
  if (!audioSink_ || seekPending_) return;  // read before a seek: stale
  AudioPacket p;
  p.packet.reset(av_packet_clone(&packet));
  if (!p.packet) throw std::bad_alloc();
  p.packet->time_base = fmt_->streams[audio_.index]->time_base;
  // One origin for both streams: the video's first timestamp; plus this pass's loop offset.
  const int64_t originUs = haveOrigin_ ? av_rescale_q(originTs_, fmt_->streams[stream_]->time_base, av::kMicros) : 0;
  p.offsetUs = loopOffsetUs - originUs;
  p.serial = serial;
  audioSink_->audioPacket(std::move(p));
}

}  // namespace vp
