// RocksWorldStore: the on-disk WorldStore, a RocksDB database opened in-process (Debian's librocksdb-dev; no
// server). The write-ahead log is on; a batch is one rocksdb::WriteBatch, which RocksDB applies atomically and
// replays whole or not at all after a crash (WAL recovery mode: point in time).
//
// Durability: write(ops, sync=false) returns once the batch is in the WAL file through write(2), so it survives
// SIGKILL or a crash of the process; sync=true also fsyncs the WAL, for power loss.
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
  /// Values that fail to decode are copied into `aside_dir` by keep_aside(). Errors: the database is locked by
  /// another process ("locked"), missing, damaged beyond recovery, or written by a newer format version.
  static Result<std::unique_ptr<RocksWorldStore>> open(const std::filesystem::path& db_dir,
                                                       const std::filesystem::path& aside_dir, bool create);
  ~RocksWorldStore() override;
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
};

}  // namespace voxen::store
