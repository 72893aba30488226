#include "world_home.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace voxen::store::detail {
namespace fs = std::filesystem;

int take_dir_lock(const fs::path& dir, bool create, std::string& error) {
  const fs::path p = dir / kLockFile;
  int fd = ::open(p.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0 && create) fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    // A world without its lock file (copied by hand): the database's own LOCK still guards it.
    if (!create && err == ENOENT) return -2;
    error = "cannot open " + p.string() + ": " + std::strerror(err);
    return -1;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    error = "world " + dir.string() + " is locked by another process (" + p.string() + " is held)";
    return -1;
  }
  return fd;
}

namespace {
/// A file type in words ("a directory"), for messages about a path of the wrong kind.
const char* type_in_words(fs::file_type t) {
  switch (t) {
    case fs::file_type::directory: return "a directory";
    case fs::file_type::regular: return "a regular file";
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::fifo: return "a named pipe";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::block: return "a block device";
    case fs::file_type::character: return "a character device";
    default: return "not a file";
  }
}

}  // namespace

// Before read_meta, whose stream would read a directory as an empty file and loses errno.
Status check_meta_file(const fs::path& file) {
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (ec) return Error{"cannot read " + file.string() + ": " + ec.message()};
  if (!fs::is_regular_file(st))
    return Error{file.string() + " is not a regular file (it is " + type_in_words(st.type()) + ")"};
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot read " + file.string() + ": " + std::strerror(errno)};
  ::close(fd);
  return Ok{};
}

Result<fs::path> keep_dir_meta_aside(const fs::path& dir) {
  const fs::path aside = dir / "corrupt";
  std::error_code ec;
  fs::create_directories(aside, ec);
  if (ec) return Error{"cannot create " + aside.string() + ": " + ec.message()};
  for (int n = 1; n < 100000; ++n) {
    const fs::path p = aside / (std::string(kMetaFile) + "." + std::to_string(n));
    if (::link((dir / kMetaFile).c_str(), p.c_str()) == 0) {
      if (const int dfd = ::open(aside.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
      }
      return p;
    }
    if (errno != EEXIST) return Error{"cannot keep " + (dir / kMetaFile).string() + " as " + p.string() + ": " + std::strerror(errno)};
  }
  return Error{"too many kept copies of " + std::string(kMetaFile) + " in " + aside.string()};
}

Result<fs::path> stage_dir_world(const fs::path& dir, const std::string& where, std::string_view toml,
                                 std::string_view sealed_meta) {
  std::error_code ec;
  // Build the world in a sibling directory and rename it into place: a crash part-way leaves only that
  // sibling (dir.creating-PID), never a half-made world at dir. rename(2) replaces an empty directory.
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  const std::string prefix = dir.filename().string() + ".creating-";
  const fs::path staging = parent / (prefix + std::to_string(::getpid()));
  fs::remove_all(staging, ec);
  // What a creation or copy killed part-way left here: a sibling whose process is gone is removed.
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (pid <= 0 || *end != '\0' || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
  }
  ec.clear();
  fs::create_directories(staging, ec);
  // The staging name is an internal detail: the message names the user's path.
  if (ec) return Error{"cannot create the world " + where + ": " + ec.message()};
  auto fail = [&](const std::string& what) -> Error {
    fs::remove_all(staging, ec);
    return Error{"world " + where + ": " + what};
  };
  {
    std::string lock_error;
    const int fd = take_dir_lock(staging, true, lock_error);
    if (fd < 0) return fail(lock_error);
    ::close(fd);
    auto store = RocksWorldStore::open(staging / "db", staging / "corrupt", true);
    if (!store) return fail(store.error().to_string());
    // Unsynced: closing the store (end of this scope) flushes it to a synced table before the world is renamed.
    if (!sealed_meta.empty()) {
      if (Status c = (*store)->put_meta_record(sealed_meta, false); !c.ok()) return fail(c.error().to_string());
    }
  }
  if (Status w = write_meta_text(staging / kMetaFile, toml); !w.ok()) return fail(w.error().to_string());
  return staging;
}

Status place_dir_world(const fs::path& staging, const fs::path& dir, const std::string& where) {
  std::error_code ec;
  if (::rename(staging.c_str(), dir.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    fs::remove_all(staging, ec);
    return Error{"world " + where + ": cannot move the new world into place: " + why};
  }
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  if (const int dfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Ok{};
}

Status create_dir_world(const fs::path& dir, const std::string& where, std::string_view toml, std::string_view sealed_meta) {
  auto staging = stage_dir_world(dir, where, toml, sealed_meta);
  if (!staging) return staging.error();
  return place_dir_world(*staging, dir, where);
}

namespace {

/// A world directory: voxen.toml, voxen.lock (held by lock_fd) and the RocksDB database in db/.
class DirHome final : public WorldHome {
 public:
  DirHome(fs::path dir, int lock_fd, std::unique_ptr<RocksWorldStore> store)
      : m_dir(std::move(dir)), m_lock_fd(lock_fd), m_store(std::move(store)) {}
  ~DirHome() override { close(); }
  WorldStore& store() override { return *m_store; }
  Result<std::string> meta_text() override {
    if (Status c = check_meta_file(m_dir / kMetaFile); !c.ok()) return c.error();
    std::ifstream in(m_dir / kMetaFile, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return Error{"cannot read " + (m_dir / kMetaFile).string()};
    return text;
  }
  Status write_meta(const WorldMeta& meta) override { return store::write_meta(m_dir / kMetaFile, meta); }
  Result<std::string> keep_meta_aside() override {
    auto p = keep_dir_meta_aside(m_dir);
    if (!p) return p.error();
    return p->string();
  }
  Status close() override {
    Status result = Ok{};
    if (m_store) {
      // Flushes the memtable: a cleanly closed world's WAL holds nothing it needs.
      result = m_store->close();
      m_store.reset();
    }
    if (m_lock_fd >= 0) ::close(m_lock_fd);
    m_lock_fd = -1;
    return result;
  }

 private:
  fs::path m_dir;
  int m_lock_fd = -1;
  std::unique_ptr<RocksWorldStore> m_store;
};

/// A world in a PostgreSQL database: its row of voxen_worlds (metadata text, metadata copy) and records, locked by the
/// store's advisory lock.
class PgHome final : public WorldHome {
 public:
  explicit PgHome(std::unique_ptr<PgWorldStore> store) : m_store(std::move(store)) {}
  WorldStore& store() override { return *m_store; }
  Result<std::string> meta_text() override { return m_store->meta_text(); }
  Status write_meta(const WorldMeta& meta) override { return m_store->put_meta_text(format_meta(meta)); }
  Result<std::string> keep_meta_aside() override { return m_store->keep_meta_text_aside(); }
  Status close() override { return m_store->close(); }

 private:
  std::unique_ptr<PgWorldStore> m_store;
};

}  // namespace

std::unique_ptr<WorldHome> dir_home(fs::path dir, int lock_fd, std::unique_ptr<RocksWorldStore> store) {
  return std::make_unique<DirHome>(std::move(dir), lock_fd, std::move(store));
}

std::unique_ptr<WorldHome> pg_home(std::unique_ptr<PgWorldStore> store) { return std::make_unique<PgHome>(std::move(store)); }

}  // namespace voxen::store::detail
