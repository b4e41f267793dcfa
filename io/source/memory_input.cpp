#include "io/source/memory_input.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace vp::av {
namespace {

constexpr int kBufferBytes = 32 * 1024;  // libav's read-ahead buffer

// The reader behind the AVIOContext's opaque pointer: the bytes and a position.
struct MemoryReader {
  std::shared_ptr<const std::vector<uint8_t>> bytes;
  int64_t pos = 0;

  int64_t size() const { return int64_t(bytes->size()); }

  static int read(void* opaque, uint8_t* buf, int bufSize) {
    auto* r = static_cast<MemoryReader*>(opaque);
    const int64_t n = std::min<int64_t>(bufSize, r->size() - r->pos);
    if (n <= 0) return AVERROR_EOF;
    std::memcpy(buf, r->bytes->data() + r->pos, size_t(n));
    r->pos += n;
    return int(n);
  }

  static int64_t seek(void* opaque, int64_t offset, int whence) {
    auto* r = static_cast<MemoryReader*>(opaque);
    if (whence & AVSEEK_SIZE) return r->size();
    int64_t base = 0;
    switch (whence & ~AVSEEK_FORCE) {
      case SEEK_SET:
        base = 0;
        break;
      case SEEK_CUR:
        base = r->pos;
        break;
      case SEEK_END:
        base = r->size();
        break;
      default:
        return AVERROR(EINVAL);
    }
    // Demuxers seek by offsets read from damaged headers: reject what overflows
    // or lands before the start; past the end is allowed (reads then hit EOF), as
    // with a file.
    if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0) return AVERROR(EINVAL);
    r->pos = base + offset;
    return r->pos;
  }
};

}  // namespace

void AvioDeleter::operator()(AVIOContext* c) const {
  delete static_cast<MemoryReader*>(c->opaque);
  av_freep(&c->buffer);  // libav may have replaced the buffer it was given
  avio_context_free(&c);
}

AvioPtr openMemoryInput(std::shared_ptr<const std::vector<uint8_t>> bytes) {
  auto reader = std::make_unique<MemoryReader>();
  reader->bytes = std::move(bytes);
  auto* buffer = static_cast<unsigned char*>(av_malloc(kBufferBytes));
  if (!buffer) throw std::bad_alloc();
  AVIOContext* c = avio_alloc_context(buffer, kBufferBytes, 0, reader.get(), &MemoryReader::read, nullptr,
                                      &MemoryReader::seek);
  if (!c) {
    av_free(buffer);
    throw std::bad_alloc();
  }
  reader.release();  // owned by the context now (AvioDeleter)
  return AvioPtr(c);
}

}  // namespace vp::av
