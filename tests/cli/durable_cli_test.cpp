// "Done" means durable: a command that writes user data reports success only once the data would survive the
// process being killed. Each command runs on a pseudo-terminal (so its output is line-buffered, as at a user's
// terminal), the test reads its output as it comes and SIGKILLs it the moment the result line appears, then a fresh
// `voxen probe --world` checks that every edit the command was given is in the world (and export-vox's file is
// whole). Repeated over rounds of new edits on the same world.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_temp_dir.h"
#include "run_command.h"
#include "voxen/import/vox_file.h"

namespace voxen {
namespace {

namespace fs = std::filesystem;
using testing::run_voxen;

struct KilledRun {
  bool saw_line = false;  // the result line appeared (and the process was killed then, if still running)
  std::string output;     // what the terminal showed up to then
};

/// Runs VOXEN_BINARY with `args` (and `env`: NAME=VALUE words) on a pseudo-terminal and SIGKILLs it as soon as a
/// line starting with `prefix` has appeared in full (or lets it end, 120 s at most).
KilledRun run_until_line(const std::vector<std::string>& args, const std::string& prefix, const std::string& env = "") {
  KilledRun r;
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) {
    ADD_FAILURE() << "forkpty failed";
    return r;
  }
  if (pid == 0) {
    // NAME=VALUE words separated by spaces, as a shell prefix would give them.
    static std::string words;
    words = env;
    for (char* w = std::strtok(words.data(), " "); w; w = std::strtok(nullptr, " ")) ::putenv(w);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(VOXEN_BINARY));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(VOXEN_BINARY, argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::string buf;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(master, chunk, sizeof chunk);
    if (n <= 0) break;  // the child closed the terminal (it ended)
    buf.append(chunk, static_cast<size_t>(n));
    // A whole line (the terminal writes \r\n) that starts with the prefix.
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string line = buf.substr(start, nl - start);
      if (line.rfind(prefix, 0) == 0) {
        ::kill(pid, SIGKILL);
        r.saw_line = true;
        break;
      }
    }
    if (r.saw_line) break;
  }
  if (!r.saw_line) ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  r.output = buf;
  return r;
}

using clitest::TempDir;

const char* const kBlocks[] = {"glass", "bricks", "planks", "glowstone", "cobblestone"};

/// `count` edits of round `round`: distinct cells above the flat world's ground, spread over a few columns.
std::vector<std::pair<std::string, std::string>> round_edits(int round, int count) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < count; ++i) {
    const std::string pos = std::to_string(i * 3 - 20) + "," + std::to_string(10 + round) + "," + std::to_string(i % 5 - 2);
    out.emplace_back(pos, kBlocks[(i + round) % 5]);
  }
  return out;
}

/// Checks with a fresh probe that every edit is in the world.
void expect_in_world(const std::string& world, const std::vector<std::pair<std::string, std::string>>& edits, const std::string& what) {
  std::vector<std::string> args = {"probe", "--world", world, "--json"};
  for (const auto& e : edits) args.insert(args.end(), {"--at", e.first});
  auto p = run_voxen(args);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const auto cells = nlohmann::json::parse(p.out)["cells"];
  ASSERT_EQ(cells.size(), edits.size());
  int lost = 0;
  for (size_t i = 0; i < edits.size(); ++i) lost += cells[i]["block"] != edits[i].second;
  EXPECT_EQ(lost, 0) << what << ": " << lost << " of " << edits.size() << " printed edits were lost";
}

std::vector<std::string> edit_args(const std::vector<std::pair<std::string, std::string>>& edits) {
  std::vector<std::string> out;
  for (const auto& e : edits) out.insert(out.end(), {"--edit", e.first + "=" + e.second});
  return out;
}

TEST(Durable, ProbeReportsItsEditsOnlyOnceTheyAreCommitted) {
  TempDir tmp;
  const std::string world = tmp / "world";
  for (int round = 0; round < 4; ++round) {
    const auto edits = round_edits(round, 20);
    std::vector<std::string> args = {"probe", "--world", world, "--seed", "7", "--generator", "flat", "--at", edits[0].first};
    const auto e = edit_args(edits);
    args.insert(args.end(), e.begin(), e.end());
    const KilledRun k = run_until_line(args, edits[0].first + "  ");
    ASSERT_TRUE(k.saw_line) << k.output;
    expect_in_world(world, edits, "probe round " + std::to_string(round));
  }
}

TEST(Durable, ShotMeshAndExportReportOnlyOnceTheirEditsAreCommitted) {
  TempDir tmp;
  const std::string world = tmp / "world";
  ASSERT_EQ(run_voxen({"probe", "--world", world, "--seed", "7", "--generator", "flat", "--at", "0,0,0"}).exit_code, 0);
  struct Case {
    std::vector<std::string> args;
    std::string line;  // the first line of its result
    std::string env;
  };
  const std::string vox = tmp / "region.vox";
  const std::vector<Case> cases = {
      {{"shot", "--world", world, "--pos", "0.5,40,0.5", "--look", "0,-30", "--size", "64x36", "--render-distance", "1",
        "--threads", "1", "--out", tmp / "shot.png"},
       "wrote ",
       "ASAN_OPTIONS=detect_leaks=0 LP_NUM_THREADS=1"},
      {{"mesh", "--world", world, "--radius", "0"}, "generator ", ""},
      {{"export-vox", "--world", world, "--from", "-30,-2,-5", "--to", "40,20,5", "--out", vox}, "wrote ", ""},
  };
  int round = 1;
  for (const Case& c : cases) {
    for (int rep = 0; rep < 5; ++rep, ++round) {  // several: on code that reports first, the kill races the commit
      const auto edits = round_edits(round, 12);
      std::vector<std::string> args = c.args;
      const auto e = edit_args(edits);
      args.insert(args.end(), e.begin(), e.end());
      const KilledRun k = run_until_line(args, c.line, c.env);
      ASSERT_TRUE(k.saw_line) << c.args[0] << ": " << k.output;
      expect_in_world(world, edits, c.args[0] + " round " + std::to_string(round));
      if (c.args[0] == "export-vox") {
        // The file it reported is whole: it reads back, with the edits of this round in it.
        auto f = import::read_vox_file(vox);
        EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().to_string());
      }
    }
  }
}

}  // namespace
}  // namespace voxen
