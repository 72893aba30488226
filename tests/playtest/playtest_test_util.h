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

}  // namespace voxen::playtest::testing
