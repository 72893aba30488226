#include "voxen/import/anvil_chunk.h"

#include <algorithm>
#include <array>
#include <bit>

#include <xxhash.h>

#include "voxen/core/coords.h"

namespace voxen::import {
namespace {

bool is_air_name(std::string_view n) {
  return n == "minecraft:air" || n == "minecraft:cave_air" || n == "minecraft:void_air" || n == "air" ||
         n == "cave_air" || n == "void_air";
}

bool full_status(std::string_view s) {
  if (s.substr(0, 10) == "minecraft:") s.remove_prefix(10);
  return s == "full" || s == "fullchunk" || s == "postprocessed";
}

// The bits per index for a palette of n entries (n >= 2): max(4, ceil(log2(n))).
int index_bits(size_t n) { return std::max(4, static_cast<int>(std::bit_width(n - 1))); }

size_t spanning_length(int bits) { return static_cast<size_t>(4096 * bits + 63) / 64; }
size_t padded_length(int bits) {
  const int per = 64 / bits;
  return static_cast<size_t>((4096 + per - 1) / per);
}

// A section replaces an earlier one of the same Y (as Minecraft reads them: by Y into an array).
void add_section(AnvilChunk& c, AnvilSection s) {
  for (AnvilSection& old : c.sections)
    if (old.y == s.y) {
      old = std::move(s);
      return;
    }
  c.sections.push_back(std::move(s));
}

Error fail(ChunkSkipReason* why, ChunkSkipReason reason, std::string message) {
  if (why) *why = reason;
  return Error{std::move(message)};
}

}  // namespace

Result<AnvilChunk> decode_chunk(const NbtTag& root, ChunkSkipReason* why) {
  if (!root.compound()) return fail(why, ChunkSkipReason::kBadNbt, "the root tag is not a compound");
  AnvilChunk c;
  const NbtTag* level = root.get("Level", NbtType::kCompound);
  const NbtTag* dv = root.get("DataVersion", NbtType::kInt);
  if (!dv && root.compound()->find("DataVersion"))
    return fail(why, ChunkSkipReason::kBadNbt,
                "DataVersion is a " + std::string(nbt_type_name(root.compound()->find("DataVersion")->type)) + ", not a TAG_Int");
  if (!dv) {
    return fail(why, level ? ChunkSkipReason::kLegacyFormat : ChunkSkipReason::kBadNbt,
                level ? "no DataVersion: written before Minecraft 1.9 (numeric block ids); " + std::string(kLegacyAdvice)
                      : std::string("no DataVersion and no Level: not a chunk"));
  }
  c.data_version = *dv->integer();
  if (c.data_version < kFirstFlattenedDataVersion)
    return fail(why, ChunkSkipReason::kLegacyFormat,
                "DataVersion " + std::to_string(c.data_version) +
                    " is older than Minecraft 1.13 (DataVersion 1451), whose chunks hold numeric block ids; " +
                    std::string(kLegacyAdvice));
  const NbtTag& body = level ? *level : root;  // 1.18+: the chunk's fields sit at the root
  const NbtTag* xp = body.get("xPos", NbtType::kInt);
  const NbtTag* zp = body.get("zPos", NbtType::kInt);
  if (xp && zp) {
    c.has_position = true;
    c.x = static_cast<int32_t>(*xp->integer());
    c.z = static_cast<int32_t>(*zp->integer());
  }
  if (const NbtTag* st = body.get("Status", NbtType::kString)) c.status = *st->string();
  c.full = full_status(c.status);
  if (!c.full) return c;  // a proto-chunk: counted by status, its sections not needed

  const char* sections_name = level ? "Sections" : "sections";
  const NbtTag* sections = body.get(sections_name, NbtType::kList);
  if (!sections) {
    if (body.get(sections_name, NbtType::kEnd) || body.compound()->find(sections_name))
      return fail(why, ChunkSkipReason::kBadNbt, std::string(sections_name) + " is not a list");
    return c;  // no sections at all: an empty chunk
  }
  const NbtList& list = *sections->list();
  if (list.element != NbtType::kCompound && !list.items.empty())
    return fail(why, ChunkSkipReason::kBadNbt, std::string(sections_name) + " is a list of " +
                                                   std::string(nbt_type_name(list.element)) + ", not of compounds");
  for (size_t si = 0; si < list.items.size(); ++si) {
    const NbtTag& sec = list.items[si];
    const std::string where = std::string(sections_name) + "[" + std::to_string(si) + "]";
    const NbtTag* y = sec.get("Y", NbtType::kByte);
    if (!y) y = sec.get("Y", NbtType::kShort);  // some tools write a wider integer
    if (!y) y = sec.get("Y", NbtType::kInt);
    if (!y && sec.compound() && sec.compound()->find("Y"))
      return fail(why, ChunkSkipReason::kBadNbt,
                  where + " Y is a " + std::string(nbt_type_name(sec.compound()->find("Y")->type)) + ", not an integer");
    if (!y) return fail(why, ChunkSkipReason::kBadNbt, where + " has no Y");
    if (*y->integer() < -2048 || *y->integer() > 2047)
      return fail(why, ChunkSkipReason::kBadBlockData, where + " Y " + std::to_string(*y->integer()) + " is out of range");
    const NbtTag* palette = nullptr;
    const NbtTag* data = nullptr;
    if (level) {
      palette = sec.get("Palette", NbtType::kList);
      data = sec.get("BlockStates", NbtType::kLongArray);
    } else if (const NbtTag* bs = sec.get("block_states", NbtType::kCompound)) {
      palette = bs->get("palette", NbtType::kList);
      data = bs->get("data", NbtType::kLongArray);
    }
    if (!palette || palette->list()->items.empty()) {
      if (data && !data->longs()->empty())
        return fail(why, ChunkSkipReason::kBadBlockData, where + " has block-state data but no palette");
      continue;  // light only, or an empty section
    }
    AnvilSection out;
    out.y = static_cast<int32_t>(*y->integer());
    const NbtList& pal = *palette->list();
    if (pal.element != NbtType::kCompound)
      return fail(why, ChunkSkipReason::kBadNbt, where + " palette is not a list of compounds");
    if (pal.items.size() > 4096)
      return fail(why, ChunkSkipReason::kBadBlockData, where + " palette has " + std::to_string(pal.items.size()) +
                                                           " entries (at most 4096)");
    out.palette.reserve(pal.items.size());
    for (size_t pi = 0; pi < pal.items.size(); ++pi) {
      const NbtTag* name = pal.items[pi].get("Name", NbtType::kString);
      if (!name) return fail(why, ChunkSkipReason::kBadNbt, where + " palette[" + std::to_string(pi) + "] has no Name");
      MinecraftBlockState s;
      s.name = *name->string();
      size_t bytes = s.name.size();
      if (const NbtTag* props = pal.items[pi].get("Properties", NbtType::kCompound)) {
        const NbtCompound& pc = *props->compound();
        for (size_t k = 0; k < pc.names.size(); ++k)
          if (const std::string* v = pc.tags[k].string()) {
            s.properties.emplace_back(pc.names[k], *v);
            bytes += pc.names[k].size() + v->size();
          }
      }
      // Real block states are a few dozen bytes; a longer one is hostile (each distinct one is kept for the report).
      if (bytes > kMaxStateBytes)
        return fail(why, ChunkSkipReason::kBadBlockData, where + " palette[" + std::to_string(pi) + "] is " +
                                                             std::to_string(bytes) + " bytes of name and properties (at most " +
                                                             std::to_string(kMaxStateBytes) + ")");
      out.palette.push_back(std::move(s));
    }
    const std::vector<int64_t>* longs = data ? data->longs() : nullptr;
    if (!longs || longs->empty()) {
      if (out.palette.size() != 1)
        return fail(why, ChunkSkipReason::kBadBlockData, where + " has a palette of " +
                                                             std::to_string(out.palette.size()) + " entries but no data");
      add_section(c, std::move(out));
      continue;
    }
    const int bits = index_bits(std::max<size_t>(out.palette.size(), 2));
    bool spanning = c.data_version < kFirstPaddedDataVersion;
    const size_t want = spanning ? spanning_length(bits) : padded_length(bits);
    const size_t other = spanning ? padded_length(bits) : spanning_length(bits);
    if (longs->size() != want) {
      if (longs->size() != other)
        return fail(why, ChunkSkipReason::kBadBlockData,
                    where + " (Y " + std::to_string(out.y) + ") has " + std::to_string(longs->size()) +
                        " longs of block-state data; a palette of " + std::to_string(out.palette.size()) + " at " +
                        std::to_string(bits) + " bits needs " + std::to_string(want));
      spanning = !spanning;
    }
    out.indices.resize(4096);
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    const uint64_t* w = reinterpret_cast<const uint64_t*>(longs->data());
    if (spanning) {
      for (int i = 0; i < 4096; ++i) {
        const uint64_t bit = static_cast<uint64_t>(i) * static_cast<uint64_t>(bits);
        const size_t k = bit >> 6;
        const unsigned s = static_cast<unsigned>(bit & 63);
        uint64_t v = w[k] >> s;
        if (s + static_cast<unsigned>(bits) > 64) v |= w[k + 1] << (64 - s);
        out.indices[static_cast<size_t>(i)] = static_cast<uint16_t>(v & mask);
      }
    } else {
      const int per = 64 / bits;
      int i = 0;
      for (size_t k = 0; k < longs->size() && i < 4096; ++k) {
        uint64_t v = w[k];
        for (int j = 0; j < per && i < 4096; ++j, ++i, v >>= bits) out.indices[static_cast<size_t>(i)] = static_cast<uint16_t>(v & mask);
      }
    }
    // One pass for the largest index; the cell is looked for only when one is past the palette.
    const uint16_t top = *std::max_element(out.indices.begin(), out.indices.end());
    for (int i = 0; top >= out.palette.size() && i < 4096; ++i) {
      if (out.indices[static_cast<size_t>(i)] >= out.palette.size())
        return fail(why, ChunkSkipReason::kBadBlockData,
                    where + " (Y " + std::to_string(out.y) + ") cell " + std::to_string(i) + " has palette index " +
                        std::to_string(out.indices[static_cast<size_t>(i)]) + " of a palette of " +
                        std::to_string(out.palette.size()));
    }
    add_section(c, std::move(out));
  }
  return c;
}

MinecraftBlockMap::Mapping BlockStateCache::map(const MinecraftBlockState& s, const std::string& key) {
  auto it = m_cache.find(key);
  if (it != m_cache.end()) return it->second;
  const auto m = is_air_name(s.name) ? MinecraftBlockMap::Mapping{kAir, false} : m_map->map(s);
  if (m_cache.size() >= kMaxEntries) m_cache.clear();  // a cache: bounded whatever the input's variety
  m_cache.emplace(key, m);
  return m;
}

ChunkConversion convert_chunk(const AnvilChunk& chunk, BlockStateCache& cache, int64_t y_offset, Column& column) {
  ChunkConversion out;
  uint32_t touched = 0;  // voxen sections written cell by cell (set() may leave entries it overwrote): compacted
  std::vector<uint32_t> cells;   // per Minecraft palette entry: the voxen cell (packed)
  std::vector<uint8_t> air;      // per entry: a Minecraft air block
  std::vector<uint64_t> counts;  // per entry: cells using it
  std::vector<uint16_t> slot;    // per entry: its index in the section's voxen palette
  std::vector<uint32_t> palette;
  std::array<uint16_t, kSectionVolume> idx{};
  const bool aligned = y_offset % kSectionSize == 0;
  for (const AnvilSection& sec : chunk.sections) {
    const size_t n = sec.palette.size();
    cells.assign(n, 0);
    air.assign(n, 0);
    counts.assign(n, 0);
    if (sec.indices.empty()) {
      counts[0] = kSectionVolume;
    } else {
      for (uint16_t ix : sec.indices) ++counts[ix];
    }
    for (size_t i = 0; i < n; ++i) {
      const MinecraftBlockState& s = sec.palette[i];
      const std::string key = s.key();
      air[i] = is_air_name(s.name);
      const auto m = cache.map(s, key);
      cells[i] = m.cell.packed();
      if (counts[i] && m.fallback && !air[i]) out.unmapped[s.name] += counts[i];
      const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
      out.states.push_back({h.high64, h.low64});
    }
    const int64_t base = int64_t{sec.y} * kSectionSize + y_offset;  // voxen world y of the section's bottom layer
    if (aligned && base >= kMinY && base + kSectionSize - 1 <= kMaxY) {
      Section& dst = column.section(section_of_y(base));
      for (size_t i = 0; i < n; ++i)
        if (cells[i] != 0) out.blocks += counts[i];
      if (sec.indices.empty()) {
        dst.fill(Cell::from_packed(cells[0]));
        continue;
      }
      // The section's voxen palette: the used entries' cells, each once (two Minecraft states may map to one cell), in
      // order of first appearance, which is the store's record order (so its encoder writes the indices as they are).
      palette.clear();
      constexpr uint16_t kUnset = 0xFFFF;
      slot.assign(n, kUnset);
      for (int i = 0; i < kSectionVolume; ++i) {
        const uint16_t p = sec.indices[static_cast<size_t>(i)];
        if (slot[p] == kUnset) {
          size_t k = 0;
          while (k < palette.size() && palette[k] != cells[p]) ++k;
          if (k == palette.size()) palette.push_back(cells[p]);
          slot[p] = static_cast<uint16_t>(k);
        }
        idx[static_cast<size_t>(i)] = slot[p];
      }
      if (palette.size() == 1) {
        dst.fill(Cell::from_packed(palette[0]));
        continue;
      }
      dst.assign(palette, idx.data());
      continue;
    }
    if (base + kSectionSize - 1 < kMinY || base > kMaxY) {  // wholly outside voxen's range
      for (size_t i = 0; i < n; ++i)
        if (!air[i]) out.clipped += counts[i];
      continue;
    }
    // An offset that is not a multiple of 16: cell by cell, into the two voxen sections the section straddles.
    for (int64_t y : {base, base + kSectionSize - 1})
      if (y_in_range(y)) touched |= 1u << section_of_y(y);
    for (int i = 0; i < kSectionVolume; ++i) {
      const size_t p = sec.indices.empty() ? 0 : sec.indices[static_cast<size_t>(i)];
      const int64_t wy = base + (i >> 8);
      if (!y_in_range(wy)) {
        if (!air[p]) ++out.clipped;
        continue;
      }
      column.set(i & 15, wy, (i >> 4) & 15, Cell::from_packed(cells[p]));
      if (cells[p] != 0) ++out.blocks;
    }
  }
  std::sort(out.states.begin(), out.states.end());
  out.states.erase(std::unique(out.states.begin(), out.states.end()), out.states.end());
  for (int k = 0; k < kSectionsPerColumn; ++k)
    if (touched >> k & 1) column.section(k).compact();
  return out;
}

}  // namespace voxen::import
