// The byte codecs of the world store, format version 1 (docs/formats/world_store_v1.md has every byte layout).
//
// Three payloads, each a plain byte string before compression:
//   - a section journal: the cells of one section that differ from generation (VoxelBlox's rule), as a
//     local palette plus either a sparse list (index deltas) or a 4096-bit presence mask, whichever is smaller;
//   - a whole section (imported worlds, and the in-memory ColumnStore): a local palette and bit-packed indices
//     (Voxy's SaveLoadSystem idea: a local value table with narrow indices);
//   - a light section (ColumnStore only; light is never written to disk, it is recomputed).
// A stored value wraps one payload in an envelope: an 8-byte header (magic, format version, payload kind,
// flags, uncompressed length) and a zstd frame carrying its own content checksum.
//
// Space: section-local cell index (y << 8) | (z << 4) | x, 0..4095. Cells are (block id, block state) in whatever
// id space the caller uses (the store writes the world's saved id space, see world_meta.h).
// Errors: decoders never trust their input; a malformed payload gives an Error whose message names the field and
// the byte offset. Threads: every function is pure and may run on any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/world/cell.h"
#include "voxen/world/section.h"

namespace voxen::store {

/// The byte format version this build writes and the newest it reads.
inline constexpr uint8_t kFormatVersion = 1;

/// What an envelope carries (byte 2 of the header).
enum class PayloadKind : uint8_t {
  kJournal = 1,       // a section journal (encode_journal)
  kSection = 2,       // a whole section (encode_section)
  kLight = 3,         // a light section (encode_light)
  kColumnCells = 4,   // 24 whole sections back to back (ColumnStore)
  kColumnLight = 5,   // 24 light sections back to back (ColumnStore)
  kMeta = 6,          // the database's copy of the world's metadata (world_meta.h, encode_meta_record)
  kLodNode = 7,       // a far view node's quads (stream/lod_record.h)
  kSimState = 8,      // the simulation's pending updates (Simulator::save_state's bytes)
  kEditLog = 9,       // a page of a multiplayer server's edit log (net/edit_log.h)
  kCreatures = 10,    // the game's creatures (play::Creatures::save_state's bytes)
};

/// One journal entry: a section-local cell index (0..4095) and the cell stored there.
struct JournalCell {
  uint16_t index = 0;
  Cell cell;
  friend bool operator==(const JournalCell&, const JournalCell&) = default;
};

/// Appends the journal payload of `cells` (sorted by strictly increasing index, at most 4096) to `out`.
/// Chooses the sparse list or the presence mask, whichever is smaller.
void encode_journal(std::span<const JournalCell> cells, std::string& out);
/// Decodes a journal payload (all of `in`); entries come back sorted by index.
Result<std::vector<JournalCell>> decode_journal(std::string_view in);

/// Appends the payload of a whole section (palette + bit-packed indices; a uniform section is 5 bytes).
void encode_section(const Section& section, std::string& out);
/// Decodes one section payload starting at in[pos]; advances pos past it.
Result<Section> decode_section(std::string_view in, size_t& pos);

/// Appends the payload of a light section (palette of 16-bit values + bit-packed indices).
void encode_light(const LightSection& light, std::string& out);
/// Decodes one light payload starting at in[pos]; advances pos past it.
Result<LightSection> decode_light(std::string_view in, size_t& pos);

/// Compression settings for seal(): zstd level (1 = fastest) and whether the frame carries its checksum.
struct SealOptions {
  int level = 3;
  bool checksum = true;
};

/// Wraps a payload in the envelope (header + zstd frame) and returns the stored value.
std::string seal(PayloadKind kind, std::string_view payload, const SealOptions& options = {});
/// Checks the header (magic, version, kind) and decompresses; the payload must have exactly the length the
/// header gives. Errors name what is wrong: "not a voxen value", "format version 9 is newer than this build
/// reads (1)", "payload kind 4, expected 1", "bad zstd frame: ...", "length ...".
Result<std::string> unseal(std::string_view value, PayloadKind expected);

/// The largest payload unseal() accepts (a guard against decompression bombs); seal() callers keep below it.
inline constexpr size_t kMaxPayloadSize = size_t{4} << 20;

/// Size of the envelope header in bytes.
inline constexpr size_t kEnvelopeHeaderSize = 8;

}  // namespace voxen::store
