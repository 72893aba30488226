// Opening or creating a world that cannot be used, through the real binary: the error names the user's path and
// the reason (voxen.toml that is not a file, db that is not a directory, a parent that is a file, permissions),
// exits 1 and writes nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "run_command.h"
#include "store_test_util.h"

namespace voxen::store {
namespace {

using testing::run_voxen;
namespace fs = std::filesystem;

/// Creates a small flat world at w through the binary.
void make_world(const fs::path& w) {
  auto r = run_voxen({"probe", "--world", w.string(), "--seed", "3", "--generator", "flat", "--at", "0,0,0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(ProbeWorldErrors, MetaFileThatIsADirectoryIsNamedAsNotAFile) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  ASSERT_NO_FATAL_FAILURE(make_world(w));
  fs::remove(w / "voxen.toml");
  fs::create_directory(w / "voxen.toml");
  const auto before = testing::snapshot(w);
  auto r = run_voxen({"probe", "--world", w.string(), "--at", "0,0,0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find((w / "voxen.toml").string() + " is not a regular file"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("format_version"), std::string::npos) << r.err;
  EXPECT_EQ(testing::line_count(r.err), 1) << r.err;
  EXPECT_EQ(testing::snapshot(w), before);
}

TEST(ProbeWorldErrors, DbThatIsAFileIsNamedAsNotADirectory) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  ASSERT_NO_FATAL_FAILURE(make_world(w));
  fs::remove_all(w / "db");
  std::ofstream(w / "db") << "not a database";
  const auto before = testing::snapshot(w);
  auto r = run_voxen({"probe", "--world", w.string(), "--at", "0,0,0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find((w / "db").string() + " is not a directory"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("is missing"), std::string::npos) << r.err;
  EXPECT_EQ(testing::line_count(r.err), 1) << r.err;
  EXPECT_EQ(testing::snapshot(w), before);
}

TEST(ProbeWorldErrors, CreatingUnderARegularFileNamesTheUsersPathAndTheReason) {
  testing::TempDir tmp;
  std::ofstream(tmp.path() / "afile") << "x";
  const fs::path w = tmp.path() / "afile" / "sub";
  const auto before = testing::snapshot(tmp.path());
  auto r = run_voxen({"probe", "--seed", "1", "--world", w.string(), "--at", "0,0,0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot create the world " + w.string() + ": Not a directory"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(".creating-"), std::string::npos) << r.err;  // the staging name is an internal detail
  EXPECT_EQ(testing::line_count(r.err), 1) << r.err;
  EXPECT_EQ(testing::snapshot(tmp.path()), before);
}

/// Restores a path's permissions at scope exit (so the TempDir can be removed whatever failed).
struct RestoreMode {
  fs::path path;
  fs::perms mode;
  ~RestoreMode() {
    std::error_code ec;
    fs::permissions(path, mode, ec);
  }
};

TEST(ProbeWorldErrors, PermissionProblemsGiveTheReason) {
  // The permission checks need a user that lacks root's override: run the binary as nobody (uid/gid 65534).
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run the binary as an unprivileged user through setpriv";
  const std::string drop = "setpriv --reuid=65534 --regid=65534 --clear-groups";
  if (std::system((drop + " true >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "setpriv is missing or cannot drop privileges here (`" << drop << " true` failed)";
  // The unprivileged user must reach the binary and its data (a checkout under a private folder, e.g. one made by
  // mktemp -d, keeps it out): a plain probe without a world shows whether it can.
  if (auto plain = run_voxen({"probe", "--at", "0,0,0"}, drop); plain.exit_code != 0)
    GTEST_SKIP() << "uid 65534 cannot run " << VOXEN_BINARY << " here (its folder or data is private): " << plain.err;
  testing::TempDir tmp;
  fs::permissions(tmp.path(), fs::perms(0755));  // mkdtemp's 0700 would keep nobody out of everything below
  const fs::path w = tmp.path() / "world";
  ASSERT_NO_FATAL_FAILURE(make_world(w));

  // A read-only world directory owned by root: its lock file cannot be opened for writing.
  {
    RestoreMode restore{w, fs::status(w).permissions()};
    fs::permissions(w, fs::perms(0555));
    const auto before = testing::snapshot(w);
    // run_voxen puts its env argument before the binary on the shell line: here it is the privilege drop.
    auto r = run_voxen({"probe", "--world", w.string(), "--at", "0,0,0"}, drop);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("cannot open " + (w / "voxen.lock").string() + ": Permission denied"), std::string::npos) << r.err;
    EXPECT_EQ(testing::snapshot(w), before);
  }
  // A voxen.toml only root can read.
  {
    RestoreMode restore{w / "voxen.toml", fs::status(w / "voxen.toml").permissions()};
    fs::permissions(w / "voxen.toml", fs::perms(0600));
    const auto before = testing::snapshot(w);
    auto r = run_voxen({"probe", "--world", w.string(), "--at", "0,0,0"}, drop);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("cannot read " + (w / "voxen.toml").string() + ": Permission denied"), std::string::npos) << r.err;
    EXPECT_EQ(testing::snapshot(w), before);
  }
}

}  // namespace
}  // namespace voxen::store
