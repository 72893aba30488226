// libFuzzer target for Anvil import (build with -DVOXEN_FUZZ=ON and clang; see docs/FUZZING.md). The first byte picks
// the mode:
//   < 0x80  a chunk: compression (byte & 3) + 1 (gzip, zlib, none, lz4-java) over the rest, then read_nbt, decode_chunk
//           and convert_chunk into a Column (y offset from bits 2..6 of the byte: -64..60 in steps of 4);
//   >= 0x80 a region file: the rest is written to a tmpfs file r.0.0.mca and the whole import_anvil runs on it.
// Every input must import or give Errors and ChunkProblems with a message (a chunk problem names its region): never a
// crash, a sanitizer report, or cells outside what the chunk's palettes map to.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

#include "voxen/import/anvil_chunk.h"
#include "voxen/import/anvil_import.h"

namespace {

using namespace voxen;

const BlockRegistry& registry() {
  static const BlockRegistry r = *BlockRegistry::load_default();
  return r;
}
const import::MinecraftBlockMap& block_map() {
  static const import::MinecraftBlockMap m = *import::MinecraftBlockMap::load_default(registry());
  return m;
}

void chunk_mode(uint8_t mode, std::span<const uint8_t> rest) {
  const auto type = static_cast<import::ChunkCompression>((mode & 3) + 1);
  auto nbt = import::decompress_chunk(type, rest, size_t{1} << 22);
  if (!nbt) {
    VOXEN_ASSERT(!nbt.error().message.empty());
    return;
  }
  auto root = import::read_nbt(*nbt, "fuzz chunk");
  if (!root) return;
  import::ChunkSkipReason why = import::ChunkSkipReason::kBadNbt;
  auto chunk = import::decode_chunk(root->tag, &why);
  if (!chunk) {
    VOXEN_ASSERT(!chunk.error().message.empty());
    return;
  }
  for (const auto& s : chunk->sections) {
    VOXEN_ASSERT(!s.palette.empty());
    VOXEN_ASSERT(s.indices.empty() || s.indices.size() == 4096);
    for (uint16_t i : s.indices) VOXEN_ASSERT(i < s.palette.size());
  }
  if (!chunk->full) return;
  import::BlockStateCache cache(block_map());
  Column col(ColumnPos{0, 0});
  const int64_t offset = (static_cast<int64_t>((mode >> 2) & 31) - 16) * 4;
  const auto conv = import::convert_chunk(*chunk, cache, offset, col);
  uint64_t non_air = 0;
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    uint32_t buf[kSectionVolume];
    col.section(s).unpack(buf);
    for (uint32_t v : buf) non_air += v != 0;
  }
  VOXEN_ASSERT(non_air == conv.blocks);
}

void region_mode(std::span<const uint8_t> rest) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::path("/dev/shm").is_absolute() && std::filesystem::exists("/dev/shm")
                 ? std::filesystem::path("/dev/shm")
                 : std::filesystem::temp_directory_path();
    d /= "voxen_anvil_fuzz_" + std::to_string(::getpid());
    std::filesystem::create_directories(d);
    return d;
  }();
  const auto file = dir / "r.0.0.mca";
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(rest.data()), static_cast<std::streamsize>(rest.size()));
  import::AnvilImportOptions o;
  o.threads = 1;
  o.limits.max_chunk_bytes = size_t{1} << 22;
  uint64_t seen = 0;
  auto r = import::import_anvil(file, block_map(), o, [&seen](std::span<const Column* const> cols) -> Status {
    seen += cols.size();
    return Ok{};
  });
  if (!r) {
    VOXEN_ASSERT(!r.error().message.empty());
    return;
  }
  VOXEN_ASSERT(seen == r->chunks_imported);
  uint64_t skipped = 0;
  for (const auto& [k, n] : r->chunks_skipped)
    if (k != import::reason_key(import::ChunkSkipReason::kRegionUnreadable)) skipped += n;
  VOXEN_ASSERT(skipped == r->problems.size() + r->problems_not_listed);
  for (const auto& p : r->problems) VOXEN_ASSERT(p.region == "r.0.0.mca" && !p.to_string().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::span<const uint8_t> rest(data + 1, size - 1);
  if (data[0] < 0x80) chunk_mode(data[0], rest);
  else region_mode(rest);
  return 0;
}
