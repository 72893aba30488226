#include "voxen/store/rocks_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <ctime>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include "log.h"
#include "voxen/core/hash.h"
#include "voxen/store/codec.h"

namespace voxen::store {
namespace fs = std::filesystem;
namespace {

/// The write count file: magic, count (uint64 LE), check = mix64(mix64(magic as uint64 LE) ^ count).
constexpr std::string_view kWritesMagic = "VXWRITES";
constexpr size_t kWritesFileSize = 24;

uint64_t le64(std::string_view b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[static_cast<size_t>(i)])) << (8 * i);
  return v;
}
std::string le64_bytes(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}
uint64_t writes_check(uint64_t count) { return mix64(mix64(le64(kWritesMagic)) ^ count); }

/// The 24 bytes of db/VOXEN-WRITES for a count.
std::string encode_writes_file(uint64_t count) {
  return std::string(kWritesMagic) + le64_bytes(count) + le64_bytes(writes_check(count));
}

/// The count in db/VOXEN-WRITES bytes, or an error saying what is wrong with them.
Result<uint64_t> decode_writes_file(std::string_view b) {
  if (b.size() != kWritesFileSize) return Error{std::to_string(b.size()) + " bytes instead of " + std::to_string(kWritesFileSize)};
  if (b.substr(0, 8) != kWritesMagic) return Error{"it does not start with " + std::string(kWritesMagic)};
  const uint64_t count = le64(b.substr(8, 8));
  if (le64(b.substr(16, 8)) != writes_check(count)) return Error{"its check value does not match its count"};
  return count;
}

rocksdb::Slice slice(std::string_view s) { return {s.data(), s.size()}; }

Error rocks_error(const std::string& what, const rocksdb::Status& s) { return Error{what + ": " + s.ToString()}; }

rocksdb::Options make_options(bool create) {
  rocksdb::Options o;
  o.create_if_missing = create;
  o.error_if_exists = create;
  o.compression = rocksdb::kNoCompression;  // values are zstd frames already
  o.keep_log_file_num = 2;                  // the info LOG, not the WAL: don't pile up LOG.old files (opens that
                                            // set no info_log of their own, e.g. the read-only checks, use the default)
  o.max_background_jobs = 2;
  // Memtables of 8 MiB (RocksDB's default is 64): what a process holds for writes stays small and constant, so a bulk
  // write (Anvil import) peaks at the same memory for any world size; game saves are far smaller than one memtable.
  o.write_buffer_size = size_t{8} << 20;
  o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kColumnPrefixSize));
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  t.whole_key_filtering = true;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  return o;
}

/// The system's reason for the last failed call, e.g. "No space left on device".
std::string sys_reason() { return std::strerror(errno); }

/// Fsyncs a folder so a new name in it is on disk.
void sync_dir(const fs::path& dir) {
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

/// Prefix of the temporary files written in a kept-aside folder; a file named so is never a finished copy (an open
/// that was killed while writing one leaves it behind; the next open removes it).
constexpr std::string_view kPartialPrefix = ".partial-";

/// Writes a file durably and all or nothing: the bytes come from `fill` (called with a function that writes a chunk
/// and returns false on failure) into a temporary file in dst's folder, which is fsynced and then linked to dst
/// (link(2) never replaces an existing dst), and the folder fsynced. On any failure the temporary file is removed
/// and dst does not exist. Errors name dst and the system's reason (e.g. no space left on device).
template <typename Fill>
Status write_file_atomically(const fs::path& dst, Fill&& fill) {
  const fs::path tmp = dst.parent_path() / (std::string(kPartialPrefix) + std::to_string(::getpid()) + "-" +
                                            dst.filename().string());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{"cannot write " + dst.string() + ": " + sys_reason()};
  auto fail = [&](const std::string& why) -> Status {
    ::close(fd);
    ::unlink(tmp.c_str());
    return Error{"cannot write " + dst.string() + ": " + why};
  };
  auto write_all = [&](const char* data, size_t size) {
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd, data + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  };
  std::string source_error;
  if (!fill(write_all, source_error)) return fail(source_error.empty() ? sys_reason() : source_error);
  if (::fsync(fd) != 0) return fail(sys_reason());
  ::close(fd);
  if (::link(tmp.c_str(), dst.c_str()) != 0) {
    const std::string why = sys_reason();
    ::unlink(tmp.c_str());
    return Error{"cannot write " + dst.string() + ": " + why};
  }
  ::unlink(tmp.c_str());
  sync_dir(dst.parent_path());
  return Ok{};
}

/// Writes `bytes` to a new file `path` (which must not exist) durably and all or nothing (write_file_atomically).
Status write_file_synced(const fs::path& path, std::string_view bytes) {
  return write_file_atomically(path, [&](auto& write_all, std::string&) { return write_all(bytes.data(), bytes.size()); });
}

/// Copies the file `src` to a new file `dst` in 1 MiB chunks (memory stays small whatever the size), durably and
/// all or nothing (write_file_atomically). Errors name the file that failed and the system's reason.
Status copy_file_synced(const fs::path& src, const fs::path& dst) {
  return write_file_atomically(dst, [&](auto& write_all, std::string& source_error) {
    const int in = ::open(src.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) {
      source_error = "cannot read " + src.string() + ": " + sys_reason();
      return false;
    }
    std::vector<char> buf(size_t{1} << 20);
    bool ok = true;
    for (;;) {
      const ssize_t n = ::read(in, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        source_error = "cannot read " + src.string() + ": " + sys_reason();
        ok = false;
        break;
      }
      if (n == 0) break;
      if (!write_all(buf.data(), static_cast<size_t>(n))) {
        ok = false;
        break;
      }
    }
    ::close(in);
    return ok;
  });
}

/// True when the files a and b hold the same bytes (sizes first, then 1 MiB chunks).
bool same_bytes(const fs::path& a, const fs::path& b) {
  std::error_code ec1, ec2;
  if (fs::file_size(a, ec1) != fs::file_size(b, ec2) || ec1 || ec2) return false;
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  std::vector<char> ba(size_t{1} << 20), bb(size_t{1} << 20);
  while (fa && fb) {
    fa.read(ba.data(), static_cast<std::streamsize>(ba.size()));
    fb.read(bb.data(), static_cast<std::streamsize>(bb.size()));
    if (fa.gcount() != fb.gcount() || std::memcmp(ba.data(), bb.data(), static_cast<size_t>(fa.gcount())) != 0) return false;
  }
  return !fa.bad() && !fb.bad();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A RocksDB info logger that drops everything: the read-only replay check below must not rotate the real LOG.
class QuietLogger final : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char*, va_list) override {}
};

/// RocksDB's info log, db/LOG (a debugging aid: flushes, compactions, errors). RocksDB's own file logger aborts the
/// process when an append fails twice (an assertion in Debian's librocksdb 7.8), as on a full disk, where the failed
/// write itself must be what the user hears about; this one ignores failed appends. Like RocksDB's, it buffers lines
/// and writes them out when RocksDB flushes it (the end of an open, a close), when 5 s have passed since the last
/// write-out, and past 64 KiB; at most 64 MiB per session. The previous session's LOG is kept as LOG.old.
class InfoLogger final : public rocksdb::Logger {
 public:
  explicit InfoLogger(const fs::path& db_dir) {
    std::error_code ec;
    fs::rename(db_dir / "LOG", db_dir / "LOG.old", ec);  // none yet: nothing to keep
    m_fd = ::open((db_dir / "LOG").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
  ~InfoLogger() override {
    Flush();
    if (m_fd >= 0) ::close(m_fd);
  }
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    char line[4096];
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
    std::tm tm{};
    ::localtime_r(&t, &tm);
    size_t n = std::strftime(line, sizeof line, "%Y/%m/%d-%H:%M:%S", &tm);
    n += static_cast<size_t>(std::snprintf(line + n, sizeof line - n, ".%06lld ", static_cast<long long>(us)));
    const int body = std::vsnprintf(line + n, sizeof line - n - 1, format, ap);
    n = body < 0 ? n : std::min(sizeof line - 2, n + static_cast<size_t>(body));
    if (line[n - 1] != '\n') line[n++] = '\n';  // some messages bring their own
    std::lock_guard lock(m_mu);
    if (m_written + m_buffer.size() > (size_t{64} << 20)) return;
    m_buffer.append(line, n);
    if (m_buffer.size() > (size_t{64} << 10) || now - m_last_out >= std::chrono::seconds(5)) write_out();
  }
  void Flush() override {
    std::lock_guard lock(m_mu);
    write_out();
  }

 private:
  void write_out() {  // under m_mu
    if (m_fd >= 0 && !m_buffer.empty() && ::write(m_fd, m_buffer.data(), m_buffer.size()) > 0) m_written += m_buffer.size();
    m_buffer.clear();  // a failed append is dropped, never retried
    m_last_out = std::chrono::system_clock::now();
  }
  std::mutex m_mu;
  std::string m_buffer;
  std::chrono::system_clock::time_point m_last_out = std::chrono::system_clock::now();
  int m_fd = -1;
  size_t m_written = 0;
};

/// Options for opening the database read-write: make_options with the InfoLogger on db_dir/LOG (the folder is made
/// when creating, since the logger opens its file before RocksDB does).
rocksdb::Options rw_options(const fs::path& db_dir, bool create) {
  rocksdb::Options o = make_options(create);
  if (create) {
    std::error_code ec;
    fs::create_directories(db_dir, ec);
  }
  o.info_log = std::make_shared<InfoLogger>(db_dir);
  return o;
}

/// A write-ahead log file (*.log) of a database folder and its size in bytes.
struct WalFile {
  fs::path path;
  uintmax_t bytes = 0;
};

/// Every write-ahead log file (*.log) in db_dir, empty or not, sorted by name (= log number). A cleanly closed
/// database has only empty ones: close() flushes the memtable, so its live WAL is empty (RocksDB's info log is
/// "LOG", not a *.log file).
std::vector<WalFile> wal_files(const fs::path& db_dir) {
  std::vector<WalFile> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(db_dir, ec)) {
    if (!e.is_regular_file(ec) || e.path().extension() != ".log") continue;
    std::error_code size_ec;
    const uintmax_t size = e.file_size(size_ec);
    out.push_back({e.path(), size_ec ? 0 : size});
  }
  std::sort(out.begin(), out.end(), [](const WalFile& x, const WalFile& y) { return x.path < y.path; });
  return out;
}

/// The next free copy number n for aside_dir/wal-<n>-*: one past the highest n there (1 for none); names that are
/// not wal-<decimal>-... are ignored.
uint64_t next_wal_copy_number(const fs::path& aside_dir) {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(aside_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("wal-", 0) != 0) continue;
    uint64_t k = 0;
    const char* first = name.c_str() + 4;
    const char* last = name.c_str() + name.size();
    const auto [end, err] = std::from_chars(first, last, k);
    if (err != std::errc() || end == first || end == last || *end != '-') continue;
    n = std::max(n, k);
  }
  return n == std::numeric_limits<uint64_t>::max() ? n : n + 1;
}

/// An existing complete copy of `wal` (same file name, same bytes) in aside_dir, if any: an open that copied the WAL
/// and was then killed before RocksDB recovered it must not add another copy each time.
std::optional<fs::path> existing_copy(const fs::path& aside_dir, const fs::path& wal) {
  std::error_code ec;
  const std::string suffix = "-" + wal.filename().string();
  for (const auto& e : fs::directory_iterator(aside_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("wal-", 0) != 0 || name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    if (same_bytes(e.path(), wal)) return e.path();
  }
  return std::nullopt;
}

/// After an unclean close: copies every non-empty WAL of db_dir into aside_dir as wal-<n>-<file> (fsynced) before
/// RocksDB opens (and may drop or delete) them, then checks whether RocksDB can replay them whole by opening the
/// database read-only (which writes nothing). Returns the warning to show, or "" when no WAL holds bytes (the last
/// session closed cleanly). Errors: a copy cannot be written (the database is not opened then).
Result<std::string> keep_wal_aside(const fs::path& db_dir, const fs::path& aside_dir, const rocksdb::Options& options) {
  std::vector<WalFile> wals = wal_files(db_dir);
  std::erase_if(wals, [](const WalFile& w) { return w.bytes == 0; });
  if (wals.empty()) return std::string();
  std::error_code ec;
  fs::create_directories(aside_dir, ec);
  if (ec) return Error{"cannot create " + aside_dir.string() + " to keep the write-ahead log aside: " + ec.message()};
  // Temporary files of an open killed while copying are not copies: remove them (the world's lock is held).
  for (const auto& e : fs::directory_iterator(aside_dir, ec))
    if (e.path().filename().string().rfind(kPartialPrefix, 0) == 0) fs::remove(e.path(), ec);
  const uint64_t n = next_wal_copy_number(aside_dir);
  std::string copies;
  uintmax_t bytes = 0;
  for (const auto& [w, size] : wals) {
    bytes += size;
    if (auto kept = existing_copy(aside_dir, w)) {
      copies += (copies.empty() ? "" : ", ") + kept->string() + " (kept by an earlier open)";
      continue;
    }
    const fs::path copy = aside_dir / ("wal-" + std::to_string(n) + "-" + w.filename().string());
    if (Status c = copy_file_synced(w, copy); !c.ok())
      return Error{"cannot keep the write-ahead log " + w.string() + " aside: " + c.error().message};
    copies += (copies.empty() ? "" : ", ") + copy.string();
  }
  std::string msg = "the database's write-ahead log holds " + std::to_string(bytes) +
                    " bytes not yet in its tables (the last session did not close cleanly, or an older voxen "
                    "closed it without flushing); a copy is kept in " + copies;
  // Replay check, read-only (writes nothing): point-in-time recovery stops at the first record that does not read
  // back. Absolute consistency fails on any such record; tolerating a corrupted tail separates an incomplete last
  // record (a write(2) cut short by the kill, so a batch never reported committed, or a truncated file) from
  // damage inside the log (a checksum mismatch), after which every later record is dropped too.
  auto replays = [&](rocksdb::WALRecoveryMode mode) {
    rocksdb::Options ro = options;
    ro.create_if_missing = false;
    ro.error_if_exists = false;
    ro.wal_recovery_mode = mode;
    ro.info_log = std::make_shared<QuietLogger>();
    rocksdb::DB* raw = nullptr;
    const rocksdb::Status s = rocksdb::DB::OpenForReadOnly(ro, db_dir.string(), &raw);
    delete raw;
    return s;
  };
  const rocksdb::Status whole = replays(rocksdb::WALRecoveryMode::kAbsoluteConsistency);
  if (whole.ok()) {
    msg += "; every record in it was recovered";
  } else if (!whole.IsCorruption()) {
    msg += "; could not check whether all of it replays (" + whole.ToString() + ")";
  } else if (replays(rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords).ok()) {
    msg += "; its last record is incomplete (a write cut short by the crash, or a truncated file; RocksDB says " +
           whole.ToString() + ") and was dropped, the records before it were recovered";
  } else {
    msg += "; it is damaged (" + whole.ToString() +
           "): RocksDB recovers the records before the damage and drops the rest, whose bytes are only in the copy";
  }
  return msg;
}

}  // namespace

RocksWorldStore::RocksWorldStore(std::unique_ptr<rocksdb::DB> db, fs::path db_dir, fs::path aside_dir)
    : m_db(std::move(db)), m_db_dir(std::move(db_dir)), m_aside_dir(std::move(aside_dir)) {}

RocksWorldStore::~RocksWorldStore() {
  if (Status s = close(); !s.ok()) detail::log().error("{}", s.error().to_string());
}

Status RocksWorldStore::close() {
  std::lock_guard wl(m_write_mu);
  std::unique_lock dl(m_db_mu);
  if (m_count_fd >= 0) {
    ::close(m_count_fd);
    m_count_fd = -1;
  }
  if (!m_db) return Ok{};
  if (m_write_failed) {
    // RocksDB refuses to flush after a failed write; a reopen (which recovers the WAL) may let the close be clean.
    dl.unlock();
    if (Status r = reopen(); !r.ok()) return Error{"cannot close database " + m_db_dir.string() + " cleanly: " + r.error().message};
    dl.lock();
  }
  // A clean close leaves the write-ahead log with nothing the world needs: the memtable goes to an SST file first
  // (synced, with the MANIFEST), and RocksDB deletes the WAL that held it. A damaged *.log of a cleanly closed world
  // then loses nothing.
  rocksdb::FlushOptions fo;
  fo.wait = true;
  rocksdb::Status f = m_db->Flush(fo);
  const std::vector<WalFile> wals = f.ok() ? wal_files(m_db_dir) : std::vector<WalFile>{};
  if (wals.size() > 1 || (wals.size() == 1 && wals[0].bytes > 0)) {
    // An empty memtable is not flushed, so RocksDB keeps the WALs it has, such as the one holding the empty batch
    // that recovery writes after dropping records, or the empty one each open that wrote nothing created. Rewriting
    // the format marker (same bytes) gives the flush something to write; the flush then retires every older WAL.
    std::string marker;
    f = m_db->Get(rocksdb::ReadOptions(), slice(kFormatKey), &marker);
    if (f.ok()) {
      rocksdb::WriteOptions wo;
      wo.sync = true;
      f = m_db->Put(wo, slice(kFormatKey), marker);
    }
    if (f.ok()) f = m_db->Flush(fo);
  }
  const rocksdb::Status c = m_db->Close();
  m_db.reset();
  if (!f.ok()) return rocks_error("cannot flush database " + m_db_dir.string() + " on close (its WAL still holds the edits)", f);
  if (!c.ok()) return rocks_error("cannot close database " + m_db_dir.string(), c);
  return Ok{};
}

uint64_t RocksWorldStore::writes() const {
  std::lock_guard wl(m_write_mu);
  return m_writes;
}

/// Reads the write count in the database and in db/VOXEN-WRITES and compares them (see the header); a new database
/// starts both at 0. Sets m_writes, adds to m_recovery_warning. Errors: the count key is malformed, the file cannot
/// be opened or written.
Status RocksWorldStore::start_count(bool create) {
  std::optional<uint64_t> in_db;
  if (create) {
    in_db = 0;  // written with the format marker
  } else {
    std::string v;
    const rocksdb::Status g = m_db->Get(rocksdb::ReadOptions(), slice(kWritesKey), &v);
    if (!g.ok() && !g.IsNotFound()) return rocks_error("cannot read the write count of " + m_db_dir.string(), g);
    if (g.ok()) {
      if (v.size() != 8) return Error{"database " + m_db_dir.string() + " has a malformed write count (" + std::to_string(v.size()) + " bytes)"};
      in_db = le64(v);
    }
  }
  const fs::path file = m_db_dir / std::string(kWritesFile);
  std::error_code ec;
  const bool had_file = fs::exists(file, ec);
  m_count_fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_count_fd < 0) return Error{"cannot open " + file.string() + ": " + sys_reason()};
  std::string bytes(kWritesFileSize + 1, '\0');
  const ssize_t n = had_file ? ::pread(m_count_fd, bytes.data(), bytes.size(), 0) : 0;
  if (n < 0) return Error{"cannot read " + file.string() + ": " + sys_reason()};
  bytes.resize(static_cast<size_t>(n));

  const uint64_t held = in_db.value_or(0);
  std::string note;
  if (!had_file) {
    if (!in_db) m_started_counting = true;  // an older voxen's database: counting starts now
    else if (!create)
      note = file.string() + " is missing, so this open could not check whether the write-ahead log lost committed "
             "writes; it is written again";
  } else if (auto count = decode_writes_file(bytes); !count) {
    note = file.string() + " is damaged (" + count.error().message +
           "), so this open could not check whether the write-ahead log lost committed writes; it is written again";
  } else if (*count > held) {
    const uint64_t lost = *count - held;
    note = "the last session committed " + std::to_string(*count) + " writes but the database holds " + std::to_string(held) +
           " (by the write count in " + file.string() + "): its write-ahead log lost the last " + std::to_string(lost) +
           " write" + (lost == 1 ? "" : "s") + " (truncated, deleted or damaged after an unclean close); the world opens "
           "as it was after write " + std::to_string(held) + ", without the edits of the lost writes";
  }
  if (!note.empty()) m_recovery_warning += (m_recovery_warning.empty() ? "" : "; ") + note;

  m_writes = held;
  if (!in_db) {
    rocksdb::WriteOptions wo;
    wo.sync = true;
    if (auto w = m_db->Put(wo, slice(kWritesKey), le64_bytes(held)); !w.ok()) return rocks_error("cannot write the write count", w);
  }
  const std::string want = encode_writes_file(held);
  if (bytes != want) {
    if (::pwrite(m_count_fd, want.data(), want.size(), 0) != static_cast<ssize_t>(want.size()) ||
        ::ftruncate(m_count_fd, static_cast<off_t>(want.size())) != 0 || ::fsync(m_count_fd) != 0)
      return Error{"cannot write " + file.string() + ": " + sys_reason()};
    // A new database's folder is synced by RocksDB's first flush (its close, before the world is moved into place).
    if (!had_file && !create) sync_dir(m_db_dir);
  }
  return Ok{};
}

Result<std::unique_ptr<RocksWorldStore>> RocksWorldStore::open(const fs::path& db_dir, const fs::path& aside_dir, bool create) {
  if (!create) {
    std::error_code ec;
    const fs::file_status st = fs::status(db_dir, ec);
    if (st.type() == fs::file_type::not_found)
      return Error{"no database at " + db_dir.string() + " (the world's db/ folder is missing)"};
    if (ec) return Error{"cannot open database " + db_dir.string() + ": " + ec.message()};
    if (!fs::is_directory(st)) return Error{db_dir.string() + " is not a directory (the world's database must be a folder)"};
  }
  const rocksdb::Options options = make_options(create);  // the read-only checks' (they set a quiet logger)
  std::string recovery_warning;
  if (!create) {  // db_dir is a folder: checked above
    auto w = keep_wal_aside(db_dir, aside_dir, options);
    if (!w) return w.error();
    recovery_warning = std::move(w).value();
  }
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(rw_options(db_dir, create), db_dir.string(), &raw);
  if (!s.ok()) {
    if (s.IsIOError() && s.ToString().find("lock") != std::string::npos)
      return Error{"database " + db_dir.string() + " is locked by another process (" + s.ToString() + ")"};
    return rocks_error("cannot open database " + db_dir.string(), s);
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  if (create) {
    // The format marker and the write count (0) in one synced write.
    rocksdb::WriteBatch first;
    rocksdb::Status w = first.Put(slice(kFormatKey), std::string(1, static_cast<char>(kFormatVersion)));
    if (w.ok()) w = first.Put(slice(kWritesKey), le64_bytes(0));
    if (w.ok()) w = db->Write(wo, &first);
    if (!w.ok()) return rocks_error("cannot write format marker", w);
  } else {
    std::string v;
    const rocksdb::Status g = db->Get(rocksdb::ReadOptions(), slice(kFormatKey), &v);
    if (g.IsNotFound()) return Error{"database " + db_dir.string() + " has no voxen format marker (not a voxen world database)"};
    if (!g.ok()) return rocks_error("cannot read format marker of " + db_dir.string(), g);
    if (v.size() != 1 || static_cast<uint8_t>(v[0]) == 0)
      return Error{"database " + db_dir.string() + " has a malformed format marker"};
    if (static_cast<uint8_t>(v[0]) > kFormatVersion)
      return Error{"database " + db_dir.string() + " has format version " + std::to_string(static_cast<uint8_t>(v[0])) +
                   ", newer than this build reads (" + std::to_string(kFormatVersion) + ")"};
  }
  std::unique_ptr<RocksWorldStore> store(new RocksWorldStore(std::move(db), db_dir, aside_dir));
  store->m_recovery_warning = std::move(recovery_warning);
  if (Status c = store->start_count(create); !c.ok()) return c.error();
  return store;
}

Status RocksWorldStore::reopen() {
  std::unique_lock dl(m_db_mu);
  if (m_db) {
    m_db->Close();  // reports the failed write again; the database closes all the same
    m_db.reset();
  }
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(rw_options(m_db_dir, false), m_db_dir.string(), &raw);
  if (!s.ok()) {
    m_reopen_error = "cannot reopen database " + m_db_dir.string() + " after a failed write: " + s.ToString();
    return Error{m_reopen_error};
  }
  m_db.reset(raw);
  // The WAL held every write committed before the failure; the count in the database says whether they are back.
  std::string v;
  const rocksdb::Status g = m_db->Get(rocksdb::ReadOptions(), slice(kWritesKey), &v);
  const uint64_t held = g.ok() && v.size() == 8 ? le64(v) : 0;
  if (held != m_writes)
    return Error{"database " + m_db_dir.string() + " holds " + std::to_string(held) + " writes after reopening, not the " +
                 std::to_string(m_writes) + " committed"};
  m_write_failed = false;
  m_reopen_error.clear();
  return Ok{};
}

Status RocksWorldStore::commit(rocksdb::WriteBatch& batch, bool sync, const std::string& what) {
  std::lock_guard wl(m_write_mu);
  if (m_write_failed) {
    if (Status r = reopen(); !r.ok()) return r;
  }
  const uint64_t count = m_writes + 1;
  if (auto p = batch.Put(slice(kWritesKey), le64_bytes(count)); !p.ok()) return rocks_error("cannot build write batch", p);
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  wo.disableWAL = false;
  rocksdb::Status s;
  {
    std::shared_lock dl(m_db_mu);
    if (!m_db) return Error{m_reopen_error};
    s = m_db->Write(wo, &batch);
  }
  if (!s.ok()) {
    m_write_failed = true;
    return rocks_error("cannot write " + what, s);
  }
  m_writes = count;
  // The count outside the WAL. Failing to update it loses nothing (the write is committed); the next open then
  // checks against an older count, so it is warned about once.
  const std::string bytes = encode_writes_file(count);
  const bool written = ::pwrite(m_count_fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()) &&
                       (!sync || ::fdatasync(m_count_fd) == 0);
  if (!written && !m_count_warned) {
    m_count_warned = true;
    detail::log().warn("cannot update {}: {}; the next open cannot tell whether the write-ahead log lost the writes "
                       "from now on", (m_db_dir / std::string(kWritesFile)).string(), sys_reason());
  }
  return Ok{};
}

Result<std::vector<ColumnRecords>> RocksWorldStore::load_columns(RecordKind kind, std::span<const ColumnPos> columns) {
  std::shared_lock dl(m_db_mu);
  if (!m_db) return Error{m_reopen_error};
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
  std::shared_lock dl(m_db_mu);
  if (!m_db) return Error{m_reopen_error};
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
  return commit(batch, sync, "batch of " + std::to_string(ops.size()) + " records");
}

Result<std::optional<std::string>> RocksWorldStore::get_meta_record() {
  std::shared_lock dl(m_db_mu);
  if (!m_db) return Error{m_reopen_error};
  std::string v;
  const rocksdb::Status s = m_db->Get(rocksdb::ReadOptions(), slice(kMetaKey), &v);
  if (s.IsNotFound()) return std::optional<std::string>{};
  if (!s.ok()) return rocks_error("cannot read the metadata copy of " + m_db_dir.string(), s);
  return std::optional<std::string>{std::move(v)};
}

Status RocksWorldStore::put_meta_record(std::string_view value, bool sync) {
  rocksdb::WriteBatch batch;
  if (auto p = batch.Put(slice(kMetaKey), slice(value)); !p.ok()) return rocks_error("cannot build write batch", p);
  return commit(batch, sync, "the metadata copy");
}

Result<std::vector<RecordKey>> RocksWorldStore::list(RecordKind kind) {
  std::shared_lock dl(m_db_mu);
  if (!m_db) return Error{m_reopen_error};
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
    if (Status w = write_file_synced(p, value); !w.ok()) return w.error();
    return p.string();
  }
  return Error{"too many kept-aside copies of " + describe(key.pos) + " in " + m_aside_dir.string()};
}

Status RocksWorldStore::poke(const RecordKey& key, std::string_view value) {
  std::shared_lock dl(m_db_mu);
  if (!m_db) return Error{m_reopen_error};
  rocksdb::WriteOptions wo;
  wo.sync = true;
  const rocksdb::Status s = m_db->Put(wo, encode_key(key), slice(value));
  if (!s.ok()) return rocks_error("cannot write " + describe(key.pos), s);
  return Ok{};
}

Status RocksWorldStore::poke(std::string_view key, std::optional<std::string_view> value) {
  std::shared_lock dl(m_db_mu);
  if (!m_db) return Error{m_reopen_error};
  rocksdb::WriteOptions wo;
  wo.sync = true;
  const rocksdb::Status s = value ? m_db->Put(wo, slice(key), slice(*value)) : m_db->Delete(wo, slice(key));
  if (!s.ok()) return rocks_error("cannot write key " + std::string(key), s);
  return Ok{};
}

Status RocksWorldStore::flush() {
  std::shared_lock dl(m_db_mu);
  if (!m_db) return Error{m_reopen_error};
  const rocksdb::Status s = m_db->Flush(rocksdb::FlushOptions());
  if (!s.ok()) return rocks_error("cannot flush database", s);
  return Ok{};
}

}  // namespace voxen::store
