#include "voxen/store/codec.h"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <unordered_map>
#include <utility>

#include "bytes.h"

namespace voxen::store {
namespace {

using detail::BitReader;
using detail::BitWriter;
using detail::ByteReader;
using detail::index_bits;
using detail::packed_bytes;

constexpr uint8_t kMagic = 0x56;                 // 'V'
constexpr uint8_t kFlagZstd = 0x01;
constexpr size_t kMaxPayload = kMaxPayloadSize;  // 4 MiB: far above any real payload, stops decompression bombs
constexpr size_t kMaskBytes = kSectionVolume / 8;

enum JournalEncoding : uint8_t { kSparse = 0, kMask = 1 };

Error at(std::string what, size_t offset) {
  Error e{std::move(what)};
  e.offset = static_cast<int64_t>(offset);
  return e;
}

void put_cell(std::string& out, uint32_t packed) {
  const Cell c = Cell::from_packed(packed);
  detail::put_u16(out, c.id);
  detail::put_u8(out, c.state);
}

/// Builds a palette of distinct values in order of first appearance and the index of each value.
/// Values are packed cells (24 bits); a one-entry cache catches runs, a map takes over for large palettes.
void build_cell_palette(const uint32_t* values, size_t n, std::vector<uint32_t>& palette, std::vector<uint16_t>& idx) {
  palette.clear();
  idx.resize(n);
  std::unordered_map<uint32_t, uint16_t> map;
  uint32_t last = 0;
  uint16_t last_i = 0;
  bool have_last = false;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = values[i];
    if (have_last && v == last) {
      idx[i] = last_i;
      continue;
    }
    int found = -1;
    if (palette.size() <= 16) {
      for (size_t k = 0; k < palette.size(); ++k)
        if (palette[k] == v) {
          found = static_cast<int>(k);
          break;
        }
    } else {
      if (map.empty())
        for (size_t k = 0; k < palette.size(); ++k) map.emplace(palette[k], static_cast<uint16_t>(k));
      auto it = map.find(v);
      if (it != map.end()) found = it->second;
    }
    if (found < 0) {
      found = static_cast<int>(palette.size());
      palette.push_back(v);
      if (!map.empty()) map.emplace(v, static_cast<uint16_t>(found));
    }
    last = v;
    last_i = static_cast<uint16_t>(found);
    have_last = true;
    idx[i] = last_i;
  }
}

/// Reads a cell palette of p entries; errors name the entry.
bool read_cell_palette(ByteReader& r, size_t p, std::vector<uint32_t>& palette) {
  palette.resize(p);
  for (size_t k = 0; k < p; ++k) {
    const uint16_t id = r.u16();
    const uint8_t st = r.u8();
    palette[k] = Cell{id, st}.packed();
  }
  return r.ok();
}

thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> t_cctx{nullptr, ZSTD_freeCCtx};
thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> t_dctx{nullptr, ZSTD_freeDCtx};

}  // namespace

// ---- journal ---------------------------------------------------------------------------------------------------

void encode_journal(std::span<const JournalCell> cells, std::string& out) {
  const size_t n = cells.size();
  std::vector<uint32_t> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = cells[i].cell.packed();
  std::vector<uint32_t> palette;
  std::vector<uint16_t> idx;
  build_cell_palette(values.data(), n, palette, idx);
  const int bits = index_bits(palette.size());

  // Sparse size: one varint per gap; mask size: 512 bytes. Pick the smaller (ties go to sparse).
  std::string gaps;
  int prev = -1;
  for (const auto& c : cells) {
    detail::put_varint(gaps, static_cast<uint64_t>(c.index - prev - 1));
    prev = c.index;
  }
  const uint8_t encoding = gaps.size() <= kMaskBytes ? kSparse : kMask;

  detail::put_u8(out, encoding);
  detail::put_varint(out, n);
  detail::put_varint(out, palette.size());
  for (uint32_t v : palette) put_cell(out, v);
  if (encoding == kSparse) {
    out += gaps;
  } else {
    std::array<uint8_t, kMaskBytes> mask{};
    for (const auto& c : cells) mask[c.index >> 3] |= static_cast<uint8_t>(1u << (c.index & 7));
    out.append(reinterpret_cast<const char*>(mask.data()), mask.size());
  }
  BitWriter w(out, bits);
  for (size_t i = 0; i < n; ++i) w.put(idx[i]);
  w.finish();
}

Result<std::vector<JournalCell>> decode_journal(std::string_view in) {
  ByteReader r(in);
  const uint8_t encoding = r.u8();
  if (!r.ok()) return at("journal: empty payload", 0);
  if (encoding != kSparse && encoding != kMask)
    return at(("journal: unknown encoding " + std::to_string(encoding) + " (expected 0 sparse or 1 mask)").c_str(), 0);
  const uint64_t n = r.varint();
  if (!r.ok()) return at("journal: truncated cell count", r.fail_offset());
  if (n > static_cast<uint64_t>(kSectionVolume))
    return at(("journal: cell count " + std::to_string(n) + " exceeds 4096").c_str(), 1);
  const size_t pal_at = r.pos();
  const uint64_t p = r.varint();
  if (!r.ok()) return at("journal: truncated palette size", r.fail_offset());
  if (p > n || (n > 0 && p == 0))
    return at(("journal: palette size " + std::to_string(p) + " does not fit " + std::to_string(n) + " cells").c_str(), pal_at);
  std::vector<uint32_t> palette;
  if (!read_cell_palette(r, p, palette)) return at("journal: truncated palette", r.fail_offset());

  std::vector<JournalCell> cells(n);
  if (encoding == kSparse) {
    int64_t index = -1;
    for (size_t i = 0; i < n; ++i) {
      const size_t gap_at = r.pos();
      const uint64_t gap = r.varint();
      if (!r.ok()) return at("journal: truncated index list", r.fail_offset());
      index += static_cast<int64_t>(gap) + 1;
      if (gap >= static_cast<uint64_t>(kSectionVolume) || index >= kSectionVolume)
        return at("journal: cell index past 4095", gap_at);
      cells[i].index = static_cast<uint16_t>(index);
    }
  } else {
    const size_t mask_at = r.pos();
    std::string_view mask = r.bytes(kMaskBytes);
    if (!r.ok()) return at("journal: truncated presence mask", r.fail_offset());
    size_t count = 0;
    for (int i = 0; i < kSectionVolume; ++i)
      if (static_cast<uint8_t>(mask[static_cast<size_t>(i >> 3)]) >> (i & 7) & 1) {
        if (count < n) cells[count].index = static_cast<uint16_t>(i);
        ++count;
      }
    if (count != n)
      return at(("journal: presence mask holds " + std::to_string(count) + " cells, header says " + std::to_string(n)).c_str(), mask_at);
  }
  const int bits = index_bits(p);
  const size_t idx_at = r.pos();
  std::string_view packed = r.bytes(packed_bytes(n, bits));
  if (!r.ok()) return at("journal: truncated palette indices", r.fail_offset());
  BitReader br(packed, bits);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t k = br.get();
    if (k >= p) return at(("journal: palette index " + std::to_string(k) + " past palette size " + std::to_string(p)).c_str(), idx_at);
    cells[i].cell = Cell::from_packed(palette[k]);
  }
  if (r.remaining() != 0)
    return at(("journal: " + std::to_string(r.remaining()) + " trailing bytes").c_str(), r.pos());
  return cells;
}

// ---- whole sections --------------------------------------------------------------------------------------------

void encode_section(const Section& section, std::string& out) {
  if (section.is_uniform()) {
    detail::put_varint(out, 1);
    put_cell(out, section.palette()[0]);
    detail::put_u8(out, 0);
    return;
  }
  // The record's palette is the distinct cells in order of first appearance. A section whose own palette is exactly
  // that (every entry used, first used in palette order: what pack() and the importer's assign() build) is written
  // from its indices as they are; any other is unpacked and its palette rebuilt. Both give the same bytes.
  std::vector<uint16_t> idx(kSectionVolume);
  section.indices(idx.data());
  const std::vector<uint32_t>& own = section.palette();
  size_t seen = 0;
  bool canonical = true;
  for (int i = 0; i < kSectionVolume && canonical; ++i) {
    const uint16_t k = idx[static_cast<size_t>(i)];
    if (k == seen) ++seen;
    else canonical = k < seen;
  }
  canonical = canonical && seen == own.size();
  std::vector<uint32_t> palette;
  if (canonical) {
    palette = own;
  } else {
    uint32_t buf[kSectionVolume];
    section.unpack(buf);
    build_cell_palette(buf, kSectionVolume, palette, idx);
  }
  const int bits = index_bits(palette.size());
  detail::put_varint(out, palette.size());
  for (uint32_t v : palette) put_cell(out, v);
  detail::put_u8(out, static_cast<uint8_t>(bits));
  out.reserve(out.size() + packed_bytes(kSectionVolume, bits));
  BitWriter w(out, bits);
  for (int i = 0; i < kSectionVolume; ++i) w.put(idx[static_cast<size_t>(i)]);
  w.finish();
}

Result<Section> decode_section(std::string_view in, size_t& pos) {
  ByteReader r(in, pos);
  const uint64_t p = r.varint();
  if (!r.ok()) return at("section: truncated palette size", r.fail_offset());
  if (p == 0 || p > static_cast<uint64_t>(kSectionVolume))
    return at(("section: palette size " + std::to_string(p) + " not in 1..4096").c_str(), pos);
  std::vector<uint32_t> palette;
  if (!read_cell_palette(r, p, palette)) return at("section: truncated palette", r.fail_offset());
  const size_t bits_at = r.pos();
  const int bits = r.u8();
  if (!r.ok()) return at("section: truncated index width", r.fail_offset());
  if (bits != index_bits(p))
    return at(("section: index width " + std::to_string(bits) + " bits, palette of " + std::to_string(p) + " needs " +
               std::to_string(index_bits(p))).c_str(), bits_at);
  if (p == 1) {
    pos = r.pos();
    return Section(Cell::from_packed(palette[0]));
  }
  const size_t idx_at = r.pos();
  std::string_view packed = r.bytes(packed_bytes(kSectionVolume, bits));
  if (!r.ok()) return at("section: truncated indices", r.fail_offset());
  uint32_t buf[kSectionVolume];
  BitReader br(packed, bits);
  for (int i = 0; i < kSectionVolume; ++i) {
    const uint32_t k = br.get();
    if (k >= p) return at(("section: palette index " + std::to_string(k) + " past palette size " + std::to_string(p)).c_str(), idx_at);
    buf[i] = palette[k];
  }
  Section s;
  s.pack(buf);
  pos = r.pos();
  return s;
}

// ---- light -----------------------------------------------------------------------------------------------------

void encode_light(const LightSection& light, std::string& out) {
  const Light* dense = light.dense();
  if (!dense) {
    detail::put_varint(out, 1);
    detail::put_u16(out, light.uniform_value());
    detail::put_u8(out, 0);
    return;
  }
  // Palette by first appearance through a 64 Ki lookup table stamped per call (no clearing between calls).
  thread_local std::vector<uint32_t> stamp(65536, 0);
  thread_local std::vector<uint16_t> slot(65536, 0);
  thread_local uint32_t t_call = 0;
  if (++t_call == 0) {
    std::fill(stamp.begin(), stamp.end(), 0);
    t_call = 1;
  }
  std::vector<uint16_t> palette;
  uint16_t idx[kSectionVolume];
  for (int i = 0; i < kSectionVolume; ++i) {
    const Light v = dense[i];
    if (stamp[v] != t_call) {
      stamp[v] = t_call;
      slot[v] = static_cast<uint16_t>(palette.size());
      palette.push_back(v);
    }
    idx[i] = slot[v];
  }
  if (palette.size() == 1) {
    detail::put_varint(out, 1);
    detail::put_u16(out, palette[0]);
    detail::put_u8(out, 0);
    return;
  }
  const int bits = index_bits(palette.size());
  detail::put_varint(out, palette.size());
  for (uint16_t v : palette) detail::put_u16(out, v);
  detail::put_u8(out, static_cast<uint8_t>(bits));
  BitWriter w(out, bits);
  for (int i = 0; i < kSectionVolume; ++i) w.put(idx[i]);
  w.finish();
}

Result<LightSection> decode_light(std::string_view in, size_t& pos) {
  ByteReader r(in, pos);
  const uint64_t p = r.varint();
  if (!r.ok()) return at("light: truncated palette size", r.fail_offset());
  if (p == 0 || p > static_cast<uint64_t>(kSectionVolume))
    return at(("light: palette size " + std::to_string(p) + " not in 1..4096").c_str(), pos);
  std::vector<uint16_t> palette(p);
  for (auto& v : palette) v = r.u16();
  const size_t bits_at = r.pos();
  const int bits = r.u8();
  if (!r.ok()) return at("light: truncated palette", r.fail_offset());
  if (bits != index_bits(p))
    return at(("light: index width " + std::to_string(bits) + " bits, palette of " + std::to_string(p) + " needs " +
               std::to_string(index_bits(p))).c_str(), bits_at);
  if (p == 1) {
    pos = r.pos();
    return LightSection(palette[0]);
  }
  const size_t idx_at = r.pos();
  std::string_view packed = r.bytes(packed_bytes(kSectionVolume, bits));
  if (!r.ok()) return at("light: truncated indices", r.fail_offset());
  LightSection ls;
  Light* dense = ls.dense_mut();
  BitReader br(packed, bits);
  for (int i = 0; i < kSectionVolume; ++i) {
    const uint32_t k = br.get();
    if (k >= p) return at(("light: palette index " + std::to_string(k) + " past palette size " + std::to_string(p)).c_str(), idx_at);
    dense[i] = palette[k];
  }
  pos = r.pos();
  return ls;
}

// ---- envelope --------------------------------------------------------------------------------------------------

std::string seal(PayloadKind kind, std::string_view payload, const SealOptions& options) {
  VOXEN_ASSERT(payload.size() <= kMaxPayload);
  if (!t_cctx) t_cctx.reset(ZSTD_createCCtx());
  ZSTD_CCtx* cctx = t_cctx.get();
  ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, options.level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, options.checksum ? 1 : 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);

  std::string out;
  out.resize(kEnvelopeHeaderSize + ZSTD_compressBound(payload.size()));
  out[0] = static_cast<char>(kMagic);
  out[1] = static_cast<char>(kFormatVersion);
  out[2] = static_cast<char>(kind);
  out[3] = static_cast<char>(kFlagZstd);
  const auto len = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) out[4 + static_cast<size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xFF);
  const size_t n = ZSTD_compress2(cctx, out.data() + kEnvelopeHeaderSize, out.size() - kEnvelopeHeaderSize,
                                  payload.data(), payload.size());
  VOXEN_ASSERT(!ZSTD_isError(n));  // the buffer is ZSTD_compressBound: compression cannot fail
  out.resize(kEnvelopeHeaderSize + n);
  out.shrink_to_fit();
  return out;
}

Result<std::string> unseal(std::string_view value, PayloadKind expected) {
  ByteReader r(value);
  const uint8_t magic = r.u8();
  const uint8_t version = r.u8();
  const uint8_t kind = r.u8();
  const uint8_t flags = r.u8();
  const uint32_t len = r.u32();
  if (!r.ok())
    return at(("value of " + std::to_string(value.size()) + " bytes is shorter than the 8-byte header").c_str(), r.fail_offset());
  if (magic != kMagic) return at("not a voxen value (magic byte is not 0x56)", 0);
  if (version == 0 || version > kFormatVersion)
    return at(("unknown format version " + std::to_string(version) + " (this build reads 1.." + std::to_string(kFormatVersion) + ")").c_str(), 1);
  if (kind != static_cast<uint8_t>(expected))
    return at(("payload kind " + std::to_string(kind) + ", expected " + std::to_string(static_cast<int>(expected))).c_str(), 2);
  if (flags & ~kFlagZstd) return at(("unknown flags " + std::to_string(flags) + " (only bit 0, zstd, is defined)").c_str(), 3);
  if (len > kMaxPayload) return at(("payload length " + std::to_string(len) + " is implausibly large").c_str(), 4);
  std::string_view body = r.rest();
  if (!(flags & kFlagZstd)) {
    if (body.size() != len)
      return at(("wrong length: header says " + std::to_string(len) + " bytes, value holds " + std::to_string(body.size())).c_str(), 4);
    return std::string(body);
  }
  const size_t frame = ZSTD_findFrameCompressedSize(body.data(), body.size());
  if (ZSTD_isError(frame))
    return at((std::string("bad zstd frame: ") + ZSTD_getErrorName(frame)).c_str(), kEnvelopeHeaderSize);
  if (frame != body.size())
    return at(("bad zstd frame: " + std::to_string(body.size() - frame) + " bytes after the frame").c_str(), kEnvelopeHeaderSize + frame);
  const unsigned long long content = ZSTD_getFrameContentSize(body.data(), body.size());
  if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN)
    return at("bad zstd frame: no content size", kEnvelopeHeaderSize);
  if (content != len)
    return at(("wrong length: header says " + std::to_string(len) + " bytes, zstd frame holds " + std::to_string(content)).c_str(), 4);
  if (!t_dctx) t_dctx.reset(ZSTD_createDCtx());
  std::string out(len, '\0');
  const size_t n = ZSTD_decompressDCtx(t_dctx.get(), out.data(), out.size(), body.data(), body.size());
  if (ZSTD_isError(n)) return at((std::string("bad zstd frame: ") + ZSTD_getErrorName(n)).c_str(), kEnvelopeHeaderSize);
  if (n != len)
    return at(("wrong length: header says " + std::to_string(len) + " bytes, decompressed " + std::to_string(n)).c_str(), 4);
  return out;
}

}  // namespace voxen::store
