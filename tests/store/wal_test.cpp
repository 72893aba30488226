// The write-ahead log of a saved world, through the real binary. A clean close flushes the memtable, so the world's
// data survives deleting or damaging every db/*.log file afterwards (the tester's case: one flipped byte in the WAL
// of a cleanly closed session used to lose that whole session's edits, silently). An unclean close (SIGKILL of
// `voxen store-stress`) leaves a WAL with bytes; the next open copies it into corrupt/wal-<n>-<file> byte for byte
// before RocksDB recovers (and later deletes) it, and warns naming the world, the copy and whether all of it replayed.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_command.h"
#include "store_test_util.h"
#include "voxen/store/stress.h"

namespace voxen::store {
namespace {

using testing::run_voxen;
namespace fs = std::filesystem;

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

/// Every db/*.log file of a world: name -> bytes.
std::map<std::string, std::string> wal_files(const fs::path& world) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(world / "db"))
    if (e.path().extension() == ".log") out[e.path().filename().string()] = testing::read_file_bytes(e.path());
  return out;
}

/// The "block" names `voxen probe --world w --at ... --json` prints for the given positions ("" on failure).
std::vector<std::string> probe_blocks(const fs::path& world, const std::vector<std::string>& at, std::string* err = nullptr) {
  std::vector<std::string> args = {"probe", "--world", world.string(), "--json", "--threads", "1"};
  for (const auto& a : at) args.insert(args.end(), {"--at", a});
  auto r = run_voxen(args);
  if (err) *err = r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded()) return out;
  for (const auto& c : j["cells"]) out.push_back(c["block"].get<std::string>());
  return out;
}

/// Runs `voxen store-stress` on `world` (created with seed 11, flat) until it reports batch `until` committed,
/// then SIGKILLs it: the session never closes, so its edits are only in the WAL.
void run_stress_and_kill(const fs::path& world, int until) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(fds[1], 3);
    if (fds[0] != 3) ::close(fds[0]);
    if (fds[1] != 3) ::close(fds[1]);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(VOXEN_BINARY, "voxen", "store-stress", "--world", world.c_str(), "--seed", "11", "--generator", "flat",
            "--batches", "0", "--report-fd", "3", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  const std::string want = "committed " + std::to_string(until) + "\n";
  std::string buf;
  char chunk[4096];
  while (buf.find(want) == std::string::npos) {
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(fds[0]);
  ASSERT_NE(buf.find(want), std::string::npos) << "store-stress ended before committing batch " << until << ":\n" << buf;
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

TEST(WorldWal, AfterACleanCloseDeletingOrDamagingEveryLogFileLosesNothing) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "w2";
  // The tester's sessions: one creates the world with an edit, the next adds two edits and closes cleanly.
  ASSERT_EQ(run_voxen({"probe", "--seed", "7", "--world", w.string(), "--edit", "0,100,0=glowstone", "--at", "0,100,0"}).exit_code, 0);
  auto second = run_voxen({"probe", "--world", w.string(), "--edit", "20,100,0=glowstone", "--edit", "40,100,0=torch",
                           "--at", "20,100,0"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const std::vector<std::string> at = {"0,100,0", "20,100,0", "40,100,0"};
  const std::vector<std::string> want = {"glowstone", "glowstone", "torch"};

  // The WAL of the cleanly closed world holds nothing.
  const auto logs = wal_files(w);
  ASSERT_FALSE(logs.empty());
  for (const auto& [name, bytes] : logs) EXPECT_EQ(bytes.size(), 0u) << name;

  // Deleted: every *.log file.
  const fs::path deleted = tmp.path() / "deleted";
  fs::copy(w, deleted, fs::copy_options::recursive);
  for (const auto& [name, bytes] : logs) fs::remove(deleted / "db" / name);
  EXPECT_EQ(probe_blocks(deleted, at), want);

  // Damaged: a flipped byte in every *.log that has bytes, garbage in every empty one.
  const fs::path damaged = tmp.path() / "damaged";
  fs::copy(w, damaged, fs::copy_options::recursive);
  for (auto [name, bytes] : logs) {
    if (bytes.empty()) {
      for (int i = 0; i < 119; ++i) bytes.push_back(static_cast<char>(0x5A ^ (i * 37)));
    } else {
      bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0xFF);
    }
    write_bytes(damaged / "db" / name, bytes);
  }
  std::string err;
  EXPECT_EQ(probe_blocks(damaged, at, &err), want);
  // The garbage is a WAL with bytes: it is kept aside and reported like any other (it replays nothing).
  EXPECT_NE(err.find("world " + damaged.string() + ": the database's write-ahead log holds"), std::string::npos) << err;
  EXPECT_EQ(probe_blocks(w, at), want);  // and the world itself, untouched
}

TEST(WorldWal, AnUncleanCloseLeavesAWalThatTheNextOpenCopiesAsideAndReports) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  run_stress_and_kill(w, 3);
  std::map<std::string, std::string> left;
  for (auto& [name, bytes] : wal_files(w))
    if (!bytes.empty()) left[name] = std::move(bytes);
  ASSERT_FALSE(left.empty()) << "the killed session left no WAL bytes";

  std::string err;
  const std::vector<std::string> blocks = probe_blocks(w, {"0,1,0"}, &err);
  EXPECT_EQ(blocks.size(), 1u);
  EXPECT_NE(err.find("warning: world " + w.string() + ": the database's write-ahead log holds"), std::string::npos) << err;
  for (const auto& [name, bytes] : left) {
    const fs::path copy = w / "corrupt" / ("wal-1-" + name);
    ASSERT_TRUE(fs::exists(copy)) << copy << "\n" << err;
    EXPECT_EQ(testing::read_file_bytes(copy), bytes) << copy;  // same bytes
    EXPECT_NE(err.find(copy.string()), std::string::npos) << err;
  }

  // That session closed cleanly: the next one has nothing to recover and says nothing.
  const std::vector<std::string> again = probe_blocks(w, {"0,1,0"}, &err);
  EXPECT_EQ(again, blocks);
  EXPECT_EQ(err.find("write-ahead log"), std::string::npos) << err;
  for (const auto& e : fs::directory_iterator(w / "corrupt"))
    EXPECT_EQ(e.path().filename().string().rfind("wal-1-", 0), 0u) << e.path();
}

TEST(WorldWal, ADamagedWalIsKeptAsItWasAndTheWarningSaysRecordsWereDropped) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  run_stress_and_kill(w, 3);
  std::string name, bytes;
  for (auto& [n, b] : wal_files(w))
    if (b.size() > bytes.size()) name = n, bytes = b;
  ASSERT_GT(bytes.size(), 64u);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0xFF);  // the tester's flipped byte
  write_bytes(w / "db" / name, bytes);

  std::string err;
  probe_blocks(w, {"0,1,0"}, &err);
  EXPECT_NE(err.find("world " + w.string() + ": the database's write-ahead log holds"), std::string::npos) << err;
  EXPECT_NE(err.find("it is damaged (Corruption"), std::string::npos) << err;
  EXPECT_NE(err.find("drops the rest"), std::string::npos) << err;
  const fs::path copy = w / "corrupt" / ("wal-1-" + name);
  ASSERT_TRUE(fs::exists(copy)) << err;
  EXPECT_EQ(testing::read_file_bytes(copy), bytes);  // the damaged log as it was, not deleted
}

// Issue 13, item 3 (a): an uncleanly closed world whose WAL was then truncated to 0 bytes opened without the killed
// session's edits and said nothing (the WAL had no bytes left to copy or check). The write count kept outside the
// WAL (db/VOXEN-WRITES) shows that committed writes are missing: the open warns naming the world, how many writes
// the last session committed, how many the database holds and how many were lost, and the world is exactly as it was
// after the last write it holds (the earlier clean session's edits are there, none of the lost session's).
TEST(WorldWal, AWalTruncatedAfterAnUncleanCloseIsReportedWithTheWritesLost) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  // A clean session first (stress' seed and generator): its edits are in the tables.
  auto first = run_voxen({"probe", "--world", w.string(), "--seed", "11", "--generator", "flat", "--edit", "0,60,0=glowstone",
                          "--edit", "17,60,3=glass", "--edit", "33,61,40=bricks", "--edit", "5,70,20=torch", "--at", "0,60,0"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  run_stress_and_kill(w, 5);  // batches 0..5 committed, then SIGKILL: they are only in the WAL
  bool truncated = false;
  for (const auto& [name, bytes] : wal_files(w)) {
    truncated |= !bytes.empty();
    fs::resize_file(w / "db" / name, 0);
  }
  ASSERT_TRUE(truncated) << "the killed session left no WAL bytes";

  // Every cell the stress batches wrote (y -8..23), as plain generation shows it; and the clean session's edits.
  std::vector<std::string> at = {"0,60,0", "17,60,3", "33,61,40", "5,70,20"};
  for (uint64_t b = 0; b <= 5; ++b)
    for (const auto& e : stress_batch(11, b, testing::registry()))
      at.push_back(std::to_string(e.pos.x) + "," + std::to_string(e.pos.y) + "," + std::to_string(e.pos.z));
  std::vector<std::string> plain_args = {"probe", "--seed", "11", "--generator", "flat", "--json"};
  for (const auto& a : at) plain_args.insert(plain_args.end(), {"--at", a});
  auto plain = run_voxen(plain_args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  std::vector<std::string> want;
  const auto plain_json = nlohmann::json::parse(plain.out);
  for (const auto& c : plain_json["cells"]) want.push_back(c["block"].get<std::string>());
  ASSERT_EQ(want.size(), at.size());
  want[0] = "glowstone", want[1] = "glass", want[2] = "bricks", want[3] = "torch";

  std::string err;
  EXPECT_EQ(probe_blocks(w, at, &err), want);
  const std::regex lost("world " + w.string() + ": the last session committed ([0-9]+) writes but the database holds ([0-9]+) "
                        "\\(by the write count in " + (w / "db" / "VOXEN-WRITES").string() + "\\): its write-ahead log lost "
                        "the last ([0-9]+) writes? \\(truncated, deleted or damaged after an unclean close\\); the world opens as "
                        "it was after write ([0-9]+), without the edits of the lost writes");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(err, m, lost)) << err;
  const uint64_t committed = std::stoull(m[1]), held = std::stoull(m[2]), n = std::stoull(m[3]);
  EXPECT_GE(n, 1u);
  EXPECT_EQ(committed - held, n);
  EXPECT_EQ(std::stoull(m[4]), held);
  EXPECT_EQ(testing::line_count(err), 1) << err;

  // Said once: the count now matches the database.
  EXPECT_EQ(probe_blocks(w, at, &err), want);
  EXPECT_EQ(err, "");
}

// The write count file itself missing or damaged: the open cannot check, says so, and writes it again.
TEST(WorldWal, AMissingOrDamagedWriteCountFileIsReportedAndWrittenAgain) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  ASSERT_EQ(run_voxen({"probe", "--seed", "7", "--world", w.string(), "--edit", "0,100,0=glowstone", "--at", "0,100,0"}).exit_code, 0);
  const fs::path count = w / "db" / "VOXEN-WRITES";
  ASSERT_EQ(fs::file_size(count), 24u);
  const std::string good = testing::read_file_bytes(count);
  std::string err;
  fs::remove(count);
  EXPECT_EQ(probe_blocks(w, {"0,100,0"}, &err), std::vector<std::string>{"glowstone"});
  EXPECT_NE(err.find("world " + w.string() + ": " + count.string() + " is missing, so this open could not check whether the "
                     "write-ahead log lost committed writes; it is written again"),
            std::string::npos)
      << err;
  EXPECT_EQ(testing::read_file_bytes(count), good);
  std::string flipped = good;
  flipped[9] = static_cast<char>(flipped[9] ^ 0x01);  // the count, without its check value
  write_bytes(count, flipped);
  EXPECT_EQ(probe_blocks(w, {"0,100,0"}, &err), std::vector<std::string>{"glowstone"});
  EXPECT_NE(err.find(count.string() + " is damaged (its check value does not match its count)"), std::string::npos) << err;
  EXPECT_EQ(testing::read_file_bytes(count), good);
  probe_blocks(w, {"0,100,0"}, &err);
  EXPECT_EQ(err, "");
}

// An open killed while copying leaves only a temporary file, which is not a copy and goes at the next open; copy
// numbers past int's range and names that are not wal-<n>- do not break the numbering; an open killed after its copy
// was complete does not make the next open copy the same bytes again; and opens that write nothing leave no pile of
// empty WAL files behind.
TEST(WorldWal, InterruptedCopiesOddNamesAndReadOnlyOpensLeaveAConsistentFolder) {
  testing::TempDir tmp;
  const auto killed_world = [&](const std::string& dir, std::string& big, std::string& big_bytes) {
    const fs::path w = tmp.path() / dir;
    run_stress_and_kill(w, 3);
    for (auto& [n, b] : wal_files(w))
      if (b.size() > big_bytes.size()) big = n, big_bytes = b;
    fs::create_directories(w / "corrupt");
    return w;
  };
  std::string err;
  {
    std::string big, bytes;
    const fs::path w = killed_world("a", big, bytes);
    ASSERT_FALSE(big.empty()) << "the killed session left no WAL bytes";
    write_bytes(w / "corrupt" / (".partial-1-wal-1-" + big), bytes.substr(0, bytes.size() / 2));  // cut off
    write_bytes(w / "corrupt" / "wal-2147483647-000001.log", "x");                                  // past int
    write_bytes(w / "corrupt" / "wal-x-notes.log", "y");                                            // not wal-<n>-
    EXPECT_EQ(probe_blocks(w, {"0,1,0"}, &err).size(), 1u);
    const fs::path copy = w / "corrupt" / ("wal-2147483648-" + big);
    ASSERT_TRUE(fs::exists(copy)) << err;
    EXPECT_EQ(testing::read_file_bytes(copy), bytes);
    for (const auto& e : fs::directory_iterator(w / "corrupt"))
      EXPECT_NE(e.path().filename().string().rfind(".partial-", 0), 0u) << "a temporary file was left: " << e.path();
    for (int i = 0; i < 5; ++i) probe_blocks(w, {"0,1,0"}, &err);
    EXPECT_EQ(err.find("write-ahead log"), std::string::npos) << err;
    EXPECT_LE(wal_files(w).size(), 1u) << "read-only opens left empty WAL files behind";
  }
  {
    std::string big, bytes;
    const fs::path w = killed_world("b", big, bytes);
    ASSERT_FALSE(big.empty());
    write_bytes(w / "corrupt" / ("wal-7-" + big), bytes);  // an earlier open's complete copy
    EXPECT_EQ(probe_blocks(w, {"0,1,0"}, &err).size(), 1u);
    EXPECT_NE(err.find((w / "corrupt" / ("wal-7-" + big)).string() + " (kept by an earlier open)"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(w / "corrupt" / ("wal-8-" + big))) << "the same bytes were copied twice";
  }
}

}  // namespace
}  // namespace voxen::store
