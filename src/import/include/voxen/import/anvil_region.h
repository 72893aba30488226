// Minecraft Java Edition region files (Anvil, `r.X.Z.mca`): where each chunk's bytes are and how they are
// compressed (issue 17). Format (minecraft.wiki "Region file format"; lz4-java's LZ4BlockOutputStream for type 4):
//   bytes 0..4095     1024 location entries, big-endian u32 each: sector offset (high 24 bits, in 4 KiB sectors
//                     from the file's start) and sector count (low 8 bits); 0 = no chunk. Entry i is the chunk at
//                     region-local (i & 31, i >> 5), i.e. chunk (32 X + (i & 31), 32 Z + (i >> 5)).
//   bytes 4096..8191  1024 timestamps, big-endian u32 (seconds since 1970 of the last save), same order.
//   a chunk           at offset * 4096: u32 big-endian length (the bytes that follow, compression byte included),
//                     u8 compression, length - 1 bytes of compressed NBT.
//   compression       1 gzip (RFC 1952), 2 zlib (RFC 1950), 3 none, 4 LZ4 as Minecraft writes it since 1.20.5:
//                     lz4-java's block stream (below), not an LZ4 frame; +128: the payload is the whole of the file
//                     `c.<chunk x>.<chunk z>.mcc` beside the region (chunks over 1 MiB), compressed the same way.
//   lz4-java blocks   "LZ4Block" (8 bytes), token u8 (method 0x10 raw or 0x20 LZ4, in the high nibble; the low
//                     nibble L gives the block size limit 2^(10 + L)), compressed length i32 LE, original length i32
//                     LE, checksum i32 LE (XXH32 of the original bytes with seed 0x9747b28c, low 28 bits), then the
//                     compressed bytes (an LZ4 block); a block with both lengths 0 ends the stream.
// A chunk that cannot be read is skipped with a ChunkProblem naming the region, the chunk and the reason; the others
// still read (issue 17: unknown compression, a missing .mcc, a sector past the file's end, overlapping sectors, a bad
// length, data that does not decompress).
// Threads: a RegionFile is immutable after open(); read_chunk() may be called from any thread (pread).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/core/error.h"

namespace voxen::import {

/// Why a chunk was skipped; the JSON report's `chunks_skipped` keys are reason_key()'s strings.
enum class ChunkSkipReason : uint8_t {
  kUnknownCompression,  // a compression type other than 1..4 (+128)
  kMissingExternal,     // the +128 flag names a c.X.Z.mcc file that does not exist or cannot be read
  kSectorPastEnd,       // the location entry points past the file's end, or into the two header sectors
  kOverlap,             // two chunks' sector ranges overlap (both are skipped: either may hold the other's bytes)
  kBadLength,           // the length field is 0 or runs past the chunk's sectors
  kCorruptData,         // the payload does not decompress (or its LZ4 checksum does not match)
  kTooLarge,            // the decompressed chunk is larger than RegionLimits::max_chunk_bytes
  kBadNbt,              // the NBT does not parse, or lacks what a chunk must hold
  kLegacyFormat,        // written before Minecraft 1.13 (numeric block ids): not importable
  kBadBlockData,        // a section's palette or block-state indices are malformed
  kRegionUnreadable,    // the region file could be read when listed but not when its chunks were (removed meanwhile)
};
/// A short snake_case name for a reason ("unknown_compression", "missing_external", ...).
std::string_view reason_key(ChunkSkipReason reason);

/// One chunk that was skipped: which, and why, in words.
struct ChunkProblem {
  std::string region;  // the region file's name (r.X.Z.mca)
  int32_t chunk_x = 0;  // chunk coordinates (world blocks >> 4)
  int32_t chunk_z = 0;
  ChunkSkipReason reason = ChunkSkipReason::kBadNbt;
  std::string detail;  // e.g. "compression type 9", "sectors 40..41 overlap chunk (3, 0)'s 41..42"
  /// "r.0.0.mca chunk (3, 4): <reason words>: <detail>".
  std::string to_string() const;
};

/// Compression types of the chunk header byte (the +128 external flag removed).
enum class ChunkCompression : uint8_t { kGzip = 1, kZlib = 2, kNone = 3, kLz4 = 4 };

struct RegionLimits {
  size_t max_chunk_bytes = size_t{64} << 20;  // decompressed size past which a chunk is refused (zip bombs)
};

/// Where one chunk lives in its region file.
struct RegionSlot {
  int index = 0;               // 0..1023: local x + 32 * local z
  int32_t chunk_x = 0;         // chunk coordinates
  int32_t chunk_z = 0;
  uint32_t sector_offset = 0;  // in 4 KiB sectors
  uint32_t sector_count = 0;
  uint32_t timestamp = 0;      // seconds since 1970
};

/// A chunk's decompressed NBT bytes, or why it was skipped.
struct ChunkBytes {
  std::vector<uint8_t> nbt;             // empty when skipped
  std::optional<ChunkProblem> problem;  // set when skipped
  uint64_t bytes_read = 0;              // bytes read from disk for it (region sectors and .mcc)
  uint8_t compression = 0;              // the header byte as written (1..4, +128 when external)
};

/// An open region file: its name, region coordinates and the chunks its location table lists.
class RegionFile {
 public:
  /// Opens `path` and reads its 8 KiB header. The region coordinates come from the name r.<x>.<z>.mca (a file named
  /// otherwise is an error, since chunk positions follow from them). Errors: cannot open or read the file, a name
  /// not of that form, a file shorter than its header (an empty file is a region without chunks, as Minecraft makes
  /// them). Slots with a bad location (past the end, into the header, overlapping) are kept, and read_chunk() of one
  /// returns its problem.
  static Result<RegionFile> open(const std::filesystem::path& path, RegionLimits limits = {});
  /// Parses r.<x>.<z>.mca into region coordinates; nullopt for other names, for another spelling of the same numbers
  /// ("r.00.0.mca", "r.-0.0.mca", "r.+1.0.mca": they would alias a region) and for coordinates past +-2^25.
  static std::optional<std::array<int32_t, 2>> parse_name(std::string_view filename);
  /// True for any name r.*.mca (what a region folder's listing reports when parse_name() refuses it).
  static bool looks_like_region_name(std::string_view filename);

  RegionFile(RegionFile&&) noexcept;
  RegionFile& operator=(RegionFile&&) noexcept;
  ~RegionFile();

  const std::filesystem::path& path() const { return m_path; }
  std::string name() const { return m_path.filename().string(); }
  int32_t region_x() const { return m_x; }
  int32_t region_z() const { return m_z; }
  uint64_t file_size() const { return m_size; }
  /// The chunks the location table lists, by index.
  const std::vector<RegionSlot>& slots() const { return m_slots; }

  /// Reads and decompresses one listed chunk (a slot of slots()). Never fails as a whole: a chunk that cannot be
  /// read comes back with its problem set.
  ChunkBytes read_chunk(const RegionSlot& slot) const;

 private:
  RegionFile() = default;
  std::filesystem::path m_path;
  int m_fd = -1;
  uint64_t m_size = 0;
  int32_t m_x = 0;
  int32_t m_z = 0;
  RegionLimits m_limits;
  std::vector<RegionSlot> m_slots;
  std::vector<std::optional<ChunkProblem>> m_slot_problem;  // by position in m_slots: a location-table problem
};

/// Reads a whole regular file of at most `max_bytes` (a .mcc chunk, level.dat), opened without blocking. Errors name the
/// file by its name: missing or unreadable ("c.1.2.mcc: No such file or directory"), not a regular file (a FIFO, a
/// folder), larger than `max_bytes` (then `too_large`, when given, is set).
Result<std::vector<uint8_t>> read_regular_file(const std::filesystem::path& path, uint64_t max_bytes,
                                               bool* too_large = nullptr);

/// Decompresses one chunk payload of the given compression (1..4, without the +128 flag). `limit` bounds the output.
/// Errors name the compression and what failed (zlib's message, the LZ4 block's byte offset, a checksum mismatch);
/// `too_large` (optional) is set when the error is that the output would pass `limit`.
Result<std::vector<uint8_t>> decompress_chunk(ChunkCompression compression, std::span<const uint8_t> payload,
                                              size_t limit, bool* too_large = nullptr);

}  // namespace voxen::import
