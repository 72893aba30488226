// The write-behind queue: batches queued while the writer is busy are committed together in one atomic write, in
// order; a failed write is reported to every waiter and nothing after it is committed (so the store always holds a
// prefix of the batches) until retry() writes the kept batches, in order; records are encoded exactly (journal and
// whole-section values decode back).
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "store_test_util.h"
#include "voxen/store/write_queue.h"

namespace voxen::store {
namespace {

/// A store whose writes wait until released, and can be told to fail: to watch the queue from outside.
class GatedStore final : public testing::WrappedMemoryStore {
 public:
  Status write(std::span<const WriteOp> ops, bool sync) override {
    std::unique_lock lock(m_mu);
    ++m_entered;
    m_cv.notify_all();
    m_cv.wait(lock, [&] { return m_open; });
    if (m_fail) return Error{"disk on fire"};
    sizes.push_back(ops.size());
    return inner.write(ops, sync);
  }
  void open_gate() {
    std::lock_guard lock(m_mu);
    m_open = true;
    m_cv.notify_all();
  }
  void wait_entered(int n) {
    std::unique_lock lock(m_mu);
    m_cv.wait(lock, [&] { return m_entered >= n; });
  }
  void fail() { m_fail = true; }
  void heal() { m_fail = false; }
  std::vector<size_t> sizes;

 private:
  std::mutex m_mu;
  std::condition_variable m_cv;
  bool m_open = false;
  std::atomic<bool> m_fail = false;
  int m_entered = 0;
};

/// The tickets a queue's listener reports, in order (the listener runs on the writer thread).
struct SeenTickets {
  std::mutex mu;
  std::vector<uint64_t> tickets;
  void listen_to(WriteBehindQueue& q) {
    q.set_listener([this](uint64_t t) {
      std::lock_guard lock(mu);
      tickets.push_back(t);
    });
  }
  std::vector<uint64_t> get() {
    std::lock_guard lock(mu);
    return tickets;
  }
};

std::vector<PendingRecord> one_record(int64_t x, uint16_t index, uint16_t id) {
  PendingRecord r;
  r.key = {RecordKind::kJournal, SectionPos{x, 3, 0}};
  r.journal = {{index, Cell{id, 0}}};
  return {r};
}

TEST(WriteBehindQueue, BatchesQueuedWhileTheWriterIsBusyCommitTogetherInOrder) {
  GatedStore store;
  WriteBehindQueue q(store, {});
  SeenTickets seen;
  seen.listen_to(q);
  const uint64_t t1 = q.submit(one_record(0, 1, 5));
  store.wait_entered(1);  // the writer holds batch 1
  uint64_t last = 0;
  for (int i = 0; i < 10; ++i) last = q.submit(one_record(1, static_cast<uint16_t>(i), static_cast<uint16_t>(10 + i)));
  EXPECT_EQ(q.committed(), 0u);
  store.open_gate();
  ASSERT_TRUE(q.wait(last).ok());
  EXPECT_EQ(t1, 1u);
  EXPECT_EQ(last, 11u);
  EXPECT_EQ(q.committed(), 11u);
  ASSERT_EQ(store.sizes.size(), 2u);  // batch 1, then batches 2..11 in one write
  EXPECT_EQ(store.sizes[1], 10u);
  std::vector<uint64_t> want;
  for (uint64_t t = 1; t <= 11; ++t) want.push_back(t);
  EXPECT_EQ(seen.get(), want);
  // The later batch's record wins: the last write to (1, 3, 0) was index 9, id 19.
  auto v = store.inner.get({RecordKind::kJournal, SectionPos{1, 3, 0}});
  ASSERT_TRUE(v.ok() && v->has_value());
  auto payload = unseal(**v, PayloadKind::kJournal);
  ASSERT_TRUE(payload.ok());
  auto cells = decode_journal(*payload);
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ(*cells, (std::vector<JournalCell>{{9, Cell{19, 0}}}));
}

TEST(WriteBehindQueue, AFailedWriteIsReportedAndNothingAfterItCommits) {
  GatedStore store;
  WriteBehindQueue q(store, {});
  store.fail();
  const uint64_t t1 = q.submit(one_record(0, 1, 5));
  store.open_gate();
  Status s = q.wait(t1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("disk on fire"), std::string::npos);
  const uint64_t t2 = q.submit(one_record(0, 2, 6));
  EXPECT_FALSE(q.wait(t2).ok());
  EXPECT_FALSE(q.flush().ok());
  EXPECT_EQ(q.committed(), 0u);
  EXPECT_TRUE(store.inner.list(RecordKind::kJournal)->empty());
}

// A failed write loses nothing: its batch and every later one stay in the queue (named by unsaved_columns()), the
// writer waits, and retry() writes them in ticket order once the store works again; until then wait() reports the
// failure and the number of failed attempts counts up.
TEST(WriteBehindQueue, AFailedWriteKeepsItsBatchesAndARetryWritesThemInOrder) {
  GatedStore store;
  WriteBehindQueue q(store, {});
  SeenTickets seen;
  seen.listen_to(q);
  store.fail();
  store.open_gate();
  const uint64_t t1 = q.submit(one_record(0, 1, 5));
  ASSERT_FALSE(q.wait(t1).ok());
  const uint64_t t2 = q.submit(one_record(-3, 2, 6));
  const uint64_t t3 = q.submit(one_record(0, 1, 7));  // the same cell again: the later batch must win
  EXPECT_FALSE(q.wait(t3).ok());
  ASSERT_TRUE(q.failure().has_value());
  EXPECT_NE(q.failure()->message.find("disk on fire"), std::string::npos);
  EXPECT_EQ(q.unsaved_columns(), (std::vector<ColumnPos>{{-3, 0}, {0, 0}}));
  q.retry();  // still failing
  EXPECT_FALSE(q.wait(t3).ok());
  EXPECT_EQ(q.failed_attempts(), 2u);
  EXPECT_TRUE(store.inner.list(RecordKind::kJournal)->empty());
  ASSERT_EQ(q.unsaved_columns(), (std::vector<ColumnPos>{{-3, 0}, {0, 0}}));  // all three batches still kept

  store.heal();
  q.retry();
  ASSERT_TRUE(q.wait(t3).ok());
  EXPECT_EQ(q.failed_attempts(), 0u);
  EXPECT_FALSE(q.failure().has_value());
  EXPECT_TRUE(q.unsaved_columns().empty());
  EXPECT_EQ(t2, 2u);
  EXPECT_EQ(seen.get(), (std::vector<uint64_t>{1, 2, 3}));
  auto journal = [&](int64_t x) {
    auto v = store.inner.get({RecordKind::kJournal, SectionPos{x, 3, 0}});
    EXPECT_TRUE(v.ok() && v->has_value());
    auto payload = unseal(**v, PayloadKind::kJournal);
    return *decode_journal(*payload);
  };
  EXPECT_EQ(journal(-3), (std::vector<JournalCell>{{2, Cell{6, 0}}}));
  EXPECT_EQ(journal(0), (std::vector<JournalCell>{{1, Cell{7, 0}}}));
}

TEST(WriteBehindQueue, EncodesDeletesForEmptyJournalsAndAirSections) {
  PendingRecord j;
  j.key = {RecordKind::kJournal, SectionPos{2, 2, 2}};
  EXPECT_FALSE(encode_record(j).value.has_value());
  PendingRecord s;
  s.key = {RecordKind::kSection, SectionPos{2, 2, 2}};
  EXPECT_FALSE(encode_record(s).value.has_value());
  s.section.set(7, Cell{3, 1});
  const WriteOp op = encode_record(s);
  ASSERT_TRUE(op.value.has_value());
  auto payload = unseal(*op.value, PayloadKind::kSection);
  ASSERT_TRUE(payload.ok());
  size_t pos = 0;
  auto back = decode_section(*payload, pos);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->same_cells(s.section));
}

}  // namespace
}  // namespace voxen::store
