// voxen tour: the perf tour (playtest/tour.h). Drives the real frame loop along scripted paths (stand at the spawn,
// walk, fly low over mountains at 40 blocks/s, the 112 blocks/s jet, dig 60 blocks down, place 100 blocks, stand in
// a cave) with deterministic streaming (or --stream live), headless (--headless: EGL) or in a window, and reports per segment the
// frame time percentiles, CPU milliseconds per system, the holes in the view, columns loaded and every frame over
// 250 ms with the part that took the time. --json FILE writes the whole report.
// Exit codes: 0 done; 1 a segment's place could not be found, the GL context failed, or a frame had a near hole in a
// drawn column (ground a drawn column left out, named on stderr after the report); 2 bad arguments.
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "culling_cli.h"
#include "commands.h"
#include "play_cli.h"
#include "voxen/play/session.h"
#include "voxen/play/spawn.h"
#include "voxen/playtest/tour.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct TourCliOptions {
  WorldFlags world;
  std::string json;
  bool headless = false;
  uint64_t frames = 120;
  int render_distance = 6;
  FrameSize size{320, 180};
  int threads = 0;
  std::string segments;
  int holes_stride = 2;
  std::string hole_shots;
  std::string stream = "deterministic";
  double jet_speed = 112.0;
  double far_distance = 0;        // the far view, blocks (0: off)
  double tick_rate = 20;          // --tick-rate: world simulation ticks a second (0: off)
  SkyFlags sky;                   // --time-of-day, --day-minutes (default: 10 o'clock, the clock stopped)
  std::string far_throttle = "on";
  std::string culling = "all";
  RenderFlags render;
};

nlohmann::json stat_json(const playtest::Stat& s) {
  return {{"p50", s.p50}, {"p95", s.p95}, {"p99", s.p99}, {"max", s.max}, {"mean", s.mean}, {"total", s.total}};
}

int run_tour_cmd(const TourCliOptions& o) {
  play::RecordingHeader h;
  h.seed = o.world.seed;
  h.generator = o.world.generator;
  h.width = o.size.width;
  h.height = o.size.height;
  h.render_distance = o.render_distance;
  h.far_distance = o.far_distance;
  h.tick_rate = o.tick_rate;
  h.time_of_day = o.sky.time_of_day;
  h.day_minutes = o.sky.day_minutes;
  h.clouds = !o.render.no_clouds;
  if (o.frames < 1 || o.frames > 100000) throw UsageError("--frames", "must be 1..100000");
  if (o.holes_stride < 1 || o.holes_stride > 64) throw UsageError("--holes-stride", "must be 1..64");
  playtest::TourOptions to;
  to.frames = o.frames;
  to.holes_stride = o.holes_stride;
  if (!(o.jet_speed >= 1.0 && o.jet_speed <= 2000.0)) throw UsageError("--jet-speed", "must be 1..2000 blocks/s");
  to.jet_speed = o.jet_speed;
  if (!o.hole_shots.empty()) ensure_dir(o.hole_shots, "--hole-shots");
  if (!o.json.empty()) {
    // Refused before the tour runs, not after it (the report is written at the end).
    const std::filesystem::path json(o.json);
    const std::filesystem::path dir = json.has_parent_path() ? json.parent_path() : std::filesystem::path(".");
    if (std::filesystem::is_directory(json)) throw UsageError("--json", "'" + o.json + "' is a directory");
    if (!std::filesystem::is_directory(dir)) throw UsageError("--json", "the folder of '" + o.json + "' does not exist");
  }
  to.hole_shots = o.hole_shots;
  if (!o.segments.empty()) {
    std::stringstream ss(o.segments);
    std::string name;
    while (std::getline(ss, name, ',')) {
      const auto& all = playtest::tour_segment_names();
      if (std::find(all.begin(), all.end(), name) == all.end())
        throw UsageError("--segments", "unknown segment '" + name + "' (expected spawn, walk, fly_low, jet, dig, place, cave, storm, village, flood)");
      to.only.push_back(name);
    }
  }
  const BlockRegistry reg = load_registry();
  const auto generator = make_generator_or_throw(o.world, reg);
  const auto spawn = play::find_generated_spawn(*generator, reg, 0, 0);
  if (!spawn) throw RunError("no place to stand found near 0,0");
  h.start_block = *spawn;

  play::SessionOptions so;
  so.window = !o.headless;
  so.threads = o.threads;
  so.game.status = "PERF TOUR";
  so.game.culling = *render::parse_cull_mode(o.culling);
  o.render.validate();
  so.game.render_path = o.render.render_path();
  so.game.shadows = o.render.shadow_mode();
  so.game.beam = !o.render.no_beam;
  so.game.creatures = !o.sky.no_creatures;
  so.game.far.throttle = o.far_throttle == "on";
  so.deterministic = o.stream == "deterministic";
  to.paced = !so.deterministic;  // live streaming runs in real time, as in play
  auto session = play::PlaySession::open(h, so, reg);
  if (!session) throw RunError(session.error().to_string());
  play::Game& game = (*session)->game();
  Stopwatch total;
  auto report = playtest::run_tour(game, (*session)->generator(), to, [](const std::string& name) {
    std::fprintf(stderr, "voxen tour: %s\n", name.c_str());
  });
  if (!report) throw RunError(report.error().to_string());

  const auto& info = game.renderer().gl_info();
  const std::string stream = game.streamer().config().deterministic ? "deterministic" : "live";  // what ran
  std::printf("voxen tour: seed %llu, %dx%d, render distance %d, %s (OpenGL %d.%d), %d worker threads, %s streaming, %.1f s\n",
              static_cast<unsigned long long>(h.seed), h.width, h.height, h.render_distance, info.renderer.c_str(), info.major,
              info.minor, (*session)->threads(), stream.c_str(), total.seconds());
  std::printf("%-8s %6s %7s %7s %7s %7s | %6s %6s %6s %6s %6s %6s %6s | %8s %8s %5s %7s %7s | %5s %5s | %s\n", "segment",
              "frames", "p50", "p95", "p99", "max", "gen", "light", "mesh", "upload", "cull", "draw", "wait", "holes%",
              "holes%max", "near", "holesms", "hmsmax", "cols", "drawn", "spikes>250ms");
  nlohmann::json j;
  j["seed"] = h.seed;
  j["generator"] = h.generator;
  j["size"] = std::to_string(h.width) + "x" + std::to_string(h.height);
  j["render_distance"] = h.render_distance;
  j["far_distance"] = game.far_view() ? h.far_distance : 0.0;
  j["far_throttle"] = o.far_throttle == "on";
  j["stream"] = stream;
  j["culling"] = o.culling;
  j["worker_threads"] = (*session)->threads();
  j["gl_renderer"] = info.renderer;
  j["gl_version"] = std::to_string(info.major) + "." + std::to_string(info.minor);
  j["spike_threshold_ms"] = report->spike_threshold_ms;
  j["total_seconds"] = total.seconds();
  for (const playtest::SegmentReport& s : report->segments) {
    std::printf("%-8s %6llu %7.1f %7.1f %7.1f %7.1f | %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f | %8.4f %8.4f %5llu %7.2f %7.2f | %5zu %5zu | %zu\n",
                s.name.c_str(), static_cast<unsigned long long>(s.frames), s.frame_ms.p50, s.frame_ms.p95, s.frame_ms.p99,
                s.frame_ms.max, s.generate.mean, s.light.mean, s.mesh.mean, s.upload.mean, s.cull.mean, s.draw.mean, s.wait.mean,
                100.0 * s.holes_mean, 100.0 * s.holes_max, static_cast<unsigned long long>(s.near_hole_frames), s.holes_ms.mean,
                s.holes_ms.max, s.columns_loaded, s.columns_drawn, s.spikes.size());
    nlohmann::json js;
    js["name"] = s.name;
    js["note"] = s.note;
    js["warmup_frames"] = s.warmup_frames;
    js["warmup_ms"] = s.warmup_ms;
    js["warmup_complete"] = s.warmup_complete;
    js["frames"] = s.frames;
    js["first_complete_frame"] = s.first_complete_frame;
    js["frame_ms"] = stat_json(s.frame_ms);
    js["cpu_ms_per_frame"] = {{"generate", stat_json(s.generate)}, {"light", stat_json(s.light)}, {"mesh", stat_json(s.mesh)},
                              {"upload", stat_json(s.upload)},     {"cull", stat_json(s.cull)},   {"draw", stat_json(s.draw)},
                              {"wait_for_workers", stat_json(s.wait)}};
    js["holes"] = {{"frames_measured", s.holes_frames}, {"mean_fraction", s.holes_mean}, {"max_fraction", s.holes_max},
                   {"frames_with_near_holes", s.near_hole_frames}, {"first_near_hole", s.first_near_hole},
                   {"frames_with_near_holes_in_drawn_columns", s.drawn_hole_frames},
                   {"first_near_hole_in_drawn_column", s.first_drawn_hole},
                   {"measurement_ms_per_frame", stat_json(s.holes_ms)}};
    js["far"] = {{"ms_per_frame", stat_json(s.far_ms)},
                 {"queue", stat_json(s.far_queue)},
                 {"requests_per_frame", stat_json(s.far_requests)},
                 {"build_cpu_ms_per_frame", stat_json(s.far_build)},
                 {"lod_sections_drawn", stat_json(s.lod_sections)},
                 {"lod_quads", stat_json(s.lod_quads)},
                 {"lod_quads_facing_away", stat_json(s.lod_quads_facing_away)},
                 {"lod_bytes_max", s.lod_bytes_max},
                 {"far_holes_frames", s.far_hole_frames},
                 {"far_holes_max_pixels", s.far_holes_max},
                 {"real_columns_max", s.far_real_columns_max},
                 {"rebuilds", s.far_rebuilds}};
    const playtest::SegmentReport::Culling& cu = s.culling;
    js["culling"] = {{"sections_in_frustum", stat_json(cu.in_frustum)},
                     {"sections_hidden_by_caves", stat_json(cu.hidden_by_caves)},
                     {"sections_hidden_by_occlusion", stat_json(cu.hidden_by_occlusion)},
                     {"sections_drawn", stat_json(cu.drawn)},
                     {"caves_ms", stat_json(cu.caves_ms)},
                     {"occlusion_ms", stat_json(cu.occlusion_ms)},
                     {"culling_ms", stat_json(cu.culling_ms)},
                     {"lod_sections_hidden_by_occlusion", stat_json(cu.lod_hidden_by_occlusion)}};
    if (cu.in_frustum.mean > 0)
      std::printf("  %s: culling: %.0f sections in the frustum, %.0f%% hidden by caves (%.2f ms), %.0f%% by occlusion (%.2f ms), "
                  "%.2f ms both, %.0f drawn; %.0f LOD sections hidden\n",
                  s.name.c_str(), cu.in_frustum.mean, 100.0 * cu.hidden_by_caves.total / cu.in_frustum.total, cu.caves_ms.mean,
                  100.0 * cu.hidden_by_occlusion.total / cu.in_frustum.total, cu.occlusion_ms.mean, cu.culling_ms.mean, cu.drawn.mean,
                  cu.lod_hidden_by_occlusion.mean);
    js["columns_loaded"] = s.columns_loaded;
    js["columns_drawn"] = s.columns_drawn;
    js["edits"] = s.edits;
    js["edits_refused"] = s.edits_refused;
    js["edit_remesh_upload_ms"] = stat_json(s.edit_ms);
    const playtest::EditBurst& eb = s.edit_burst;
    js["edit_burst"] = {{"edits", eb.edits}, {"frame", eb.frame}, {"frame_ms", eb.frame_ms}, {"next_frame_ms", eb.next_frame_ms},
                        {"light_ms", eb.light_ms}, {"remesh_ms", eb.remesh_ms}, {"upload_ms", eb.upload_ms},
                        {"sections_remeshed", eb.sections_remeshed}};
    js["distance_blocks"] = s.distance;
    js["creatures"] = {{"live", stat_json(s.creatures_live)}, {"ms", stat_json(s.creature_ms)},
                       {"tick_ms", stat_json(s.creature_tick_ms)}, {"sync_ms", stat_json(s.creature_sync_ms)},
                       {"pose_ms", stat_json(s.creature_pose_ms)}, {"resting_share", s.creature_resting_share}};
    js["sim"] = {{"ticks", s.sim_ticks}, {"changes", s.sim_changes}, {"tick_ms", stat_json(s.sim_tick_ms)},
                 {"active_sections", stat_json(s.sim_sections)}};
    if (s.sim_changes > 0)
      std::printf("  %s: world simulation: %llu ticks changed %llu cells; per tick %.3f ms mean, %.3f p99, %.3f max, %.1f "
                  "active sections mean\n",
                  s.name.c_str(), static_cast<unsigned long long>(s.sim_ticks), static_cast<unsigned long long>(s.sim_changes),
                  s.sim_tick_ms.mean, s.sim_tick_ms.p99, s.sim_tick_ms.max, s.sim_sections.mean);
    nlohmann::json spikes = nlohmann::json::array();
    for (const playtest::Spike& sp : s.spikes) spikes.push_back({{"frame", sp.frame}, {"ms", sp.ms}, {"part", sp.part}, {"part_ms", sp.part_ms}});
    js["spikes"] = spikes;
    j["segments"].push_back(js);
    if (!s.warmup_complete) std::printf("  %s: the view was not complete after %llu warm-up frames\n", s.name.c_str(), static_cast<unsigned long long>(s.warmup_frames));
    if (s.edits || s.edits_refused)
      std::printf("  %s: %llu edits (%llu refused), remesh + upload p50 %.2f ms, max %.2f ms\n", s.name.c_str(),
                  static_cast<unsigned long long>(s.edits), static_cast<unsigned long long>(s.edits_refused), s.edit_ms.p50, s.edit_ms.max);
    if (eb.edits > 1)
      std::printf("  %s: %llu edits in frame %llu: %.1f ms (light %.1f, remesh %.1f, upload %.1f ms, %llu sections), the next frame %.1f ms\n",
                  s.name.c_str(), static_cast<unsigned long long>(eb.edits), static_cast<unsigned long long>(eb.frame), eb.frame_ms,
                  eb.light_ms, eb.remesh_ms, eb.upload_ms, static_cast<unsigned long long>(eb.sections_remeshed), eb.next_frame_ms);
    if (s.far_ms.total > 0 || s.far_queue.max > 0)
      std::printf("  %s: far view %.2f ms/frame (p99 %.2f), queue mean %.0f max %.0f, %.0f LOD sections and %.0f quads drawn on average, "
                  "far holes in %llu frames\n",
                  s.name.c_str(), s.far_ms.mean, s.far_ms.p99, s.far_queue.mean, s.far_queue.max, s.lod_sections.mean, s.lod_quads.mean,
                  static_cast<unsigned long long>(s.far_hole_frames));
    if (!s.first_near_hole.empty()) std::printf("  %s: near holes, %s\n", s.name.c_str(), s.first_near_hole.c_str());
    for (const playtest::Spike& sp : s.spikes)
      std::printf("  %s: frame %llu took %.0f ms, most in %s (%.0f ms)\n", s.name.c_str(), static_cast<unsigned long long>(sp.frame), sp.ms,
                  sp.part.c_str(), sp.part_ms);
  }
  if (!o.json.empty()) {
    const std::string text = j.dump(2) + "\n";
    write_file_durably(o.json, [&text](const std::string& temp) -> std::string {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out << text;
      out.close();
      return out ? std::string() : "cannot write " + temp;
    });
  }
  int failed = 0;
  for (const playtest::SegmentReport& s : report->segments)
    if (s.drawn_hole_frames > 0) {
      std::fprintf(stderr, "voxen tour: %s: near holes in a drawn column in %llu frames; first at %s\n", s.name.c_str(),
                   static_cast<unsigned long long>(s.drawn_hole_frames), s.first_drawn_hole.c_str());
      failed = 1;
    }
  return failed;
}

}  // namespace

void add_tour_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<TourCliOptions>();
  CLI::App* cmd = app.add_subcommand("tour", "the perf tour: scripted paths through the real game loop, with timings");
  o->world.add_to(*cmd);
  cmd->add_option("--json", o->json, "write the report as JSON to this file");
  cmd->add_flag("--headless", o->headless, "no window: render offscreen with EGL");
  cmd->add_option("--frames", o->frames, "measured frames per segment (default 120)");
  cmd->add_option("--tick-rate", o->tick_rate, "world simulation ticks a second, 0..1000; 0: off (default 20)")
      ->check(finite_range(0.0, 1000.0));
  add_sky_options(*cmd, o->sky, "0");
  cmd->add_option("--render-distance", o->render_distance, "columns, 1..64 (default 6)")->check(CLI::Range(1, 64));
  add_frame_size_option(*cmd, o->size, "frame size WxH (default 320x180)");
  add_threads_option(*cmd, o->threads, "worker threads (default: cores - 1)");
  cmd->add_option("--segments", o->segments, "comma-separated subset: spawn,walk,fly_low,jet,dig,place,cave,storm,village,flood");
  cmd->add_option("--holes-stride", o->holes_stride, "measure holes on every k-th pixel in x and y (default 2)");
  cmd->add_option("--hole-shots", o->hole_shots, "save each segment's first frame with holes near the player (SEGMENT-holes-FRAME.png) its first with far holes (SEGMENT-far-holes-FRAME.png) and each frame with more far holes than any before it (SEGMENT-far-holes-worst-FRAME.png) here, the holes in red");
  cmd->add_option("--stream", o->stream,
                  "deterministic (default: fixed jobs per frame, the replays' mode) or live (what the workers finish; frames paced to the 1/60 s step, as in play)")
      ->check(CLI::IsMember({"deterministic", "live"}));
  add_culling_option(*cmd, o->culling);
  add_render_options(*cmd, o->render);
  cmd->add_option("--jet-speed", o->jet_speed, "the jet segment's speed, blocks/s (default 112)");
  cmd->add_option("--far-distance", o->far_distance,
                  "blocks of far view (LOD) beyond the render distance, 0..65536 (default 0: off)")
      ->check(finite_range(0.0, 65536.0));
  cmd->add_option("--far-throttle", o->far_throttle, "on (default: Voxy's request quota by backlog) or off (every missing node requested at once)")
      ->check(CLI::IsMember({"on", "off"}));
  cmd->callback([o, &run] { run = [o] { return run_tour_cmd(*o); }; });
}

}  // namespace voxen::app
