// The file helpers of support/clips.h: reading and writing bytes, damaged copies, junk files.
#include "support/clips.h"
#include "support/images.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace vp::test {

std::vector<uint8_t> readFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("clips: cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeFileBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("clips: cannot write " + path);
}

std::string truncatedCopy(const std::string& src, const std::string& dst, double fraction, bool keepHead) {
  std::vector<uint8_t> b = readFileBytes(src);
  const size_t keep = size_t(double(b.size()) * fraction);
  if (keepHead)
    b.resize(keep);
  else
    b.erase(b.begin(), b.end() - ptrdiff_t(keep));
  writeFileBytes(dst, b);
  return dst;
}

std::string bitFlippedCopy(const std::string& src, const std::string& dst, int flips, uint64_t seed,
                           size_t skipBytes) {
  std::vector<uint8_t> b = readFileBytes(src);
  if (b.size() <= skipBytes) throw std::runtime_error("clips: nothing to flip in " + src);
  SplitMix64 rng(seed);
  for (int i = 0; i < flips; ++i) {
    const uint64_t r = rng.next();
    b[skipBytes + size_t(r % (b.size() - skipBytes))] ^= uint8_t(1u << ((r >> 32) % 8));
  }
  writeFileBytes(dst, b);
  return dst;
}

std::string randomBytesFile(const std::string& path, size_t bytes, uint64_t seed) {
  writeFileBytes(path, randomBytes(bytes, seed));
  return path;
}

std::string textFile(const std::string& path, const std::string& text) {
  writeFileBytes(path, std::vector<uint8_t>(text.begin(), text.end()));
  return path;
}

}  // namespace vp::test
