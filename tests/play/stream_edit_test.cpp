// Streaming and edits through the real frame loop, headless: columns left behind by a flight are removed from the
// World and their GPU spans freed (the renderer holds exactly the drawn columns' meshes), and an edit made with a
// click updates the cells, the light (equal to the from-scratch oracle) and exactly the meshes the edit dirtied
// (mesh::sections_dirtied_by of the edit and its light changes), in the frame of the click, and changes the pixels
// where the block was and nowhere else.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <map>
#include <set>

#include "play_test_util.h"
#include "voxen/light/light.h"
#include "voxen/light/oracle.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/dirty.h"
#include "voxen/mesh/input.h"
#include "voxen/mesh/mesher.h"

namespace voxen::play::testing {
namespace {

constexpr double kEyeHeight = 1.62;

/// Sections of `c` that hold a mesh in the renderer, and their arena bytes (opaque and translucent spans).
struct HeldMeshes {
  size_t sections = 0;
  uint64_t bytes = 0;
};
HeldMeshes held_meshes(const render::Renderer& r, ColumnPos c) {
  HeldMeshes h;
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    const SectionPos sp{c.x, s, c.z};
    const auto o = r.opaque_span(sp), t = r.translucent_span(sp);
    if (o || t) ++h.sections;
    if (o) h.bytes += o->count.value * r.opaque_arena().stride();
    if (t) h.bytes += t->count.value * r.translucent_arena().stride();
  }
  return h;
}

/// Horizontal distance in blocks from the camera's eye to the nearest point of column c.
double column_distance(const render::Camera& cam, ColumnPos c) {
  const glm::dvec3 mn = cam.relative({c.min_x(), 0, c.min_z()});
  const double nx = std::max({mn.x, 0.0, -(mn.x + 16.0)}), nz = std::max({mn.z, 0.0, -(mn.z + 16.0)});
  return std::sqrt(nx * nx + nz * nz);
}

/// True when streaming has nothing left to do: the view is complete and no job is queued or waiting.
bool settled(const Game& g) {
  const stream::ColumnStreamer& s = g.streamer();
  return s.view_complete() && s.gen_in_flight() == 0 && s.mesh_in_flight() == 0 && s.gen_waiting() == 0 &&
         s.mesh_waiting() == 0;
}

TEST(PlayStreaming, ColumnsLeftBehindAreUnloadedAndTheirGpuSpansFreed) {
  const std::string dir = temp_dir("unload");
  // Flying 12 blocks up over the flat world, looking east and down; after the start's view is drawn, fly east at
  // 112 blocks/s for 120 frames (about 220 blocks), then hover while the new view completes.
  RecordingHeader h = flat_header(24.5, 12.0, 30.5, 90.0, -20.0);
  h.start_flying = true;
  RecordingBuilder b(h);
  b.fly_speed(0, 112.0).key(60, Key::kW, true).key(180, Key::kW, false);
  const Recording rec = b.finish(260, dir + "/unload.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  Game& g = s->game();
  const render::Renderer& r = g.renderer();
  const int radius = rec.header.render_distance * kColumnWidth;

  // The renderer holds exactly the meshes of the drawn columns (in a box wide enough for every column the
  // streamer may hold round the eye), and nothing else.
  auto check_renderer_holds_only_drawn = [&](const char* when) {
    const ColumnPos eye{column_of(g.camera().block.x), column_of(g.camera().block.z)};
    HeldMeshes drawn;
    const int64_t reach = rec.header.render_distance + 6;
    for (int64_t dx = -reach; dx <= reach; ++dx)
      for (int64_t dz = -reach; dz <= reach; ++dz) {
        const ColumnPos c{eye.x + dx, eye.z + dz};
        const HeldMeshes m = held_meshes(r, c);
        if (!g.streamer().drawn(c)) {
          EXPECT_EQ(m.sections, 0u) << when << ": column " << c.x << "," << c.z << " is not drawn but holds meshes";
          continue;
        }
        drawn.sections += m.sections;
        drawn.bytes += m.bytes;
      }
    EXPECT_EQ(r.section_count(), drawn.sections) << when << ": sections held beyond the drawn columns";
    EXPECT_EQ(r.arena_used_bytes(), drawn.bytes) << when << ": arena bytes held beyond the drawn columns' spans";
    EXPECT_EQ(g.world().column_count(), g.streamer().loaded_count()) << when;
  };

  RunResult run = run_events(g, rec.events, 60, 10, true);
  ASSERT_TRUE(run.failures.empty()) << run.failures.front();
  ASSERT_TRUE(settled(g)) << "the start's view should be complete by frame 60";
  const std::vector<ColumnPos> start_columns = g.world().positions();
  size_t start_sections = 0;
  for (const ColumnPos& c : start_columns) start_sections += held_meshes(r, c).sections;
  ASSERT_GT(start_columns.size(), 20u);
  ASSERT_GT(start_sections, 20u);
  check_renderer_holds_only_drawn("at the start");
  const uint64_t start_used = r.arena_used_bytes();

  int unloaded = 0;
  run = run_events(g, rec.events, rec.frames - 60, 10, true, [&](const FrameReport& rep) {
    unloaded += rep.stream.columns_unloaded;
    return true;
  });
  ASSERT_TRUE(run.failures.empty()) << run.failures.front();
  EXPECT_TRUE(settled(g)) << "the view round the end of the flight should be complete";
  EXPECT_GT(g.player().feet().x - 24.5, 150.0) << "the flight should have covered most of 220 blocks";

  const render::Camera cam = g.camera();
  for (const ColumnPos& c : start_columns) {
    ASSERT_GT(column_distance(cam, c), radius + 48.0 + 16.0) << "every start column should be far behind";
    EXPECT_EQ(g.world().find(c), nullptr) << "column " << c.x << "," << c.z << " still in the World";
    EXPECT_EQ(g.streamer().state(c), stream::ColumnState::kAbsent) << "column " << c.x << "," << c.z;
    EXPECT_EQ(held_meshes(r, c).sections, 0u) << "column " << c.x << "," << c.z << " still holds GPU spans";
  }
  EXPECT_GE(unloaded, static_cast<int>(start_columns.size()));
  check_renderer_holds_only_drawn("after the flight");
  // The flat world repeats every 64 blocks, so the new view holds about as much as the old one: the arena's live
  // bytes did not grow by the start view's share (freed spans were reused or returned).
  EXPECT_LT(r.arena_used_bytes(), start_used * 3 / 2);
}

TEST(PlayStreaming, LiveStreamingQueuesWhatTheWorkersCanDoInAFrame) {
  // Live streaming with one worker and frames of 40 ms (a slow renderer): the scheduler keeps enough jobs submitted
  // for the worker to stay busy until the next frame (a flat column's jobs take a fraction of a millisecond), far
  // more than the old constant 2 x workers + 2 = 4, which left the worker idle for most of every frame; and the
  // view completes.
  const RecordingHeader h = flat_header(24.5, 12.0, 30.5, 90.0, -20.0, /*render_distance=*/6);
  SessionOptions so;
  so.window = false;
  so.threads = 1;
  so.deterministic = false;
  auto s = PlaySession::open(h, so, registry());
  ASSERT_TRUE(s) << s.error().to_string();
  Game& g = (*s)->game();
  size_t most = 0;
  bool complete = false;
  for (int frame = 0; frame < 600 && !complete; ++frame) {
    const FrameReport rep = g.frame({});
    ASSERT_EQ(rep.gl_error, 0u);
    most = std::max(most, g.streamer().gen_in_flight() + g.streamer().mesh_in_flight());
    complete = settled(g);
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
  }
  EXPECT_TRUE(complete);
  EXPECT_GE(most, 16u) << "jobs submitted and not yet integrated, at most, after a frame";
}

/// Bytes the renderer's arenas have been written with so far.
uint64_t bytes_uploaded(const render::Renderer& r) {
  return r.opaque_arena().bytes_uploaded() + r.translucent_arena().bytes_uploaded();
}

/// What checking one edit frame found.
struct EditCheck {
  BlockPos cell;
  Cell before, after;
  render::Image pixels;  // the edit frame's pixels
};

/// Runs frame F (whose events hold one click) after checking that streaming is idle, and checks the edit: the
/// one changed cell, light equal to the oracle, exactly the dirtied drawn sections remeshed and uploaded in that
/// frame (count, bytes and untouched spans elsewhere), nothing left for the next frame.
EditCheck run_edit_frame(Game& g, const Recording& rec, const mesh::BakedBlocks& baked, const light::LightTable& table) {
  EditCheck out;
  EXPECT_TRUE(settled(g)) << "streaming should be idle before the edit";
  const render::Renderer& r = g.renderer();
  const World before = copy_world(g.world());
  std::set<ColumnPos> drawn;
  std::map<SectionPos, std::pair<std::optional<render::Span>, std::optional<render::Span>>> spans;
  for (const ColumnPos& c : before.positions()) {
    if (!g.streamer().drawn(c)) continue;
    drawn.insert(c);
    for (int s = 0; s < kSectionsPerColumn; ++s) spans[{c.x, s, c.z}] = {r.opaque_span({c.x, s, c.z}), r.translucent_span({c.x, s, c.z})};
  }
  const uint64_t uploaded0 = bytes_uploaded(r);

  const RunResult run = run_events(g, rec.events, 1, 1, true, [&](const FrameReport& rep) {
    EXPECT_EQ(rep.edits_applied, 1);
    EXPECT_TRUE(rep.rendered);
    out.pixels = g.read_pixels();
    EXPECT_EQ(rep.stream.sections_uploaded, 0);
    EXPECT_EQ(rep.stream.remeshed_after_light, 0);
    EXPECT_EQ(rep.stream.columns_integrated, 0);
    EXPECT_EQ(rep.stream.columns_unloaded, 0);

    // The cells: exactly one changed.
    std::vector<BlockPos> changed;
    for (const ColumnPos& p : before.positions()) {
      const Column& a = *before.find(p);
      const Column* now = g.world().find(p);
      EXPECT_TRUE(now);
      if (!now) continue;
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        if (a.section(s).same_cells(now->section(s))) continue;
        for (int i = 0; i < kSectionVolume; ++i)
          if (a.section(s).get(i) != now->section(s).get(i))
            changed.push_back({p.min_x() + (i & 15), section_base_y(s) + (i >> 8), p.min_z() + ((i >> 4) & 15)});
      }
    }
    EXPECT_EQ(changed.size(), 1u);
    if (changed.size() != 1) return false;
    out.cell = changed[0];
    out.before = before.get(out.cell);
    out.after = g.world().get(out.cell);

    // The light: what a from-scratch recompute gives.
    const light::LightDiff diff = light::verify_light(g.world(), table);
    EXPECT_TRUE(diff.equal()) << diff.to_string();

    // The sections the edit dirtied: the edited cell's padded box and its light changes (the same edit applied
    // with light to a copy of the world before it), in drawn columns. Every section holding or bordering a cell
    // whose light changed (compared cell by cell) is among them.
    World replay = copy_world(before);
    const Edit edit{out.cell, out.before, out.after, 1};
    const light::EditResult er = light::apply_edit(replay, table, edit);
    EXPECT_TRUE(er.applied);
    const std::vector<SectionPos> light_dirty = er.light.dirty_sections();
    const std::vector<SectionPos> dirtied = mesh::sections_dirtied_by(edit, light_dirty);
    std::set<SectionPos> expected;
    for (const SectionPos& sp : dirtied)
      if (drawn.count(sp.column())) expected.insert(sp);
    size_t light_cells = 0;
    for (const ColumnPos& p : before.positions())
      for (int s = 0; s < kSectionsPerColumn; ++s)
        for (int i = 0; i < kSectionVolume; ++i) {
          const BlockPos c{p.min_x() + (i & 15), section_base_y(s) + (i >> 8), p.min_z() + ((i >> 4) & 15)};
          if (before.find(p)->light_section(s).get(i) == g.world().find(p)->light_section(s).get(i)) continue;
          ++light_cells;
          for (const SectionPos& sp : mesh::sections_touching_cell(c))
            if (drawn.count(sp.column())) {
              EXPECT_TRUE(expected.count(sp)) << "light changed at " << c.x << "," << c.y << "," << c.z;
            }
        }
    EXPECT_GT(light_cells, 0u) << "the edit should change some light";
    // Round the player every section from two below the eye's up is meshed (streamer.h, the deep zone), so each
    // expected section is one the streamer draws.
    const int eye_section = section_of_y(g.camera().block.y);
    for (const SectionPos& sp : expected) EXPECT_GE(sp.y, eye_section - 2);

    EXPECT_EQ(static_cast<size_t>(rep.sections_remeshed), expected.size());
    // Uploaded this frame: exactly the new meshes of the expected sections (meshed here from the world after).
    uint64_t expected_bytes = 0;
    auto input = std::make_unique<mesh::SectionInput>();
    mesh::MeshScratch scratch;
    mesh::SectionMesh m;
    for (const SectionPos& sp : expected) {
      mesh::mesh_world_section(baked, g.world(), sp, mesh::MeshOptions{}, *input, scratch, m);
      expected_bytes += (m.opaque.size() + m.cutout.size()) * r.opaque_arena().stride() + m.translucent.size() * r.translucent_arena().stride();
    }
    EXPECT_EQ(bytes_uploaded(r) - uploaded0, expected_bytes);
    for (const auto& [sp, sv] : spans) {
      if (expected.count(sp)) continue;
      EXPECT_EQ(r.opaque_span(sp), sv.first) << "section " << sp.x << "," << sp.y << "," << sp.z << " was not dirtied";
      EXPECT_EQ(r.translucent_span(sp), sv.second) << "section " << sp.x << "," << sp.y << "," << sp.z << " was not dirtied";
    }
    return true;
  });
  EXPECT_TRUE(run.failures.empty()) << run.failures.front();
  // The next frame has nothing left to remesh or upload for the edit.
  const uint64_t uploaded1 = bytes_uploaded(r);
  run_events(g, rec.events, 1, 1, true, [&](const FrameReport& rep) {
    EXPECT_EQ(rep.sections_remeshed, 0);
    EXPECT_EQ(rep.stream.sections_uploaded, 0);
    EXPECT_EQ(rep.stream.remeshed_after_light, 0);
    return true;
  });
  EXPECT_EQ(bytes_uploaded(r), uploaded1);
  return out;
}

/// Where a camera-relative point lands in a frame (pixels, top row first).
glm::dvec2 to_pixel(const render::Camera& cam, int w, int h, const glm::dvec3& rel) {
  const glm::dvec4 c = cam.view_projection() * glm::dvec4(rel, 1.0);
  return {(c.x / c.w + 1.0) * 0.5 * w, (1.0 - c.y / c.w) * 0.5 * h};
}

TEST(PlayEdit, AClickUpdatesCellsLightAndExactlyTheDirtiedMeshesInItsFrame) {
  const std::string dir = temp_dir("edit_remesh");
  // The flat world's grass at y = 0 (dirt below). Feet at (62.5, 1, 28.5) looking east: the left click digs the
  // ground block (64, 0, 28), on the border of columns 3 and 4; then glowstone (slot 8) goes on (65, 0, 28), so
  // its light floods the hole and the ground round it, across the column border.
  const double eye = 1.0 + kEyeHeight;
  RecordingHeader h = flat_header(62.5, 1.0, 28.5, 90.0, pitch_to(eye, 1.0, 2.0));
  h.width = 160;
  h.height = 90;
  RecordingBuilder b(h);
  b.click(60, MouseButton::kLeft);
  b.tap(70, Key::k8).look(70, 90.0, pitch_to(eye, 1.0, 3.0)).click(72, MouseButton::kRight);
  const Recording rec = b.finish(80, dir + "/edit.rec");
  // Without the HUD, so the frame is the terrain alone (the HUD's outline follows the target, which the dig moves
  // to the hole's far wall, outside the dug block's face).
  SessionOptions so;
  so.threads = 2;
  so.game.hud = false;
  auto opened = PlaySession::open(rec.header, so, registry());
  ASSERT_TRUE(opened.ok()) << opened.error().to_string();
  std::unique_ptr<PlaySession> s = std::move(*opened);
  Game& g = s->game();
  auto baked = mesh::BakedBlocks::bake(registry());
  ASSERT_TRUE(baked.ok());
  const light::LightTable table(registry());

  RunResult run = run_events(g, rec.events, 60, 1, true);
  ASSERT_TRUE(run.failures.empty()) << run.failures.front();
  const render::Image before = g.read_pixels();
  const EditCheck dig = run_edit_frame(g, rec, *baked, table);  // frame 60
  EXPECT_EQ(dig.cell, (BlockPos{64, 0, 28}));
  EXPECT_EQ(dig.before.id, registry().id("grass_block"));
  EXPECT_EQ(dig.after, kAir);
  EXPECT_EQ(light_sky(g.world().light({64, 0, 28})), 15) << "the sky reaches the bottom of the hole";

  // The pixels of the click's own frame against the frame before: where the block's top face was, the frame
  // changed (the hole shows); elsewhere nothing did.
  const render::Image& after = dig.pixels;
  ASSERT_EQ(after.width, h.width);
  const render::Camera cam = g.camera();
  glm::dvec2 corner[4];
  const glm::dvec3 top[4] = {{0, 1, 0}, {1, 1, 0}, {1, 1, 1}, {0, 1, 1}};
  double lo_x = 1e9, lo_y = 1e9, hi_x = -1e9, hi_y = -1e9;
  for (int i = 0; i < 4; ++i) {
    corner[i] = to_pixel(cam, h.width, h.height, cam.relative({64, 0, 28}) + top[i]);
    lo_x = std::min(lo_x, corner[i].x), hi_x = std::max(hi_x, corner[i].x);
    lo_y = std::min(lo_y, corner[i].y), hi_y = std::max(hi_y, corner[i].y);
  }
  auto inside = [&](double x, double y) {
    int sign = 0;
    for (int i = 0; i < 4; ++i) {
      const glm::dvec2 a = corner[i], e = corner[(i + 1) % 4];
      const double cross = (e.x - a.x) * (y - a.y) - (e.y - a.y) * (x - a.x);
      const int sg = cross > 0 ? 1 : -1;
      if (sign == 0) sign = sg;
      else if (sg != sign) return false;
    }
    return true;
  };
  int in_pixels = 0, in_changed = 0, out_changed = 0;
  for (int y = 0; y < h.height; ++y)
    for (int x = 0; x < h.width; ++x) {
      // A visible change: a channel moved by more than 8 of 255. (The remeshed sections' quads merge differently
      // round the hole, which can move a pixel elsewhere in them by a unit of rounding.)
      bool changed = false;
      for (int c = 0; c < 3; ++c) changed = changed || std::abs(before.at(x, y)[c] - after.at(x, y)[c]) > 8;
      if (inside(x + 0.5, y + 0.5)) {
        ++in_pixels;
        in_changed += changed ? 1 : 0;
      } else if (x < lo_x - 2 || x > hi_x + 2 || y < lo_y - 2 || y > hi_y + 2) {
        out_changed += changed ? 1 : 0;
      }
    }
  EXPECT_GT(in_pixels, 100) << "the block's top face should cover a fair part of the frame";
  EXPECT_GE(in_changed * 2, in_pixels) << in_changed << " of " << in_pixels << " pixels of the dug face changed";
  EXPECT_EQ(out_changed, 0) << "pixels away from the dug block changed visibly";


  // The glowstone: its light spreads over many sections of both columns.
  run = run_events(g, rec.events, 72 - g.frame_number(), 1, true);
  ASSERT_TRUE(run.failures.empty()) << run.failures.front();
  const EditCheck glow = run_edit_frame(g, rec, *baked, table);  // frame 72
  EXPECT_EQ(glow.cell, (BlockPos{65, 1, 28}));
  EXPECT_EQ(glow.after.id, registry().id("glowstone"));
  EXPECT_GT(light_r(g.world().light({64, 0, 28})), 0) << "the glowstone lights the hole";
}

}  // namespace
}  // namespace voxen::play::testing
