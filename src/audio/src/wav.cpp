#include "voxen/audio/wav.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace voxen::audio {
namespace {

void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v);
  b[at + 1] = static_cast<uint8_t>(v >> 8);
}
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_tag(std::vector<uint8_t>& b, size_t at, const char (&tag)[5]) {
  for (size_t i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(tag[i]);
}

uint16_t get16(std::span<const uint8_t> b, size_t at) { return static_cast<uint16_t>(b[at] | (b[at + 1] << 8)); }
uint32_t get32(std::span<const uint8_t> b, size_t at) {
  return static_cast<uint32_t>(b[at]) | (static_cast<uint32_t>(b[at + 1]) << 8) |
         (static_cast<uint32_t>(b[at + 2]) << 16) | (static_cast<uint32_t>(b[at + 3]) << 24);
}
bool tag_is(std::span<const uint8_t> b, size_t at, const char* tag) { return std::memcmp(&b[at], tag, 4) == 0; }

Error fail(const std::string& name, size_t offset, std::string message) {
  Error e;
  e.file = name;
  e.offset = static_cast<int64_t>(offset);
  e.message = std::move(message);
  return e;
}

}  // namespace

std::vector<uint8_t> encode_wav(std::span<const int16_t> samples, uint32_t sample_rate) {
  const uint32_t data = static_cast<uint32_t>(samples.size() * 2);
  std::vector<uint8_t> b(44 + static_cast<size_t>(data));
  put_tag(b, 0, "RIFF");
  put32(b, 4, 36 + data);
  put_tag(b, 8, "WAVE");
  put_tag(b, 12, "fmt ");
  put32(b, 16, 16);
  put16(b, 20, 1);  // PCM
  put16(b, 22, 1);  // mono
  put32(b, 24, sample_rate);
  put32(b, 28, sample_rate * 2);
  put16(b, 32, 2);
  put16(b, 34, 16);
  put_tag(b, 36, "data");
  put32(b, 40, data);
  for (size_t i = 0; i < samples.size(); ++i) put16(b, 44 + 2 * i, static_cast<uint16_t>(samples[i]));
  return b;
}

Status write_wav(const std::string& path, std::span<const int16_t> samples, uint32_t sample_rate) {
  const std::vector<uint8_t> b = encode_wav(samples, sample_rate);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Error{"cannot open for writing: " + std::string(std::strerror(errno)), path};
  const bool ok = std::fwrite(b.data(), 1, b.size(), f) == b.size();
  if (std::fclose(f) != 0 || !ok) return Error{"cannot write the file", path};
  return Ok{};
}

Result<WavData> decode_wav(std::span<const uint8_t> b, const std::string& name) {
  if (b.size() < 12) return fail(name, b.size(), "too short for a RIFF/WAVE header (12 bytes), " + std::to_string(b.size()) + " bytes");
  if (!tag_is(b, 0, "RIFF")) return fail(name, 0, "not a RIFF file (no 'RIFF' tag)");
  if (!tag_is(b, 8, "WAVE")) return fail(name, 8, "not a WAVE file (RIFF form type is not 'WAVE')");
  const uint32_t riff_size = get32(b, 4);
  if (static_cast<uint64_t>(riff_size) + 8 > b.size())
    return fail(name, 4, "RIFF size " + std::to_string(riff_size) + " runs past the end of the " + std::to_string(b.size()) + "-byte file");
  const size_t end = static_cast<size_t>(riff_size) + 8;
  WavData out;
  bool have_fmt = false;
  size_t at = 12;
  while (at < end) {
    if (end - at < 8) return fail(name, at, "truncated chunk header (" + std::to_string(end - at) + " bytes left)");
    const uint32_t size = get32(b, at + 4);
    const size_t body = at + 8;
    if (size > end - body)
      return fail(name, at + 4, "chunk '" + std::string(reinterpret_cast<const char*>(&b[at]), 4) + "' size " +
                                    std::to_string(size) + " runs past the end of the RIFF data");
    if (tag_is(b, at, "fmt ")) {
      if (size < 16) return fail(name, at + 4, "fmt chunk of " + std::to_string(size) + " bytes (at least 16)");
      const uint16_t format = get16(b, body), channels = get16(b, body + 2), align = get16(b, body + 12),
                     bits = get16(b, body + 14);
      const uint32_t rate = get32(b, body + 4), byte_rate = get32(b, body + 8);
      if (format != 1) return fail(name, body, "audio format " + std::to_string(format) + " (only PCM, 1, is read)");
      if (channels != 1 && channels != 2) return fail(name, body + 2, std::to_string(channels) + " channels (1 or 2 are read)");
      if (rate == 0) return fail(name, body + 4, "sample rate 0");
      if (bits != 16) return fail(name, body + 14, std::to_string(bits) + " bits per sample (only 16 is read)");
      if (align != channels * 2) return fail(name, body + 12, "block align " + std::to_string(align) + " (expected " + std::to_string(channels * 2) + ")");
      if (byte_rate != static_cast<uint64_t>(rate) * align)
        return fail(name, body + 8, "byte rate " + std::to_string(byte_rate) + " is not sample rate x block align");
      out.sample_rate = rate;
      out.channels = channels;
      have_fmt = true;
    } else if (tag_is(b, at, "data")) {
      if (!have_fmt) return fail(name, at, "data chunk before any fmt chunk");
      if (size % (out.channels * 2u) != 0)
        return fail(name, at + 4, "data size " + std::to_string(size) + " is not a whole number of " + std::to_string(out.channels * 2) + "-byte frames");
      out.samples.resize(size / 2);
      for (size_t i = 0; i < out.samples.size(); ++i) out.samples[i] = static_cast<int16_t>(get16(b, body + 2 * i));
      return out;
    }
    at = body + size + (size & 1u);  // chunks are padded to an even size
  }
  return fail(name, end, have_fmt ? "no data chunk" : "no fmt chunk");
}

Result<WavData> read_wav(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open: " + std::string(std::strerror(errno)), path};
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error{"cannot read the file", path};
  return decode_wav(bytes, path);
}

}  // namespace voxen::audio
