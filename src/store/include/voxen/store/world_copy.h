// Copying a saved world record by record between any two homes: a world directory (RocksDB) or a world in a
// PostgreSQL database (pg_store.h), in either direction (`voxen world copy SRC DST`). Both worlds are locked for
// the copy; the destination must not exist yet. What is copied: the metadata text (voxen.toml, byte for byte), the
// database's metadata copy, and every record of every kind (journals 'j', sections 's', far-view nodes 'l', the
// simulation's pending updates 'p', a server's edit log pages 'e'), values as stored (sealed envelopes, not re-encoded). Not copied: the copies a
// world keeps aside (corrupt/ or voxen_aside), which belong to the source's own history.
// Verification: after writing, the destination is read back from scratch and its record counts and content hash must
// equal the source's; otherwise the new world is removed and the copy is an error.
// Content hash: XXH3-128 over the metadata text, the metadata copy and, for each kind in the order j s l p and each
// record in key order (column x, column z, section: world_store.h), the 18-byte key, the value's length (u32 LE) and
// the value (docs/formats/world_store_postgresql.md, Copying).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "voxen/core/error.h"
#include "voxen/store/world_meta.h"
#include "voxen/store/world_store.h"

namespace voxen::store {

/// What a world holds, as the copy counts it.
struct WorldContent {
  std::map<RecordKind, uint64_t> records;  // records per kind (every kind present, zero or not)
  uint64_t bytes = 0;                      // value bytes of every record
  std::string content_hash;                // 32 hex digits (see above)
  uint64_t total() const;
};

/// What copy_world did.
struct CopyReport {
  std::string source, destination;  // as given (a URL's password hidden)
  WorldContent content;             // the source's, which the destination matched
  double seconds = 0;               // copy and verification, wall clock
};

/// A world's location as messages show it: a world URL with any password replaced by ***, a directory as given.
std::string world_display(const std::string& location);

/// The metadata of the world at `location` (a directory or a world URL) without opening it: no lock, nothing
/// written; nullopt when no world is there. Errors: unreadable or malformed metadata, the server cannot be reached.
Result<std::optional<WorldMeta>> peek_world_meta(const std::string& location);

/// Removes the world at `location` whole (a world directory and everything in it; a database world's row, records and
/// kept copies, unfinished copies too), holding its lock meanwhile. Errors: the world is locked by another process, a
/// directory that is not a voxen world (no voxen.toml: refused, untouched), I/O. No world there is not an error.
Status remove_world(const std::string& location);

/// Counts and hashes the world at `location` (a directory or a world URL); locks it while reading. Errors: no world
/// there, the world is locked by another process, store I/O.
Result<WorldContent> world_content(const std::string& location);

/// Copies the world at `source` to a new world at `destination` and verifies it. `progress` (optional) is called
/// after each batch with the records copied so far and the total. Errors, with nothing left at destination: no world
/// at source, a world (or a non-empty directory) at destination, either locked, store I/O, verification mismatch.
Result<CopyReport> copy_world(const std::string& source, const std::string& destination,
                              const std::function<void(uint64_t done, uint64_t total)>& progress = {});

}  // namespace voxen::store
