#include "io/output/png_writer.h"

#include "io/av_util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace vp {

void writePng(const std::string& path, const uint8_t* rgb, size_t pitch, int width, int height) {
  auto fail = [&](const std::string& reason) { throw std::runtime_error("cannot write '" + path + "': " + reason); };
  if (!rgb || width <= 0 || height <= 0 || pitch < size_t(width) * 3) fail("empty or malformed image");
  av::initLibav();
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_PNG);
  if (!codec) fail("no PNG encoder in this libavcodec");
  av::CodecPtr ctx(avcodec_alloc_context3(codec));
  if (!ctx) throw std::bad_alloc();
  ctx->width = width;
  ctx->height = height;
  ctx->pix_fmt = AV_PIX_FMT_RGB24;
  ctx->time_base = {1, 1};
  int r = avcodec_open2(ctx.get(), codec, nullptr);
  if (r < 0) fail("cannot open the PNG encoder (" + av::errorText(r) + ")");

  // The encoder reads the caller's rows in place: no copy.
  av::FramePtr frame = av::makeFrame();
  frame->format = AV_PIX_FMT_RGB24;
  frame->width = width;
  frame->height = height;
  frame->data[0] = const_cast<uint8_t*>(rgb);
  frame->linesize[0] = int(pitch);
  frame->pts = 0;
  av::PacketPtr packet = av::makePacket();
  if ((r = avcodec_send_frame(ctx.get(), frame.get())) < 0 || (r = avcodec_receive_packet(ctx.get(), packet.get())) < 0)
    fail("PNG encoding failed (" + av::errorText(r) + ")");

  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) fail(std::strerror(errno));
  if (std::fwrite(packet->data, 1, size_t(packet->size), file.get()) != size_t(packet->size)) fail(std::strerror(errno));
  if (std::fclose(file.release()) != 0) fail(std::strerror(errno));
}

}  // namespace vp
