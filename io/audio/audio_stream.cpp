#include "io/audio/audio_stream.h"

#include "io/av_util.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

namespace vp {

void AvPacketFree::operator()(AVPacket* p) const { av_packet_free(&p); }
void AvCodecParametersFree::operator()(AVCodecParameters* p) const { avcodec_parameters_free(&p); }

std::string AudioTrackInfo::describe() const {
  if (index < 0) return "none";
  return codec + " " + std::to_string(sampleRate) + " Hz " + layout;
}

int64_t audioPacketTimeUs(const AudioPacket& p) {
  const AVPacket& k = *p.packet;
  const int64_t ts = k.pts != AV_NOPTS_VALUE ? k.pts : k.dts;
  if (ts == AV_NOPTS_VALUE) return INT64_MIN;
  return av_rescale_q(ts, k.time_base, av::kMicros) + p.offsetUs;
}

int64_t audioPacketDurationUs(const AudioPacket& p) {
  const AVPacket& k = *p.packet;
  return k.duration > 0 ? av_rescale_q(k.duration, k.time_base, av::kMicros) : 0;
}

void AudioPacketQueue::audioPacket(AudioPacket&& packet) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (aborted_) return;
    durationUs_ += audioPacketDurationUs(packet);
    bytes_ += packet.packet->size;
    packets_.push_back(std::move(packet));
  }
  cond_.notify_all();
}

bool AudioPacketQueue::popIf(const std::function<bool(const AudioPacket&)>& take, AudioPacket& out) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (packets_.empty() || !take(packets_.front())) return false;
  took(packets_.front());
  out = std::move(packets_.front());
  packets_.pop_front();
  return true;
}

bool AudioPacketQueue::pop(AudioPacket& out, int64_t waitUs) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (waitUs > 0)
    cond_.wait_for(lock, std::chrono::microseconds(waitUs), [&] { return aborted_ || !packets_.empty(); });
  if (aborted_ || packets_.empty()) return false;
  took(packets_.front());
  out = std::move(packets_.front());
  packets_.pop_front();
  return true;
}

void AudioPacketQueue::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  packets_.clear();
  durationUs_ = 0;
  bytes_ = 0;
}

void AudioPacketQueue::dropBefore(uint32_t serial) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::deque<AudioPacket> kept;
  for (AudioPacket& p : packets_) {
    if (serialBefore(p.serial, serial)) took(p);
    else kept.push_back(std::move(p));
  }
  packets_.swap(kept);
}

void AudioPacketQueue::took(const AudioPacket& p) {
  durationUs_ -= audioPacketDurationUs(p);
  bytes_ -= p.packet->size;
}

PacketQueueLevel AudioPacketQueue::level() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {int(packets_.size()), bytes_, durationUs_};
}

void AudioPacketQueue::abort() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
  }
  cond_.notify_all();
}

size_t AudioPacketQueue::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return packets_.size();
}

int64_t AudioPacketQueue::durationUs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return durationUs_;
}

AudioTrackInfo selectAudioTrack(AVFormatContext* fmt, int videoStream, int track, const std::string& url) {
  std::vector<int> audio;  // stream indices of the audio streams, in order
  for (unsigned i = 0; i < fmt->nb_streams; ++i)
    if (fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) audio.push_back(int(i));
  int index = -1;
  if (track >= 0) {
    if (size_t(track) >= audio.size())
      throw std::invalid_argument("'" + url + "': no audio track " + std::to_string(track) + " (the input has " +
                                  std::to_string(audio.size()) + ", numbered from 0)");
    index = audio[size_t(track)];
  } else {
    if (audio.empty()) return {};
    index = av_find_best_stream(fmt, AVMEDIA_TYPE_AUDIO, -1, videoStream, nullptr, 0);
    if (index < 0) index = audio.front();
  }
  const AVStream* st = fmt->streams[index];
  const AVCodecParameters* par = st->codecpar;
  AudioTrackInfo info;
  info.index = index;
  for (size_t n = 0; n < audio.size(); ++n)
    if (audio[n] == index) info.number = int(n);
  info.codec = avcodec_get_name(par->codec_id);
  info.sampleRate = par->sample_rate;
  info.channels = par->ch_layout.nb_channels;
  char layout[64] = "";
  AVChannelLayout named{};  // an unordered layout (Matroska PCM) is named by its count: "mono"
  if (par->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) av_channel_layout_default(&named, info.channels);
  else av_channel_layout_copy(&named, &par->ch_layout);
  if (av_channel_layout_describe(&named, layout, sizeof layout) < 0) layout[0] = 0;
  av_channel_layout_uninit(&named);
  info.layout = layout[0] ? layout : std::to_string(info.channels) + " channels";
  info.timeBaseNum = st->time_base.num;
  info.timeBaseDen = st->time_base.den;
  AVCodecParameters* copy = avcodec_parameters_alloc();
  if (!copy) throw std::bad_alloc();
  std::shared_ptr<AVCodecParameters> owned(copy, AvCodecParametersFree{});
  if (avcodec_parameters_copy(copy, par) < 0) throw std::bad_alloc();
  info.params = owned;
  if (info.sampleRate <= 0 || info.channels <= 0) {
    spdlog::warn("'{}': audio stream {} ({}) has no sample rate or channels; no audio", url, info.number,
                 info.codec);
    return {};
  }
  return info;
}

}  // namespace vp
