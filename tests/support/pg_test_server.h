// PostgreSQL servers for the tests (and benchmarks) of worlds in a database: tests/support/pg_server.sh starts Debian's
// server in a folder on a Unix socket. Under ctest, one server is started before the store's tests and stopped after
// them (the fixture voxen_pg, tests/CMakeLists.txt); the file named by $VOXEN_PG_SERVER_FILE holds its folder. Run by
// hand (no such variable), the first test that needs one starts a server for its process and stops it at exit. A test
// that stops and restarts its server makes a PgTestServer of its own.
#pragma once

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace voxen::testing {

/// A server of its own in a fresh folder under /tmp; destroyed (stopped at once, folder removed) with the object.
class PgTestServer {
 public:
  /// Starts it; ok() says whether it runs (error() says why not).
  PgTestServer() {
    char tmpl[] = "/tmp/voxen-pg-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      m_error = "mkdtemp failed";
      return;
    }
    m_dir = tmpl;
    m_ok = run("start");
  }
  /// Uses a server another process runs in `dir` (the ctest fixture's); not stopped by this object.
  explicit PgTestServer(std::string dir) : m_dir(std::move(dir)), m_ok(true), m_owned(false) {}
  ~PgTestServer() {
    if (m_owned && !m_dir.empty()) {
      run("destroy");
      std::remove((m_dir + ".log").c_str());  // the script's output, kept only while the server lives
    }
  }
  PgTestServer(const PgTestServer&) = delete;
  PgTestServer& operator=(const PgTestServer&) = delete;

  bool ok() const { return m_ok; }
  const std::string& error() const { return m_error; }
  /// The folder holding the data directory, the logs and the socket.
  const std::string& dir() const { return m_dir; }
  /// Stops the server (fast shutdown) / starts it again on the same data. False (and error()) on failure.
  bool stop() { return run("stop"); }
  bool start() { return run("start"); }

  /// A world URL on this server: postgresql://voxen@<socket folder, percent-encoded>/voxen?world=NAME, plus `extra`
  /// parameters ("&reconnect=1").
  std::string url(const std::string& world, const std::string& extra = "") const {
    std::string host;
    for (char c : m_dir) host += c == '/' ? std::string("%2F") : std::string(1, c);
    return "postgresql://voxen@" + host + "/voxen?world=" + world + extra;
  }

 private:
  bool run(const std::string& what) {
    const std::string cmd = "bash '" VOXEN_SOURCE_DIR "/tests/support/pg_server.sh' " + what + " '" + m_dir + "' >>'" +
                            m_dir + ".log' 2>&1";
    if (std::system(cmd.c_str()) == 0) return true;
    std::ifstream log(m_dir + ".log");
    m_error = "pg_server.sh " + what + " failed: " + std::string(std::istreambuf_iterator<char>(log), {});
    return false;
  }
  std::string m_dir;
  bool m_ok = false;
  bool m_owned = true;
  std::string m_error;
};

/// The shared server of this test run (the ctest fixture's, or one started for this process).
inline PgTestServer& pg_server() {
  static std::unique_ptr<PgTestServer> server = [] {
    if (const char* f = std::getenv("VOXEN_PG_SERVER_FILE"); f && *f) {
      std::ifstream in(f);
      std::string dir;
      if (in >> dir) return std::make_unique<PgTestServer>(dir);
    }
    return std::make_unique<PgTestServer>();
  }();
  return *server;
}

/// A world name unique to the running test and process, for worlds on the shared server: the test's name (letters,
/// digits, '_' '-' '.') cut to fit, and the process id, plus `suffix`.
inline std::string pg_world_name(const std::string& suffix = "") {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : std::string("world");
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  const std::string tail = "." + std::to_string(::getpid()) + suffix;
  if (name.size() + tail.size() > 63) name = name.substr(name.size() - (63 - tail.size()));
  return name + tail;
}

/// A world URL on the shared server, unique to the running test (pg_world_name).
inline std::string pg_world_url(const std::string& suffix = "") { return pg_server().url(pg_world_name(suffix)); }

}  // namespace voxen::testing

/// Fails the test when the shared server is not running: the README's test command installs PostgreSQL, so a missing
/// server is a broken set-up, not a reason to skip.
#define VOXEN_REQUIRE_PG()                                                                                    \
  do {                                                                                                        \
    ASSERT_TRUE(::voxen::testing::pg_server().ok()) << "no PostgreSQL test server: "                          \
                                                    << ::voxen::testing::pg_server().error();                 \
  } while (0)
