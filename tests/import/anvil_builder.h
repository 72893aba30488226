// Hand-built Minecraft data for the Anvil import tests, written here independently of the importer: an NBT writer,
// chunks in the 1.13-1.17 (Level/Sections/Palette/BlockStates) and 1.18+ (sections/block_states) layouts with
// indices packed spanning or padded, the four compressions (zlib's deflate for gzip and zlib, liblz4 + XXH32 for
// lz4-java's block stream) and region files (offset table, timestamps, sectors).
#pragma once

#include <lz4.h>
#include <xxhash.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace voxen::testing {

/// Big-endian NBT, written tag by tag. A list's items are written with item_*() after begin_list().
class NbtWriter {
 public:
  NbtWriter& begin_root() { return head(10, ""); }
  NbtWriter& end() { return u8(0); }  // closes a compound
  NbtWriter& begin_compound(const std::string& name) { return head(10, name); }
  NbtWriter& byte(const std::string& name, int8_t v) { return head(1, name).be(static_cast<uint8_t>(v), 1); }
  NbtWriter& int32(const std::string& name, int32_t v) { return head(3, name).be(static_cast<uint32_t>(v), 4); }
  NbtWriter& int64(const std::string& name, int64_t v) { return head(4, name).be(static_cast<uint64_t>(v), 8); }
  NbtWriter& string(const std::string& name, const std::string& v) { return head(8, name).str(v); }
  NbtWriter& long_array(const std::string& name, const std::vector<int64_t>& v) {
    head(12, name).be(v.size(), 4);
    for (int64_t x : v) be(static_cast<uint64_t>(x), 8);
    return *this;
  }
  NbtWriter& begin_list(const std::string& name, uint8_t element, size_t n) { return head(9, name).u8(element).be(n, 4); }
  /// A compound item of a list: its named tags follow, then end().
  NbtWriter& item_compound() { return *this; }
  std::vector<uint8_t> bytes() const { return m_b; }

 private:
  NbtWriter& u8(uint8_t v) {
    m_b.push_back(v);
    return *this;
  }
  NbtWriter& be(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) m_b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  NbtWriter& str(const std::string& s) {
    be(s.size(), 2);
    m_b.insert(m_b.end(), s.begin(), s.end());
    return *this;
  }
  NbtWriter& head(uint8_t type, const std::string& name) { return u8(type).str(name); }
  std::vector<uint8_t> m_b;
};

/// One section of a hand-built chunk. Palette entries are "minecraft:name" or "minecraft:name[k=v,k2=v2]".
struct TestSection {
  int y = 0;
  std::vector<std::string> palette;
  std::vector<uint16_t> indices;      // 4096 (index y*256 + z*16 + x), or empty: no data (single-entry palettes)
  bool force_spanning = false;        // pack spanning whatever the DataVersion
  bool force_padded = false;          // pack padded whatever the DataVersion
  std::vector<int64_t> raw_data;      // when not empty: written as the data instead of packing `indices`
};

inline int test_bits(size_t n) {
  int b = 0;
  while ((size_t{1} << b) < n) ++b;
  return std::max(4, b);
}

/// Packs 4096 indices: spanning (an index may straddle two longs) or padded (floor(64 / bits) per long).
inline std::vector<int64_t> pack_indices(const std::vector<uint16_t>& idx, int bits, bool spanning) {
  std::vector<uint64_t> w;
  if (spanning) {
    w.assign(static_cast<size_t>(4096 * bits / 64), 0);
    for (size_t i = 0; i < idx.size(); ++i)
      for (int b = 0; b < bits; ++b)
        if (idx[i] >> b & 1) {
          const size_t bit = i * static_cast<size_t>(bits) + static_cast<size_t>(b);
          w[bit / 64] |= uint64_t{1} << (bit % 64);
        }
  } else {
    const size_t per = static_cast<size_t>(64 / bits);
    w.assign((4096 + per - 1) / per, 0);
    for (size_t i = 0; i < idx.size(); ++i) w[i / per] |= uint64_t{idx[i]} << ((i % per) * static_cast<size_t>(bits));
  }
  return {w.begin(), w.end()};
}

inline void write_palette_entry(NbtWriter& w, const std::string& entry) {
  const size_t br = entry.find('[');
  w.item_compound().string("Name", entry.substr(0, br));
  if (br != std::string::npos) {
    w.begin_compound("Properties");
    std::string props = entry.substr(br + 1, entry.size() - br - 2);
    size_t at = 0;
    while (at < props.size()) {
      size_t comma = props.find(',', at);
      if (comma == std::string::npos) comma = props.size();
      const std::string kv = props.substr(at, comma - at);
      const size_t eq = kv.find('=');
      w.string(kv.substr(0, eq), kv.substr(eq + 1));
      at = comma + 1;
    }
    w.end();
  }
  w.end();
}

/// A chunk's NBT. `level_layout`: the 1.13-1.17 layout (Level wrapper, Sections, Palette, BlockStates); else 1.18+.
inline std::vector<uint8_t> chunk_nbt(int32_t data_version, int32_t cx, int32_t cz, const std::string& status,
                                      const std::vector<TestSection>& sections, bool level_layout) {
  NbtWriter w;
  w.begin_root().int32("DataVersion", data_version);
  if (level_layout) w.begin_compound("Level");
  w.int32("xPos", cx).int32("zPos", cz).string("Status", status).int64("LastUpdate", 1234);
  w.begin_list(level_layout ? "Sections" : "sections", 10, sections.size());
  for (const TestSection& s : sections) {
    w.item_compound().byte("Y", static_cast<int8_t>(s.y));
    if (!level_layout) w.begin_compound("block_states");
    w.begin_list(level_layout ? "Palette" : "palette", 10, s.palette.size());
    for (const std::string& e : s.palette) write_palette_entry(w, e);
    std::vector<int64_t> data = s.raw_data;
    if (data.empty() && !s.indices.empty()) {
      const bool spanning = s.force_spanning || (!s.force_padded && data_version < 2529);
      data = pack_indices(s.indices, test_bits(s.palette.size()), spanning);
    }
    if (!data.empty()) w.long_array(level_layout ? "BlockStates" : "data", data);
    if (!level_layout) w.end();  // block_states
    w.end();  // the section
  }
  if (level_layout) w.end();  // Level
  w.end();                    // root
  return w.bytes();
}

inline std::vector<uint8_t> deflate_bytes(const std::vector<uint8_t>& in, bool gzip) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&z, static_cast<uLong>(in.size())) + 32);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

inline void put_le32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

/// lz4-java's LZ4BlockOutputStream: blocks of `block_size` (64..32 MiB, a power of two here), each LZ4 or raw when
/// LZ4 does not shrink it, then the end block.
inline std::vector<uint8_t> lz4_java_stream(const std::vector<uint8_t>& in, int block_size = 1 << 16, bool force_raw = false) {
  int level = 0;
  while ((1 << (10 + level)) < block_size) ++level;
  std::vector<uint8_t> out;
  auto header = [&](int method, uint32_t clen, uint32_t olen, uint32_t check) {
    const char magic[] = "LZ4Block";
    out.insert(out.end(), magic, magic + 8);
    out.push_back(static_cast<uint8_t>(method | level));
    put_le32(out, clen);
    put_le32(out, olen);
    put_le32(out, check);
  };
  for (size_t at = 0; at < in.size(); at += static_cast<size_t>(block_size)) {
    const int n = static_cast<int>(std::min(in.size() - at, static_cast<size_t>(block_size)));
    const uint32_t check = XXH32(in.data() + at, static_cast<size_t>(n), 0x9747b28c) & 0x0FFFFFFF;
    std::vector<char> c(static_cast<size_t>(LZ4_compressBound(n)));
    const int cl = LZ4_compress_default(reinterpret_cast<const char*>(in.data() + at), c.data(), n, static_cast<int>(c.size()));
    if (force_raw || cl <= 0 || cl >= n) {
      header(0x10, static_cast<uint32_t>(n), static_cast<uint32_t>(n), check);
      out.insert(out.end(), in.begin() + static_cast<ptrdiff_t>(at), in.begin() + static_cast<ptrdiff_t>(at) + n);
    } else {
      header(0x20, static_cast<uint32_t>(cl), static_cast<uint32_t>(n), check);
      out.insert(out.end(), c.begin(), c.begin() + cl);
    }
  }
  header(0x10, 0, 0, 0);
  return out;
}

/// The payload of a chunk compressed with Minecraft's type 1..4.
inline std::vector<uint8_t> compress_chunk(const std::vector<uint8_t>& nbt, int type) {
  switch (type) {
    case 1: return deflate_bytes(nbt, true);
    case 2: return deflate_bytes(nbt, false);
    case 4: return lz4_java_stream(nbt);
    default: return nbt;
  }
}

/// One chunk of a hand-built region: its slot, the header byte and the bytes stored after it (or in the .mcc).
struct RegionEntry {
  int index = 0;               // local x + 32 * local z
  uint8_t compression = 2;     // the header byte (+128: external)
  std::vector<uint8_t> payload;
};

/// A region file's bytes: the chunks placed one after another from sector 2, each padded to whole sectors.
inline std::vector<uint8_t> region_bytes(const std::vector<RegionEntry>& chunks) {
  std::vector<uint8_t> out(8192, 0);
  for (const RegionEntry& c : chunks) {
    const bool external = c.compression & 0x80;
    const size_t body = external ? 1 : c.payload.size() + 1;  // length counts the compression byte
    const size_t sector = out.size() / 4096;
    out.push_back(static_cast<uint8_t>(body >> 24));
    out.push_back(static_cast<uint8_t>(body >> 16));
    out.push_back(static_cast<uint8_t>(body >> 8));
    out.push_back(static_cast<uint8_t>(body));
    out.push_back(c.compression);
    if (!external) out.insert(out.end(), c.payload.begin(), c.payload.end());
    out.resize((out.size() + 4095) / 4096 * 4096, 0);
    const size_t count = out.size() / 4096 - sector;
    const uint32_t loc = static_cast<uint32_t>(sector << 8 | count);
    for (int i = 0; i < 4; ++i) out[static_cast<size_t>(c.index) * 4 + static_cast<size_t>(i)] = static_cast<uint8_t>(loc >> (24 - 8 * i));
    const uint32_t stamp = 1700000000u + static_cast<uint32_t>(c.index);
    for (int i = 0; i < 4; ++i) out[4096 + static_cast<size_t>(c.index) * 4 + static_cast<size_t>(i)] = static_cast<uint8_t>(stamp >> (24 - 8 * i));
  }
  return out;
}

inline void write_file(const std::filesystem::path& p, const std::vector<uint8_t>& bytes) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace voxen::testing
