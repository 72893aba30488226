// A failed write never makes an edit disappear silently (issue 13, item 2). A store that fails its k-th write (once,
// twice in a row, or from then on), for several k: a column unloaded with edits is either loaded back with them or
// its load fails naming the column and the cause, every time it is asked for; edits made after the failure in other
// columns are kept and written when a retry succeeds; close() names the columns whose edits are lost. And the same
// through the session calls the game makes (load batches on a pool, apply, commit after each edit, unload behind).
// On the real RocksDB store too: a write that fails (a file size limit makes the WAL append fail with EFBIG, as a full
// disk would) is retried on a reopened database once the limit is lifted, and a full disk under RocksDB's info log does
// not abort the process.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <functional>
#include <map>
#include <mutex>
#include <set>

#include "store_test_util.h"
#include "voxen/core/job_pool.h"
#include "voxen/core/hash.h"
#include "voxen/store/rocks_store.h"
#include "voxen/store/world_session.h"

namespace voxen::store {
namespace {

using testing::OwnedWorld;

using testing::generator_factory;
using testing::message;
using testing::registry;

Cell block(std::string_view name) { return Cell{*registry().find(name), 0}; }

/// A MemoryWorldStore whose n-th write (1-based, counting every write() call) fails when fails(n) says so, with
/// "disk full at write n": the tests' failing disk. Reads always work.
class FailingStore final : public testing::WrappedMemoryStore {
 public:
  explicit FailingStore(std::function<bool(uint64_t)> fails) : m_fails(std::move(fails)) {}
  Status write(std::span<const WriteOp> ops, bool sync) override {
    uint64_t n;
    {
      std::lock_guard lock(m_mu);
      n = ++m_writes;
    }
    if (m_fails(n)) return Error{"disk full at write " + std::to_string(n)};
    return inner.write(ops, sync);
  }
  uint64_t writes() const {
    std::lock_guard lock(m_mu);
    return m_writes;
  }

 private:
  std::function<bool(uint64_t)> m_fails;
  mutable std::mutex m_mu;
  uint64_t m_writes = 0;
};

WorldMeta flat_meta() {
  WorldMeta m;
  m.seed = 3;
  m.generator = "flat";
  return m;
}

std::unique_ptr<OwnedWorld> attach(WorldStore& store, const WorldMeta& meta = flat_meta()) {
  auto s = OwnedWorld::attach(store, meta, registry(), *generator_factory()("flat", 3));
  EXPECT_TRUE(s.ok()) << message(s.error());
  return s.ok() ? std::move(s).value() : nullptr;
}

/// Makes `n` successful writes (an edit in a column of its own, committed and waited for), so the next write is
/// number n + 1.
void successful_writes(OwnedWorld& s, int n) {
  for (int i = 0; i < n; ++i) {
    const ColumnPos c{40 + i, 40};
    ASSERT_TRUE(s.load({c}).ok());
    ASSERT_TRUE(s.edit({c.min_x(), 5, c.min_z()}, block("stone")).has_value());
    auto t = s.commit();
    ASSERT_TRUE(t.ok()) << message(t.error());
    ASSERT_TRUE(s.wait(*t).ok());
  }
}

enum class Failure { kOnce, kTwice, kForever };

std::function<bool(uint64_t)> failing(Failure f, uint64_t k) {
  switch (f) {
    case Failure::kOnce: return [k](uint64_t n) { return n == k; };
    case Failure::kTwice: return [k](uint64_t n) { return n == k || n == k + 1; };
    default: return [k](uint64_t n) { return n >= k; };
  }
}

const char* name_of(Failure f) { return f == Failure::kOnce ? "once" : f == Failure::kTwice ? "twice" : "forever"; }

// The case: the write of an unloaded column's batch fails; the column is then asked for again and again.
// Each load either gives the column with its edits or fails naming the column and the cause; never the column
// without them. A failure that passes (once, twice) heals by retrying from the kept records.
TEST(WriteFailure, AnUnloadedColumnIsNeverLoadedWithoutItsEditsWhateverWriteFails) {
  const ColumnPos c{0, 0};
  const BlockPos p{3, 1, 3}, q{12, 40, 7};
  for (const Failure f : {Failure::kOnce, Failure::kTwice, Failure::kForever}) {
    for (uint64_t k = 1; k <= 4; ++k) {
      SCOPED_TRACE(std::string("write ") + std::to_string(k) + " fails " + name_of(f));
      FailingStore store(failing(f, k));
      auto s = attach(store);
      ASSERT_TRUE(s);
      ASSERT_NO_FATAL_FAILURE(successful_writes(*s, static_cast<int>(k) - 1));
      ASSERT_TRUE(s->load({c}).ok());
      ASSERT_TRUE(s->edit(p, block("glass")).has_value());
      ASSERT_TRUE(s->edit(q, block("bricks")).has_value());
      ASSERT_TRUE(s->unload(c).ok());  // its batch is write k

      int loaded = 0, failed = 0;
      for (int attempt = 0; attempt < 8; ++attempt) {
        auto r = s->load({c});
        if (!r.ok()) {
          ++failed;
          EXPECT_FALSE(s->loaded(c));
          const std::string m = message(r.error());
          EXPECT_NE(m.find("cannot load column (0, 0)"), std::string::npos) << m;
          EXPECT_NE(m.find("disk full at write"), std::string::npos) << m;
          continue;
        }
        ++loaded;
        EXPECT_EQ(s->get(p), block("glass"));
        EXPECT_EQ(s->get(q), block("bricks"));
        ASSERT_TRUE(s->unload(c).ok());  // nothing changed: no batch, the next load reads the store
      }
      if (f == Failure::kForever) {
        EXPECT_EQ(loaded, 0);
        // The session gave up after its retries: no write is tried for the later loads.
        EXPECT_EQ(store.writes(), k + WorldSession::kMaxWriteRetries);
        const Status closed = s->close();
        ASSERT_FALSE(closed.ok());
        EXPECT_NE(closed.error().message.find("the edits of 1 column (0, 0) are not saved"), std::string::npos)
            << closed.error().message;
      } else {
        // Once: the first load's retry succeeds. Twice: the first load's retry fails too, the next one succeeds.
        EXPECT_EQ(failed, f == Failure::kOnce ? 0 : 1);
        EXPECT_EQ(loaded, 8 - failed);
        ASSERT_TRUE(s->close().ok());
        auto again = attach(store.inner, s->meta());
        ASSERT_TRUE(again->load({c}).ok());
        EXPECT_EQ(again->get(p), block("glass"));
        EXPECT_EQ(again->get(q), block("bricks"));
      }
    }
  }
}

// Edits made after a failed write, in other columns, loaded or unloaded, are kept behind the failed batch and
// written, in order, when a retry succeeds; commit() says so while it fails. Nothing else is written meanwhile (the
// store keeps a prefix of the batches).
TEST(WriteFailure, EditsMadeAfterAFailureInOtherColumnsAreKeptAndWrittenWhenARetrySucceeds) {
  FailingStore store(failing(Failure::kTwice, 1));  // writes 1 and 2 fail, then the disk is back
  auto s = attach(store);
  const ColumnPos a{0, 0}, b{1, 0}, d{-1, 2};
  ASSERT_TRUE(s->load({a, b, d}).ok());
  ASSERT_TRUE(s->edit({1, 1, 1}, block("glass")).has_value());
  auto t1 = s->commit();  // write 1: fails on the writer thread
  ASSERT_TRUE(t1.ok());
  EXPECT_FALSE(s->wait(*t1).ok());  // write 2 (the retry) fails too
  ASSERT_TRUE(s->edit({17, 1, 1}, block("bricks")).has_value());
  ASSERT_TRUE(s->edit({-15, 1, 33}, block("planks")).has_value());
  ASSERT_TRUE(s->unload(d).ok());  // queued behind the failed batch, kept
  EXPECT_TRUE(store.inner.list(RecordKind::kJournal)->empty());  // nothing written out of order
  // The next commit retries (write 3 succeeds, carrying everything kept), then queues column b's edit.
  auto t2 = s->commit();
  ASSERT_TRUE(t2.ok()) << message(t2.error());
  ASSERT_TRUE(s->wait(*t2).ok());
  ASSERT_TRUE(s->close().ok());
  auto again = attach(store.inner, s->meta());
  ASSERT_TRUE(again->load({a, b, d}).ok());
  EXPECT_EQ(again->get({1, 1, 1}), block("glass"));
  EXPECT_EQ(again->get({17, 1, 1}), block("bricks"));
  EXPECT_EQ(again->get({-15, 1, 33}), block("planks"));
}

// A store that stays broken: commit() fails every time, naming the cause and the columns whose edits are kept, and
// leaves the new changes recorded (a commit that fails takes nothing); close() names every column whose edits are
// lost, those committed before the failure and those never committed alike.
TEST(WriteFailure, ABrokenStoreIsReportedByEveryCommitAndCloseNamesEveryColumnLost) {
  FailingStore store(failing(Failure::kForever, 1));
  auto s = attach(store);
  const ColumnPos a{0, 0}, b{2, -1};
  ASSERT_TRUE(s->load({a, b}).ok());
  ASSERT_TRUE(s->edit({1, 1, 1}, block("glass")).has_value());
  auto t1 = s->commit();  // queued; write 1 fails on the writer thread
  ASSERT_TRUE(t1.ok());
  EXPECT_FALSE(s->wait(*t1).ok());  // and its retry, write 2
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(s->edit({33, 1, -9 - i}, block("bricks")).has_value());
    auto t = s->commit();
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().message.find("disk full at write"), std::string::npos) << t.error().message;
    EXPECT_NE(t.error().message.find("column (0, 0)"), std::string::npos) << t.error().message;
  }
  EXPECT_EQ(store.writes(), 1 + WorldSession::kMaxWriteRetries);
  const Status closed = s->close();
  ASSERT_FALSE(closed.ok());
  EXPECT_NE(closed.error().message.find("the edits of 2 columns (0, 0), (2, -1) are not saved"), std::string::npos)
      << closed.error().message;
  EXPECT_TRUE(store.inner.list(RecordKind::kJournal)->empty());
}

// The game's calls (stream::SavedWorld under the streamer): load batches of columns on a job pool, apply each
// edit, commit after each edit frame, unload the columns left behind, walking east and back. Whatever write fails,
// the game is told (some call returns an error) or every edit is in the store after close; and a column whose edits
// are not in the store is named by the error close() returns.
TEST(WriteFailure, TheGamesCallsEitherSaveEveryEditOrReportTheColumnsLost) {
  JobPool pool(2);
  for (const Failure f : {Failure::kOnce, Failure::kTwice, Failure::kForever}) {
    for (uint64_t k = 1; k <= 6; ++k) {
      SCOPED_TRACE(std::string("write ") + std::to_string(k) + " fails " + name_of(f));
      FailingStore store(failing(f, k));
      auto s = attach(store);
      ASSERT_TRUE(s);
      std::map<BlockPos, Cell> placed;
      std::set<ColumnPos> loaded;
      bool told = false;
      std::string errors;
      auto note = [&](const Error& e) {
        told = true;
        errors += e.message + "\n";
      };
      // Walk: the player stands in column (x, 0) for x = 0..5 and back to 0, keeping columns x-1..x+1 loaded.
      std::vector<int64_t> path = {0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 0};
      for (size_t step = 0; step < path.size(); ++step) {
        const int64_t x = path[step];
        std::vector<ColumnPos> want = {{x - 1, 0}, {x, 0}, {x + 1, 0}};
        for (const ColumnPos& c : std::set<ColumnPos>(loaded))
          if (c.x < x - 1 || c.x > x + 1) {
            if (Status u = s->unload(c); !u.ok()) note(u.error());
            loaded.erase(c);
          }
        auto r = s->load(want, &pool);
        if (!r.ok()) {
          note(r.error());
          continue;  // the game stops streaming there; the player walks on
        }
        for (const ColumnPos& c : want) loaded.insert(c);
        const BlockPos p{x * 16 + static_cast<int64_t>(step % 16), 2, static_cast<int64_t>(step)};
        const Cell cell = step % 2 ? block("glass") : block("bricks");
        Edit e{p, s->get(p), cell, 0};
        ASSERT_TRUE(s->apply(e));
        placed[p] = cell;
        if (auto t = s->commit(); !t.ok()) note(t.error());
      }
      const Status closed = s->close();
      if (!closed.ok()) note(closed.error());
      auto again = attach(store.inner, s->meta());
      std::set<ColumnPos> missing;
      for (const auto& [p, cell] : placed) {
        ASSERT_TRUE(again->load({column_pos_of(p)}).ok());
        if (again->get(p) != cell) missing.insert(column_pos_of(p));
      }
      if (f != Failure::kForever) {
        // A failure that passes is healed by a retry: everything is saved.
        EXPECT_TRUE(missing.empty());
        EXPECT_TRUE(closed.ok()) << closed.error().message;
      } else if (store.writes() >= k) {  // the writer merges queued batches, so there may be fewer than k writes
        EXPECT_TRUE(told);
        EXPECT_FALSE(closed.ok());
      }
      for (const ColumnPos& c : missing) {
        const std::string name = "(" + std::to_string(c.x) + ", " + std::to_string(c.z) + ")";
        EXPECT_FALSE(closed.ok());
        if (!closed.ok()) {
          EXPECT_NE(closed.error().message.find(name), std::string::npos) << name << ": " << errors;
        }
      }
    }
  }
}

/// Lowers this process's file size limit (RLIMIT_FSIZE, soft) to `bytes` while it lives, with SIGXFSZ ignored, so an
/// append past `bytes` to any file fails with EFBIG ("File too large"): a disk that fills up, for the real store.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    m_old_handler = ::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &m_old);
    rlimit lim = m_old;
    lim.rlim_cur = bytes;
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &lim), 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &m_old);
    ::signal(SIGXFSZ, m_old_handler);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit m_old{};
  sighandler_t m_old_handler;
};

/// A new RocksWorldStore in tmp/db (its kept-aside folder tmp/corrupt); null after a test failure.
std::unique_ptr<RocksWorldStore> new_rocks_store(const testing::TempDir& tmp) {
  auto opened = RocksWorldStore::open(tmp.path() / "db", tmp.path() / "corrupt", true);
  EXPECT_TRUE(opened.ok()) << message(opened.error());
  return opened.ok() ? std::move(opened).value() : nullptr;
}

/// The size of the largest file in `dir` that `pick` selects, and of the largest other file.
std::pair<uintmax_t, uintmax_t> largest_files(const std::filesystem::path& dir,
                                              const std::function<bool(const std::filesystem::path&)>& pick) {
  std::pair<uintmax_t, uintmax_t> out{0, 0};
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    uintmax_t& m = pick(e.path()) ? out.first : out.second;
    m = std::max(m, std::filesystem::file_size(e.path()));
  }
  return out;
}

// RocksDB refuses every write after one failed (its background error, which DB::Resume does not clear for a WAL
// write in 7.8): the store reopens the database before the next write, so a retry succeeds once the disk has room,
// and a reopen that fails too (recovery needs room as well) is an error for reads and writes until one succeeds.
// The WAL is made the largest file first, so the limit makes only WAL appends fail (RocksDB's info LOG stays below
// it: Debian's RocksDB asserts when its info logger fails twice).
TEST(WriteFailure, OnTheRealStoreAFailedWriteIsRetriedOnAReopenedDatabase) {
  testing::TempDir tmp;
  const std::filesystem::path db = tmp.path() / "db";
  auto opened = new_rocks_store(tmp);
  ASSERT_TRUE(opened);
  RocksWorldStore& store = *opened;
  const RecordKey big{RecordKind::kJournal, SectionPos{0, 1, 0}}, small{RecordKind::kJournal, SectionPos{0, 2, 0}};
  std::string padding(256 * 1024, '\0');
  for (size_t i = 0; i < padding.size(); ++i) padding[i] = static_cast<char>(mix64(i) & 0xFF);  // incompressible
  ASSERT_TRUE(store.write(std::vector<WriteOp>{{big, padding}}, false).ok());
  const auto [wal, largest_other] = largest_files(db, [](const auto& p) { return p.extension() == ".log"; });
  ASSERT_GT(wal, largest_other + 64 * 1024);
  {
    FileSizeLimit full(static_cast<rlim_t>(wal + 16));  // the next WAL append does not fit
    const Status w = store.write(std::vector<WriteOp>{{small, std::string("x")}}, false);
    ASSERT_FALSE(w.ok());
    EXPECT_NE(w.error().message.find("File too large"), std::string::npos) << w.error().message;
    // The retry reopens the database, whose recovery writes the WAL's 256 KiB to a table: no room for that either.
    const Status again = store.write(std::vector<WriteOp>{{small, std::string("y")}}, false);
    ASSERT_FALSE(again.ok());
    EXPECT_NE(again.error().message.find("cannot reopen database " + db.string() + " after a failed write"), std::string::npos)
        << again.error().message;
    auto read = store.get(big);
    ASSERT_FALSE(read.ok());  // no database open: reads say why
    EXPECT_NE(read.error().message.find("cannot reopen database"), std::string::npos) << read.error().message;
  }
  ASSERT_EQ(store.writes(), 1u);  // the padding; the failed writes do not count
  const Status healed = store.write(std::vector<WriteOp>{{small, std::string("z")}}, false);
  ASSERT_TRUE(healed.ok()) << healed.error().message;
  EXPECT_EQ(store.writes(), 2u);
  EXPECT_EQ(**store.get(big), padding);
  EXPECT_EQ(**store.get(small), "z");
  ASSERT_TRUE(store.close().ok());
  auto back = RocksWorldStore::open(db, tmp.path() / "corrupt", false);
  ASSERT_TRUE(back.ok()) << message(back.error());
  EXPECT_EQ((*back)->recovery_warning(), "");
  EXPECT_EQ((*back)->writes(), 2u);
  EXPECT_EQ(**(*back)->get(small), "z");
}

// A full disk also fails RocksDB's info log (db/LOG) appends; RocksDB's own file logger aborts the process on the
// second failure (an assertion in Debian's build), which would lose every edit not yet written. Here only the LOG is
// over the limit, and a write and a flush (which log several lines each) must go on as if nothing happened.
TEST(WriteFailure, ADiskTooFullForTheInfoLogDoesNotStopTheStore) {
  testing::TempDir tmp;
  auto opened = new_rocks_store(tmp);
  ASSERT_TRUE(opened);
  RocksWorldStore& store = *opened;
  const auto [log, largest_other] = largest_files(tmp.path() / "db", [](const auto& p) { return p.filename() == "LOG"; });
  ASSERT_GT(log, largest_other + 4096);
  const RecordKey k{RecordKind::kJournal, SectionPos{5, 1, 5}};
  {
    FileSizeLimit full(static_cast<rlim_t>(largest_other + 4096));  // the LOG is past it; the flush's table is not
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(store.write(std::vector<WriteOp>{{k, std::to_string(i)}}, false).ok());
      ASSERT_TRUE(store.flush().ok());
    }
  }
  EXPECT_EQ(**store.get(k), "2");
  ASSERT_TRUE(store.close().ok());
}

}  // namespace
}  // namespace voxen::store
