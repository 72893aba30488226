// A saved world's metadata file, voxen.toml, and the block-id translation it makes possible.
//
// voxen.toml (TOML; docs/formats/world_store_v1.md):
//   format_version = 1             # byte format of the records in db/; a newer one is refused
//   kind = "generated"             # "generated": db/ holds journals over generation; "imported": whole sections
//   seed = "42"                    # decimal string (TOML integers are signed 64-bit; seeds are unsigned)
//   [generator]                    # generated worlds only
//   name = "default"
//   fingerprint = "9c0e..."        # hash of what the generator makes at two fixed columns, by block name
//   [registry]                     # the world's saved id space: block name -> id used in db/ records
//   air = 0
//   stone = 1
//
// Records store cells in the world's saved id space, not the running registry's: IdRemap translates by name.
// A saved name the registry no longer has becomes the registry's "unknown" block on load (visible, counted and
// reported) while the record keeps the original id, so the cells come back if the block is defined again. The
// table only grows: a block the world has not stored yet gets a new saved id (its registry id when that is free).
// Threads: plain values; IdRemap is immutable after construction except through add(), which the owner serialises.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"

namespace voxen::store {

enum class WorldKind : uint8_t { kGenerated, kImported };

struct WorldMeta {
  uint32_t format_version = 1;
  WorldKind kind = WorldKind::kGenerated;
  uint64_t seed = 0;
  std::string generator;              // "default", "flat"; empty for imported worlds
  std::string generator_fingerprint;  // 16 hex digits, empty until known
  std::map<std::string, uint16_t> registry;  // saved id space: block name -> id
};

/// The saved-id table of a registry as it is now (every defined block, its own id): a new world's table.
std::map<std::string, uint16_t> registry_table(const BlockRegistry& registry);

/// Parses voxen.toml text; errors name the file, the line and the field.
Result<WorldMeta> parse_meta(std::string_view text, const std::string& path);
/// Reads and parses a voxen.toml file.
Result<WorldMeta> read_meta(const std::filesystem::path& file);
/// The TOML text of a WorldMeta (stable order: registry sorted by id).
std::string format_meta(const WorldMeta& meta);
/// Writes voxen.toml atomically: a temporary file in the same folder, fsync, rename over, fsync the folder.
Status write_meta(const std::filesystem::path& file, const WorldMeta& meta);
/// Writes voxen.toml's text as given, the same way (voxen world copy keeps a world's text byte for byte).
Status write_meta_text(const std::filesystem::path& file, std::string_view text);

/// The database's copy of what voxen.toml must say, payload kind 6 (docs/formats/world_store_v1.md, "The metadata
/// copy"): kind, seed, generator name and the saved id table, no fingerprint (a derived check that legitimately
/// changes with the code). RocksDB keeps it under `!voxen-meta`; the session writes it before any record that uses
/// an id it adds, so the records in the database were written with the ids the copy gives.
std::string encode_meta_record(const WorldMeta& meta);
/// Decodes a metadata copy (the payload, all of `in`). Errors name the field and the byte offset: truncated,
/// unknown kind, a name that is not [a-z0-9_]+, an id given twice, 'air' not 0, trailing bytes.
Result<WorldMeta> decode_meta_record(std::string_view in);

/// voxen.toml against the database's copy (compare_meta).
struct MetaComparison {
  /// The metadata to use: kind, seed, generator and every id of the copy (the records were written with them),
  /// plus voxen.toml's entries the copy lacks whose ids are free (a grown table whose copy was not yet written:
  /// no record uses those ids yet); voxen.toml's fingerprint when the generator is the same.
  WorldMeta merged;
  /// One entry per field that differs, naming it and both values, e.g. "block 'glass' is 20 in voxen.toml and 5 in
  /// the database"; empty when voxen.toml agrees with the copy.
  std::vector<std::string> differences;
  /// True when the copy lacks entries of `merged` (rewrite it; not a difference).
  bool copy_outdated = false;
};
/// Compares voxen.toml's metadata (`file`) with the database's copy; the copy wins every difference.
MetaComparison compare_meta(const WorldMeta& file, const WorldMeta& copy);

/// Translation of block ids between a world's saved id space and the running registry, by name.
class IdRemap {
 public:
  /// `saved` is the world's table; `unknown_id` is the registry's id of the "unknown" block (used for saved
  /// names the registry lacks and for saved ids the table does not list).
  IdRemap(const std::map<std::string, uint16_t>& saved, const BlockRegistry& registry, uint16_t unknown_id);

  /// The running registry's cell for a saved cell (state kept); unknown for missing names.
  Cell to_current(Cell saved) const {
    return {saved.id < m_to_current.size() ? m_to_current[saved.id] : m_unknown, saved.state};
  }
  /// True if a saved id has no block in the running registry (it shows as "unknown").
  bool missing(uint16_t saved_id) const { return saved_id >= m_missing.size() || m_missing[saved_id]; }
  /// The saved cell for a running-registry cell; nullopt if that block has no saved id yet (see add()).
  std::optional<Cell> to_saved(Cell current) const {
    if (current.id >= m_to_saved.size() || m_to_saved[current.id] == kNone) return std::nullopt;
    return Cell{m_to_saved[current.id], current.state};
  }
  /// Gives a running-registry block a saved id (its own id if free in the saved space, else one past the
  /// highest) and records it in `table`. Returns the saved id.
  uint16_t add(uint16_t current_id, std::map<std::string, uint16_t>& table);
  /// True when every saved id means the same block as the same registry id (no translation needed).
  bool identity() const { return m_identity; }
  /// Names in the saved table that the registry lacks, sorted.
  const std::vector<std::string>& missing_names() const { return m_missing_names; }
  /// Name of a saved id from the table, or "id N" if the table does not list it.
  std::string saved_name(uint16_t saved_id) const;
  uint16_t unknown_id() const { return m_unknown; }

 private:
  static constexpr uint16_t kNone = 0xFFFF;
  const BlockRegistry* m_registry;
  std::vector<uint16_t> m_to_current;  // by saved id
  std::vector<bool> m_missing;         // by saved id
  std::vector<uint16_t> m_to_saved;    // by registry id
  std::vector<std::string> m_saved_names;  // by saved id
  std::vector<std::string> m_missing_names;
  uint16_t m_unknown;
  bool m_identity = true;
  void recompute_identity();
};

}  // namespace voxen::store
