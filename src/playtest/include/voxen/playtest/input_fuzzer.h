// The seeded input fuzzer behind `voxen fuzz-play`: random but plausible input (movement keys held and released,
// mouse motion, clicks, hotbar choices, fly toggles, the overlay, the cursor released and recaptured), a pure
// function of (seed, frame) and the controls the game holds, so the same seed gives the same events. Its events go
// through the game's one InputHandler like a player's, so a recording of them replays (play/session.h run_events).
// Randomness: hash of (seed, frame) (core/hash.h HashStream); no global random stream.
// Threads: any (const, no state beyond the seed).
#pragma once

#include <cstdint>
#include <vector>

#include "voxen/play/input.h"

namespace voxen::playtest {

class InputFuzzer {
 public:
  explicit InputFuzzer(uint64_t seed) : m_seed(seed) {}
  /// The events of frame `frame` (their `frame` fields set to it) for a game whose controls are `controls`.
  std::vector<play::InputEvent> events(uint64_t frame, const play::Controls& controls) const;

 private:
  uint64_t m_seed;
};

}  // namespace voxen::playtest
