#include "voxen/store/rocks_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include "voxen/store/codec.h"

namespace voxen::store {
namespace fs = std::filesystem;
namespace {

/// Key of the database's own format marker (not an 18-byte record key, so no record can collide with it).
const std::string kFormatKey = "!voxen-format";

rocksdb::Slice slice(std::string_view s) { return {s.data(), s.size()}; }

Error rocks_error(const std::string& what, const rocksdb::Status& s) { return Error{what + ": " + s.ToString()}; }

rocksdb::Options make_options(bool create) {
  rocksdb::Options o;
  o.create_if_missing = create;
  o.error_if_exists = create;
  o.compression = rocksdb::kNoCompression;  // values are zstd frames already
  o.keep_log_file_num = 2;                  // the info LOG, not the WAL: don't pile up LOG.old files
  o.max_background_jobs = 2;
  o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kColumnPrefixSize));
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  t.whole_key_filtering = true;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  return o;
}

/// Writes a file and fsyncs it (and its directory), so a kept-aside value is on disk before anything goes on.
bool write_file_synced(const fs::path& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  if (const int dfd = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return ok;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

RocksWorldStore::RocksWorldStore(std::unique_ptr<rocksdb::DB> db, fs::path db_dir, fs::path aside_dir)
    : m_db(std::move(db)), m_db_dir(std::move(db_dir)), m_aside_dir(std::move(aside_dir)) {}

RocksWorldStore::~RocksWorldStore() {
  if (m_db) {
    m_db->Close().PermitUncheckedError();
    m_db.reset();
  }
}

Result<std::unique_ptr<RocksWorldStore>> RocksWorldStore::open(const fs::path& db_dir, const fs::path& aside_dir, bool create) {
  if (!create && !fs::is_directory(db_dir))
    return Error{"no database at " + db_dir.string() + " (the world's db/ folder is missing)"};
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(make_options(create), db_dir.string(), &raw);
  if (!s.ok()) {
    if (s.IsIOError() && s.ToString().find("lock") != std::string::npos)
      return Error{"database " + db_dir.string() + " is locked by another process (" + s.ToString() + ")"};
    return rocks_error("cannot open database " + db_dir.string(), s);
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  if (create) {
    const std::string v(1, static_cast<char>(kFormatVersion));
    if (auto w = db->Put(wo, kFormatKey, v); !w.ok()) return rocks_error("cannot write format marker", w);
  } else {
    std::string v;
    const rocksdb::Status g = db->Get(rocksdb::ReadOptions(), kFormatKey, &v);
    if (g.IsNotFound()) return Error{"database " + db_dir.string() + " has no voxen format marker (not a voxen world database)"};
    if (!g.ok()) return rocks_error("cannot read format marker of " + db_dir.string(), g);
    if (v.size() != 1 || static_cast<uint8_t>(v[0]) == 0)
      return Error{"database " + db_dir.string() + " has a malformed format marker"};
    if (static_cast<uint8_t>(v[0]) > kFormatVersion)
      return Error{"database " + db_dir.string() + " has format version " + std::to_string(static_cast<uint8_t>(v[0])) +
                   ", newer than this build reads (" + std::to_string(kFormatVersion) + ")"};
  }
  return std::unique_ptr<RocksWorldStore>(new RocksWorldStore(std::move(db), db_dir, aside_dir));
}

Result<std::vector<ColumnRecords>> RocksWorldStore::load_columns(RecordKind kind, std::span<const ColumnPos> columns) {
  std::vector<ColumnRecords> out;
  out.reserve(columns.size());
  rocksdb::ReadOptions ro;
  ro.prefix_same_as_start = true;
  std::unique_ptr<rocksdb::Iterator> it(m_db->NewIterator(ro));
  for (const ColumnPos& c : columns) {
    ColumnRecords rec{c, {}};
    const std::string prefix = column_prefix(kind, c);
    for (it->Seek(slice(prefix)); it->Valid() && it->key().starts_with(slice(prefix)); it->Next()) {
      if (it->key().size() != kKeySize) continue;
      rec.sections.push_back({static_cast<uint8_t>(it->key()[kColumnPrefixSize]), it->value().ToString()});
    }
    if (!it->status().ok())
      return rocks_error("cannot read column (" + std::to_string(c.x) + ", " + std::to_string(c.z) + ")", it->status());
    out.push_back(std::move(rec));
  }
  return out;
}

Result<std::optional<std::string>> RocksWorldStore::get(const RecordKey& key) {
  std::string v;
  const rocksdb::Status s = m_db->Get(rocksdb::ReadOptions(), encode_key(key), &v);
  if (s.IsNotFound()) return std::optional<std::string>{};
  if (!s.ok()) return rocks_error("cannot read " + describe(key.pos), s);
  return std::optional<std::string>{std::move(v)};
}

Status RocksWorldStore::write(std::span<const WriteOp> ops, bool sync) {
  rocksdb::WriteBatch batch;
  for (const WriteOp& op : ops) {
    const std::string k = encode_key(op.key);
    const rocksdb::Status s = op.value ? batch.Put(k, slice(*op.value)) : batch.Delete(k);
    if (!s.ok()) return rocks_error("cannot build write batch", s);
  }
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  wo.disableWAL = false;
  const rocksdb::Status s = m_db->Write(wo, &batch);
  if (!s.ok()) return rocks_error("cannot write batch of " + std::to_string(ops.size()) + " records", s);
  return Ok{};
}

Result<std::vector<RecordKey>> RocksWorldStore::list(RecordKind kind) {
  rocksdb::ReadOptions ro;
  ro.total_order_seek = true;
  std::unique_ptr<rocksdb::Iterator> it(m_db->NewIterator(ro));
  std::vector<RecordKey> out;
  const std::string first(1, static_cast<char>(kind));
  for (it->Seek(first); it->Valid() && it->key()[0] == first[0]; it->Next())
    if (auto k = decode_key(std::string_view(it->key().data(), it->key().size()))) out.push_back(*k);
  if (!it->status().ok()) return rocks_error("cannot list records", it->status());
  return out;
}

Result<std::string> RocksWorldStore::keep_aside(const RecordKey& key, std::string_view value) {
  std::error_code ec;
  fs::create_directories(m_aside_dir, ec);
  if (ec) return Error{"cannot create " + m_aside_dir.string() + ": " + ec.message()};
  const std::string base = std::string(1, static_cast<char>(key.kind)) + "." + std::to_string(key.pos.x) + "." +
                           std::to_string(key.pos.z) + "." + std::to_string(key.pos.y);
  for (int n = 0; n < 10000; ++n) {
    const fs::path p = m_aside_dir / (base + (n ? "." + std::to_string(n) : std::string()) + ".bin");
    if (fs::exists(p)) {
      if (read_file(p) == value) return p.string();  // this exact value was kept before
      continue;
    }
    if (!write_file_synced(p, value)) return Error{"cannot write " + p.string()};
    return p.string();
  }
  return Error{"too many kept-aside copies of " + describe(key.pos) + " in " + m_aside_dir.string()};
}

Status RocksWorldStore::poke(const RecordKey& key, std::string_view value) {
  rocksdb::WriteOptions wo;
  wo.sync = true;
  const rocksdb::Status s = m_db->Put(wo, encode_key(key), slice(value));
  if (!s.ok()) return rocks_error("cannot write " + describe(key.pos), s);
  return Ok{};
}

Status RocksWorldStore::flush() {
  const rocksdb::Status s = m_db->Flush(rocksdb::FlushOptions());
  if (!s.ok()) return rocks_error("cannot flush database", s);
  return Ok{};
}

}  // namespace voxen::store
