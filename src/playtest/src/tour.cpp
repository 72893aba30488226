#include "voxen/playtest/tour.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "voxen/gen/structures.h"
#include "voxen/play/spawn.h"
#include "voxen/play/window_input.h"

namespace voxen::playtest {

using namespace voxen::play;  // the tour drives the game as a player would: its events, controls and spawn search

namespace {

constexpr double kSpikeMs = 250.0;
constexpr int kStormRadius = 14;  // the storm segment's blast: a ball of about 12,700 cells

InputEvent make(uint64_t frame, EventKind kind, int code = 0, double x = 0, double y = 0, double z = 0) {
  return InputEvent{frame, kind, code, x, y, z};
}

Stat stat_of(std::vector<double> v) {
  Stat s;
  if (v.empty()) return s;
  for (double x : v) s.total += x;
  s.mean = s.total / static_cast<double>(v.size());
  std::sort(v.begin(), v.end());
  auto rank = [&](double p) {
    const double r = std::ceil(p * static_cast<double>(v.size()));
    return v[std::min(v.size() - 1, static_cast<size_t>(std::max(r, 1.0)) - 1)];
  };
  s.p50 = rank(0.50);
  s.p95 = rank(0.95);
  s.p99 = rank(0.99);
  s.max = v.back();
  return s;
}

// Per-frame figures of one segment, summarised at the end.
struct Collector {
  std::vector<double> frame, generate, light, mesh, upload, cull, draw, wait, edit;
  std::vector<double> holes_share, holes_ms;
  std::vector<double> far_ms, far_queue, far_requests, far_build, lod_sections, lod_quads, lod_quads_facing_away;
  std::vector<double> in_frustum, hidden_caves, hidden_occlusion, drawn_sections, caves_ms, occlusion_ms, culling_ms,
      lod_hidden;
  uint64_t lod_bytes_max = 0, far_hole_frames = 0, far_holes_max = 0, far_real_max = 0, far_rebuilds = 0;
  uint64_t near_hole_frames = 0, drawn_hole_frames = 0;
  std::string first_near_hole, first_drawn_hole;
  std::vector<Spike> spikes;
  double distance = 0;
  uint64_t edits = 0, refused = 0;
  uint64_t sim_ticks = 0, sim_changes = 0;
  std::vector<double> sim_tick_ms, sim_sections;  // per tick
  std::vector<double> creature_tick_ms, creature_sync_ms, creature_pose_ms, creature_ms, creatures_live;  // per frame
  uint64_t creature_steps = 0, creature_rests = 0;
  EditBurst burst;                 // the frame with the most edits so far
  bool burst_next = false;         // the next frame is the one after it

  /// `holes`, `holes_ms_now`: the holes observer's result and its time in frame r.frame.
  void add(const FrameReport& r, const HolesResult& holes, double holes_ms_now, double moved, const Game& g) {
    refused += static_cast<uint64_t>(r.edits_refused);
    frame.push_back(r.frame_ms);
    creature_tick_ms.push_back(r.creatures.ms);
    creature_sync_ms.push_back(r.creature_sync_ms);
    creature_pose_ms.push_back(r.creature_pose_ms);
    creature_ms.push_back(r.creatures.ms + r.creature_sync_ms + r.creature_pose_ms);
    creatures_live.push_back(static_cast<double>(r.creatures_live));
    creature_steps += static_cast<uint64_t>(r.creatures.stepped);
    creature_rests += static_cast<uint64_t>(r.creatures.rested);
    sim_ticks += static_cast<uint64_t>(r.sim_ticks);
    sim_changes += static_cast<uint64_t>(r.sim_changes);
    for (int t = 0; t < r.sim_ticks; ++t) {  // a frame's ticks share its step time evenly
      sim_tick_ms.push_back(r.sim_ms / r.sim_ticks);
      sim_sections.push_back(static_cast<double>(r.sim_sections) / r.sim_ticks);
    }
    generate.push_back(r.stream.generate_cpu_ms);
    light.push_back(r.stream.light_cpu_ms + r.stream.stitch_ms + r.stream.unload_ms + r.edit_light_ms);
    mesh.push_back(r.stream.mesh_cpu_ms + r.stream.snapshot_ms + r.edit_remesh_ms);
    upload.push_back(r.stream.upload_ms + r.edit_upload_ms);
    cull.push_back(r.render.cull_ms);
    draw.push_back(r.render.build_ms + r.render.submit_ms + r.hud_ms + r.present_ms);
    wait.push_back(r.stream.wait_ms);
    if (r.rendered) {
      in_frustum.push_back(static_cast<double>(r.render.sections_in_frustum));
      hidden_caves.push_back(static_cast<double>(r.render.sections_hidden_by_caves));
      hidden_occlusion.push_back(static_cast<double>(r.render.sections_hidden_by_occlusion));
      drawn_sections.push_back(static_cast<double>(r.render.sections_visible));
      caves_ms.push_back(r.render.caves_ms);
      occlusion_ms.push_back(r.render.occlusion_ms);
      culling_ms.push_back(r.render.culling_ms);
      lod_hidden.push_back(static_cast<double>(r.render.lod_sections_hidden_by_occlusion));
    }
    if (g.far_view() != nullptr) {
      far_ms.push_back(r.far_ms);
      far_queue.push_back(static_cast<double>(r.far.queued));
      far_requests.push_back(static_cast<double>(r.far.requests));
      far_build.push_back(r.far.build_cpu_ms);
      lod_sections.push_back(static_cast<double>(r.render.lod_sections_drawn));
      lod_quads.push_back(static_cast<double>(r.render.lod_quads));
      lod_quads_facing_away.push_back(static_cast<double>(r.render.lod_quads_facing_away));
      lod_bytes_max = std::max<uint64_t>(lod_bytes_max, g.renderer().lod_arena().capacity_bytes().value + g.far_view()->memory_bytes());
      far_real_max = std::max<uint64_t>(far_real_max, r.far.real_columns);
      far_rebuilds += r.far.rebuilds;
      if (holes.far_hole_pixels > 0) ++far_hole_frames;
      far_holes_max = std::max<uint64_t>(far_holes_max, holes.far_hole_pixels);
    }
    if (burst_next) burst.next_frame_ms = r.frame_ms;
    burst_next = false;
    if (static_cast<uint64_t>(r.edits_applied) > burst.edits) {
      burst = EditBurst{static_cast<uint64_t>(r.edits_applied), r.frame, r.frame_ms, 0.0, r.edit_light_ms, r.edit_remesh_ms,
                        r.edit_upload_ms, static_cast<uint64_t>(r.sections_remeshed)};
      burst_next = true;
    }
    if (r.edits_applied > 0) {
      edits += static_cast<uint64_t>(r.edits_applied);
      const double per = (r.edit_remesh_ms + r.edit_upload_ms) / r.edits_applied;
      for (int i = 0; i < r.edits_applied; ++i) edit.push_back(per);
    }
    if (r.rendered) holes_ms.push_back(holes_ms_now);
    if (holes.measured) {
      holes_share.push_back(holes.fraction());
      if (holes.near_hole_pixels > 0 && ++near_hole_frames == 1) {
        const BlockPos& h = holes.first_hole;
        const render::Camera cam = g.camera();
        first_near_hole = "frame " + std::to_string(r.frame) + ": " + std::to_string(holes.near_hole_pixels) +
                          " pixels, first at ground " + std::to_string(h.x) + "," + std::to_string(h.y) + "," + std::to_string(h.z) +
                          " (column " + std::string(stream::column_state_name(g.streamer().state(column_pos_of(h)))) +
                          "), eye " + std::to_string(cam.block.x) + "," + std::to_string(cam.block.y) + "," + std::to_string(cam.block.z);
      }
      if (holes.drawn_hole_pixels > 0 && ++drawn_hole_frames == 1) {
        const BlockPos& h = holes.first_drawn_hole;
        const ColumnPos c = column_pos_of(h);
        const render::Camera cam = g.camera();
        first_drawn_hole = "frame " + std::to_string(r.frame) + ": " + std::to_string(holes.drawn_hole_pixels) +
                           " near-hole pixels in drawn columns, the first in column " + std::to_string(c.x) + "," +
                           std::to_string(c.z) + " (ground " + std::to_string(h.x) + "," + std::to_string(h.y) + "," +
                           std::to_string(h.z) + "), eye " + std::to_string(cam.block.x) + "," + std::to_string(cam.block.y) +
                           "," + std::to_string(cam.block.z);
      }
    }
    distance += moved;
    if (r.frame_ms > kSpikeMs) {
      const std::pair<const char*, double> parts[] = {
          {"input", r.input_ms},
          {"physics", r.physics_ms},
          {"pick", r.pick_ms},
          {"edit (light, remesh, upload)", r.edit_light_ms + r.edit_remesh_ms + r.edit_upload_ms},
          {"light stitch of new columns", r.stream.stitch_ms},
          {"unload", r.stream.unload_ms},
          {"mesh snapshots", r.stream.snapshot_ms},
          {"upload", r.stream.upload_ms},
          {"waiting for workers (generate, light, mesh)", r.stream.wait_ms},
          {"streaming schedule", r.stream.schedule_ms},
          {"far view (select, upload, wait)", r.far_ms},
          {"cull", r.render.cull_ms},
          {"draw (build + submit)", r.render.build_ms + r.render.submit_ms},
          {"hud", r.hud_ms},
          {"present (GPU finish)", r.present_ms},
      };
      const auto* top = &parts[0];
      for (const auto& p : parts)
        if (p.second > top->second) top = &p;
      spikes.push_back({r.frame, r.frame_ms, top->first, top->second});
    }
  }

  void finish(SegmentReport& s) const {
    s.frames = frame.size();
    s.frame_ms = stat_of(frame);
    s.generate = stat_of(generate);
    s.light = stat_of(light);
    s.mesh = stat_of(mesh);
    s.upload = stat_of(upload);
    s.cull = stat_of(cull);
    s.draw = stat_of(draw);
    s.wait = stat_of(wait);
    s.edit_ms = stat_of(edit);
    s.edits = edits;
    s.edits_refused = refused;
    s.first_near_hole = first_near_hole;
    s.holes_frames = holes_share.size();
    const Stat h = stat_of(holes_share);
    s.holes_mean = h.mean;
    s.holes_max = h.max;
    s.holes_ms = stat_of(holes_ms);
    s.far_ms = stat_of(far_ms);
    s.far_queue = stat_of(far_queue);
    s.far_requests = stat_of(far_requests);
    s.far_build = stat_of(far_build);
    s.lod_sections = stat_of(lod_sections);
    s.lod_quads = stat_of(lod_quads);
    s.lod_quads_facing_away = stat_of(lod_quads_facing_away);
    s.culling = {stat_of(in_frustum), stat_of(hidden_caves), stat_of(hidden_occlusion), stat_of(drawn_sections),
                 stat_of(caves_ms),   stat_of(occlusion_ms), stat_of(culling_ms), stat_of(lod_hidden)};
    s.lod_bytes_max = lod_bytes_max;
    s.far_hole_frames = far_hole_frames;
    s.far_holes_max = far_holes_max;
    s.far_real_columns_max = far_real_max;
    s.far_rebuilds = far_rebuilds;
    s.near_hole_frames = near_hole_frames;
    s.drawn_hole_frames = drawn_hole_frames;
    s.first_drawn_hole = first_drawn_hole;
    s.spikes = spikes;
    s.edit_burst = burst;
    s.distance = distance;
    s.sim_ticks = sim_ticks;
    s.sim_changes = sim_changes;
    s.sim_tick_ms = stat_of(sim_tick_ms);
    s.creature_tick_ms = stat_of(creature_tick_ms);
    s.creature_sync_ms = stat_of(creature_sync_ms);
    s.creature_pose_ms = stat_of(creature_pose_ms);
    s.creature_ms = stat_of(creature_ms);
    s.creatures_live = stat_of(creatures_live);
    s.creature_resting_share =
        creature_steps + creature_rests ? static_cast<double>(creature_rests) / static_cast<double>(creature_steps + creature_rests) : 0.0;
    s.sim_sections = stat_of(sim_sections);
  }
};

// Holds keys as a script wants them: emits the down/up events that make the held set match.
void want_key(std::vector<InputEvent>& out, uint64_t f, const Controls& c, Key k, bool down) {
  if (c.held_key(k) != down) out.push_back(make(f, down ? EventKind::kKeyDown : EventKind::kKeyUp, static_cast<int>(k)));
}

void release_all(std::vector<InputEvent>& out, uint64_t f, const Controls& c) {
  for (int k = 0; k < kKeyCount; ++k)
    if (c.held[static_cast<size_t>(k)]) out.push_back(make(f, EventKind::kKeyUp, k));
  for (int b = 0; b < kButtonCount; ++b)
    if (c.buttons[static_cast<size_t>(b)]) out.push_back(make(f, EventKind::kButtonUp, b));
}

void click(std::vector<InputEvent>& out, uint64_t f, MouseButton b) {
  out.push_back(make(f, EventKind::kButtonDown, static_cast<int>(b)));
  out.push_back(make(f, EventKind::kButtonUp, static_cast<int>(b)));
}

// The highest generated ground on a grid around (x, z): the "mountains" of the fly_low segment.
std::pair<int64_t, int64_t> find_high_ground(const gen::Generator& gen, int64_t x, int64_t z, int64_t radius, int64_t step) {
  int64_t best_y = INT64_MIN, bx = x, bz = z;
  for (int64_t dz = -radius; dz <= radius; dz += step)
    for (int64_t dx = -radius; dx <= radius; dx += step) {
      const int64_t y = gen.surface_y(x + dx, z + dz);
      if (y > best_y) {
        best_y = y;
        bx = x + dx;
        bz = z + dz;
      }
    }
  return {bx, bz};
}

// An enclosed standing spot with no sky light in the loaded columns around the player: a cave.
std::optional<BlockPos> find_cave(const World& world, const BlockRegistry& reg, const BlockPos& near, HeightCache& heights) {
  const ColumnPos c0{column_of(near.x), column_of(near.z)};
  std::vector<std::pair<int64_t, ColumnPos>> cols;
  for (int64_t dx = -2; dx <= 2; ++dx)
    for (int64_t dz = -2; dz <= 2; ++dz) cols.push_back({dx * dx + dz * dz, ColumnPos{c0.x + dx, c0.z + dz}});
  std::sort(cols.begin(), cols.end());
  for (const auto& [d, cp] : cols) {
    const Column* col = world.find(cp);
    if (!col) continue;
    for (int lz = 1; lz < 15; ++lz)
      for (int lx = 1; lx < 15; ++lx) {
        const int64_t x = cp.min_x() + lx, z = cp.min_z() + lz;
        for (int64_t y = heights.top(x, z) - 8; y > kMinY + 2; --y) {
          if (!is_standing_spot(*col, reg, x, y, z)) continue;
          if (light_sky(col->light(lx, y, lz)) != 0 || light_sky(col->light(lx, y + 1, lz)) != 0) continue;
          if (col->get(lx, y, lz).id != kAirId || col->get(lx, y + 1, lz).id != kAirId) continue;
          return BlockPos{x, y, z};
        }
      }
  }
  return std::nullopt;
}

constexpr size_t kVillageCreatures = 200;  // the village segment's creatures (issue 22)

class TourRunner {
 public:
  TourRunner(Game& g, const gen::Generator& gen, const TourOptions& o)
      : m_g(g), m_gen(gen), m_o(o), m_heights(gen, g.registry()),
        m_holes(gen, g.registry(), g.world(), g.config().render_distance, HolesOptions{.stride = o.holes_stride}),
        m_pacer(o.paced ? 1.0 / g.controls().frame_seconds : 0.0, /*spin_ms=*/0.0) {
    m_g.add_observer(m_holes);
  }
  ~TourRunner() { m_g.remove_observer(m_holes); }
  TourRunner(const TourRunner&) = delete;
  TourRunner& operator=(const TourRunner&) = delete;

  // One frame of the game, then (paced) the wait until the step's period has passed since the last frame began.
  FrameReport frame(std::span<const InputEvent> events) {
    FrameReport r = m_g.frame(events);
    m_pacer.wait();
    return r;
  }

  /// Adds the events of measured frame i (`last`: the previous frame's report, null at first); returns false when
  /// the segment is done (that frame is not run).
  using Script = std::function<bool(uint64_t i, const FrameReport* last, std::vector<InputEvent>& out)>;

  // Runs setup events, an optional warm-up until the view is complete, then the script for up to max_frames.
  SegmentReport segment(const std::string& name, std::vector<InputEvent> setup, bool warmup, uint64_t max_frames,
                        const Script& script) {
    SegmentReport s;
    s.name = name;
    const uint64_t f0 = m_g.frame_number();
    release_all(setup, f0, m_g.controls());
    for (InputEvent& e : setup) e.frame = f0;
    Collector col;
    if (warmup) {
      // Until the near view is complete and, with a far view, nothing it selects is missing or in flight.
      FrameReport r = frame(setup);
      ++s.warmup_frames;
      auto complete = [&] {
        return m_g.streamer().view_complete() && (m_g.far_view() == nullptr || (r.far.nodes_missing == 0 && r.far.queued == 0));
      };
      while (!complete() && s.warmup_frames < m_o.warmup_frames) {
        r = frame({});
        s.warmup_ms += r.frame_ms;
        ++s.warmup_frames;
      }
      s.warmup_complete = complete();
      setup.clear();
    }
    bool seen_complete = false;
    uint64_t worst_far_pixels = 0;
    FrameReport last;
    for (uint64_t i = 0; i < max_frames; ++i) {
      std::vector<InputEvent> ev = std::move(setup);
      setup.clear();
      if (!script(i, i ? &last : nullptr, ev)) break;
      for (InputEvent& e : ev) e.frame = m_g.frame_number();
      const glm::dvec3 before = m_g.player().feet();
      last = frame(ev);
      const HolesResult& holes = m_holes.result(last.frame);
      col.add(last, holes, m_holes.ms(last.frame), glm::length(m_g.player().feet() - before), m_g);
      const bool first_near = holes.near_hole_pixels > 0 && col.near_hole_frames == 1;
      const bool first_far = holes.far_hole_pixels > 0 && col.far_hole_frames == 1;
      const bool worst_far = holes.far_hole_pixels > worst_far_pixels;  // the most far holes so far: saved too
      worst_far_pixels = std::max<uint64_t>(worst_far_pixels, holes.far_hole_pixels);
      // Each kind its own picture, its holes in red (a frame can be a first near-hole frame and a worst far one).
      const auto save = [&](const std::vector<std::pair<int, int>>& at, const char* kind) {
        render::Image im = m_g.read_pixels();
        for (const auto& [x, y] : at) {
          uint8_t* p = im.at(x, im.height - 1 - y);
          p[0] = 255;
          p[1] = 0;
          p[2] = 0;
        }
        (void)render::save_png(im, m_o.hole_shots + "/" + name + kind + std::to_string(last.frame) + ".png");
      };
      if (!m_o.hole_shots.empty()) {
        if (first_near) save(holes.hole_at, "-holes-");
        if (first_far) save(holes.far_hole_at, "-far-holes-");
        else if (worst_far) save(holes.far_hole_at, "-far-holes-worst-");
      }
      if (!seen_complete && m_g.streamer().view_complete()) {
        seen_complete = true;
        s.first_complete_frame = i;
      }
    }
    col.finish(s);
    s.columns_loaded = m_g.streamer().loaded_count();
    s.columns_drawn = m_g.streamer().drawn_count();
    return s;
  }

  Result<TourReport> run(const std::function<void(const std::string&)>& progress) {
    TourReport rep;
    rep.spike_threshold_ms = kSpikeMs;
    const BlockPos spawn = m_g.player().block;
    auto wanted = [&](const std::string& n) { return m_o.only.empty() || std::find(m_o.only.begin(), m_o.only.end(), n) != m_o.only.end(); };
    auto begin = [&](const std::string& n) {
      if (progress) progress(n);
    };
    const uint64_t n = m_o.frames;
    const double yaw0 = 30.0;

    if (wanted("spawn")) {
      begin("spawn");
      std::vector<InputEvent> setup = {make(0, EventKind::kLook, 0, yaw0, -10.0)};
      SegmentReport s = segment("spawn", setup, false, n, [&](uint64_t, const FrameReport*, std::vector<InputEvent>&) { return true; });
      s.note = "standing at the spawn " + pos_text(spawn) + " from an empty world";
      rep.segments.push_back(s);
    }
    if (wanted("walk")) {
      begin("walk");
      const std::vector<InputEvent> setup = {make(0, EventKind::kSetFly, 0), make(0, EventKind::kLook, 0, yaw0, -10.0)};
      SegmentReport s = segment("walk", setup, true, n, [&](uint64_t i, const FrameReport*, std::vector<InputEvent>& out) {
        const uint64_t f = m_g.frame_number();
        const Controls& c = m_g.controls();
        want_key(out, f, c, Key::kW, true);
        want_key(out, f, c, Key::kCtrl, true);
        const PlayerState& p = m_g.player();
        const bool blocked = p.on_ground && std::hypot(p.velocity.x, p.velocity.z) < 1.0 && i > 2;
        want_key(out, f, c, Key::kSpace, blocked && !c.held_key(Key::kSpace));
        return true;
      });
      s.note = "sprinting from " + pos_text(m_g.player().block) + " (yaw 30)";
      rep.segments.push_back(s);
    }
    if (wanted("fly_low")) {
      begin("fly_low");
      const auto [mx, mz] = find_high_ground(m_gen, spawn.x, spawn.z, 1024, 64);
      const int64_t sx = mx - 120;  // start before the peak, fly east over it
      const double alt = static_cast<double>(ground_ahead(sx, mz, 40)) + 14.0;
      const std::vector<InputEvent> setup = {make(0, EventKind::kTeleport, 0, sx + 0.5, alt, mz + 0.5),
                                             make(0, EventKind::kSetFly, 1), make(0, EventKind::kFlySpeed, 0, 40.0),
                                             make(0, EventKind::kLook, 0, 90.0, -12.0)};
      SegmentReport s = segment("fly_low", setup, true, n, [&](uint64_t, const FrameReport*, std::vector<InputEvent>& out) {
        const uint64_t f = m_g.frame_number();
        const Controls& c = m_g.controls();
        const glm::dvec3 feet = m_g.player().feet();
        const double target = static_cast<double>(ground_ahead(static_cast<int64_t>(std::floor(feet.x)),
                                                               static_cast<int64_t>(std::floor(feet.z)), 40)) + 14.0;
        want_key(out, f, c, Key::kW, true);
        want_key(out, f, c, Key::kSpace, feet.y < target - 1.5);
        want_key(out, f, c, Key::kShift, feet.y > target + 1.5);
        return true;
      });
      s.note = "40 blocks/s east over the highest ground near the spawn (peak at " + std::to_string(mx) + "," +
               std::to_string(mz) + ", surface " + std::to_string(m_gen.surface_y(mx, mz)) + ")";
      rep.segments.push_back(s);
    }
    if (wanted("jet")) {
      begin("jet");
      const int64_t sx = spawn.x + 2000, sz = spawn.z + 500;
      const double speed = m_o.jet_speed;
      const int64_t length = static_cast<int64_t>(static_cast<double>(n) * speed * m_g.controls().frame_seconds) + 16 * m_g.config().render_distance + 32;
      int64_t top = kSeaLevel;
      for (int64_t d = 0; d <= length; d += 4) top = std::max(top, m_heights.top(sx + d, sz));
      const double alt = static_cast<double>(top) + 10.0;
      const std::vector<InputEvent> setup = {make(0, EventKind::kTeleport, 0, sx + 0.5, alt, sz + 0.5),
                                             make(0, EventKind::kSetFly, 1), make(0, EventKind::kFlySpeed, 0, speed),
                                             make(0, EventKind::kLook, 0, 90.0, -15.0)};
      SegmentReport s = segment("jet", setup, true, n, [&](uint64_t, const FrameReport*, std::vector<InputEvent>& out) {
        want_key(out, m_g.frame_number(), m_g.controls(), Key::kW, true);
        return true;
      });
      s.note = std::to_string(static_cast<int64_t>(speed)) + " blocks/s east in a straight line at y " + std::to_string(static_cast<int64_t>(alt)) + " from " +
               std::to_string(sx) + "," + std::to_string(sz);
      rep.segments.push_back(s);
    }
    if (wanted("dig")) {
      begin("dig");
      const auto spot = find_generated_spawn(m_gen, m_g.registry(), spawn.x + 48, spawn.z + 48);
      if (!spot) return Error{"tour: no place to stand found for the dig segment"};
      const int64_t start_y = spot->y;
      const std::vector<InputEvent> setup = {make(0, EventKind::kTeleport, 0, spot->x + 0.5, static_cast<double>(spot->y), spot->z + 0.5),
                                             make(0, EventKind::kSetFly, 0), make(0, EventKind::kFlySpeed, 0, 0.0),
                                             make(0, EventKind::kLook, 0, 0.0, -90.0)};
      SegmentReport s = segment("dig", setup, true, 5 * n, [&](uint64_t, const FrameReport*, std::vector<InputEvent>& out) {
        if (m_g.player().block.y <= start_y - 60) return false;
        if (m_g.target()) click(out, m_g.frame_number(), MouseButton::kLeft);
        return true;
      });
      s.note = "digging straight down from " + pos_text(*spot) + " to y " + std::to_string(m_g.player().block.y);
      rep.segments.push_back(s);
    }
    if (wanted("place")) {
      begin("place");
      const auto spot = find_generated_spawn(m_gen, m_g.registry(), spawn.x - 48, spawn.z + 48);
      if (!spot) return Error{"tour: no place to stand found for the place segment"};
      const std::vector<InputEvent> setup = {make(0, EventKind::kTeleport, 0, spot->x + 0.5, static_cast<double>(spot->y), spot->z + 0.5),
                                             make(0, EventKind::kSetFly, 0), make(0, EventKind::kLook, 0, 0.0, -45.0)};
      // Ten clicks round the player at a station (golden-angle yaws, 35 to 59 degrees down), then on to the next
      // station 7 blocks east (a standing spot of the loaded world), so the player never walls itself in.
      uint64_t placed = 0, at_station = 0;
      int64_t station = 0;
      SegmentReport s = segment("place", setup, true, 5 * n, [&](uint64_t i, const FrameReport* last, std::vector<InputEvent>& out) {
        if (last) placed += static_cast<uint64_t>(last->edits_applied);
        if (placed >= 100) return false;
        const uint64_t f = m_g.frame_number();
        if (++at_station > 10) {
          at_station = 1;
          ++station;
          const auto next = find_world_spawn(m_g.world(), m_g.registry(), spot->x + 7 * station, spot->z, 1);
          if (next) out.push_back(make(f, EventKind::kTeleport, 0, next->x + 0.5, static_cast<double>(next->y), next->z + 0.5));
        }
        const int slot = static_cast<int>(i % kHotbarSlots);
        out.push_back(make(f, EventKind::kKeyDown, static_cast<int>(Key::k1) + slot));
        out.push_back(make(f, EventKind::kKeyUp, static_cast<int>(Key::k1) + slot));
        out.push_back(make(f, EventKind::kLook, 0, std::fmod(static_cast<double>(i) * 137.5, 360.0), -35.0 - static_cast<double>(i % 4) * 8.0));
        click(out, f, MouseButton::kRight);
        return true;
      });
      s.note = "placing blocks round the player, cycling the hotbar, at stations 7 blocks apart from " + pos_text(*spot);
      rep.segments.push_back(s);
    }
    if (wanted("cave")) {
      begin("cave");
      std::optional<BlockPos> cave;
      std::string where;
      const std::pair<int64_t, int64_t> tries[] = {{0, -96}, {96, 0}, {-96, 0}, {0, 96}, {192, 192}, {-192, -192}};
      for (const auto& [dx, dz] : tries) {
        const auto spot = find_generated_spawn(m_gen, m_g.registry(), spawn.x + dx, spawn.z + dz);
        if (!spot) continue;
        std::vector<InputEvent> go = {make(m_g.frame_number(), EventKind::kTeleport, 0, spot->x + 0.5, static_cast<double>(spot->y), spot->z + 0.5),
                                      make(m_g.frame_number(), EventKind::kSetFly, 0)};
        release_all(go, m_g.frame_number(), m_g.controls());
        frame(go);
        for (uint64_t w = 0; w < m_o.warmup_frames && !m_g.streamer().view_complete(); ++w) frame({});
        cave = find_cave(m_g.world(), m_g.registry(), m_g.player().block, m_heights);
        if (cave) break;
      }
      if (!cave) return Error{"tour: no cave found near the spawn for the cave segment"};
      const std::vector<InputEvent> setup = {make(0, EventKind::kTeleport, 0, cave->x + 0.5, static_cast<double>(cave->y), cave->z + 0.5),
                                             make(0, EventKind::kSetFly, 0), make(0, EventKind::kLook, 0, 0.0, 0.0)};
      SegmentReport s = segment("cave", setup, true, n, [&](uint64_t i, const FrameReport*, std::vector<InputEvent>& out) {
        out.push_back(make(m_g.frame_number(), EventKind::kLook, 0, std::fmod(static_cast<double>(i) * 3.0, 360.0), -5.0));
        return true;
      });
      s.note = "standing in a cave at " + pos_text(*cave) + ", turning 3 degrees a frame";
      rep.segments.push_back(s);
    }
    if (wanted("storm")) {
      begin("storm");
      // An edit storm (issue 15): one blast of radius 14 centred 10 blocks under the ground 20 blocks east of the
      // player, about 12,000 blocks removed in one frame, open to the sky, across column and section borders.
      const auto spot = find_generated_spawn(m_gen, m_g.registry(), spawn.x + 96, spawn.z - 48);
      if (!spot) return Error{"tour: no place to stand found for the storm segment"};
      const BlockPos centre{spot->x + 20, spot->y - 11, spot->z};  // spot: the feet, a block over the ground
      const std::vector<InputEvent> setup = {make(0, EventKind::kTeleport, 0, spot->x + 0.5, static_cast<double>(spot->y) + 12.0, spot->z + 0.5),
                                             make(0, EventKind::kSetFly, 1), make(0, EventKind::kFlySpeed, 0, 0.0),
                                             make(0, EventKind::kLook, 0, 90.0, -45.0)};
      SegmentReport s = segment("storm", setup, true, n, [&](uint64_t i, const FrameReport*, std::vector<InputEvent>& out) {
        if (i == 0)
          out.push_back(make(m_g.frame_number(), EventKind::kBlast, kStormRadius, centre.x + 0.5, centre.y + 0.5, centre.z + 0.5));
        return true;
      });
      s.note = "a blast of radius " + std::to_string(kStormRadius) + " at " + pos_text(centre) + ", 10 blocks under the ground, seen from " +
               pos_text(m_g.player().block) + ": " + std::to_string(s.edit_burst.edits) + " edits in one frame";
      rep.segments.push_back(s);
    }
    if (wanted("village")) {
      begin("village");
      // In the nearest village within 2,048 blocks of the spawn (gen/structures.h; open grass 160 blocks out when
      // there is none), 200 creatures round the player, added after the warm-up; the player turns slowly.
      int64_t vx = spawn.x + 160, vz = spawn.z - 160;
      std::string where = "open grass";
      {
        const gen::StructurePlanner planner(m_gen.seed(), m_g.registry());
        std::vector<gen::Structure> found;
        planner.find(spawn.x - 2048, spawn.z - 2048, spawn.x + 2048, spawn.z + 2048, found);
        int64_t best = INT64_MAX;
        for (const gen::Structure& st : found) {
          if (st.kind != gen::StructureKind::kVillage) continue;
          const int64_t d = std::abs(st.x - spawn.x) + std::abs(st.z - spawn.z);
          if (d < best) {
            best = d;
            vx = st.x;
            vz = st.z;
            where = "the village at " + std::to_string(st.x) + "," + std::to_string(st.z);
          }
        }
      }
      const auto spot = find_generated_spawn(m_gen, m_g.registry(), vx, vz);
      if (!spot) return Error{"tour: no place to stand found for the village segment"};
      const std::vector<InputEvent> setup = {make(0, EventKind::kTeleport, 0, spot->x + 0.5, static_cast<double>(spot->y), spot->z + 0.5),
                                             make(0, EventKind::kSetFly, 0), make(0, EventKind::kLook, 0, 0.0, -15.0)};
      size_t added = 0;
      SegmentReport s = segment("village", setup, true, n, [&](uint64_t i, const FrameReport*, std::vector<InputEvent>& out) {
        if (i == 0 && m_g.creatures()) {
          play::Creatures& cr = *m_g.creatures();
          const size_t before = cr.all().size();
          for (uint64_t salt = 1; cr.all().size() < before + kVillageCreatures && salt <= 512; ++salt)
            cr.spawn_around(m_g.world(), static_cast<play::CreatureKind>(salt % play::kCreatureKinds), spot->x, spot->z,
                            16, 32, 0x7111A6Eu + salt);
          added = cr.all().size() - before;
        }
        out.push_back(make(m_g.frame_number(), EventKind::kLook, 0, static_cast<double>(i) * 1.5, -15.0));
        return true;
      });
      s.note = std::to_string(added) + " creatures added round " + pos_text(*spot) + " (" + where + "); " +
               std::to_string(static_cast<int>(s.creature_resting_share * 100.0 + 0.5)) + "% of creature ticks resting";
      rep.segments.push_back(s);
    }
    if (wanted("flood")) {
      begin("flood");
      // The world simulation under load: a lake 11 x 11 x 4 whose wall opens, built with one scripted event 24
      // blocks east of a player hovering 10 blocks over the ground, looking at it.
      const auto spot = find_generated_spawn(m_gen, m_g.registry(), spawn.x - 96, spawn.z + 96);
      if (!spot) return Error{"tour: no place to stand found for the flood segment"};
      const int64_t site_x = spot->x + 24, site_z = spot->z;
      const std::vector<InputEvent> setup = {make(0, EventKind::kTeleport, 0, spot->x + 0.5, static_cast<double>(spot->y) + 10.0, spot->z + 0.5),
                                             make(0, EventKind::kSetFly, 1), make(0, EventKind::kFlySpeed, 0, 0.0),
                                             make(0, EventKind::kLook, 0, 90.0, -20.0)};
      SegmentReport s = segment("flood", setup, true, n, [&](uint64_t i, const FrameReport*, std::vector<InputEvent>& out) {
        if (i == 0) out.push_back(make(m_g.frame_number(), EventKind::kScenario, 0, site_x + 0.5, 0.0, site_z + 0.5));
        return true;
      });
      s.note = "the dam-break scenario at " + std::to_string(site_x) + "," + std::to_string(site_z) + " seen from " +
               pos_text(m_g.player().block) + ": " + std::to_string(s.sim_ticks) + " ticks changed " +
               std::to_string(s.sim_changes) + " cells";
      rep.segments.push_back(s);
    }
    return rep;
  }

 private:
  static std::string pos_text(const BlockPos& p) {
    return std::to_string(p.x) + "," + std::to_string(p.y) + "," + std::to_string(p.z);
  }
  // The highest ground top over the next `ahead` blocks east of (x, z).
  int64_t ground_ahead(int64_t x, int64_t z, int64_t ahead) {
    int64_t top = INT64_MIN;
    for (int64_t d = 0; d <= ahead; d += 4) top = std::max(top, m_heights.top(x + d, z));
    return top;
  }

  Game& m_g;
  const gen::Generator& m_gen;
  const TourOptions& m_o;
  HeightCache m_heights;    // generated ground only: finding the segments' places
  HolesObserver m_holes;    // the measurement, attached to the game while the runner lives
  FramePacer m_pacer;
};

}  // namespace

const std::vector<std::string>& tour_segment_names() {
  static const std::vector<std::string> names = {"spawn", "walk", "fly_low", "jet", "dig", "place", "cave", "storm", "village", "flood"};
  return names;
}

Result<TourReport> run_tour(Game& game, const gen::Generator& generator, const TourOptions& options,
                            const std::function<void(const std::string&)>& progress) {
  for (const std::string& s : options.only)
    if (std::find(tour_segment_names().begin(), tour_segment_names().end(), s) == tour_segment_names().end())
      return Error{"tour: unknown segment '" + s + "'"};
  TourRunner runner(game, generator, options);
  return runner.run(progress);
}

}  // namespace voxen::playtest
