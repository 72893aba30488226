// Helpers of the tests that run a server in-process (tests/net/server_test.cpp, tests/play/remote_play_test.cpp): a
// temporary world directory, a server running its game loop on a thread, clients joined on loopback, and a pump that
// polls clients until a condition holds.
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "voxen/net/client.h"
#include "voxen/net/server.h"
#include "voxen/net/transport.h"

namespace voxen::net::testing {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

inline const BlockRegistry& registry() {
  static const BlockRegistry reg = BlockRegistry::load_default().value();
  return reg;
}

/// A temporary world directory, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/voxen_net_test_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// A server running its game loop on a thread.
struct RunningServer {
  std::unique_ptr<Server> server;
  std::atomic<bool> stop{false};
  std::thread thread;
  explicit RunningServer(ServerOptions o) {
    auto s = Server::start(o, registry());
    if (!s) throw std::runtime_error(s.error().to_string());
    server = std::move(*s);
    thread = std::thread([this] { server->run(stop); });
  }
  ServerStats shutdown() {
    if (thread.joinable()) {
      stop = true;
      thread.join();
      EXPECT_TRUE(server->close().ok());
    }
    return server->stats();
  }
  ~RunningServer() { shutdown(); }
  uint16_t port() const { return server->port(); }
};

inline ServerOptions options_for(const fs::path& dir) {
  ServerOptions o;
  o.world = (dir / "world").string();
  o.create_seed = 11;
  o.create_generator = "flat";  // dry ground everywhere: a dug cell stays dug (no water flows into it)
  o.port = 0;
  o.threads = 1;
  return o;
}

inline std::unique_ptr<Client> join(NetIo& io, uint16_t port, const std::string& name, int radius = 2) {
  ClientOptions co;
  co.name = name;
  co.view_radius = radius;
  auto c = Client::connect(io, "127.0.0.1", port, co, registry());
  if (!c) throw std::runtime_error(c.error().to_string());
  return std::move(*c);
}

/// Polls every client until `done` holds (true) or 10 s pass (false).
inline bool pump(std::initializer_list<Client*> clients, const std::function<bool()>& done) {
  const auto end = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < end) {
    for (Client* c : clients) c->poll(1ms);
    if (done()) return true;
  }
  return false;
}

}  // namespace voxen::net::testing
