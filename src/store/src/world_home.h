// Where a saved world lives, behind one interface for the session and the tools: a directory (voxen.toml, voxen.lock,
// db/ with RocksDB, corrupt/) or a row of a PostgreSQL database (pg_store.h). Private to voxen::store.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "voxen/core/error.h"
#include "voxen/store/pg_store.h"
#include "voxen/store/rocks_store.h"
#include "voxen/store/world_meta.h"
#include "voxen/store/world_store.h"

namespace voxen::store::detail {

inline constexpr const char* kMetaFile = "voxen.toml";
inline constexpr const char* kLockFile = "voxen.lock";

/// An open world's store, metadata text and lock.
class WorldHome {
 public:
  virtual ~WorldHome() = default;
  virtual WorldStore& store() = 0;
  /// The metadata text (voxen.toml's bytes, or the world row's toml). Errors: it cannot be read.
  virtual Result<std::string> meta_text() = 0;
  /// Rewrites the metadata text from `meta` (atomically).
  virtual Status write_meta(const WorldMeta& meta) = 0;
  /// Keeps the current metadata text where nothing overwrites it; says where.
  virtual Result<std::string> keep_meta_aside() = 0;
  /// Closes the store (RocksDB: flushes it) and releases the lock; later calls do nothing.
  virtual Status close() = 0;
};

/// Takes a world directory's advisory lock (flock on voxen.lock, made when `create`); the fd, -2 when the file is
/// missing and not `create` (a world copied by hand: RocksDB's own LOCK still guards it), or -1 and `error`
/// (another process holds it, or the file cannot be opened).
int take_dir_lock(const std::filesystem::path& dir, bool create, std::string& error);
/// Checks that a world's metadata file is a regular file this process can read (errors name the path and why).
Status check_meta_file(const std::filesystem::path& file);
/// Keeps the current voxen.toml of `dir` as corrupt/voxen.toml.<n> (n from 1, the first free name) by a hard link.
Result<std::filesystem::path> keep_dir_meta_aside(const std::filesystem::path& dir);
/// Creates a world directory at `dir` (missing or empty) with this voxen.toml text and sealed metadata copy: built
/// (none when empty: a copy of an older voxen's world) in a sibling dir.creating-PID and renamed into place, so a crash never leaves a half-made world at dir. Errors
/// name `where` (the user's spelling of dir); the sibling is removed.
Status create_dir_world(const std::filesystem::path& dir, const std::string& where, std::string_view toml,
                        std::string_view sealed_meta);
/// create_dir_world in two steps, for a world that is filled before it appears (voxen world copy): the staging
/// directory dir.creating-PID, made with the metadata, then renamed into place (errors remove it).
Result<std::filesystem::path> stage_dir_world(const std::filesystem::path& dir, const std::string& where,
                                              std::string_view toml, std::string_view sealed_meta);
Status place_dir_world(const std::filesystem::path& staging, const std::filesystem::path& dir, const std::string& where);
/// The home of an opened world directory (owns the lock fd and the store).
std::unique_ptr<WorldHome> dir_home(std::filesystem::path dir, int lock_fd, std::unique_ptr<RocksWorldStore> store);
/// The home of a world in a database (the store holds its lock).
std::unique_ptr<WorldHome> pg_home(std::unique_ptr<PgWorldStore> store);

}  // namespace voxen::store::detail
