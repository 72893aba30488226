// A play session: everything a Game needs, built from a recording header (world seed and generator, render
// distance, frame size, field of view, step), on a headless EGL context or in a GLFW window; plus running a
// recording through it frame by frame, and the seeded input fuzzer. `voxen replay`, `voxen fuzz-play`, `voxen tour`
// and the tests use these, so they all drive the same Game through the same InputHandler.
// Threads: the thread that creates the session owns its GL context and calls everything.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/play/game.h"
#include "voxen/play/recording.h"
#include "voxen/render/image.h"
#include "voxen/render/platform.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::play {

struct SessionOptions {
  bool window = false;        // a GLFW window (needs a display) instead of headless EGL
  bool visible = true;        // show the window
  int threads = 0;            // worker threads (0: JobPool's default); results do not depend on it
  GameConfig game;            // render_distance, fov, step come from the header; the rest is used as given
  /// Stream deterministically (count-based, stream::StreamConfig::deterministic). Replays, the fuzzer and the tour do.
  bool deterministic = true;
  /// A saved world (`voxen play --world`): the World it owns, its column backend and edit hook (saved_world.h).
  /// Null: the session's own empty World, columns generated on the workers.
  World* world = nullptr;
  stream::ColumnBackend* backend = nullptr;
  EditHook edit_hook;
};

/// Owns the platform, generator, pool, world and game of one run.
class PlaySession {
 public:
  /// Errors: no GL context (EGL or window), an unknown generator, renderer/HUD failures.
  static Result<std::unique_ptr<PlaySession>> open(const RecordingHeader& header, const SessionOptions& options,
                                                   const BlockRegistry& registry);
  ~PlaySession();
  Game& game() { return *m_game; }
  render::Platform& platform() { return *m_platform; }
  const gen::Generator& generator() const { return *m_generator; }
  const RecordingHeader& header() const { return m_header; }
  /// Worker threads of the session's pool.
  int threads() const { return m_pool->thread_count(); }

 private:
  PlaySession() = default;
  RecordingHeader m_header;
  std::unique_ptr<render::Platform> m_platform;
  std::unique_ptr<gen::Generator> m_generator;
  std::unique_ptr<JobPool> m_pool;
  World m_world;
  std::unique_ptr<Game> m_game;
};

/// A 64-bit hash of every loaded column's cells and light, in sorted column order: equal worlds give equal
/// hashes (the replay determinism check).
uint64_t world_hash(const World& world);

/// What running a list of events did.
struct RunResult {
  uint64_t frames = 0;
  uint64_t edits_applied = 0, edits_refused = 0;
  std::vector<std::string> failures;  // invariant failures ("frame N: what"), empty when all held
  uint64_t failed_frame = 0;          // first frame with a failure
};

/// Called after every frame with its report (return false to stop early).
using FrameCallback = std::function<bool(const FrameReport&)>;

/// Runs `frames` frames of `events` (frame order) through the game: each frame gets its own events. Renders
/// every `render_every`-th frame and the last. With check_invariants, Game::check_invariants and the GL error are
/// checked after every frame, stopping at the first failure.
RunResult run_events(Game& game, const std::vector<InputEvent>& events, uint64_t frames, int render_every,
                     bool check_invariants, const FrameCallback& on_frame = nullptr);

/// The seeded input fuzzer: random but plausible input (movement keys held and released, mouse motion, clicks,
/// hotbar choices, fly toggles, the overlay, the cursor released and recaptured), a pure function of (seed, frame)
/// and the controls the game holds, so the same seed gives the same events.
class InputFuzzer {
 public:
  explicit InputFuzzer(uint64_t seed) : m_seed(seed) {}
  /// The events of frame `frame` for a game whose controls are `controls`.
  std::vector<InputEvent> events(uint64_t frame, const Controls& controls) const;

 private:
  uint64_t m_seed;
};

}  // namespace voxen::play
