// Minecraft Java chunks (the NBT inside a region file) to voxen columns, for Anvil import (issue 17).
//
// Layouts read (minecraft.wiki "Chunk format"):
//   1.13 - 1.17   root { DataVersion, Level { xPos, zPos, Status, Sections [ { Y (byte), Palette [ { Name,
//                 Properties { k: "v" } } ], BlockStates (long[]) } ] } }
//   1.18 and on   root { DataVersion, xPos, zPos, Status, sections [ { Y, block_states { palette [...],
//                 data (long[]) } , biomes {...} } ] } (no Level; section Y from -4 in the overworld)
// Block-state indices: 4096 per section, index = y * 256 + z * 16 + x (voxen's section order), each
// bits = max(4, ceil(log2(palette size))) wide, packed from each long's low bit up. Before DataVersion 2529 (1.16's
// 20w17a) an index may span two longs (length 64 * bits); from it on, each long holds floor(64 / bits) indices and
// the rest of its bits are padding (length ceil(4096 / floor(64 / bits))). When the array's length fits only the other
// packing (a world upgraded oddly), that packing is used. A palette of one entry may come without data (1.18+): the
// whole section is that state. A section without block data (light only, or empty) is air.
// DataVersion below 1451 (before 1.13's block states: numeric ids) is refused (ChunkSkipReason::kLegacyFormat).
// Status: chunks whose status is full ("full", "minecraft:full"; 1.13's last statuses "fullchunk", "postprocessed")
// are imported; proto-chunks (any other status) are counted by status and left out.
// Threads: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/import/anvil_region.h"
#include "voxen/import/minecraft_blocks.h"
#include "voxen/import/nbt.h"
#include "voxen/world/column.h"

namespace voxen::import {

/// DataVersion of the first 1.13 snapshot with block states (17w47a); older chunks use numeric ids.
inline constexpr int64_t kFirstFlattenedDataVersion = 1451;
/// What every refusal of a pre-1.13 world or chunk tells the user to do.
inline constexpr std::string_view kLegacyAdvice = "open and save the world in Minecraft 1.13 or newer to convert it";
/// DataVersion from which block-state indices no longer span two longs (20w17a, a 1.16 snapshot).
inline constexpr int64_t kFirstPaddedDataVersion = 2529;
/// A palette entry's name and properties together longer than this are refused (bad_block_data): real ones are a few
/// dozen bytes, and every distinct state is kept for the report.
inline constexpr size_t kMaxStateBytes = 1024;

/// One section of a chunk as stored: its section Y (blocks 16 Y .. 16 Y + 15) and palette, and 4096 palette
/// indices in voxen's section order (empty when the palette has one entry).
struct AnvilSection {
  int32_t y = 0;
  std::vector<MinecraftBlockState> palette;
  std::vector<uint16_t> indices;
};

/// A decoded chunk.
struct AnvilChunk {
  int64_t data_version = 0;
  bool has_position = false;  // xPos and zPos were present
  int32_t x = 0;              // chunk coordinates as the NBT gives them
  int32_t z = 0;
  std::string status;         // as written ("full", "minecraft:full", "postprocessed", "carvers", ...); "" if absent
  bool full = false;          // a finished chunk (see above): imported
  std::vector<AnvilSection> sections;  // only those with block data
};

/// Decodes a chunk's NBT root. On failure `why` (when given) says which ChunkSkipReason applies (kLegacyFormat,
/// kBadBlockData, or kBadNbt for a missing or mistyped field) and the Error names the field or section.
Result<AnvilChunk> decode_chunk(const NbtTag& root, ChunkSkipReason* why = nullptr);

/// What converting one chunk found.
struct ChunkConversion {
  uint64_t blocks = 0;       // non-air voxen cells written
  uint64_t clipped = 0;      // non-air Minecraft blocks whose y (after the offset) lies outside voxen's -128..255
  std::map<std::string, uint64_t> unmapped;  // Minecraft names that fell back -> blocks
  std::vector<std::array<uint64_t, 2>> states;  // every distinct block state in the chunk's palettes: XXH3-128 of key()
};

/// Caches a block map's answers by canonical state (palettes repeat across sections and chunks). One per thread.
class BlockStateCache {
 public:
  static constexpr size_t kMaxEntries = 65536;  // then the cache starts over (bounded memory for any input)
  explicit BlockStateCache(const MinecraftBlockMap& map) : m_map(&map) {}
  /// The mapping of `s`, whose key() is `key` (Minecraft's air names map to air).
  MinecraftBlockMap::Mapping map(const MinecraftBlockState& s, const std::string& key);

 private:
  const MinecraftBlockMap* m_map;
  std::unordered_map<std::string, MinecraftBlockMap::Mapping> m_cache;
};

/// Writes a full chunk's blocks into `column` (air where the chunk has none): Minecraft y + y_offset = voxen world y.
/// Air, cave_air and void_air (whatever the map makes of them) count as air.
ChunkConversion convert_chunk(const AnvilChunk& chunk, BlockStateCache& cache, int64_t y_offset, Column& column);

}  // namespace voxen::import
