// Little helpers for the store's byte formats: little-endian integers, LEB128 varints and dense bit packing.
// A ByteReader never reads past its input: every read checks the remaining length and records the first failure
// with the byte offset, so decoders can report "truncated at byte N" instead of reading garbage.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace voxen::store::detail {

inline void put_u8(std::string& out, uint8_t v) { out.push_back(static_cast<char>(v)); }
inline void put_u16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xFF));
  out.push_back(static_cast<char>(v >> 8));
}
inline void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
inline void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
/// Unsigned LEB128: 7 bits per byte, low group first, high bit set on every byte but the last.
inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

/// Bits needed to index a table of n entries: 0 for n <= 1, else ceil(log2 n).
inline int index_bits(size_t n) {
  int b = 0;
  while ((size_t{1} << b) < n) ++b;
  return b;
}
/// Bytes taken by `count` values of `bits` bits packed densely.
inline size_t packed_bytes(size_t count, int bits) { return (count * static_cast<size_t>(bits) + 7) / 8; }

/// Appends values packed densely, little-endian bit order: value i occupies bits [i*bits, (i+1)*bits) of the
/// byte string read as one little-endian integer. bits 0 writes nothing.
class BitWriter {
 public:
  BitWriter(std::string& out, int bits) : m_out(out), m_bits(bits) {}
  void put(uint32_t v) {
    if (m_bits == 0) return;
    m_acc |= static_cast<uint64_t>(v) << m_fill;
    m_fill += m_bits;
    while (m_fill >= 8) {
      m_out.push_back(static_cast<char>(m_acc & 0xFF));
      m_acc >>= 8;
      m_fill -= 8;
    }
  }
  /// Writes the last partial byte (zero-padded).
  void finish() {
    if (m_fill > 0) m_out.push_back(static_cast<char>(m_acc & 0xFF));
    m_acc = 0;
    m_fill = 0;
  }

 private:
  std::string& m_out;
  int m_bits;
  uint64_t m_acc = 0;
  int m_fill = 0;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in, size_t pos = 0) : m_in(in), m_pos(pos) {}
  bool ok() const { return m_ok; }
  size_t pos() const { return m_pos; }
  size_t remaining() const { return m_ok ? m_in.size() - m_pos : 0; }
  /// Offset of the first failed read (or the current position if none failed).
  size_t fail_offset() const { return m_fail; }
  std::string_view rest() const { return m_in.substr(m_pos); }

  uint8_t u8() {
    if (!need(1)) return 0;
    return static_cast<uint8_t>(m_in[m_pos++]);
  }
  uint16_t u16() {
    if (!need(2)) return 0;
    const uint16_t v = static_cast<uint16_t>(static_cast<uint8_t>(m_in[m_pos]) | static_cast<uint8_t>(m_in[m_pos + 1]) << 8);
    m_pos += 2;
    return v;
  }
  uint32_t u32() {
    if (!need(4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(m_in[m_pos + static_cast<size_t>(i)])) << (8 * i);
    m_pos += 4;
    return v;
  }
  uint64_t u64() {
    if (!need(8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(m_in[m_pos + static_cast<size_t>(i)])) << (8 * i);
    m_pos += 8;
    return v;
  }
  /// LEB128, at most 10 bytes; longer or truncated encodings fail.
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (!need(1)) return 0;
      const uint8_t b = static_cast<uint8_t>(m_in[m_pos++]);
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    fail();
    return 0;
  }
  /// Takes n raw bytes.
  std::string_view bytes(size_t n) {
    if (!need(n)) return {};
    std::string_view s = m_in.substr(m_pos, n);
    m_pos += n;
    return s;
  }
  void fail() {
    if (m_ok) m_fail = m_pos;
    m_ok = false;
  }

 private:
  bool need(size_t n) {
    if (!m_ok) return false;
    if (m_in.size() - m_pos < n) {
      fail();
      return false;
    }
    return true;
  }
  std::string_view m_in;
  size_t m_pos;
  size_t m_fail = 0;
  bool m_ok = true;
};

/// Reads densely packed values written by BitWriter from a byte string of exactly packed_bytes(count, bits).
class BitReader {
 public:
  BitReader(std::string_view in, int bits) : m_in(in), m_bits(bits), m_mask(bits ? (uint64_t{1} << bits) - 1 : 0) {}
  uint32_t get() {
    if (m_bits == 0) return 0;
    while (m_fill < m_bits) {
      const uint64_t b = m_pos < m_in.size() ? static_cast<uint8_t>(m_in[m_pos]) : 0;
      ++m_pos;
      m_acc |= b << m_fill;
      m_fill += 8;
    }
    const uint32_t v = static_cast<uint32_t>(m_acc & m_mask);
    m_acc >>= m_bits;
    m_fill -= m_bits;
    return v;
  }

 private:
  std::string_view m_in;
  int m_bits;
  uint64_t m_mask;
  uint64_t m_acc = 0;
  int m_fill = 0;
  size_t m_pos = 0;
};

}  // namespace voxen::store::detail
