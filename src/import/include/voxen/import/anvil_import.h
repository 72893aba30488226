// Anvil import: a Minecraft Java world (level.dat + region/) or one region file into voxen columns (issue 17).
//
// Data flow: list the region files (r.X.Z.mca) and read their 8 KiB headers (the chunk count for progress), then
// workers take one row of 32 chunk slots at a time: read and decompress each chunk (anvil_region.h), parse its NBT
// (nbt.h), decode the sections (anvil_chunk.h), map the block states (minecraft_blocks.h) into a Column, and hand the
// row's columns to the sink (the caller's: voxen import-anvil stores them in an imported world). A worker holds one
// row at a time, so memory is bounded by the threads' working sets and the sink's queue, not by the world's size.
// Chunk coordinates are the region slot's (32 X + i % 32, 32 Z + i / 32); a chunk whose xPos/zPos say otherwise is
// imported at its slot and counted as relocated (what Minecraft does when it loads such a chunk). A Minecraft chunk
// is a voxen column: 16 x 16 blocks, ColumnPos = chunk coordinates.
// Threads: import_anvil() runs `threads` workers (std::thread) and calls the sink and progress from them, one call
// at a time per worker (the sink must be thread-safe); the report is merged at the end (deterministic: counts, sets).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/import/anvil_region.h"
#include "voxen/import/minecraft_blocks.h"
#include "voxen/world/column.h"

namespace voxen::import {

struct AnvilImportOptions {
  int64_t y_offset = 0;                               // voxen y = Minecraft y + y_offset
  std::optional<std::array<int32_t, 2>> region;       // only the region file r.X.Z.mca
  int threads = 1;                                     // workers, >= 1
  RegionLimits limits;
  /// Called after each row of chunks with (chunks done, chunks listed); from worker threads, serialised.
  std::function<void(uint64_t, uint64_t)> progress;
};

/// Tags one chunk's NBT may hold (NbtLimits::max_tags): real chunks hold tens of thousands; a 64 MiB chunk of empty
/// compounds would otherwise build a 4 GiB tree.
inline constexpr size_t kMaxChunkTags = size_t{1} << 21;
/// Distinct unmapped names kept in a report; the blocks of further names are counted under kOtherNames.
inline constexpr size_t kMaxUnmappedNames = 4096;
inline constexpr std::string_view kOtherNames = "(other names)";
/// Skipped chunks listed with their messages per worker; further ones are counted (chunks_skipped) but not listed.
inline constexpr size_t kMaxProblems = 10000;

/// One region file to import and its chunks per row of 32 slots (from its header).
struct AnvilRegionEntry {
  std::filesystem::path path;
  int32_t x = 0;
  int32_t z = 0;
  uint64_t chunks = 0;
  std::array<uint16_t, 32> row_chunks{};
};

/// What the source says of itself, found before anything is imported (a plan's and a report's first fields).
struct AnvilSourceInfo {
  std::string source_kind;          // "world" (a folder with level.dat), "folder" (region files without one) or "region"
  std::string level_name;           // level.dat's Data.LevelName, when read
  std::string version_name;         // level.dat's Data.Version.Name, when read
  int64_t level_data_version = -1;  // level.dat's Data.DataVersion, -1 when absent
  std::string level_dat_error;      // level.dat present but unreadable (reported; the import goes on without it)
  std::optional<std::array<int64_t, 2>> level_spawn;  // level.dat's Data.SpawnX, SpawnZ (world blocks), when read
  std::vector<std::string> region_errors;  // region files left out, each with its reason
  uint64_t chunks = 0;                     // chunks the readable regions' location tables list
};

/// What plan_anvil_import found before anything is imported: the regions and their headers, level.dat's fields.
struct AnvilImportPlan : AnvilSourceInfo {
  std::filesystem::path source;
  std::vector<AnvilRegionEntry> regions;  // readable regions, sorted by (x, z)
  uint64_t header_bytes = 0;
};

/// What an import did (the source's own fields first). Chunks are those the regions' location tables list.
struct AnvilImportReport : AnvilSourceInfo {
  uint64_t regions = 0;             // region files read
  uint64_t chunks_imported = 0;
  std::map<std::string, uint64_t> chunks_skipped;  // reason_key -> chunks
  std::map<std::string, uint64_t> statuses;        // proto-chunks (not imported), by status as written
  uint64_t relocated = 0;        // imported at their slot though xPos/zPos named another place
  uint64_t blocks = 0;           // non-air cells written
  uint64_t distinct_states = 0;  // distinct Minecraft block states (name + properties) in imported chunks
  std::map<std::string, uint64_t> unmapped;  // Minecraft names that fell back -> blocks
  uint64_t clipped_blocks = 0;   // non-air blocks outside voxen's y range after the offset
  std::map<int64_t, uint64_t> data_versions;  // DataVersion -> chunks, of every chunk whose NBT was read
  uint64_t bytes_read = 0;       // bytes read from region and .mcc files (headers included)
  double seconds = 0;
  std::vector<ChunkProblem> problems;  // skipped chunks (up to kMaxProblems a worker), sorted by region then chunk
  uint64_t problems_not_listed = 0;    // skipped chunks past that, counted in chunks_skipped only
  std::optional<std::array<int32_t, 4>> chunk_bounds;  // imported chunks' min x, min z, max x, max z (chunk coords)
};

/// Receives finished columns (one call per row of up to 32); an error stops the import with that error.
using ColumnSink = std::function<Status(std::span<const Column* const> columns)>;

/// Finds what to import from `source`: a world folder (its region/ folder; level.dat read when present), a folder of
/// region files, or one .mca file; reads the regions' headers. Nothing is imported, so a caller can refuse before it
/// writes anything. Errors: source missing, unreadable or not of those kinds; no region file (or not the region
/// asked for); level.dat older than 1.13 (DataVersion below 1451). A level.dat that cannot be read and region files
/// that cannot be opened are reported in the plan, not errors.
Result<AnvilImportPlan> plan_anvil_import(const std::filesystem::path& source, const AnvilImportOptions& options);
/// Imports a plan's regions into the sink. Errors: every chunk refused as pre-1.13 (the message names the
/// DataVersion); the sink's error. Chunk-level problems are reported, not errors.
Result<AnvilImportReport> run_anvil_import(const AnvilImportPlan& plan, const MinecraftBlockMap& map,
                                           const AnvilImportOptions& options, const ColumnSink& sink);
/// plan_anvil_import, then run_anvil_import.
Result<AnvilImportReport> import_anvil(const std::filesystem::path& source, const MinecraftBlockMap& map,
                                       const AnvilImportOptions& options, const ColumnSink& sink);

/// A Minecraft release name for a DataVersion the shared worlds and common releases use ("1.12.2" for 1343), or ""
/// when not in the table.
std::string minecraft_version_name(int64_t data_version);

}  // namespace voxen::import
