#include "voxen/play/session.h"

#include "voxen/core/hash.h"

namespace voxen::play {

PlaySession::~PlaySession() {
  m_game.reset();  // GL objects and jobs in flight go first, while the context and the pool exist
}

Result<std::unique_ptr<PlaySession>> PlaySession::open(const RecordingHeader& header, const SessionOptions& options,
                                                       const BlockRegistry& registry) {
  std::unique_ptr<PlaySession> s(new PlaySession());
  s->m_header = header;
  auto gen = gen::make_generator(header.generator, header.seed, registry);
  if (!gen) return Error{"generator: " + gen.error().to_string()};
  s->m_generator = std::move(*gen);
  render::PlatformConfig pc;
  pc.width = header.width;
  pc.height = header.height;
  pc.title = "voxen";
  pc.visible = options.visible;
  pc.vsync = false;  // the frame pacer paces (window_input.h)
  auto platform = options.window ? render::make_glfw_window_platform(pc) : render::make_egl_headless_platform(pc);
  if (!platform) return platform.error();
  s->m_platform = std::move(*platform);
  s->m_pool = std::make_unique<JobPool>(options.threads);
  GameConfig g = options.game;
  g.render_distance = header.render_distance;
  g.fov = header.fov;
  g.step = header.step;
  g.stream.deterministic = options.deterministic && !header.stream_live;  // a live recording: its schedules
  g.stream.lag_frames = header.stream_lag;
  g.stream.gen_jobs_per_frame = header.stream_gen;
  g.stream.mesh_jobs_per_frame = header.stream_mesh;
  g.far.far_distance = header.far_distance;
  g.tick_rate = header.tick_rate;
  g.time_of_day = header.time_of_day;
  g.day_minutes = header.day_minutes;
  g.clouds = header.clouds;
  g.far_viewport_width = header.width;
  g.far_viewport_height = header.height;
  auto game = Game::create(g, *s->m_platform, registry, *s->m_generator, *s->m_pool, s->m_world, options.source);
  if (!game) return game.error();
  s->m_game = std::move(*game);
  s->m_game->start(header.start_block, header.start_frac, header.start_yaw, header.start_pitch, header.start_flying);
  return s;
}

uint64_t world_hash(const World& world) {
  uint64_t h = 0x766F78656E776F72ull;
  for (const ColumnPos& p : world.positions()) {
    h = mix64(h ^ hash2(0x636F6C756D6Eull, p.x, p.z));
    h = mix64(h ^ world.find(p)->content_hash(true));
  }
  return h;
}

RunResult run_events(Game& game, const std::vector<InputEvent>& events, uint64_t frames, int render_every,
                     bool check_invariants, const FrameCallback& on_frame,
                     const std::map<uint64_t, stream::FrameSchedule>* schedules) {
  static const stream::FrameSchedule kNothing;
  RunResult r;
  render_every = std::max(1, render_every);
  size_t next = 0;
  const uint64_t first = game.frame_number();
  for (uint64_t i = 0; i < frames; ++i) {
    const uint64_t f = game.frame_number();
    while (next < events.size() && events[next].frame < f) ++next;  // events for frames already past are dropped
    size_t end = next;
    while (end < events.size() && events[end].frame == f) ++end;
    const bool last = i + 1 == frames;
    const bool draw = last || (f - first) % static_cast<uint64_t>(render_every) == 0;
    const stream::FrameSchedule* sc = nullptr;
    if (schedules) {
      const auto it = schedules->find(f);
      sc = it == schedules->end() ? &kNothing : &it->second;
    }
    const FrameReport rep = game.frame(std::span<const InputEvent>(events.data() + next, end - next), draw, sc);
    next = end;
    ++r.frames;
    if (!rep.stream_error.empty()) {
      r.failures.push_back("frame " + std::to_string(f) + ": streaming: " + rep.stream_error);
      r.failed_frame = f;
      return r;
    }
    r.edits_applied += static_cast<uint64_t>(rep.edits_applied);
    r.edits_refused += static_cast<uint64_t>(rep.edits_refused);
    if (check_invariants) {
      std::vector<std::string> fails = game.check_invariants();
      if (rep.gl_error) fails.push_back("GL error 0x" + [&] {
        char b[16];
        std::snprintf(b, sizeof b, "%04x", rep.gl_error);
        return std::string(b);
      }());
      if (!fails.empty()) {
        for (const std::string& s : fails) r.failures.push_back("frame " + std::to_string(f) + ": " + s);
        r.failed_frame = f;
        return r;
      }
    }
    if (on_frame && !on_frame(rep)) break;
  }
  return r;
}

}  // namespace voxen::play
