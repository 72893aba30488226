// Helpers for the play tests that run the game over a saved world (`voxen play --world DIR`'s wiring, headless):
// the world opened as cmd_play opens it, and a session whose columns come from it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "play_test_util.h"
#include "voxen/stream/saved_world.h"
#include "voxen/store/world_session.h"

namespace voxen::play::testing {

/// Opens (or, with a seed, creates with `generator`) the world at `dir` as `voxen play --world` does; null (and a
/// test failure) on an error.
inline std::unique_ptr<stream::SavedWorld> open_world(const std::string& dir, std::optional<uint64_t> create_seed,
                                                      const std::string& generator) {
  store::OpenOptions o;
  o.dir = dir;
  o.create_seed = create_seed;
  o.create_generator = generator;
  auto ws = stream::SavedWorld::open(o, registry());
  if (!ws) {
    ADD_FAILURE() << "world: " << ws.error().to_string();
    return nullptr;
  }
  return std::move(ws).value();
}

/// A headless game session (2 worker threads) over a saved world (cmd_play's wiring, without the window), the HUD
/// drawn or not; null (and a test failure) on an error.
inline std::unique_ptr<PlaySession> open_saved_session(const RecordingHeader& h, stream::SavedWorld& backend, bool hud = true) {
  SessionOptions so;
  so.window = false;
  so.threads = 2;
  so.source = &backend;
  so.game.hud = hud;
  auto s = PlaySession::open(h, so, registry());
  if (!s) {
    ADD_FAILURE() << "session: " << s.error().to_string();
    return nullptr;
  }
  return std::move(*s);
}

}  // namespace voxen::play::testing
