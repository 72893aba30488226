// `voxen serve` and `voxen bots` as processes on loopback, the path a user takes: acknowledged edits survive
// repeated kill -9 of the server under bot load (the bots reconnect to the restarted server and check its edit log
// and column hashes), bad arguments exit 2, and voxen-server links no GL library.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "run_command.h"
#include "spawn_process.h"

namespace voxen::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(ServeCli, AcknowledgedEditsSurviveRepeatedKill9UnderBotLoad) {
  char tmpl[] = "/tmp/voxen_serve_kill_XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const fs::path world = dir / "world", serr = dir / "serve.err", sout = dir / "serve.out", bout = dir / "bots.json", berr = dir / "bots.err";
  pid_t server = spawn(VOXEN_SERVER_BINARY, {"serve", "--world", world.string(), "--seed", "5", "--port", "0", "--threads", "1"}, sout, serr);
  KillOnExit server_guard{server};
  ASSERT_GT(server, 0);
  const uint16_t port = wait_listening(serr, 1);
  ASSERT_NE(port, 0) << slurp(serr);
  const std::string where = "127.0.0.1:" + std::to_string(port);
  pid_t bots = spawn(VOXEN_BINARY,
                     {"bots", "--connect", where, "--count", "6", "--seconds", "14", "--actions-per-second", "4", "--reconnect-seconds", "30",
                      "--json"},
                     bout, berr);
  KillOnExit bots_guard{bots};
  ASSERT_GT(bots, 0);
  // Four kills at 2.5 s intervals; each time the server comes back on the same port from the same world directory.
  for (int k = 0; k < 4; ++k) {
    std::this_thread::sleep_for(2500ms);
    ASSERT_EQ(kill(server, SIGKILL), 0);
    EXPECT_EQ(wait_exit(server), 128 + SIGKILL);
    server = -1;
    server = spawn(VOXEN_SERVER_BINARY, {"serve", "--world", world.string(), "--port", std::to_string(port), "--threads", "1"}, sout, serr);
    ASSERT_GT(server, 0);
    ASSERT_EQ(wait_listening(serr, k + 2), port) << slurp(serr);
  }
  EXPECT_EQ(wait_exit(bots), 0) << slurp(bout) << slurp(berr);
  bots = -1;
  kill(server, SIGTERM);
  EXPECT_EQ(wait_exit(server), 0) << slurp(serr);
  server = -1;
  const auto j = nlohmann::json::parse(slurp(bout));
  EXPECT_EQ(j["lost"], 0) << j.dump(2);
  EXPECT_EQ(j["duplicated"], 0) << j.dump(2);
  EXPECT_EQ(j["hash_mismatches"], 0) << j.dump(2);
  EXPECT_EQ(j["bots_verified"], 6) << j.dump(2);
  EXPECT_GE(j["reconnects"].get<int>(), 6 * 3) << j.dump(2);  // every bot came back after (almost) every kill
  EXPECT_GT(j["edits_accepted"].get<int>(), 30) << j.dump(2);
  EXPECT_GT(j["log_entries"].get<int>(), 0);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(ServeCli, BadArgumentsExit2AndAClosedPortExits1) {
  EXPECT_EQ(run_voxen({"serve", "--port", "0"}).exit_code, 2);  // --world is required
  EXPECT_EQ(run_voxen({"serve", "--world", "x", "--port", "70000"}).exit_code, 2);
  EXPECT_EQ(run_voxen({"bots", "--connect", "localhost"}).exit_code, 2);
  auto r = run_voxen({"bots", "--connect", "127.0.0.1:0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the port is not a number 1..65535"), std::string::npos) << r.err;
  // Nothing listens on port 1: every bot fails to connect, and the command says why.
  r = run_voxen({"bots", "--connect", "127.0.0.1:1", "--count", "1", "--seconds", "0", "--reconnect-seconds", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot connect to 127.0.0.1:1"), std::string::npos) << r.err;
  // A world another process holds: the second server is refused, naming the lock.
  char tmpl[] = "/tmp/voxen_serve_lock_XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  pid_t first = spawn(VOXEN_SERVER_BINARY, {"serve", "--world", (dir / "w").string(), "--seed", "1", "--port", "0"}, dir / "o", dir / "e");
  KillOnExit first_guard{first};
  ASSERT_NE(wait_listening(dir / "e", 1), 0);
  r = run_voxen({"serve", "--world", (dir / "w").string(), "--port", "0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("locked"), std::string::npos) << r.err;
  kill(first, SIGINT);
  EXPECT_EQ(wait_exit(first), 0);
  first = -1;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(ServeCli, TheServerBinaryLinksNoGl) {
  char tmpl[] = "/tmp/voxen_ldd_XXXXXX";
  const int fd = mkstemp(tmpl);
  close(fd);
  const std::string cmd = std::string("ldd ") + shell_quote(VOXEN_SERVER_BINARY) + " > " + tmpl;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string libs = slurp(tmpl);
  std::remove(tmpl);
  ASSERT_NE(libs.find("libc.so"), std::string::npos) << libs;
  for (const char* gl : {"libGL", "libEGL", "libepoxy", "libglfw", "libOpenGL", "libGLX"}) EXPECT_EQ(libs.find(gl), std::string::npos) << gl << "\n" << libs;
}

}  // namespace
}  // namespace voxen::testing
