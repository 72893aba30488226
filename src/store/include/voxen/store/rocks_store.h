// RocksWorldStore: the on-disk WorldStore, a RocksDB database opened in-process (Debian's librocksdb-dev; no
// server). The write-ahead log is on; a batch is one rocksdb::WriteBatch, which RocksDB applies atomically and
// replays whole or not at all after a crash (WAL recovery mode: point in time).
//
// Durability: write(ops, sync=false) returns once the batch is in the WAL file through write(2), so it survives
// SIGKILL or a crash of the process; sync=true also fsyncs the WAL, for power loss.
// Clean close (close() or the destructor) flushes the memtable to an SST file, so a cleanly closed database's WAL
// holds nothing it needs. Open after an unclean close (a *.log file with bytes in it) first copies those WAL files
// into aside_dir as wal-<n>-<file> (fsynced; n counts up from 1), then checks with a read-only replay whether all
// of it replays, and recovery_warning() says so: point-in-time recovery drops everything from a damaged record on,
// and RocksDB later deletes the log, so the copy is where those bytes stay.
// Write count: every write also puts the number of writes committed to the database since it was made under the key
// `!voxen-writes`, and after DB::Write returns that number goes to db/VOXEN-WRITES (24 bytes rewritten in place,
// fdatasync'd when the write was synced). The file lives outside the WAL, so a WAL that loses committed writes
// (truncated, deleted, or damaged after an unclean close: RocksDB then opens without them and says nothing) shows on
// the next open as a count in the file above the one the database holds; recovery_warning() says how many writes
// are missing. RocksDB's own track_and_verify_wals_in_manifest does not cover this: it tracks only closed, synced
// WALs, never the live one an unclean close leaves.
// A failed write leaves RocksDB refusing every later write (its background error; DB::Resume does not clear a WAL
// write error in 7.8), so the next write first closes and reopens the database (recovering its WAL: every write
// committed before is there, which the write count confirms) and then tries the batch again.
// Info log: db/LOG is written by our own logger, which ignores failed appends (RocksDB's file logger aborts the process
// in Debian's build when its LOG cannot be appended twice, as on a full disk) and, like RocksDB's, buffers lines until
// RocksDB flushes it or 5 s pass; the previous session's is LOG.old.
// Table options: values are zstd frames already, so RocksDB's own compression is off; a fixed 17-byte prefix
// extractor (kind + column) with a Bloom filter makes "this column has no records" cheap.
// Threads: RocksDB's DB is thread-safe; so is this class (reads share a lock that a reopen takes alone; writes are
// serialised, so the write count follows the WAL's order).
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "voxen/store/world_store.h"

namespace rocksdb {
class DB;
class WriteBatch;
}

namespace voxen::store {

/// Keys of the database's own values (not 18-byte record keys, so no record can collide with them): the format
/// marker, the metadata copy and the write count (docs/formats/world_store_v1.md).
inline constexpr std::string_view kFormatKey = "!voxen-format";
inline constexpr std::string_view kMetaKey = "!voxen-meta";
inline constexpr std::string_view kWritesKey = "!voxen-writes";
/// The file in the database folder that keeps the write count outside the WAL.
inline constexpr std::string_view kWritesFile = "VOXEN-WRITES";

class RocksWorldStore final : public WorldStore {
 public:
  /// Opens the database in `db_dir`; with `create` the directory must not hold a database yet and one is made.
  /// Values that fail to decode are copied into `aside_dir` by keep_aside(); so are non-empty WAL files found on
  /// open (see recovery_warning()). Errors: the database is locked by another process ("locked"), missing, damaged
  /// beyond recovery, written by a newer format version, or a WAL file could not be copied aside.
  static Result<std::unique_ptr<RocksWorldStore>> open(const std::filesystem::path& db_dir,
                                                       const std::filesystem::path& aside_dir, bool create);
  /// close(), logging an error.
  ~RocksWorldStore() override;
  /// Flushes the memtable to an SST file (waiting for it) and closes the database; later calls do nothing.
  /// Errors: the flush or close failed (the edits are then still in the WAL, which the next open recovers).
  Status close();
  /// Empty after a clean close; otherwise one line for the user: how many WAL bytes the last session left, where
  /// the copies are, and whether RocksDB could replay all of them (if not, the edits from the damage on are lost
  /// from the world and only the copy holds their bytes); and, whatever the WAL held, how many committed writes
  /// the database lacks by the write count, or that db/VOXEN-WRITES is missing or damaged so that this open
  /// could not check.
  const std::string& recovery_warning() const { return m_recovery_warning; }
  /// True when this open started the write count: a database from an older voxen (no `!voxen-writes`, no
  /// db/VOXEN-WRITES), which could not be checked for lost writes this once.
  bool started_counting() const { return m_started_counting; }
  /// Writes committed to the database since it was made (the write count).
  uint64_t writes() const;
  RocksWorldStore(const RocksWorldStore&) = delete;
  RocksWorldStore& operator=(const RocksWorldStore&) = delete;

  Result<std::vector<ColumnRecords>> load_columns(RecordKind kind, std::span<const ColumnPos> columns) override;
  Result<std::optional<std::string>> get(const RecordKey& key) override;
  Status write(std::span<const WriteOp> ops, bool sync) override;
  Result<std::vector<RecordKey>> list(RecordKind kind) override;
  /// Writes the bytes to aside_dir/<kind>.<x>.<z>.<section>[.<n>].bin (fsynced) and returns that path.
  Result<std::string> keep_aside(const RecordKey& key, std::string_view value) override;
  /// The value under `!voxen-meta`.
  Result<std::optional<std::string>> get_meta_record() override;
  Status put_meta_record(std::string_view value, bool sync) override;

  /// Writes raw bytes under a record's key, bypassing codecs and batches (tests corrupt records with it).
  Status poke(const RecordKey& key, std::string_view value);
  /// Writes raw bytes under any key, or deletes it (nullopt), bypassing codecs, batches and the write count (tests
  /// damage the database's own values, or remove them to make a database like an older voxen's).
  Status poke(std::string_view key, std::optional<std::string_view> value);
  /// Flushes the memtable to an SST file (tests, and a tidy close).
  Status flush();

 private:
  RocksWorldStore(std::unique_ptr<rocksdb::DB> db, std::filesystem::path db_dir, std::filesystem::path aside_dir);
  Status start_count(bool create);
  Status commit(rocksdb::WriteBatch& batch, bool sync, const std::string& what);
  Status reopen();
  std::unique_ptr<rocksdb::DB> m_db;     // null only after a reopen failed (reads and writes give that error)
  std::filesystem::path m_db_dir;
  std::filesystem::path m_aside_dir;
  std::string m_recovery_warning;
  bool m_started_counting = false;
  mutable std::shared_mutex m_db_mu;     // readers share; reopen() replaces m_db alone
  mutable std::mutex m_write_mu;         // serialises writes, the count and the count file
  uint64_t m_writes = 0;                 // the write count (under m_write_mu)
  bool m_write_failed = false;           // the last write failed: reopen before the next
  std::string m_reopen_error;            // why m_db is null
  int m_count_fd = -1;                   // db/VOXEN-WRITES, open for rewriting
  bool m_count_warned = false;           // a failed rewrite of the count file was warned about
};

}  // namespace voxen::store
