// voxen replay FILE: plays an input recording back through the same InputHandler and frame loop it was made with,
// frame for frame, headless (--headless: EGL) or in a window, streaming as it was recorded (deterministic, or live
// with each frame's recorded job schedule); so a play-through or a crash reproduces. Writes F2 screenshots and the final frame (final.png) to --out-dir, checks the invariants
// after every frame (the player never inside a solid block, a finite position, no GL error) and prints the world
// hash and the final frame's hash: the same recording gives the same world and the same final frame bytes.
// Exit codes: 0 replayed with every invariant holding; 1 a bad recording (file:line named), a failed invariant or a
// replay that diverged from its recorded schedule (the frame named).
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "play_cli.h"
#include "voxen/play/recording.h"
#include "voxen/play/session.h"
#include "voxen/play/window_input.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct ReplayOptions {
  std::string file;
  bool headless = false;
  std::string out_dir;
  int threads = 0;
  int render_every = 1;
  bool json = false;
};

int run_replay(const ReplayOptions& o) {
  if (o.render_every < 1) throw UsageError("--render-every", "must be 1 or more");
  auto rec = play::read_recording(o.file);
  if (!rec) throw RunError(rec.error().to_string());
  if (!o.out_dir.empty()) ensure_dir(o.out_dir, "--out-dir");
  const BlockRegistry reg = load_registry();

  play::SessionOptions so;
  so.window = !o.headless;
  so.threads = o.threads;
  so.game.status = "REPLAY: " + o.file;
  auto session = play::PlaySession::open(rec->header, so, reg);
  if (!session) throw RunError(session.error().to_string());
  play::Game& game = (*session)->game();
  play::FramePacer pacer(o.headless ? 0.0 : 1.0 / rec->header.step);

  int shots = 0;
  std::string shot_error;
  // Where the main thread's time went, summed over the frames (printed with --json and in the summary).
  double t_frame = 0, t_stream = 0, t_render = 0, t_hud = 0, t_present = 0, t_physics = 0, t_edit = 0;
  uint64_t quads = 0, rendered = 0;
  const play::RunResult r = play::run_events(game, rec->events, rec->frames, o.render_every, true, [&](const play::FrameReport& rep) {
    t_frame += rep.frame_ms;
    quads += rep.render.quads_drawn;
    rendered += rep.rendered ? 1 : 0;
    t_stream += rep.stream_ms;
    t_render += rep.render_ms;
    t_hud += rep.hud_ms;
    t_present += rep.present_ms;
    t_physics += rep.physics_ms + rep.pick_ms;
    t_edit += rep.edit_light_ms + rep.edit_remesh_ms + rep.edit_upload_ms;
    if (rep.screenshot && rep.rendered && !o.out_dir.empty()) {
      const std::string path = o.out_dir + "/shot-" + std::to_string(rep.frame) + ".png";
      if (auto s = render::save_png(game.read_pixels(), path); !s.ok()) shot_error = s.error().to_string();
      ++shots;
    }
    if (!o.headless) {
      if (!(*session)->platform().poll_events()) return false;  // the window was closed
      pacer.wait();
    }
    return shot_error.empty();
  }, rec->header.stream_live ? &rec->schedules : nullptr);
  if (!shot_error.empty()) throw RunError(shot_error);
  const render::Image final_frame = game.read_pixels();
  if (!o.out_dir.empty()) {
    if (auto s = render::save_png(final_frame, o.out_dir + "/final.png"); !s.ok()) throw RunError(s.error().to_string());
  }
  const uint64_t wh = play::world_hash(game.world());
  const uint64_t ih = image_hash(final_frame);
  if (o.json) {
    nlohmann::json j;
    j["file"] = o.file;
    j["frames"] = r.frames;
    j["complete"] = rec->complete;
    j["edits_applied"] = r.edits_applied;
    j["edits_refused"] = r.edits_refused;
    j["world_hash"] = hex64(wh);
    j["final_frame_hash"] = hex64(ih);
    j["gl_renderer"] = (*session)->platform().gl_info().renderer;
    j["feet"] = feet_text(game.player());
    j["screenshots"] = shots;
    j["failures"] = r.failures;
    j["main_thread_ms"] = {{"frames", t_frame}, {"stream", t_stream}, {"render", t_render}, {"hud", t_hud},
                           {"present", t_present}, {"physics_pick", t_physics}, {"edits", t_edit}};
    j["quads_per_rendered_frame"] = rendered ? static_cast<double>(quads) / static_cast<double>(rendered) : 0.0;
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("replayed %s: %llu frames%s, edits %llu applied / %llu refused, player at %s\n", o.file.c_str(),
                static_cast<unsigned long long>(r.frames), rec->complete ? "" : " (recording cut short: no 'end' line)",
                static_cast<unsigned long long>(r.edits_applied), static_cast<unsigned long long>(r.edits_refused),
                feet_text(game.player()).c_str());
    std::printf("world hash %s, final frame hash %s\n", hex64(wh).c_str(), hex64(ih).c_str());
    std::printf("quads drawn per rendered frame: %.0f\n", rendered ? static_cast<double>(quads) / static_cast<double>(rendered) : 0.0);
    std::printf("main thread ms: frames %.0f = stream %.0f + render %.0f + hud %.0f + present %.0f + physics/pick %.0f + edits %.0f + other\n",
                t_frame, t_stream, t_render, t_hud, t_present, t_physics, t_edit);
  }
  if (!r.failures.empty()) {
    for (const std::string& f : r.failures) std::fprintf(stderr, "voxen replay: failed: %s\n", f.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

void add_replay_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<ReplayOptions>();
  CLI::App* cmd = app.add_subcommand("replay", "play an input recording back through the game loop (deterministic)");
  cmd->add_option("file", o->file, "the recording (voxen play --record, voxen fuzz-play)")->required();
  cmd->add_flag("--headless", o->headless, "no window: render offscreen with EGL");
  cmd->add_option("--out-dir", o->out_dir, "write F2 screenshots (shot-FRAME.png) and the last frame (final.png) here");
  add_threads_option(*cmd, o->threads, "worker threads (results do not depend on it; default: cores - 1)");
  cmd->add_option("--render-every", o->render_every, "draw every K-th frame only (the last is always drawn; default 1)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_replay(*o); }; });
}

}  // namespace voxen::app
