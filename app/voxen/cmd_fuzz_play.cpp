// voxen fuzz-play --seed N --frames F [--headless]: plays random but plausible input (playtest/input_fuzzer.h, a
// pure function of the seed and the frame) through the real InputHandler and frame loop on the world of seed N,
// checking after every frame that the player is not inside a solid block, its position is finite, and GL reported
// no error. The input is recorded as it goes (flushed every frame), so a failed invariant or a crash leaves a
// recording that `voxen replay` reproduces; a clean run deletes it unless --keep.
// Rendering every frame on a software rasteriser is the slow part: --render-every K draws every K-th frame (and
// the last); streaming, edits, physics and the invariants still run every frame, and GL errors are checked after
// every frame's uploads.
// Exit codes: 0 no invariant failed; 1 an invariant failed (the recording's path is printed); 2 bad arguments.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli_util.h"
#include "commands.h"
#include "play_cli.h"
#include "seed_option.h"
#include "voxen/play/recording.h"
#include "voxen/play/session.h"
#include "voxen/play/spawn.h"
#include "voxen/playtest/input_fuzzer.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct FuzzOptions {
  uint64_t seed = 1;
  uint64_t frames = 2000;
  bool headless = false;
  std::string out_dir = ".";
  std::string generator = "default";
  int render_distance = 3;
  FrameSize size{96, 54};
  int render_every = 1;
  int threads = 0;
  bool keep = false;
};

int run_fuzz(const FuzzOptions& o) {
  play::RecordingHeader h;
  h.seed = o.seed;
  h.generator = o.generator;
  h.width = o.size.width;
  h.height = o.size.height;
  h.render_distance = o.render_distance;
  if (o.frames < 1 || o.frames > play::kMaxRecordingFrames)
    throw UsageError("--frames", "must be 1.." + std::to_string(play::kMaxRecordingFrames));
  if (o.render_every < 1) throw UsageError("--render-every", "must be 1 or more");
  WorldFlags wf;
  wf.seed = o.seed;
  wf.generator = o.generator;
  const BlockRegistry reg = load_registry();
  const auto generator = make_generator_or_throw(wf, reg);
  const auto spawn = play::find_generated_spawn(*generator, reg, 0, 0);
  if (!spawn) throw RunError("no place to stand found near 0,0 on seed " + std::to_string(o.seed));
  h.start_block = *spawn;
  h.start_frac = {0.5, 0.0, 0.5};

  ensure_dir(o.out_dir, "--out-dir");
  const std::string path = o.out_dir + "/fuzz-" + std::to_string(o.seed) + ".rec";
  play::RecordingWriter writer;
  if (auto s = writer.open(path, h); !s.ok()) throw RunError(s.error().to_string());

  play::SessionOptions so;
  so.window = !o.headless;
  so.threads = o.threads;
  so.game.status = "FUZZ SEED " + std::to_string(o.seed);
  auto session = play::PlaySession::open(h, so, reg);
  if (!session) throw RunError(session.error().to_string());
  play::Game& game = (*session)->game();
  const playtest::InputFuzzer fuzzer(o.seed);

  std::vector<std::string> failures;
  uint64_t edits = 0, refused = 0, frames = 0;
  for (uint64_t i = 0; i < o.frames; ++i) {
    const uint64_t f = game.frame_number();
    const std::vector<play::InputEvent> events = fuzzer.events(f, game.controls());
    for (const play::InputEvent& e : events) writer.append(e);
    writer.end_frame();
    const bool draw = i + 1 == o.frames || f % static_cast<uint64_t>(o.render_every) == 0;
    const play::FrameReport rep = game.frame(events, draw);
    ++frames;
    edits += static_cast<uint64_t>(rep.edits_applied);
    refused += static_cast<uint64_t>(rep.edits_refused);
    std::vector<std::string> fails = game.check_invariants();
    if (rep.gl_error) fails.push_back("GL error " + std::to_string(rep.gl_error));
    for (const std::string& s : fails) failures.push_back("frame " + std::to_string(f) + ": " + s);
    if (!failures.empty()) break;
    if (!o.headless && !(*session)->platform().poll_events()) break;
  }
  if (auto s = writer.finish(frames); !s.ok()) throw RunError(s.error().to_string());
  std::printf("fuzz seed %llu: %llu frames, edits %llu applied / %llu refused, player at %s\n",
              static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(frames),
              static_cast<unsigned long long>(edits), static_cast<unsigned long long>(refused), feet_text(game.player()).c_str());
  if (!failures.empty()) {
    for (const std::string& f : failures) std::fprintf(stderr, "voxen fuzz-play: invariant failed: %s\n", f.c_str());
    std::fprintf(stderr, "voxen fuzz-play: recording kept: %s (reproduce: voxen replay %s --headless)\n", path.c_str(), path.c_str());
    return 1;
  }
  if (!o.keep) std::filesystem::remove(path);
  else std::printf("recording: %s\n", path.c_str());
  return 0;
}

}  // namespace

void add_fuzz_play_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<FuzzOptions>();
  CLI::App* cmd = app.add_subcommand("fuzz-play", "play seeded random input through the game loop and check invariants");
  add_seed_option(*cmd, o->seed, "seed of the input and of the world, decimal 0..18446744073709551615 (default 1)");
  cmd->add_option("--frames", o->frames, "frames to play (default 2000)");
  cmd->add_flag("--headless", o->headless, "no window: render offscreen with EGL");
  cmd->add_option("--out-dir", o->out_dir, "where the recording goes (fuzz-SEED.rec; default .)");
  cmd->add_option("--generator", o->generator, "world generator: default or flat (default: default)");
  cmd->add_option("--render-distance", o->render_distance, "columns, 1..64 (default 3)")->check(CLI::Range(1, 64));
  add_frame_size_option(*cmd, o->size, "frame size WxH (default 96x54)");
  cmd->add_option("--render-every", o->render_every, "draw every K-th frame (invariants are checked every frame; default 1)");
  add_threads_option(*cmd, o->threads, "worker threads (results do not depend on it)");
  cmd->add_flag("--keep", o->keep, "keep the recording after a clean run");
  cmd->callback([o, &run] { run = [o] { return run_fuzz(*o); }; });
}

}  // namespace voxen::app
