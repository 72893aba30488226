// WorldStore: the key-value layer under a saved world (after Luanti's database/ interface, with godot_voxel's
// batch API): records are found by (kind, column, section), read a column at a time in batches, and written in
// atomic batches. "Not found" is a normal outcome (the column is generated and no one edited it).
//
// Two implementations share one contract (tests/store/world_store_contract_test.cpp runs the same typed tests on
// both): RocksWorldStore (rocks_store.h), the on-disk default, and MemoryWorldStore below (tests, tools, and
// worlds that are never saved).
//
// Keys (docs/formats/world_store_v1.md): 18 bytes,
//   byte 0      record kind: 'j' journal of a generated world, 's' whole section of an imported world, 'l' a far
//               view node (stream/lod_record.h: the section byte holds its level), 'p' the simulation's pending
//               updates (one per world, at column (0, 0) section 0: sim/simulator.h Simulator::save_state), 'e' a
//               page of a multiplayer server's edit log (net/edit_log.h: column x holds the page's first server
//               sequence number, z and section 0)
//   bytes 1-8   column x as uint64 big-endian with the sign bit flipped (x ^ 2^63), so byte order = numeric order
//   bytes 9-16  column z, same encoding
//   byte 17     section index 0..23 (bottom to top)
// so all records of one column are adjacent (a 17-byte prefix) and columns sort by (x, z).
//
// Threads: every method of both implementations may be called from any thread (the write-behind queue writes
// from its own thread while the main thread loads).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"

namespace voxen::store {

/// What a record holds; the value is the key's first byte.
enum class RecordKind : uint8_t {
  kJournal = 'j', kSection = 's', kLod = 'l', kSimulation = 'p', kEditLog = 'e',
  kCreatures = 'c',  // the game's creatures (play/creatures.h save_state's bytes), one record at section (0, 0, 0)
};

/// Where a record belongs: its kind, column and section index (SectionPos::y is the section index 0..23).
struct RecordKey {
  RecordKind kind = RecordKind::kJournal;
  SectionPos pos;
  friend bool operator==(const RecordKey&, const RecordKey&) = default;
};

inline constexpr size_t kKeySize = 18;
inline constexpr size_t kColumnPrefixSize = 17;

/// The 18-byte key of a record.
std::string encode_key(const RecordKey& key);
/// The 17-byte prefix shared by every record of one kind in one column.
std::string column_prefix(RecordKind kind, ColumnPos column);
/// Parses a key; nullopt for keys of other shapes (wrong length, unknown kind, section past 23, a LOD level past 8).
std::optional<RecordKey> decode_key(std::string_view key);
/// "column (x, z) section s (y a..b)": how errors and warnings name a record's place.
std::string describe(const SectionPos& pos);

/// One stored record of a column: the section index and the stored value (an envelope, see codec.h).
struct StoredSection {
  int section = 0;
  std::string value;
};

/// Every record of one kind in one column, sorted by section; empty when nothing is stored (generate it).
struct ColumnRecords {
  ColumnPos pos;
  std::vector<StoredSection> sections;
};

/// One write of a batch: a put of `value`, or a delete when value is nullopt.
struct WriteOp {
  RecordKey key;
  std::optional<std::string> value;
};

class WorldStore {
 public:
  virtual ~WorldStore() = default;

  /// Reads every record of `kind` for each column, in the order given (one ColumnRecords per input column).
  /// Errors: I/O failures of the backend (the message names the backend and the column).
  virtual Result<std::vector<ColumnRecords>> load_columns(RecordKind kind, std::span<const ColumnPos> columns) = 0;
  /// Reads one record; nullopt when absent.
  virtual Result<std::optional<std::string>> get(const RecordKey& key) = 0;
  /// Applies a batch atomically: after a crash either every op of the batch is visible or none is. `sync` asks
  /// the backend to make the batch durable against power loss before returning (fsync); without it the batch
  /// survives a crash of the process (it reached the operating system) but maybe not of the machine.
  virtual Status write(std::span<const WriteOp> ops, bool sync) = 0;
  /// Keys of every record of `kind`, sorted (tools, tests, migrations).
  virtual Result<std::vector<RecordKey>> list(RecordKind kind) = 0;
  /// Keeps a copy of a value that failed to decode where nothing will overwrite it; returns where (a path or a
  /// name) for the warning. Each call keeps a new copy (an existing copy with the same bytes is reused).
  virtual Result<std::string> keep_aside(const RecordKey& key, std::string_view value) = 0;
  /// The world's metadata copy (an envelope of payload 6, world_meta.h encode_meta_record) kept beside the
  /// records, so that opening can check voxen.toml against it; nullopt when there is none (a new store, or one
  /// written by an older voxen). Errors: I/O failures of the backend.
  virtual Result<std::optional<std::string>> get_meta_record() = 0;
  /// Replaces the metadata copy; atomic and as durable as write() with the same `sync`. A session writes it before
  /// it queues any record that uses an id the copy lacks. Errors: I/O failures of the backend.
  virtual Status put_meta_record(std::string_view value, bool sync) = 0;
};

/// A WorldStore in memory (an ordered map under a mutex). Nothing survives the process; keep_aside() keeps the
/// bytes in a list that aside() returns.
class MemoryWorldStore final : public WorldStore {
 public:
  Result<std::vector<ColumnRecords>> load_columns(RecordKind kind, std::span<const ColumnPos> columns) override;
  Result<std::optional<std::string>> get(const RecordKey& key) override;
  Status write(std::span<const WriteOp> ops, bool sync) override;
  Result<std::vector<RecordKey>> list(RecordKind kind) override;
  Result<std::string> keep_aside(const RecordKey& key, std::string_view value) override;
  Result<std::optional<std::string>> get_meta_record() override;
  Status put_meta_record(std::string_view value, bool sync) override;

  /// Values kept aside, in the order they were kept: (name, bytes).
  std::vector<std::pair<std::string, std::string>> aside() const;
  /// Number of batches written (for tests of the write-behind queue's batching).
  uint64_t batches_written() const;
  /// Replaces a record's bytes directly, bypassing batches (tests corrupt records with it).
  void poke(const RecordKey& key, std::string value);

 private:
  mutable std::mutex m_mu;
  std::map<std::string, std::string> m_records;  // encoded key -> value
  std::vector<std::pair<std::string, std::string>> m_aside;
  std::optional<std::string> m_meta;
  uint64_t m_batches = 0;
};

}  // namespace voxen::store
