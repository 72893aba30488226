// The write-behind queue (after Craft's db worker thread): the main thread hands over batches of section
// records and goes on; a writer thread encodes them (codec.h: palette + indices, zstd) and commits each to the
// WorldStore as one atomic write (a RocksDB WriteBatch, WAL on). Batches queued while the writer was busy are
// committed together in one write, which is still atomic, so after a crash the store holds exactly the batches
// up to some ticket: never part of a batch.
//
// Tickets number batches 1, 2, 3, ... in submission order. A batch counts as saved once committed() reaches its
// ticket; wait(t) blocks until then. With Options::sync false that means "in the OS" (survives SIGKILL, not
// power loss); with sync true the WAL is fsynced first.
// Threads: submit/wait/flush/committed may be called from any thread; the listener runs on the writer thread,
// once per ticket, in ticket order, after the batch is committed.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
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
struct PendingRecord {
  RecordKey key;
  std::vector<JournalCell> journal;
  Section section;
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
  /// Commits everything queued, then stops the writer thread.
  ~WriteBehindQueue();
  WriteBehindQueue(const WriteBehindQueue&) = delete;
  WriteBehindQueue& operator=(const WriteBehindQueue&) = delete;

  /// Queues a batch; returns its ticket. Blocks while max_queued_batches are waiting.
  uint64_t submit(std::vector<PendingRecord> batch);
  /// Blocks until the batch with this ticket is committed; returns the writer's error if a write failed (then
  /// no later batch is committed either).
  Status wait(uint64_t ticket);
  /// wait() for everything submitted so far.
  Status flush();
  /// Highest ticket committed (0 before the first).
  uint64_t committed() const;
  /// Highest ticket handed out.
  uint64_t submitted() const;
  /// Sets the function called on the writer thread after each batch commits (with its ticket).
  void set_listener(std::function<void(uint64_t)> listener);

 private:
  struct Batch {
    uint64_t ticket;
    std::vector<PendingRecord> records;
  };
  void run();

  WorldStore& m_store;
  Options m_options;
  mutable std::mutex m_mu;
  std::condition_variable m_work_cv;   // writer waits for batches
  std::condition_variable m_done_cv;   // submitters and waiters wait for progress
  std::deque<Batch> m_queue;
  std::function<void(uint64_t)> m_listener;
  uint64_t m_next_ticket = 1;
  uint64_t m_committed = 0;
  Error m_error;
  bool m_failed = false;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace voxen::store
