#include "voxen/store/write_queue.h"

#include <algorithm>

namespace voxen::store {

WriteOp encode_record(const PendingRecord& record, const SealOptions& seal_options) {
  WriteOp op{record.key, std::nullopt};
  std::string payload;
  if (record.key.kind == RecordKind::kSimulation || record.key.kind == RecordKind::kEditLog ||
      record.key.kind == RecordKind::kCreatures) {
    if (record.raw.empty()) return op;
    const PayloadKind kind = record.key.kind == RecordKind::kSimulation ? PayloadKind::kSimState
                             : record.key.kind == RecordKind::kEditLog  ? PayloadKind::kEditLog
                                                                        : PayloadKind::kCreatures;
    op.value = seal(kind, record.raw, seal_options);
  } else if (record.key.kind == RecordKind::kJournal) {
    if (record.journal.empty()) return op;
    encode_journal(record.journal, payload);
    op.value = seal(PayloadKind::kJournal, payload, seal_options);
  } else {
    if (record.section.is_empty()) return op;
    encode_section(record.section, payload);
    op.value = seal(PayloadKind::kSection, payload, seal_options);
  }
  return op;
}

WriteBehindQueue::WriteBehindQueue(WorldStore& store, Options options) : m_store(store), m_options(options) {
  m_thread = std::thread([this] { run(); });
}

WriteBehindQueue::~WriteBehindQueue() {
  {
    std::lock_guard lock(m_mu);
    m_stop = true;
  }
  m_work_cv.notify_all();
  m_thread.join();
}

uint64_t WriteBehindQueue::submit(std::vector<PendingRecord> batch) {
  std::unique_lock lock(m_mu);
  // Stopped on a failure, the queue keeps what it is given (the edits stay in memory, to be retried).
  m_done_cv.wait(lock, [&] { return m_queue.size() - m_writing < m_options.max_queued_batches || m_failed; });
  const uint64_t ticket = m_next_ticket++;
  m_queue.push_back({ticket, std::move(batch)});
  lock.unlock();
  m_work_cv.notify_one();
  return ticket;
}

Status WriteBehindQueue::wait(uint64_t ticket) {
  std::unique_lock lock(m_mu);
  m_done_cv.wait(lock, [&] { return m_committed >= ticket || m_failed; });
  if (m_committed >= ticket) return Ok{};
  return m_error;
}

Status WriteBehindQueue::flush() {
  uint64_t last;
  {
    std::lock_guard lock(m_mu);
    last = m_next_ticket - 1;
  }
  return wait(last);
}

uint64_t WriteBehindQueue::committed() const {
  std::lock_guard lock(m_mu);
  return m_committed;
}

uint64_t WriteBehindQueue::submitted() const {
  std::lock_guard lock(m_mu);
  return m_next_ticket - 1;
}

void WriteBehindQueue::set_listener(std::function<void(uint64_t)> listener) {
  std::lock_guard lock(m_mu);
  m_listener = std::move(listener);
}

std::optional<Error> WriteBehindQueue::failure() const {
  std::lock_guard lock(m_mu);
  if (!m_failed) return std::nullopt;
  return m_error;
}

uint64_t WriteBehindQueue::failed_attempts() const {
  std::lock_guard lock(m_mu);
  return m_failed_attempts;
}

void WriteBehindQueue::retry() {
  {
    std::lock_guard lock(m_mu);
    if (!m_failed) return;
    m_failed = false;
  }
  m_work_cv.notify_all();
}

std::vector<ColumnPos> WriteBehindQueue::unsaved_columns() const {
  std::vector<ColumnPos> out;
  {
    std::lock_guard lock(m_mu);
    for (const Batch& b : m_queue)
      for (const PendingRecord& r : b.records)
        if (r.key.kind != RecordKind::kSimulation && r.key.kind != RecordKind::kEditLog && r.key.kind != RecordKind::kCreatures)
          out.push_back(r.key.pos.column());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void WriteBehindQueue::run() {
  for (;;) {
    std::vector<const Batch*> taken;  // the head of m_queue; only this thread removes batches, so they stay put
    std::function<void(uint64_t)> listener;
    {
      std::unique_lock lock(m_mu);
      // Stopped on a failure, the writer waits for retry(): writing a later batch first would break the prefix.
      m_work_cv.wait(lock, [&] { return (!m_queue.empty() && !m_failed) || m_stop; });
      if (m_queue.empty() || m_failed) return;  // stopping: everything is committed, or the owner gave up
      size_t records = 0;
      for (const Batch& b : m_queue) {
        if (!taken.empty() && records + b.records.size() > m_options.max_records_per_write) break;
        records += b.records.size();
        taken.push_back(&b);
      }
      m_writing = taken.size();
      listener = m_listener;
    }
    m_done_cv.notify_all();  // the batches being written no longer count as waiting: room for blocked submitters

    std::vector<WriteOp> ops;
    for (const Batch* b : taken)
      for (const PendingRecord& r : b->records) ops.push_back(encode_record(r, m_options.seal));
    Status s = ops.empty() ? Status(Ok{}) : m_store.write(ops, m_options.sync);

    std::vector<uint64_t> tickets;
    {
      std::lock_guard lock(m_mu);
      m_writing = 0;
      if (s.ok()) {
        for (size_t i = 0; i < taken.size(); ++i) {
          tickets.push_back(m_queue.front().ticket);
          m_queue.pop_front();  // committed: the records are in the store now
        }
        m_committed = tickets.back();
        m_failed_attempts = 0;
      } else {
        m_failed = true;  // the batches stay at the head of the queue, kept for retry()
        m_error = s.error();
        ++m_failed_attempts;
      }
    }
    if (s.ok() && listener)
      for (const uint64_t t : tickets) listener(t);
    m_done_cv.notify_all();  // waiters, and submitters blocked on a full queue
  }
}

}  // namespace voxen::store
