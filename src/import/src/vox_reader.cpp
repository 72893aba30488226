// The .vox reader: a bounds-checked walk of the chunk tree (format in vox_file.h). Every read goes through a
// ChunkCursor that knows the chunk's content range, so nothing is read past a chunk, its parent or the file.
// Errors are sticky in the cursor (the first one wins) and carry the byte offset of the bad field.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unordered_map>

#include <sys/stat.h>

#include "voxen/import/vox_file.h"
#include "voxen/import/vox_scene.h"

namespace voxen::import {
namespace {

constexpr uint32_t kMAIN = chunk_id('M', 'A', 'I', 'N');
constexpr uint32_t kPACK = chunk_id('P', 'A', 'C', 'K');
constexpr uint32_t kSIZE = chunk_id('S', 'I', 'Z', 'E');
constexpr uint32_t kXYZI = chunk_id('X', 'Y', 'Z', 'I');
constexpr uint32_t kRGBA = chunk_id('R', 'G', 'B', 'A');
constexpr uint32_t kMATL = chunk_id('M', 'A', 'T', 'L');
constexpr uint32_t kMATT = chunk_id('M', 'A', 'T', 'T');
constexpr uint32_t kNTRN = chunk_id('n', 'T', 'R', 'N');
constexpr uint32_t kNGRP = chunk_id('n', 'G', 'R', 'P');
constexpr uint32_t kNSHP = chunk_id('n', 'S', 'H', 'P');
constexpr uint32_t kLAYR = chunk_id('L', 'A', 'Y', 'R');
constexpr uint32_t kROBJ = chunk_id('r', 'O', 'B', 'J');
constexpr uint32_t kRCAM = chunk_id('r', 'C', 'A', 'M');
constexpr uint32_t kNOTE = chunk_id('N', 'O', 'T', 'E');
constexpr uint32_t kIMAP = chunk_id('I', 'M', 'A', 'P');

constexpr size_t kHeaderSize = 8;       // "VOX " + version
constexpr size_t kChunkHeaderSize = 12;  // id, content size, children size

uint32_t load_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

std::string quoted(std::string_view s, size_t max_len = 40) {
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < max_len; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 32 && c < 127) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > max_len) out += "...";
  return out + "'";
}

/// Reads the content of one chunk: [begin, end) of the file, with sticky errors naming the chunk.
class ChunkCursor {
 public:
  ChunkCursor(std::span<const uint8_t> bytes, size_t begin, size_t end, uint32_t id, size_t chunk_offset,
              const std::string& path)
      : m_bytes(bytes), m_pos(begin), m_end(end), m_id(id), m_chunk_offset(chunk_offset), m_path(path) {}

  bool ok() const { return !m_failed; }
  const Error& error() const { return m_error; }
  size_t pos() const { return m_pos; }
  size_t remaining() const { return m_end - m_pos; }

  /// Records the first error: message prefixed with the chunk's id and offset; `offset` is the bad field's.
  void fail(size_t offset, const std::string& what) {
    if (m_failed) return;
    m_failed = true;
    m_error = Error{"chunk '" + chunk_name(m_id) + "' at byte " + std::to_string(m_chunk_offset) + ": " + what, m_path,
                    -1, static_cast<int64_t>(offset)};
  }

  /// True if `n` more bytes are there; otherwise fails naming `what`.
  bool need(size_t n, std::string_view what) {
    if (!ok()) return false;
    if (remaining() >= n) return true;
    fail(m_pos, std::string(what) + " needs " + std::to_string(n) + " bytes at byte " + std::to_string(m_pos) +
                    " but the chunk's content ends at byte " + std::to_string(m_end));
    return false;
  }

  uint32_t u32(std::string_view what) {
    if (!need(4, what)) return 0;
    const uint32_t v = load_u32(m_bytes.data() + m_pos);
    m_pos += 4;
    return v;
  }
  int32_t i32(std::string_view what) { return static_cast<int32_t>(u32(what)); }
  float f32(std::string_view what) {
    const uint32_t bits = u32(what);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  const uint8_t* raw(size_t n, std::string_view what) {
    if (!need(n, what)) return nullptr;
    const uint8_t* p = m_bytes.data() + m_pos;
    m_pos += n;
    return p;
  }

  /// STRING: u32 length then bytes. A length past the content is "a bad string length" (offset of the length).
  std::string str(std::string_view what, size_t* value_offset = nullptr) {
    const size_t at = m_pos;
    const uint32_t len = u32(what);
    if (!ok()) return {};
    if (len > remaining()) {
      fail(at, std::string(what) + ": string length " + std::to_string(len) + " at byte " + std::to_string(at) +
                   " runs past the chunk's content (" + std::to_string(remaining()) + " bytes left, content ends at byte " +
                   std::to_string(m_end) + ")");
      return {};
    }
    if (value_offset) *value_offset = at;
    std::string s(reinterpret_cast<const char*>(m_bytes.data() + m_pos), len);
    m_pos += len;
    return s;
  }

  /// DICT: u32 pair count, then (key, value) STRINGs. `value_offsets`, if given, receives each value's offset.
  VoxDict dict(std::string_view what, std::vector<size_t>* value_offsets = nullptr) {
    const size_t at = m_pos;
    const uint32_t count = u32(what);
    if (!ok()) return {};
    if (count > remaining() / 8) {  // every pair holds two length fields at least
      fail(at, std::string(what) + ": dictionary of " + std::to_string(count) + " entries at byte " + std::to_string(at) +
                   " cannot fit in the " + std::to_string(remaining()) + " bytes left");
      return {};
    }
    VoxDict d;
    d.reserve(count);
    for (uint32_t i = 0; i < count && ok(); ++i) {
      std::string key = str(std::string(what) + " key " + std::to_string(i));
      size_t voff = 0;
      std::string value = str(std::string(what) + " value of " + quoted(key), &voff);
      if (!ok()) break;
      if (value_offsets) value_offsets->push_back(voff);
      d.emplace_back(std::move(key), std::move(value));
    }
    return d;
  }

 private:
  std::span<const uint8_t> m_bytes;
  size_t m_pos;
  size_t m_end;
  uint32_t m_id;
  size_t m_chunk_offset;
  const std::string& m_path;
  bool m_failed = false;
  Error m_error;
};

std::optional<float> parse_float(const std::string& s) {
  float v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  while (b < e && *b == ' ') ++b;
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr == b) return std::nullopt;
  while (ptr < e && *ptr == ' ') ++ptr;
  if (ptr != e) return std::nullopt;
  return v;
}

/// Decimal integer text (optional '-'), whole string, int32 range.
std::optional<int32_t> parse_i32(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

/// "x y z": three int32 separated by spaces.
std::optional<std::array<int32_t, 3>> parse_translation(std::string_view s) {
  std::array<int32_t, 3> out{};
  size_t i = 0;
  for (int k = 0; k < 3; ++k) {
    while (i < s.size() && s[i] == ' ') ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    auto v = parse_i32(s.substr(start, i - start));
    if (!v) return std::nullopt;
    out[static_cast<size_t>(k)] = *v;
  }
  while (i < s.size() && s[i] == ' ') ++i;
  if (i != s.size()) return std::nullopt;
  return out;
}

class FileReader {
 public:
  FileReader(std::span<const uint8_t> bytes, const std::string& path) : m_bytes(bytes), m_path(path) {}

  Result<VoxFile> run();

 private:
  Error error_at(size_t offset, const std::string& msg) const {
    return Error{msg, m_path, -1, static_cast<int64_t>(offset)};
  }
  void warn(size_t offset, const std::string& msg) {
    m_file.warnings.push_back(Error{msg, m_path, -1, static_cast<int64_t>(offset)});
  }
  Status read_children(size_t begin, size_t end, uint32_t parent_id, size_t parent_offset);
  Status read_chunk(uint32_t id, size_t offset, size_t begin, size_t end);

  void read_size(ChunkCursor& c, size_t offset);
  void read_xyzi(ChunkCursor& c, size_t offset);
  void read_rgba(ChunkCursor& c, size_t offset);
  void read_matl(ChunkCursor& c, size_t offset);
  void read_matt(ChunkCursor& c, size_t offset);
  void read_ntrn(ChunkCursor& c, size_t offset);
  void read_ngrp(ChunkCursor& c, size_t offset);
  void read_nshp(ChunkCursor& c, size_t offset);
  void read_layr(ChunkCursor& c, size_t offset);
  bool add_node(ChunkCursor& c, VoxNode node, size_t id_offset);

  std::span<const uint8_t> m_bytes;
  const std::string& m_path;
  VoxFile m_file;
  bool m_size_pending = false;
  size_t m_size_offset = 0;
  std::array<uint32_t, 3> m_pending_size{};
  bool m_rgba_seen = false;
  std::unordered_map<uint32_t, size_t> m_node_ids;  // id -> chunk offset, for duplicate detection
};

Result<VoxFile> FileReader::run() {
  const size_t size = m_bytes.size();
  if (size < kHeaderSize)
    return error_at(size, "truncated: the file is " + std::to_string(size) +
                              " bytes, too short for the .vox header (magic 'VOX ' and version, 8 bytes)");
  if (std::memcmp(m_bytes.data(), "VOX ", 4) != 0)
    return error_at(0, "not a MagicaVoxel file: the magic is " +
                           quoted(std::string_view(reinterpret_cast<const char*>(m_bytes.data()), 4)) +
                           " (expected 'VOX ')");
  m_file.version = load_u32(m_bytes.data() + 4);
  if (m_file.version != 150 && m_file.version != 200)
    return error_at(4, "unsupported .vox version " + std::to_string(m_file.version) + " (expected 150 or 200)");
  if (size < kHeaderSize + kChunkHeaderSize)
    return error_at(size, "truncated: the file ends at byte " + std::to_string(size) +
                              " inside the MAIN chunk header (12 bytes at byte 8)");
  const uint32_t main_id = load_u32(m_bytes.data() + 8);
  if (main_id != kMAIN)
    return error_at(8, "chunk '" + chunk_name(main_id) + "' at byte 8: expected the MAIN chunk first");
  const uint64_t n = load_u32(m_bytes.data() + 12);
  const uint64_t m = load_u32(m_bytes.data() + 16);
  const uint64_t content_begin = kHeaderSize + kChunkHeaderSize;
  if (content_begin + n > size)
    return error_at(8, "chunk 'MAIN' at byte 8: content size " + std::to_string(n) +
                           " runs past the end of the file (" + std::to_string(size) + " bytes): truncated file?");
  if (content_begin + n + m > size)
    return error_at(8, "chunk 'MAIN' at byte 8: children size " + std::to_string(m) + " (ending at byte " +
                           std::to_string(content_begin + n + m) + ") runs past the end of the file (" +
                           std::to_string(size) + " bytes): truncated file?");
  if (n > 0) warn(8, "chunk 'MAIN' at byte 8 has " + std::to_string(n) + " content bytes; skipped");
  const size_t children_begin = static_cast<size_t>(content_begin + n);
  const size_t children_end = static_cast<size_t>(content_begin + n + m);
  if (children_end < size)
    warn(children_end, std::to_string(size - children_end) + " bytes after the MAIN chunk (from byte " +
                           std::to_string(children_end) + ") ignored");

  m_file.palette = default_palette();
  if (Status s = read_children(children_begin, children_end, kMAIN, 8); !s) return s.error();
  if (m_size_pending)
    return error_at(m_size_offset, "chunk 'SIZE' at byte " + std::to_string(m_size_offset) +
                                       ": model size without its XYZI chunk");
  if (m_file.pack_models && *m_file.pack_models != m_file.models.size())
    warn(8, "PACK says " + std::to_string(*m_file.pack_models) + " models but the file has " +
                std::to_string(m_file.models.size()));
  if (Status s = validate_scene_graph(m_file, m_path); !s) return s.error();
  return std::move(m_file);
}

Status FileReader::read_children(size_t begin, size_t end, uint32_t parent_id, size_t parent_offset) {
  const std::string parent = "its parent '" + chunk_name(parent_id) + "' at byte " + std::to_string(parent_offset) +
                             " (ending at byte " + std::to_string(end) +
                             (end == m_bytes.size() ? ", the end of the file)" : ")");
  size_t p = begin;
  while (p < end) {
    if (end - p < kChunkHeaderSize)
      return error_at(p, "chunk header at byte " + std::to_string(p) + " needs 12 bytes but " + parent + " has " +
                             std::to_string(end - p) + " left");
    const uint32_t id = load_u32(m_bytes.data() + p);
    const uint64_t n = load_u32(m_bytes.data() + p + 4);
    const uint64_t m = load_u32(m_bytes.data() + p + 8);
    const uint64_t room = end - p - kChunkHeaderSize;
    if (n > room)
      return error_at(p, "chunk '" + chunk_name(id) + "' at byte " + std::to_string(p) + ": content size " +
                             std::to_string(n) + " runs past the end of " + parent);
    if (m > room - n)
      return error_at(p, "chunk '" + chunk_name(id) + "' at byte " + std::to_string(p) + ": children size " +
                             std::to_string(m) + " runs past the end of " + parent);
    const size_t content = p + kChunkHeaderSize;
    if (Status s = read_chunk(id, p, content, content + static_cast<size_t>(n)); !s) return s;
    if (m > 0) {
      // Only MAIN has children in the format; validate their headers (sizes) and skip them.
      warn(p, "chunk '" + chunk_name(id) + "' at byte " + std::to_string(p) + " has " + std::to_string(m) +
                  " bytes of child chunks; skipped");
    }
    p = content + static_cast<size_t>(n + m);
  }
  return Ok{};
}

Status FileReader::read_chunk(uint32_t id, size_t offset, size_t begin, size_t end) {
  ChunkCursor c(m_bytes, begin, end, id, offset, m_path);
  switch (id) {
    case kSIZE: read_size(c, offset); break;
    case kXYZI: read_xyzi(c, offset); break;
    case kRGBA: read_rgba(c, offset); break;
    case kMATL: read_matl(c, offset); break;
    case kMATT: read_matt(c, offset); break;
    case kNTRN: read_ntrn(c, offset); break;
    case kNGRP: read_ngrp(c, offset); break;
    case kNSHP: read_nshp(c, offset); break;
    case kLAYR: read_layr(c, offset); break;
    case kPACK: m_file.pack_models = c.u32("PACK model count"); break;
    case kROBJ: {
      VoxDict d = c.dict("rOBJ attributes");
      if (c.ok()) m_file.render_objects.push_back(std::move(d));
      break;
    }
    case kRCAM: {
      VoxCamera cam;
      cam.id = c.u32("rCAM camera id");
      cam.attributes = c.dict("rCAM attributes");
      if (c.ok()) m_file.cameras.push_back(std::move(cam));
      break;
    }
    case kNOTE: {
      const size_t at = c.pos();
      const uint32_t count = c.u32("NOTE name count");
      if (c.ok() && count > c.remaining() / 4) {
        c.fail(at, "NOTE name count " + std::to_string(count) + " cannot fit in the " + std::to_string(c.remaining()) +
                       " bytes left");
        break;
      }
      for (uint32_t i = 0; i < count && c.ok(); ++i) {
        std::string s = c.str("NOTE name " + std::to_string(i));
        if (c.ok()) m_file.notes.push_back(std::move(s));
      }
      break;
    }
    case kIMAP: {
      const uint8_t* p = c.raw(256, "IMAP index map (256 bytes)");
      if (p) {
        std::array<uint8_t, 256> map{};
        std::copy(p, p + 256, map.begin());
        m_file.index_map = map;
      }
      break;
    }
    case kMAIN:
    default:
      warn(offset, "unknown chunk '" + chunk_name(id) + "' at byte " + std::to_string(offset) + " (" +
                       std::to_string(end - begin) + " content bytes) skipped");
      break;
  }
  if (!c.ok()) return c.error();
  return Ok{};
}

void FileReader::read_size(ChunkCursor& c, size_t offset) {
  if (m_size_pending) {
    c.fail(offset, "a second SIZE follows the SIZE at byte " + std::to_string(m_size_offset) + " without an XYZI between");
    return;
  }
  static constexpr const char* kAxis[3] = {"x", "y", "z"};
  for (size_t i = 0; i < 3; ++i) {
    const size_t at = c.pos();
    const uint32_t v = c.u32(std::string("model size ") + kAxis[i]);
    if (!c.ok()) return;
    if (v == 0 || v > 256) {
      c.fail(at, std::string("model size ") + kAxis[i] + " = " + std::to_string(v) + " at byte " + std::to_string(at) +
                     " (each size must be 1..256)");
      return;
    }
    m_pending_size[i] = v;
  }
  m_size_pending = true;
  m_size_offset = offset;
}

void FileReader::read_xyzi(ChunkCursor& c, size_t offset) {
  if (!m_size_pending) {
    c.fail(offset, "XYZI without a SIZE chunk before it");
    return;
  }
  const size_t at = c.pos();
  const uint32_t count = c.u32("XYZI voxel count");
  if (!c.ok()) return;
  if (count > c.remaining() / 4) {
    c.fail(at, "XYZI count " + std::to_string(count) + " at byte " + std::to_string(at) + " needs " +
                   std::to_string(uint64_t{count} * 4) + " bytes of voxels but the chunk holds " +
                   std::to_string(c.remaining()));
    return;
  }
  VoxModel model;
  model.size_x = m_pending_size[0];
  model.size_y = m_pending_size[1];
  model.size_z = m_pending_size[2];
  model.offset = static_cast<int64_t>(m_size_offset);
  model.voxels.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t vat = c.pos();
    const uint8_t* p = c.raw(4, "voxel");
    if (!p) return;
    if (p[0] >= model.size_x || p[1] >= model.size_y || p[2] >= model.size_z) {
      c.fail(vat, "voxel " + std::to_string(i) + " at byte " + std::to_string(vat) + " at (" + std::to_string(p[0]) + ", " +
                      std::to_string(p[1]) + ", " + std::to_string(p[2]) + ") lies outside its model's size " +
                      std::to_string(model.size_x) + "x" + std::to_string(model.size_y) + "x" +
                      std::to_string(model.size_z));
      return;
    }
    model.voxels[i] = VoxVoxel{p[0], p[1], p[2], p[3]};
  }
  m_file.models.push_back(std::move(model));
  m_size_pending = false;
}

void FileReader::read_rgba(ChunkCursor& c, size_t offset) {
  // Other tools write only the colours they use: a chunk shorter than 256 entries fills the indices it covers
  // and leaves the rest at the default palette, with one warning; bytes past 256 entries are ignored.
  const size_t size = c.remaining();
  const size_t entries = std::min<size_t>(size / 4, 256);
  const uint8_t* p = c.raw(4 * entries, "RGBA palette entries");
  if (!p) return;
  if (m_rgba_seen) warn(offset, "a second RGBA chunk at byte " + std::to_string(offset) + " replaces the first");
  m_rgba_seen = true;
  m_file.has_rgba = true;
  m_file.palette = default_palette();
  m_file.palette[0] = VoxRgba{0, 0, 0, 0};
  // Entry i of the chunk is colour index i + 1; the last entry (i = 255) has no index and is ignored.
  const size_t indices = std::min<size_t>(entries, 255);
  for (size_t i = 0; i < indices; ++i) m_file.palette[i + 1] = VoxRgba{p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]};
  if (size < 1024) {
    std::string what = "RGBA at byte " + std::to_string(offset) + " holds " + std::to_string(size) + " bytes, " +
                       std::to_string(entries) + " of the 256 colours (1024 bytes)";
    if (indices < 255)
      what += "; colour indices " + std::to_string(indices + 1) + "..255 take MagicaVoxel's default palette";
    if (size % 4 != 0)
      what += "; the last " + std::to_string(size % 4) + " bytes (from byte " + std::to_string(c.pos()) +
              ") are not a whole colour and are ignored";
    warn(offset, what);
  } else if (size > 1024) {
    warn(offset, "RGBA at byte " + std::to_string(offset) + " holds " + std::to_string(size) +
                     " bytes; the " + std::to_string(size - 1024) + " past the 256 colours (from byte " +
                     std::to_string(c.pos()) + ") are ignored");
  }
}

void FileReader::read_matl(ChunkCursor& c, size_t offset) {
  const uint32_t id = c.u32("MATL material id");
  std::vector<size_t> value_offsets;
  VoxDict props = c.dict("MATL properties", &value_offsets);
  if (!c.ok()) return;
  if (id > 256) {
    warn(offset, "MATL at byte " + std::to_string(offset) + " has material id " + std::to_string(id) +
                     " (past 256); ignored");
    return;
  }
  VoxMaterial mat;
  mat.present = true;
  mat.offset = static_cast<int64_t>(offset);
  bool weight_read = false;  // _weight parsed as a number
  for (size_t i = 0; i < props.size(); ++i) {
    const auto& [key, value] = props[i];
    if (key == "_type") {
      if (value == "_diffuse") mat.type = VoxMaterialType::kDiffuse;
      else if (value == "_metal") mat.type = VoxMaterialType::kMetal;
      else if (value == "_glass") mat.type = VoxMaterialType::kGlass;
      else if (value == "_emit") mat.type = VoxMaterialType::kEmit;
      else if (value == "_blend") mat.type = VoxMaterialType::kBlend;
      else if (value == "_media") mat.type = VoxMaterialType::kMedia;
      else warn(value_offsets[i], "MATL " + std::to_string(id) + ": unknown _type " + quoted(value) + "; diffuse used");
      continue;
    }
    float* field = nullptr;
    if (key == "_weight") field = &mat.weight;
    else if (key == "_emit") field = &mat.emit;
    else if (key == "_flux") field = &mat.flux;
    else if (key == "_trans") field = &mat.trans;
    else if (key == "_rough") field = &mat.rough;
    else if (key == "_metal") field = &mat.metal;
    else if (key == "_spec") field = &mat.spec;
    else if (key == "_ior") field = &mat.ior;
    else if (key == "_alpha") field = dict_find(props, "_trans") ? nullptr : &mat.trans;
    else if (key == "_d") field = &mat.density;
    if (!field) continue;
    auto v = parse_float(value);
    if (!v) {
      warn(value_offsets[i], "MATL " + std::to_string(id) + ": property " + key + " = " + quoted(value) +
                                 " is not a number; ignored");
      continue;
    }
    *field = *v;
    weight_read |= field == &mat.weight;
  }
  if (mat.type == VoxMaterialType::kEmit && !dict_find(props, "_emit")) mat.emit = 1.0f;
  // Old-style glass (MagicaVoxel before _trans and _alpha, like MATT's glass): _weight is how much glass.
  if (mat.type == VoxMaterialType::kGlass && weight_read && !dict_find(props, "_trans") && !dict_find(props, "_alpha"))
    mat.trans = mat.weight;
  mat.properties = std::move(props);
  m_file.materials[id & 255] = std::move(mat);
}

void FileReader::read_matt(ChunkCursor& c, size_t offset) {
  const uint32_t id = c.u32("MATT material id");
  const size_t type_at = c.pos();
  const uint32_t type = c.u32("MATT material type");
  const float weight = c.f32("MATT weight");
  const uint32_t bits = c.u32("MATT property bits");
  uint32_t floats = 0;
  for (int b = 0; b < 7; ++b) floats += (bits >> b) & 1;
  for (uint32_t i = 0; i < floats; ++i) c.f32("MATT property value");
  if (!c.ok()) return;
  if (id > 256) {
    warn(offset, "MATT at byte " + std::to_string(offset) + " has material id " + std::to_string(id) + "; ignored");
    return;
  }
  VoxMaterial mat;
  mat.present = true;
  mat.offset = static_cast<int64_t>(offset);
  mat.weight = weight;
  switch (type) {
    case 0: mat.type = VoxMaterialType::kDiffuse; break;
    case 1: mat.type = VoxMaterialType::kMetal; mat.metal = weight; break;
    case 2: mat.type = VoxMaterialType::kGlass; mat.trans = weight; break;
    case 3: mat.type = VoxMaterialType::kEmit; mat.emit = weight; break;
    default: warn(type_at, "MATT " + std::to_string(id) + ": unknown material type " + std::to_string(type)); break;
  }
  m_file.materials[id & 255] = std::move(mat);
}

bool FileReader::add_node(ChunkCursor& c, VoxNode node, size_t id_offset) {
  auto [it, inserted] = m_node_ids.emplace(node.id, static_cast<size_t>(node.offset));
  if (!inserted) {
    c.fail(id_offset, "node id " + std::to_string(node.id) + " is already used by the node chunk at byte " +
                          std::to_string(it->second));
    return false;
  }
  m_file.nodes.push_back(std::move(node));
  return true;
}

void FileReader::read_ntrn(ChunkCursor& c, size_t offset) {
  VoxNode node;
  node.kind = VoxNodeKind::kTransform;
  node.offset = static_cast<int64_t>(offset);
  const size_t id_at = c.pos();
  node.id = c.u32("nTRN node id");
  node.attributes = c.dict("nTRN attributes");
  node.child_offset = static_cast<int64_t>(c.pos());
  node.child = c.u32("nTRN child node id");
  c.i32("nTRN reserved id");
  node.layer = c.i32("nTRN layer id");
  const size_t frames_at = c.pos();
  const uint32_t frames = c.u32("nTRN frame count");
  if (!c.ok()) return;
  if (frames > c.remaining() / 4) {
    c.fail(frames_at, "nTRN frame count " + std::to_string(frames) + " cannot fit in the " +
                          std::to_string(c.remaining()) + " bytes left");
    return;
  }
  if (const std::string* name = dict_find(node.attributes, "_name")) node.name = *name;
  if (const std::string* hidden = dict_find(node.attributes, "_hidden")) node.hidden = *hidden == "1";
  for (uint32_t f = 0; f < frames; ++f) {
    std::vector<size_t> value_offsets;
    VoxFrame frame;
    frame.attributes = c.dict("nTRN frame " + std::to_string(f), &value_offsets);
    if (!c.ok()) return;
    for (size_t i = 0; i < frame.attributes.size(); ++i) {
      const auto& [key, value] = frame.attributes[i];
      const size_t at = value_offsets[i];
      if (key == "_r") {
        auto bits = parse_i32(value);
        std::optional<VoxRotation> r;
        if (bits && *bits >= 0) r = VoxRotation::decode(static_cast<uint32_t>(*bits));
        if (!r) {
          c.fail(at, "node " + std::to_string(node.id) + " frame " + std::to_string(f) + ": invalid rotation _r = " +
                         quoted(value) + " at byte " + std::to_string(at) +
                         " (must be a packed rotation byte: two different row indices 0..2, bit 7 clear)");
          return;
        }
        frame.rotation = *r;
      } else if (key == "_t") {
        auto t = parse_translation(value);
        if (!t) {
          c.fail(at, "node " + std::to_string(node.id) + " frame " + std::to_string(f) + ": translation _t = " +
                         quoted(value) + " at byte " + std::to_string(at) + " is not three integers \"x y z\"");
          return;
        }
        frame.translation = *t;
      } else if (key == "_f") {
        auto v = parse_i32(value);
        if (!v || *v < 0) {
          warn(at, "node " + std::to_string(node.id) + ": frame index _f = " + quoted(value) + " is not a number");
        } else {
          frame.frame_index = static_cast<uint32_t>(*v);
        }
      }
    }
    node.frames.push_back(std::move(frame));
  }
  add_node(c, std::move(node), id_at);
}

void FileReader::read_ngrp(ChunkCursor& c, size_t offset) {
  VoxNode node;
  node.kind = VoxNodeKind::kGroup;
  node.offset = static_cast<int64_t>(offset);
  const size_t id_at = c.pos();
  node.id = c.u32("nGRP node id");
  node.attributes = c.dict("nGRP attributes");
  const size_t count_at = c.pos();
  const uint32_t count = c.u32("nGRP child count");
  if (!c.ok()) return;
  if (count > c.remaining() / 4) {
    c.fail(count_at, "nGRP child count " + std::to_string(count) + " needs " + std::to_string(uint64_t{count} * 4) +
                         " bytes but " + std::to_string(c.remaining()) + " are left");
    return;
  }
  node.children_offset = static_cast<int64_t>(c.pos());
  node.children.resize(count);
  for (uint32_t i = 0; i < count; ++i) node.children[i] = c.u32("nGRP child id");
  if (!c.ok()) return;
  add_node(c, std::move(node), id_at);
}

void FileReader::read_nshp(ChunkCursor& c, size_t offset) {
  VoxNode node;
  node.kind = VoxNodeKind::kShape;
  node.offset = static_cast<int64_t>(offset);
  const size_t id_at = c.pos();
  node.id = c.u32("nSHP node id");
  node.attributes = c.dict("nSHP attributes");
  const size_t count_at = c.pos();
  const uint32_t count = c.u32("nSHP model count");
  if (!c.ok()) return;
  if (count == 0) {
    c.fail(count_at, "nSHP node " + std::to_string(node.id) + " has no model (model count 0 at byte " +
                         std::to_string(count_at) + ")");
    return;
  }
  if (count > c.remaining() / 8) {
    c.fail(count_at, "nSHP model count " + std::to_string(count) + " cannot fit in the " +
                         std::to_string(c.remaining()) + " bytes left");
    return;
  }
  for (uint32_t i = 0; i < count && c.ok(); ++i) {
    const size_t at = c.pos();
    const uint32_t model = c.u32("nSHP model id");
    VoxDict attrs = c.dict("nSHP model attributes");
    if (!c.ok()) break;
    node.models.emplace_back(model, std::move(attrs));
    node.model_offsets.push_back(static_cast<int64_t>(at));
  }
  if (!c.ok()) return;
  add_node(c, std::move(node), id_at);
}

void FileReader::read_layr(ChunkCursor& c, size_t offset) {
  VoxLayer layer;
  layer.id = c.i32("LAYR layer id");
  layer.attributes = c.dict("LAYR attributes");
  if (c.remaining() >= 4) c.i32("LAYR reserved id");
  if (!c.ok()) return;
  if (const std::string* name = dict_find(layer.attributes, "_name")) layer.name = *name;
  if (const std::string* hidden = dict_find(layer.attributes, "_hidden")) layer.hidden = *hidden == "1";
  for (auto& existing : m_file.layers) {
    if (existing.id == layer.id) {
      warn(offset, "LAYR at byte " + std::to_string(offset) + " redefines layer " + std::to_string(layer.id));
      existing = std::move(layer);
      return;
    }
  }
  m_file.layers.push_back(std::move(layer));
}

}  // namespace

std::string chunk_name(uint32_t id) {
  std::string s;
  for (int i = 0; i < 4; ++i) {
    const auto c = static_cast<unsigned char>((id >> (8 * i)) & 0xFF);
    if (c < 32 || c >= 127) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08x", id);
      return buf;
    }
    s += static_cast<char>(c);
  }
  return s;
}

const std::string* dict_find(const VoxDict& dict, std::string_view key) {
  for (const auto& [k, v] : dict)
    if (k == key) return &v;
  return nullptr;
}

uint64_t VoxFile::voxel_count() const {
  uint64_t n = 0;
  for (const auto& m : models) n += m.voxels.size();
  return n;
}

int64_t VoxFile::find_node(uint32_t id) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].id == id) return static_cast<int64_t>(i);
  return -1;
}

const VoxLayer* VoxFile::find_layer(int32_t id) const {
  for (const auto& l : layers)
    if (l.id == id) return &l;
  return nullptr;
}

const std::array<VoxRgba, 256>& default_palette() {
  static const std::array<VoxRgba, 256> palette = [] {
    std::array<VoxRgba, 256> p{};
    size_t i = 1;
    static constexpr uint8_t kCube[6] = {0xFF, 0xCC, 0x99, 0x66, 0x33, 0x00};
    for (uint8_t r : kCube)
      for (uint8_t g : kCube)
        for (uint8_t b : kCube)
          if (r | g | b) p[i++] = VoxRgba{r, g, b, 0xFF};
    static constexpr uint8_t kRamp[10] = {0xEE, 0xDD, 0xBB, 0xAA, 0x88, 0x77, 0x55, 0x44, 0x22, 0x11};
    for (uint8_t v : kRamp) p[i++] = VoxRgba{v, 0, 0, 0xFF};
    for (uint8_t v : kRamp) p[i++] = VoxRgba{0, v, 0, 0xFF};
    for (uint8_t v : kRamp) p[i++] = VoxRgba{0, 0, v, 0xFF};
    for (uint8_t v : kRamp) p[i++] = VoxRgba{v, v, v, 0xFF};
    VOXEN_ASSERT(i == 256);
    return p;
  }();
  return palette;
}

Result<VoxFile> read_vox(std::span<const uint8_t> bytes, const std::string& path_for_errors) {
  FileReader reader(bytes, path_for_errors);
  return reader.run();
}

Result<VoxFile> read_vox_file(const std::string& path) {
  // Type and size before reading: a directory fails deep in the stream library without the path, and a device
  // such as /dev/zero never ends. (stat, not std::filesystem: <filesystem>'s std::quoted would collide, by
  // argument-dependent lookup, with this file's quoted().)
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error{std::string("cannot open the file: ") + std::strerror(errno), path};
  if (S_ISDIR(st.st_mode)) return Error{"is a directory, not a .vox file", path};
  if (!S_ISREG(st.st_mode))
    return Error{"is not a regular file (a device, FIFO or socket); a .vox file must be a regular file", path};
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxVoxFileBytes)
    return Error{"the file is " + std::to_string(size) + " bytes; at most " + std::to_string(kMaxVoxFileBytes) +
                     " (1 GiB) are read",
                 path};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open the file", path};
  // At most the size seen plus one byte: a file that grows meanwhile is read no further than that, and refused.
  std::vector<uint8_t> bytes(static_cast<size_t>(size) + 1);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (in.bad()) return Error{"cannot read the file", path};
  if (static_cast<uint64_t>(in.gcount()) > size) return Error{"the file changed size while being read", path};
  bytes.resize(static_cast<size_t>(in.gcount()));
  return read_vox(bytes, path);
}

}  // namespace voxen::import
