// PgWorldStore: a WorldStore in a PostgreSQL database, through Debian's libpq (the server's own C client). Several
// worlds share one database; each is a row of voxen_worlds, its records rows of voxen_records keyed by (world, kind,
// column x, column z, section), values the same sealed envelopes RocksDB holds (codec.h), stored as bytea without
// PostgreSQL's own compression (they are zstd frames already). Tables, indexes and migrations:
// docs/formats/world_store_postgresql.md. After Luanti's database-postgresql.cpp (one row per block, upserts).
//
// A world is named by a URL, `postgresql://USER@HOST[:PORT]/DB?world=NAME` (also postgres://; a Unix-socket host
// as HOST=%2Fpath%2Fto%2Fdir or `?host=/path/to/dir`); every libpq parameter of a connection URI may be given, plus
// voxen's own `world` (required), `reconnect` (seconds to keep reconnecting after a lost connection, default 10) and
// `query_timeout` (seconds to wait for one query's answer, default 60; then the connection counts as lost);
// voxen adds connect_timeout=10, TCP keepalives and application_name unless the URL sets them.
//
// Durability: write() is one transaction, sent as one pipeline (one upsert of the batch's puts, one delete of its
// deletes, then a Sync: PostgreSQL runs the statements between two Syncs as one implicit transaction and commits it at
// the Sync); it returns once the Sync is answered, that is once the commit is done, so the batch is committed as a
// whole or not at all, whatever happens to the voxen process after. The server flushes the commit to its WAL before acknowledging it (synchronous_commit = on, the
// server's default; the session's `sync` flag changes nothing here).
// Lock: a session-level advisory lock (pg_try_advisory_lock(kLockClass, world id)) on the writing connection, held
// until close() or the connection ends (a killed process's lock goes with its connection); a second process that opens
// the same world is refused, naming the holding voxen process (connections carry application_name=voxen-PID) and its
// server process. A new world's row is inserted and locked in one transaction.
// Lost connection: a query that fails because the connection broke reconnects (libpq's PQreset) for up to
// `reconnect` seconds (0.1 s doubling to 2 s between tries), retakes the world's lock (after any reconnect of the
// writing connection, whichever call found it broken) and runs the whole query again
// (every write is an idempotent upsert/delete of final values, so a batch whose COMMIT reply was lost is simply
// written again); after that the error names the server and the cause, and the session keeps the edits in memory and
// retries them at its next commit (world_session.h). If another process took the world meanwhile, every later write is
// refused (the lock is gone).
// Threads: two connections, one for writes (and the lock, the metadata) and one for reads, each behind its own mutex,
// so loads are not queued behind a write batch; every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "voxen/store/world_store.h"

typedef struct pg_conn PGconn;  // libpq's connection handle (libpq-fe.h), kept out of this header

namespace voxen::store {

/// The advisory-lock class of voxen worlds (the first key of pg_try_advisory_lock(int4, int4); 'vxw').
inline constexpr int32_t kPgLockClass = 0x767877;
/// The schema version this build writes and reads (docs/formats/world_store_postgresql.md); voxen_schema holds it.
inline constexpr int kPgSchemaVersion = 1;

/// A parsed world URL.
struct PgWorldUrl {
  std::string conninfo;  // the URL without voxen's own parameters: what libpq's PQconnectdb is given
  std::string world;     // the world's name (voxen_worlds.name): 1..63 of [A-Za-z0-9_.-]
  std::string display;   // the URL for messages, any password replaced by "***"
  std::chrono::milliseconds reconnect{10000};  // how long a lost connection is retried
  std::chrono::milliseconds query_timeout{60000};  // how long one query's answer is awaited before the connection is
                                                   // treated as lost (a server process that stopped answering)
};

/// True for strings that name a world in a database (start with postgresql:// or postgres://), not a directory.
bool is_database_url(std::string_view location);
/// Parses a world URL. Errors name the URL (password hidden) and the part: no world=NAME (unless `need_world` is
/// false: a URL of a whole database, `voxen world list`), a bad name, a bad reconnect value, a parameter given twice.
Result<PgWorldUrl> parse_database_url(std::string_view url, bool need_world = true);

/// One world of a database, as `voxen world list` shows it.
struct PgWorldInfo {
  std::string name;
  bool complete = true;         // false: an unfinished copy
  uint64_t records = 0;         // rows of voxen_records
  uint64_t bytes = 0;           // their value bytes
  std::string created;          // the server's timestamp, as text
  std::string held_by;          // empty, or who holds its lock ("voxen process N on HOST")
};

class PgWorldStore final : public WorldStore {
 public:
  /// How open() may create the world: with this voxen.toml text and metadata copy, when no world of that name exists.
  struct PgCreate {
    std::string toml;
    std::optional<std::string> meta;
    bool exclusive = false;   // a world of that name (made before, or meanwhile) is an error, not opened
    bool incomplete = false;  // made as an unfinished copy (voxen world copy): other opens are refused until
                              // mark_complete(); a later exclusive creation replaces it
  };
  /// Connects (two connections), brings the schema to kPgSchemaVersion (creating it in an empty database, migrating
  /// an older one in one transaction under an advisory lock), finds the world by name and takes its lock. With
  /// `create` a missing world is created first, its row made and its lock taken in one transaction (a world of that
  /// name made meanwhile by another process is opened as it is, or refused when exclusive). Without `create` an
  /// empty database is left as it is. With `lock` false the world is not locked and the store only reads (tests and
  /// tools that look at a world another process holds): every write is refused.
  /// Errors: the server cannot be reached (libpq's message and the URL), the schema is newer than this build, no
  /// world of that name (and no create), an unfinished copy, the world is locked by another process (naming its
  /// server pid).
  static Result<std::unique_ptr<PgWorldStore>> open(const PgWorldUrl& url, const std::optional<PgCreate>& create,
                                                    bool lock = true);
  /// Deletes the world of that name (complete or an unfinished copy) with its records and kept copies, holding its
  /// lock meanwhile; no world of that name is not an error. Errors: it is locked by another process, the server's.
  static Status drop_world(const PgWorldUrl& url);
  /// Marks a world made with PgCreate::incomplete as complete (one UPDATE, committed when it returns).
  Status mark_complete();
  /// The voxen schema version of the URL's database (0: it has no voxen tables); reads only. Errors: the server's.
  static Result<int> database_schema_version(const PgWorldUrl& url);
  /// Every world of the URL's database (its world= is ignored), by name; empty when it has no voxen tables. Reads only.
  static Result<std::vector<PgWorldInfo>> list_worlds(const PgWorldUrl& url);
  /// True when a world of that name exists in the database (connects, reads the schema version, locks nothing).
  /// Errors: as open() before the lock.
  static Result<bool> exists(const PgWorldUrl& url);
  /// close(), logging an error.
  ~PgWorldStore() override;
  /// Releases the lock and closes both connections; later calls do nothing. Every acknowledged write is committed
  /// already, so there is nothing to flush.
  Status close();
  PgWorldStore(const PgWorldStore&) = delete;
  PgWorldStore& operator=(const PgWorldStore&) = delete;

  /// Deletes the world (its row, records and kept copies, in one statement) and closes the store: voxen world copy
  /// removes a copy that failed. Errors: the server's (nothing is deleted).
  Status drop();
  /// The world's voxen.toml text (voxen_worlds.toml).
  Result<std::string> meta_text();
  /// Replaces the world's voxen.toml text (one UPDATE, committed when it returns).
  Status put_meta_text(std::string_view text);
  /// Keeps the current voxen.toml text in voxen_aside (what = 'voxen.toml') and says where.
  Result<std::string> keep_meta_text_aside();
  /// The world's row id (voxen_worlds.id).
  int64_t world_id() const { return m_world_id; }
  /// The URL for messages.
  const std::string& display() const { return m_url.display; }

  Result<std::vector<ColumnRecords>> load_columns(RecordKind kind, std::span<const ColumnPos> columns) override;
  Result<std::optional<std::string>> get(const RecordKey& key) override;
  Status write(std::span<const WriteOp> ops, bool sync) override;
  Result<std::vector<RecordKey>> list(RecordKind kind) override;
  /// Inserts the bytes into voxen_aside (what = "<kind>.<x>.<z>.<section>"), or finds the row that holds them already;
  /// returns "voxen_aside row N of world NAME in URL".
  Result<std::string> keep_aside(const RecordKey& key, std::string_view value) override;
  /// voxen_worlds.meta.
  Result<std::optional<std::string>> get_meta_record() override;
  Status put_meta_record(std::string_view value, bool sync) override;

  /// Every copy kept aside for this world, oldest first: (what, bytes), what being "<kind>.<x>.<z>.<section>" or
  /// "voxen.toml".
  Result<std::vector<std::pair<std::string, std::string>>> kept_aside();
  /// Writes raw bytes under a record's key in one statement, bypassing codecs and batches (tests corrupt rows).
  Status poke(const RecordKey& key, std::string_view value);
  /// Runs SQL on the writing connection (tests: damage the schema, break the connection). Errors: the server's.
  Status execute(const std::string& sql);

  class Connection;  // one libpq connection with its reconnect loop (pg_store.cpp)

 private:
  PgWorldStore(PgWorldUrl url, std::unique_ptr<Connection> write, std::unique_ptr<Connection> read, int64_t world_id);
  Status take_lock();
  Status relock(PGconn* c);  // after a reconnect, on the writing connection under its mutex
  PgWorldUrl m_url;
  std::unique_ptr<Connection> m_write;  // writes, the lock, the world's row
  std::unique_ptr<Connection> m_read;   // loads, gets, lists
  int64_t m_world_id = 0;
  std::mutex m_lock_mu;
  bool m_lock_lost = false;             // a reconnect found the world taken by another process: writes are refused
  std::string m_lock_lost_message;
  bool m_closed = false;
};

}  // namespace voxen::store
