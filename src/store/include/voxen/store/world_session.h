// WorldSession: a saved world, open: its records, metadata, per-column journals and write-behind queue. It owns
// no World and runs no generation: the owner of the columns (stream::SavedWorld) hands load() freshly generated
// columns (air for imported worlds) and gets them back with the saved cells on top (the journal always wins), tells
// record() of every edit after applying it, and unload()s what it drops; the session saves through the write-behind
// queue.
//
// A world lives in a directory or in a PostgreSQL database (OpenOptions::dir is then a URL, pg_store.h:
// postgresql://USER@HOST[:PORT]/DB?world=NAME): the same records either way, the metadata text in the world's row
// (voxen_worlds.toml) instead of voxen.toml, copies kept aside in voxen_aside instead of corrupt/, and an advisory lock
// of the server instead of voxen.lock (docs/formats/world_store_postgresql.md).
// A world directory holds:
//   voxen.toml   metadata (world_meta.h): format version, seed, generator, the saved block-id table
//   voxen.lock   advisory lock (flock): one process at a time; taken before anything else is touched
//   db/          the RocksDB database (rocks_store.h; keys and values in docs/formats/world_store_v1.md)
//   corrupt/     copies of records that failed to decode, kept aside before anything could overwrite them, and
//                wal-<n>-<file>.log: the write-ahead log an unclean close left, copied before recovery (warned)
//
// Generated worlds store journals: per section, the cells that differ from generation. Imported worlds (no
// generator) store whole sections. Light is never stored; callers recompute it after load().
//
// Ownership: each column has exactly one owner. load() marks a column as loading before it reads the store; a
// second load() of the same column (from any thread) waits for the first and then refuses it (the copy it was
// given is dropped and named in LoadReport::held), so only one copy ever gets the saved cells and is recorded,
// and one can never overwrite the other's edits when saved. The owner of the cells never asks for a column it
// holds (stream::ColumnStreamer: only absent columns with no job; docs/ARCHITECTURE.md, Column lifecycle). The
// session remembers which sections changed (any change of id or state), and commit() queues them as one batch.
//
// A failed write never loses an edit silently. The write-behind queue keeps the records of a failed write (and of
// every batch after it) in memory; the next commit, flush, wait or close, or a load of a column whose unload batch
// is among them, retries the write once, up to kMaxWriteRetries times in a row (each failure is an error naming the
// cause and the columns whose edits are kept). A column unloaded with unsaved edits cannot be loaded until they are
// written: every load of it fails, naming the column and the cause, instead of reading the store without them. After
// the last retry the session gives up writing; close() reports the columns whose edits are lost.
//
// Opening checks that the world holds what it should: voxen.toml against the copy of its kind, seed, generator and
// block-id table kept in the database (put_meta_record; the records were written with that copy, so it wins and a
// different voxen.toml is rewritten from it, warned, the old file kept in corrupt/), and the database against the
// count of committed writes kept beside it (RocksWorldStore: a write-ahead log that lost committed writes is warned).
//
// Threads: load, record, commit, unload, flush and close lock the session and may be called from any thread; no
// callback runs under the lock (the GL uploads of an edit are done before record() is called).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/store/world_meta.h"
#include "voxen/store/world_store.h"
#include "voxen/store/write_queue.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/column.h"
#include "voxen/world/edit.h"

namespace voxen::store {

namespace detail {
class WorldHome;  // where an open()ed world lives: its store, metadata text and lock (src/world_home.h)
}


/// The fingerprint (gen::fingerprint: 16 hex digits) of the generator a world names (meta: generator name and
/// seed): a world records it at creation and warns on open when its generator's output has changed. Errors:
/// unknown name, missing blocks (the world cannot be opened).
using GeneratorFingerprint = std::function<Result<std::string>(const std::string& name, uint64_t seed)>;

struct OpenOptions {
  std::filesystem::path dir;               // the world directory, or a world URL (postgresql://..., pg_store.h)
  std::optional<uint64_t> create_seed;     // create a world with this seed if dir is missing or empty
  std::string create_generator = "default";  // generator of a created generated world
  WorldKind create_kind = WorldKind::kGenerated;
  bool sync = false;                       // fsync every committed batch (power-loss durability)
};

/// What one load() did.
struct LoadReport {
  size_t loaded = 0;                        // columns this call loaded (not counting ones already loaded)
  std::vector<ColumnPos> held;              // columns the session already held: their copies were dropped
  size_t records = 0;                       // records (section journals or sections) read and applied
  std::vector<std::string> corrupt;         // one message per record that failed to decode (fell back)
  std::map<std::string, uint64_t> unknown;  // saved block name -> cells shown as "unknown" (name not in registry)
};

class WorldSession {
 public:
  /// A failed write is retried at most this many times in a row (once per commit, flush, wait, close or load of an
  /// unsaved column); then the session stops writing and the edits not yet written are reported lost on close().
  static constexpr uint64_t kMaxWriteRetries = 3;

  /// Opens the world in options.dir, or creates it (missing or empty dir and create_seed given).
  /// Errors, with nothing written: dir exists but is not a voxen world (no voxen.toml), voxen.toml is malformed
  /// or from a newer format version, the world is locked by another process, the generator cannot be made, no
  /// world at dir and no create_seed. An existing world keeps its seed and generator (create_* are ignored).
  /// voxen.toml is compared with the database's copy of the metadata: a difference is warned (naming each field
  /// and both values) and the database's values are used, voxen.toml rewritten (the old file kept in corrupt/);
  /// a damaged copy is an error. A world without the copy (made by an older voxen) gets one, with a notice.
  static Result<std::unique_ptr<WorldSession>> open(const OpenOptions& options, const BlockRegistry& registry,
                                                    const GeneratorFingerprint& fingerprint);
  /// A session over any WorldStore and a metadata value (tests; in-memory worlds). The store must outlive the
  /// session; meta() carries the (possibly grown) id table to pass to the next session over the same store.
  /// Errors: the store's metadata copy differs from `meta` (the message names the fields) or is damaged; a store
  /// without one gets `meta`'s.
  static Result<std::unique_ptr<WorldSession>> attach(WorldStore& store, WorldMeta meta, const BlockRegistry& registry,
                                                      bool sync = false);
  /// close(), logging any error.
  ~WorldSession();
  WorldSession(const WorldSession&) = delete;
  WorldSession& operator=(const WorldSession&) = delete;

  /// The world's metadata (seed, generator, saved id table as grown so far).
  const WorldMeta& meta() const { return m_meta; }
  /// The store the session reads and writes (other record kinds may live beside its columns: the far view's nodes,
  /// stream/lod_record.h); thread-safe like every WorldStore. Valid until close().
  WorldStore& store() { return *m_store; }
  /// True for generated worlds (journals over generation), false for imported ones (whole sections).
  bool generated() const { return m_meta.kind == WorldKind::kGenerated; }
  /// The running block registry (cells handed to load() and record() use its ids).
  const BlockRegistry& registry() const { return m_registry; }

  /// Puts the saved cells over the given columns: `columns` hold what generation makes at their positions (air
  /// for imported worlds); for each, its journal is applied on top (imported worlds: whole saved sections; missing
  /// sections stay air) and the session starts keeping its journal. One batch read from the store. A column the
  /// session already holds is dropped from `columns` (nulled) and named in LoadReport::held (see Ownership). A
  /// record that fails to decode is reported (error naming column and section, warning on stderr), copied aside,
  /// and its section keeps the generated cells; the other sections and columns load. Errors: store I/O; a column
  /// unloaded with edits that could not be written yet (after one retry, see kMaxWriteRetries): the message names
  /// the column and the cause, nothing of this call is loaded, and the next load of it tries again.
  Result<LoadReport> load(std::vector<std::unique_ptr<Column>>& columns);
  /// True if the column is loaded.
  bool loaded(ColumnPos pos) const;
  /// True when a loaded column of a generated world holds saved or new edits (its journal has cells): its own cells
  /// must win wherever the world is drawn from other sources (the far view keeps such columns). False for a
  /// column not loaded, and for imported worlds (no generation to differ from).
  bool edited(ColumnPos pos) const;

  /// Records an edit its owner has applied: `e.before` is the cell it replaced (the generated cell when the
  /// journal has none there), `e.after` the cell placed; `section` is the section holding e.pos after the edit
  /// (kept for imported worlds, which store whole sections). False if e's column is not loaded or y is out of range.
  bool record(const Edit& e, const Section& section);

  /// Queues every section changed since the last commit as one batch; returns its ticket (0 if nothing
  /// changed). The batch is saved once committed() reaches the ticket. Errors (the changes stay recorded, for the
  /// next commit): an earlier write failed and its retry failed too (the message names the cause and the columns
  /// whose edits are kept in memory); voxen.toml or the database's metadata copy cannot be rewritten (needed when
  /// the world's id table grows).
  Result<uint64_t> commit();
  /// Blocks until the batch with this ticket is committed (0 returns at once). A failed write is retried once
  /// (kMaxWriteRetries); errors as commit().
  Status wait(uint64_t ticket);
  /// commit() and wait for everything queued.
  Status flush();
  /// Highest committed ticket.
  uint64_t committed() const;
  /// Called on the writer thread after each batch commits (see WriteBehindQueue::set_listener).
  void set_commit_listener(std::function<void(uint64_t)> listener);

  /// Queues the column's changed sections, then forgets it. A later load() of it waits for that
  /// batch first, so it reads back exactly what was there (if the batch cannot be written, that load fails). No-op
  /// for a column that is not loaded. Errors: voxen.toml or the metadata copy cannot be rewritten (the column stays
  /// loaded).
  Status unload(ColumnPos pos);
  /// Imported worlds: holds (or replaces) a whole column, every section marked changed, so the next commit stores
  /// it. Errors: the world is a generated one.
  Status put_column(const Column& column);
  /// Imported worlds (an importer's path, e.g. Anvil import): queues the whole columns as one batch (24 section
  /// records each; an all-air section deletes its record) without holding them, so the memory it takes is the write
  /// queue's, bounded (WriteBehindQueue::Options::max_queued_batches), not the world's. Returns the batch's ticket.
  /// A later load() of one of them waits for that batch, as after unload(). Errors: the world is a generated one; a
  /// column is loaded in this session (put_column() replaces loaded columns); the session is closed; voxen.toml or the
  /// metadata copy cannot be rewritten (the id table grew): nothing is queued.
  Result<uint64_t> store_columns(std::span<const Column* const> columns);

  /// The simulation's saved state (sim::Simulator::save_state's bytes; record 'p'), as last committed or set in
  /// this session; nullopt when the world has none. Errors: store I/O; a record that fails to unseal (the message
  /// names it; its bytes are kept aside, and the world opens without pending updates).
  Result<std::optional<std::string>> sim_state();
  /// Replaces the simulation's state. It is written by the next commit in the same atomic batch as the edits
  /// recorded before this call, so after a crash the pending updates on disk belong to the cells on disk. Empty
  /// bytes delete the record.
  void set_sim_state(std::string bytes);
  /// The game's creatures as last committed or set (record 'c', play::Creatures::save_state's bytes), as
  /// sim_state: nullopt when none are saved; a damaged record is kept aside and named in the error.
  Result<std::optional<std::string>> creature_state();
  /// Replaces the creatures' state, written by the next commit with the edits recorded before it; empty deletes it.
  void set_creature_state(std::string bytes);

  /// Queues a record of the multiplayer server's edit log (kind 'e', net/edit_log.h: the page's bytes, sealed as
  /// PayloadKind::kEditLog when written) for the next commit, in the same atomic batch as the edits recorded before
  /// this call, so after a crash the log on disk names exactly the edits whose cells are on disk. A second put of
  /// the same key before the commit replaces the first. Errors: a key of another kind (nothing queued).
  Status put_log_record(const RecordKey& key, std::string bytes);
  /// Saved cells shown as "unknown" since open, by saved block name.
  std::map<std::string, uint64_t> unknown_cells() const;
  /// Flushes everything (a failed write is retried up to the kMaxWriteRetries left), closes the store and releases
  /// the lock. Further calls do nothing. Errors: a write still fails (the message names the columns whose edits are
  /// lost), the store cannot be closed.
  Status close();

 private:
  struct ColumnState;
  WorldSession(const BlockRegistry& registry, WorldMeta meta, IdRemap remap);
  static Result<std::unique_ptr<WorldSession>> open_database(const OpenOptions& options, const BlockRegistry& registry,
                                                             const GeneratorFingerprint& fingerprint);
  static Result<std::unique_ptr<WorldSession>> finish_open(std::unique_ptr<detail::WorldHome> home, WorldMeta meta, std::string generator_fp,
                                                           const std::string& where, const OpenOptions& options,
                                                           const BlockRegistry& registry, const GeneratorFingerprint& fingerprint,
                                                           bool started_counting);
  Status start(WorldStore& store, bool sync);
  Cell saved_cell(Cell current);
  std::vector<PendingRecord> take_dirty(ColumnPos pos, ColumnState& state);
  Status save_meta_locked();
  Result<uint64_t> commit_locked();
  Status wait_saved(uint64_t ticket, uint64_t max_retries);
  std::string unsaved_message(const Error& cause) const;

  const BlockRegistry& m_registry;
  WorldMeta m_meta;
  IdRemap m_remap;
  std::string m_where = "(in memory)";  // the directory or URL, for messages
  std::unique_ptr<detail::WorldHome> m_home;        // open()ed sessions: the world's store, metadata text and lock
  WorldStore* m_store = nullptr;
  std::unique_ptr<WriteBehindQueue> m_queue;
  bool m_meta_dirty = false;
  bool m_sim_dirty = false;            // m_sim_state goes out with the next commit
  std::optional<std::string> m_sim_state;  // set_sim_state's bytes (nullopt: read the store's)
  bool m_creatures_dirty = false;
  std::optional<std::string> m_creature_state;  // set_creature_state's bytes (nullopt: read the store's)
  std::map<std::string, std::pair<RecordKey, std::string>> m_log_records;  // put_log_record's, by encoded key
  bool m_sync = false;
  bool m_closed = false;

  mutable std::mutex m_mu;
  std::condition_variable m_loaded_cv;
  std::unordered_map<ColumnPos, std::unique_ptr<ColumnState>, ColumnPosHash> m_columns;
  std::unordered_set<ColumnPos, ColumnPosHash> m_dirty_columns;
  std::unordered_map<ColumnPos, uint64_t, ColumnPosHash> m_unload_tickets;
  std::map<std::string, uint64_t> m_unknown;
};

}  // namespace voxen::store
