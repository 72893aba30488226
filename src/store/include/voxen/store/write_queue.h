// The write-behind queue (after Craft's db worker thread): the main thread hands over batches of section
// records and goes on; a writer thread encodes them (codec.h: palette + indices, zstd) and commits each to the
// WorldStore as one atomic write (a RocksDB WriteBatch, WAL on). Batches queued while the writer was busy are
// committed together in one write, which is still atomic, so after a crash the store holds exactly the batches
// up to some ticket: never part of a batch.
//
// Tickets number batches 1, 2, 3, ... in submission order. A batch counts as saved once committed() reaches its
// ticket; wait(t) blocks until then. With Options::sync false that means "in the OS" (survives SIGKILL, not
// power loss); with sync true the WAL is fsynced first.
//
// A failed write loses nothing: the queue keeps the batches of that write, in memory, at its head, and stops (no
// later batch may be written before them, or the store would no longer hold a prefix of the batches). Batches
// submitted meanwhile are kept behind them. wait() reports the failure until retry() makes the writer try again,
// from the kept batches; the owner (WorldSession) decides when and how often to retry. unsaved_columns() names the
// columns whose records are kept and not yet committed.
// Threads: submit/wait/flush/committed may be called from any thread; the listener runs on the writer thread,
// once per ticket, in ticket order, after the batch is committed.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "voxen/store/codec.h"
#include "voxen/store/world_store.h"
#include "voxen/world/section.h"

namespace voxen::store {

/// One record of a batch, not yet encoded. Cells are in the world's saved id space.
///   kJournal: `journal` holds the section's cells that differ from generation, sorted by index; empty deletes
///             the record (the section is back to its generated state).
///   kSection: `section` is the whole section; uniform air deletes the record (a missing section reads as air).
///   kSimulation: `raw` holds the simulation's state bytes, sealed as PayloadKind::kSimState; empty deletes it.
///   kEditLog: `raw` holds a page of a server's edit log, sealed as PayloadKind::kEditLog; empty deletes it.
///   kCreatures: `raw` holds the game's creatures (play::Creatures::save_state), sealed as PayloadKind::kCreatures;
///              empty deletes it.
struct PendingRecord {
  RecordKey key;
  std::vector<JournalCell> journal;
  Section section;
  std::string raw;
};

/// Encodes a pending record into the WriteOp the store receives (a sealed value, or a delete).
WriteOp encode_record(const PendingRecord& record, const SealOptions& seal = {});

class WriteBehindQueue {
 public:
  struct Options {
    bool sync = false;              // fsync each write (power-loss durability)
    size_t max_queued_batches = 64; // submit() blocks while this many batches wait (bounded memory)
    size_t max_records_per_write = 8192;  // queued batches merge into one write up to this many records
    SealOptions seal;
  };

  WriteBehindQueue(WorldStore& store, Options options);
  /// Commits everything queued, then stops the writer thread. If the queue is stopped on a failed write, the kept
  /// batches are dropped (the owner reports them first: see unsaved_columns()).
  ~WriteBehindQueue();
  WriteBehindQueue(const WriteBehindQueue&) = delete;
  WriteBehindQueue& operator=(const WriteBehindQueue&) = delete;

  /// Queues a batch; returns its ticket. Blocks while max_queued_batches are waiting.
  uint64_t submit(std::vector<PendingRecord> batch);
  /// Blocks until the batch with this ticket is committed; returns the writer's error while the queue is stopped on
  /// a failed write (then no later batch is committed either, until retry()).
  Status wait(uint64_t ticket);
  /// wait() for everything submitted so far.
  Status flush();
  /// Highest ticket committed (0 before the first).
  uint64_t committed() const;
  /// Highest ticket handed out.
  uint64_t submitted() const;
  /// Sets the function called on the writer thread after each batch commits (with its ticket).
  void set_listener(std::function<void(uint64_t)> listener);
  /// The error of the failed write the queue is stopped on; nullopt while it is not stopped.
  std::optional<Error> failure() const;
  /// Failed writes since the last successful one (0 when the last write succeeded).
  uint64_t failed_attempts() const;
  /// Makes a queue stopped on a failed write try again: the kept batches first, in ticket order. Returns at once;
  /// wait() gives the outcome. No-op when the queue is not stopped.
  void retry();
  /// Columns with a record in a batch not yet committed (queued, being written, or kept after a failed write),
  /// sorted by (x, z).
  std::vector<ColumnPos> unsaved_columns() const;

 private:
  struct Batch {
    uint64_t ticket;
    std::vector<PendingRecord> records;
  };
  void run();
  // Batches leave m_queue only when committed: the writer encodes the first m_writing of them (outside the lock)
  // and, on failure, leaves them where they are.

  WorldStore& m_store;
  Options m_options;
  mutable std::mutex m_mu;
  std::condition_variable m_work_cv;   // writer waits for batches
  std::condition_variable m_done_cv;   // submitters and waiters wait for progress
  std::deque<Batch> m_queue;
  size_t m_writing = 0;                // batches at the head of m_queue that the writer is writing now
  std::function<void(uint64_t)> m_listener;
  uint64_t m_next_ticket = 1;
  uint64_t m_committed = 0;
  Error m_error;
  bool m_failed = false;               // stopped on a failed write until retry()
  uint64_t m_failed_attempts = 0;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace voxen::store
