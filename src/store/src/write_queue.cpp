#include "voxen/store/write_queue.h"

namespace voxen::store {

WriteOp encode_record(const PendingRecord& record, const SealOptions& seal_options) {
  WriteOp op{record.key, std::nullopt};
  std::string payload;
  if (record.key.kind == RecordKind::kJournal) {
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
  m_done_cv.wait(lock, [&] { return m_queue.size() < m_options.max_queued_batches || m_failed; });
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

void WriteBehindQueue::run() {
  for (;;) {
    std::vector<Batch> taken;
    std::function<void(uint64_t)> listener;
    {
      std::unique_lock lock(m_mu);
      m_work_cv.wait(lock, [&] { return !m_queue.empty() || m_stop; });
      if (m_queue.empty()) return;  // stopping, and everything queued is committed
      if (m_failed) {
        // A write failed: nothing after it may be committed (that would break the prefix property).
        m_queue.clear();
        m_done_cv.notify_all();
        continue;
      }
      size_t records = 0;
      while (!m_queue.empty() && (taken.empty() || records + m_queue.front().records.size() <= m_options.max_records_per_write)) {
        records += m_queue.front().records.size();
        taken.push_back(std::move(m_queue.front()));
        m_queue.pop_front();
      }
      listener = m_listener;
    }
    m_done_cv.notify_all();  // room in the queue for blocked submitters

    std::vector<WriteOp> ops;
    for (const Batch& b : taken)
      for (const PendingRecord& r : b.records) ops.push_back(encode_record(r, m_options.seal));
    Status s = ops.empty() ? Status(Ok{}) : m_store.write(ops, m_options.sync);

    {
      std::lock_guard lock(m_mu);
      if (s.ok()) {
        m_committed = taken.back().ticket;
      } else {
        m_failed = true;
        m_error = s.error();
      }
    }
    if (s.ok() && listener)
      for (const Batch& b : taken) listener(b.ticket);
    m_done_cv.notify_all();
  }
}

}  // namespace voxen::store
