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
// Table options: values are zstd frames already, so RocksDB's own compression is off; a fixed 17-byte prefix
// extractor (kind + column) with a Bloom filter makes "this column has no records" cheap.
// Threads: RocksDB's DB is thread-safe; so is this class.
#pragma once

#include <filesystem>
#include <memory>

#include "voxen/store/world_store.h"

namespace rocksdb {
class DB;
}

namespace voxen::store {

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
  /// from the world and only the copy holds their bytes).
  const std::string& recovery_warning() const { return m_recovery_warning; }
  RocksWorldStore(const RocksWorldStore&) = delete;
  RocksWorldStore& operator=(const RocksWorldStore&) = delete;

  Result<std::vector<ColumnRecords>> load_columns(RecordKind kind, std::span<const ColumnPos> columns) override;
  Result<std::optional<std::string>> get(const RecordKey& key) override;
  Status write(std::span<const WriteOp> ops, bool sync) override;
  Result<std::vector<RecordKey>> list(RecordKind kind) override;
  /// Writes the bytes to aside_dir/<kind>.<x>.<z>.<section>[.<n>].bin (fsynced) and returns that path.
  Result<std::string> keep_aside(const RecordKey& key, std::string_view value) override;

  /// Writes raw bytes under a record's key, bypassing codecs and batches (tests corrupt records with it).
  Status poke(const RecordKey& key, std::string_view value);
  /// Flushes the memtable to an SST file (tests, and a tidy close).
  Status flush();

 private:
  RocksWorldStore(std::unique_ptr<rocksdb::DB> db, std::filesystem::path db_dir, std::filesystem::path aside_dir);
  std::unique_ptr<rocksdb::DB> m_db;
  std::filesystem::path m_db_dir;
  std::filesystem::path m_aside_dir;
  std::string m_recovery_warning;
};

}  // namespace voxen::store
