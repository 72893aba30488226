// Test support for the playtest module: tests/play's headless sessions and recordings (play_test_util.h), and a
// session whose game has a HolesObserver attached, as the tour attaches one.
#pragma once

#include <memory>

#include "../play/play_test_util.h"
#include "voxen/playtest/holes.h"

namespace voxen::playtest::testing {

using namespace voxen::play;
using namespace voxen::play::testing;

/// A headless session (open_session) with the holes measurement attached to its game (every pixel sampled, near
/// holes within 64 blocks). Null members when the session could not be opened (the failure is reported).
struct MeasuredSession {
  std::unique_ptr<PlaySession> session;
  std::unique_ptr<HolesObserver> holes;
  Game& game() { return session->game(); }
};

inline MeasuredSession open_measured_session(const RecordingHeader& h) {
  MeasuredSession m;
  m.session = open_session(h);
  if (!m.session) return m;
  m.holes = std::make_unique<HolesObserver>(m.session->generator(), registry(), m.session->game().world(), h.render_distance);
  m.session->game().add_observer(*m.holes);
  return m;
}

/// A game on a headless 160 x 90 platform with a 2-thread pool and its own World, columns from `generator`
/// (which must outlive it). Null `game` when it could not be made (the failure is reported).
struct HeadlessGame {
  std::unique_ptr<render::Platform> platform;
  std::unique_ptr<JobPool> pool;
  std::unique_ptr<World> world;
  std::unique_ptr<Game> game;
};

inline HeadlessGame open_headless_game(const GameConfig& config, const gen::Generator& generator) {
  HeadlessGame h;
  render::PlatformConfig pc;
  pc.width = 160;
  pc.height = 90;
  auto platform = render::make_egl_headless_platform(pc);
  if (!platform) {
    ADD_FAILURE() << platform.error().to_string();
    return h;
  }
  h.platform = std::move(platform).value();
  h.pool = std::make_unique<JobPool>(2);
  h.world = std::make_unique<World>();
  auto game = Game::create(config, *h.platform, registry(), generator, *h.pool, *h.world);
  if (!game) {
    ADD_FAILURE() << game.error().to_string();
    return h;
  }
  h.game = std::move(game).value();
  return h;
}

}  // namespace voxen::playtest::testing
