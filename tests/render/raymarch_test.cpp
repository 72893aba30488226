// The ray-march path and traced shadows (issue 21) in-process, against the raster path as the oracle: the same
// world, the same camera. The primary-hit oracle: the raster path's id buffer (the cell and face of each pixel's
// nearest opaque fragment) and the ray march's ids name the same surface in >= 99.9% of the pixels (the same cell and
// face, or the other face of an edge the ray passes exactly through: render::match_frames). The colour images agree
// by the look rule. The shadows: a CPU per-cell DDA (trace_cells) from each pixel's sun-ray origin gives the GPU's
// lit/shadowed state, pixel for pixel, on both paths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "voxen/render/hit_oracle.h"
#include "voxen/render/imgdiff.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"
#include "voxen/trace/dda.h"
#include "voxen/trace/occupancy.h"
#include "voxen/trace/section_record.h"
#include "gl_suite.h"

using namespace voxen;
using namespace voxen::render;

namespace {

using render_test::kHeight;
using render_test::kWidth;

constexpr char kDefaultGenerator[] = "default";

struct Frame {
  Image image;
  std::vector<HitId> ids;
  std::vector<ShadowProbe> probes;
  FrameStats stats;
};

class RayMarch : public render_test::StreamedGlTest<kDefaultGenerator> {
 public:
  RendererOptions options() const override {
    RendererOptions ro;
    ro.trace = true;  // the ray-march store: both paths, traced shadows, the id pass
    return ro;
  }
  int64_t surface(int64_t x, int64_t z) const { return s_shared->generator->surface_y(x, z); }
  bool translucent = true;
  Frame draw(const Camera& cam, RenderPath path, Shadows shadows = Shadows::kNone, double time_of_day = 10.0, bool beam = true) {
    EXPECT_TRUE(renderer->set_path(path));
    FrameParams fp;
    fp.camera = cam;
    fp.fog_end = kRadius;
    fp.time_of_day = time_of_day;
    fp.eye_sky_light = light_sky(world->light(cam.block));
    fp.shadows = shadows;
    fp.beam = beam;
    fp.hit_ids = true;
    fp.translucent = translucent;
    fp.step_stats = path == RenderPath::kRayMarch;
    Frame f;
    f.stats = renderer->render(fp);
    f.image = renderer->read_pixels();
    f.ids = renderer->read_hit_ids();
    f.probes = renderer->read_shadow_probes();
    return f;
  }

};

// Pixels of a and b differing by more than the look rule's tolerance in some channel (image rows top first; ids
// bottom first).
struct Breakdown {
  size_t failing = 0, failing_same_id = 0;
};
Breakdown breakdown(const Frame& a, const Frame& b) {
  Breakdown out;
  const LookRule rule;
  for (int y = 0; y < a.image.height; ++y)
    for (int x = 0; x < a.image.width; ++x) {
      const uint8_t *p = a.image.at(x, y), *q = b.image.at(x, y);
      if (!rule.fails(p, q)) continue;
      ++out.failing;
      const size_t i = static_cast<size_t>(a.image.height - 1 - y) * static_cast<size_t>(a.image.width) + static_cast<size_t>(x);
      if (a.ids[i] == b.ids[i]) {
        ++out.failing_same_id;
        if (out.failing_same_id <= 6)
          std::printf("  same-id fail at %d,%d: cell %d,%d,%d face %d: raster %d %d %d march %d %d %d\n", x, y, a.ids[i].x,
                      a.ids[i].y, a.ids[i].z, a.ids[i].face, p[0], p[1], p[2], q[0], q[1], q[2]);
      }
    }
  return out;
}

struct View {
  int64_t x, z;
  double yaw, pitch;
  double y = -1;                              // eye height; < 0: 3 above the ground
  glm::dvec3 frac = glm::dvec3(0.5, 0.62, 0.5);  // the eye within its block
};

// How expect_paths_agree checks the colours.
enum class Colours {
  kLookRule,  // by the look rule, as below
  kNotChecked,  // views along an axis from a whole-block eye (AxisViewsFromWholeBlockEyes says why)
};

// Draws each view by both paths: the ray march names the raster id buffer's surface in >= 99.9% of the pixels
// (render::match_frames: the same cell and face, or an edge tie) and the colours pass the look rule. Returns the
// ray march's frames; `agreements` (if given) gets each view's tally.
std::vector<Frame> expect_paths_agree(RayMarch& t, const std::vector<View>& views, bool beam = true,
                                      Colours colours = Colours::kLookRule,
                                      std::vector<HitAgreement>* agreements = nullptr) {
  std::vector<Frame> out;
  for (const View& v : views) {
    Camera c = RayMarch::camera({v.x, 0, v.z}, v.frac, v.yaw, v.pitch);
    c.block.y = v.y >= 0 ? static_cast<int64_t>(v.y) : t.surface(v.x, v.z) + 3;
    const Frame raster = t.draw(c, RenderPath::kMultiDrawIndirect);
    Frame march = t.draw(c, RenderPath::kRayMarch, Shadows::kNone, 10.0, beam);
    EXPECT_EQ(raster.ids.size(), march.ids.size());
    const double pixel_angle = c.pixel_angle(kHeight);
    const HitAgreement a = match_frames(raster.ids, raster.probes, march.ids, march.probes, c.frac, pixel_angle);
    const DiffResult d = compare_images(raster.image, march.image, DiffMode::kLook);
    const Breakdown b = breakdown(raster, march);
    std::printf("view %lld,%lld yaw %.0f pitch %.0f: %llu surface pixels, the same surface in %.3f%% of %llu (the same "
                "cell and face %llu, edge ties %llu), silhouettes %llu, other %llu; steps mean %.1f p99 %u; %llu pixels "
                "off by more than 6/255 (%zu on the same cell and face), largest blob %llu\n",
                (long long)v.x, (long long)v.z, v.yaw, v.pitch, (unsigned long long)a.surface, 100.0 * a.agreement(),
                (unsigned long long)a.pixels, (unsigned long long)a.same, (unsigned long long)a.edge_ties,
                (unsigned long long)a.silhouettes, (unsigned long long)a.differ, march.stats.steps_mean,
                march.stats.steps_p99, (unsigned long long)d.pixels_failing, b.failing_same_id,
                (unsigned long long)d.largest_blob);
    EXPECT_GT(a.surface, raster.ids.size() / 4) << "the view shows too little terrain to check";
    EXPECT_GE(a.agreement(), 0.999);
    if (agreements) agreements->push_back(a);
    if (colours == Colours::kNotChecked) {
      out.push_back(std::move(march));
      continue;
    }
    // The look rule allows 0.05% of the pixels; these views (steep, close, minified textures) differ in up to 0.1%,
    // every one an isolated pixel on the same cell and face: the rasteriser's texture coordinates come from vertices
    // snapped to 1/256 pixel and its mip level from per-quad differences, the ray march's from the exact hit, so a
    // sample near a texel's edge may take its neighbour. The golden scenes pass the look rule itself (RayMarchCli).
    EXPECT_LE(d.pixels_failing * 1000, raster.ids.size()) << "more than 0.1% of the pixels differ";
    EXPECT_LE(d.largest_blob, 2u) << "differences form a blob: a shape, not a sample";
    out.push_back(std::move(march));
  }
  return out;
}

// Views along the axes from an eye on whole blocks, where pixel rays pass exactly through the edges between faces
// (a line through the picture's centre with a slope of odd over odd meets pixel centres exactly) and pixel rows line
// up with block edges (straight down, every block edge across the picture is parallel to a row): the two paths name
// different faces of many such edges, each right (the rasteriser's fill rule picks one, the DDA's step order the
// other). render::match_frames tells them from faults by the surface point both hit. Their colours are not checked
// by the look rule here: an edge tie shows the other face's colour, and a row of samples lying within the
// rasteriser's precision (vertices snapped to 1/256 pixel) of a texel edge or a silhouette flips as a whole row,
// a blob the look rule refuses; the same scenes from eyes inside their blocks pass it (the test above).
TEST_F(RayMarch, AxisViewsFromWholeBlockEyesNameTheSameSurface) {
  load_around(0, 0);
  const glm::dvec3 whole(0.0, 0.0, 0.0);
  auto eye_y = [&](int64_t x, int64_t z) { return static_cast<double>(surface(x, z) + 2); };  // `voxen shot`'s 'surface'
  std::vector<HitAgreement> tallies;
  expect_paths_agree(*this,
                     {{20, 20, 180.0, 0.0, eye_y(20, 20), whole}, {8, -20, 90.0, 0.0, eye_y(8, -20), whole},
                      {-30, 10, 0.0, 0.0, eye_y(-30, 10), whole}, {0, 0, 0.0, -90.0, eye_y(0, 0), whole}},
                     true, Colours::kNotChecked, &tallies);
  uint64_t ties = 0;
  for (const HitAgreement& a : tallies) ties += a.edge_ties;
  // The views do meet edges exactly: by the same cell and face alone the first falls under 99.9% (99.66% when this
  // was written, with 184 edge ties).
  EXPECT_GT(ties, 100u);
  ASSERT_FALSE(tallies.empty());
  EXPECT_LT(static_cast<double>(tallies[0].same) / static_cast<double>(tallies[0].pixels), 0.999);
}

TEST_F(RayMarch, NamesTheRasterPathsCellAndFaceInNearlyEveryPixel) {
  load_around(0, 0);  // mountains: stone, snow, steep faces
  expect_paths_agree(*this, {{0, 0, 30.0, -60.0}, {8, -20, 200.0, -20.0}, {-30, 10, 100.0, -10.0}, {20, 20, 300.0, -60.0}});
  load_around(-700, -768);  // a meadow: grass and flowers (plants), trees (cutout leaves)
  expect_paths_agree(*this, {{-700, -768, 80.0, -12.0}, {-690, -760, 200.0, -30.0}});
  load_around(-1735, -1920);  // the coast: water (translucent), sand
  expect_paths_agree(*this, {{-1735, -1920, 15.0, -14.0, 72}, {-1740, -1910, 250.0, -35.0, 70}});
}

// The CPU reference of the shadow pass: from each pixel's sun-ray origin (as the GPU used it, float, from the eye's
// block) a plain per-cell DDA (trace_cells) over the occupancy of the drawn columns' cells, toward the same (float)
// sun, as far as the GPU follows it. Returns the pixels compared; every mismatch is counted in `mismatched`.
size_t compare_shadows(const std::vector<ShadowProbe>& probes, const trace::OccupancyMap& map, const Camera& cam,
                       double time_of_day, double reach, size_t& mismatched, size_t& shadowed) {
  const glm::dvec3 sun = glm::dvec3(glm::vec3(sun_direction(time_of_day)));
  size_t compared = 0;
  for (const ShadowProbe& p : probes) {
    if (p.state < 0) continue;
    ++compared;
    const glm::dvec3 o(p.x, p.y, p.z);
    const glm::dvec3 f = glm::floor(o);
    trace::Ray ray;
    ray.block = {cam.block.x + static_cast<int64_t>(f.x), cam.block.y + static_cast<int64_t>(f.y), cam.block.z + static_cast<int64_t>(f.z)};
    ray.frac = o - f;
    ray.dir = sun;
    const bool cpu_shadow = trace::trace_cells(map, ray, reach, trace::Layer::kShadow).has_value();
    if (cpu_shadow) ++shadowed;
    if (cpu_shadow != (p.state == 0.0f)) ++mismatched;
  }
  return compared;
}

TEST_F(RayMarch, TracedShadowsMatchAPerCellDdaOnTheCpuPixelForPixel) {
  load_around(-700, -768);  // the default_plain golden's meadow: trees, grass, flowers
  const trace::OccupancyTable table(s_shared->registry);
  trace::OccupancyMap map(table);
  for (const ColumnPos& c : streamer->drawn_columns()) map.set_column(*world->find(c));
  struct View {
    int64_t x, z;
    double yaw, pitch, time;
  };
  const View views[] = {{-700, -768, 80.0, -12.0, 16.0}, {-690, -760, 200.0, -30.0, 7.5}, {-712, -775, 300.0, -50.0, 12.5}};
  size_t total_shadowed = 0;
  for (const View& v : views) {
    Camera c = camera({v.x, 0, v.z}, glm::dvec3(0.5, 0.62, 0.5), v.yaw, v.pitch);
    c.block.y = s_shared->generator->surface_y(v.x, v.z) + 3;
    for (const RenderPath path : {RenderPath::kMultiDrawIndirect, RenderPath::kRayMarch}) {
      const Frame f = draw(c, path, Shadows::kTraced, v.time);
      size_t mismatched = 0, shadowed = 0;
      const size_t compared = compare_shadows(f.probes, map, c, v.time, 256.0, mismatched, shadowed);
      std::printf("view %lld,%lld %s: %zu sun rays, %zu in shadow, %zu differ from the CPU\n", (long long)v.x,
                  (long long)v.z, std::string(to_string(path)).c_str(), compared, shadowed, mismatched);
      (void)save_png(f.image, "/tmp/rm/s_" + std::string(to_string(path)) + std::to_string(v.x) + ".png");
      EXPECT_GT(compared, f.probes.size() / 10);
      EXPECT_EQ(mismatched, 0u);
      total_shadowed += shadowed;
    }
  }
  EXPECT_GT(total_shadowed, 1000u);  // the comparison saw shadows, not only sunlit ground
  // A lava cave 100 blocks under the ground at noon: every sun ray meets the rock above, most of it in sections
  // wholly of rock (the record's shortcut: the ray stops where it enters one).
  load_around(-138, -214);
  trace::OccupancyMap cave_map(table);
  for (const ColumnPos& c : streamer->drawn_columns()) cave_map.set_column(*world->find(c));
  const Camera cave = camera({-138, -111, -214}, glm::dvec3(0.5), 100.0, -25.0);
  for (const RenderPath path : {RenderPath::kMultiDrawIndirect, RenderPath::kRayMarch}) {
    const Frame f = draw(cave, path, Shadows::kTraced, 12.0);
    size_t mismatched = 0, shadowed = 0;
    const size_t compared = compare_shadows(f.probes, cave_map, cave, 12.0, 256.0, mismatched, shadowed);
    std::printf("lava cave %s: %zu sun rays, %zu in shadow, %zu differ from the CPU\n", std::string(to_string(path)).c_str(),
                compared, shadowed, mismatched);
    EXPECT_GT(compared, f.probes.size() / 10);
    EXPECT_EQ(shadowed, compared);  // no sun reaches a cave
    EXPECT_EQ(mismatched, 0u);
  }
}

TEST_F(RayMarch, ASectionWhollyOfRockShadowsFromWhereARayEntersIt) {
  // A 16^3 cube of stone placed on exactly one section (y 208..223: section 21) high over the meadow, the sun at
  // noon: the ground under it is in its shadow, and the sun rays from there enter a section whose every cell casts a
  // shadow (the record's shortcut), checked against the CPU's per-cell DDA.
  load_around(-704, -800);
  const Cell stone{*s_shared->registry.find("stone"), 0};
  std::vector<Edit> edits;
  for (int64_t y = 208; y < 224; ++y)
    for (int64_t z = -768; z < -752; ++z)
      for (int64_t x = -704; x < -688; ++x)
        if (auto e = world->make_edit({x, y, z}, stone)) edits.push_back(*e);
  ASSERT_TRUE(streamer->apply_edits(edits).applied);
  const std::span<const uint32_t> record = renderer->trace_record({-44, 21, -48});
  ASSERT_FALSE(record.empty());
  EXPECT_TRUE(trace::SectionRecordView(record).shadow_full());
  const trace::OccupancyTable table(s_shared->registry);
  trace::OccupancyMap map(table);
  for (const ColumnPos& c : streamer->drawn_columns()) map.set_column(*world->find(c));
  // Its shadow falls 50 blocks north of it (the noon sun is 20 degrees south of overhead): looked at from the north.
  Camera c = camera({-696, 0, -845}, glm::dvec3(0.5), 180.0, -30.0);
  c.block.y = surface(-696, -845) + 25;
  for (const RenderPath path : {RenderPath::kMultiDrawIndirect, RenderPath::kRayMarch}) {
    const Frame f = draw(c, path, Shadows::kTraced, 12.0);
    size_t mismatched = 0, shadowed = 0;
    const size_t compared = compare_shadows(f.probes, map, c, 12.0, 256.0, mismatched, shadowed);
    std::printf("under the cube %s: %zu sun rays, %zu in shadow, %zu differ from the CPU\n",
                std::string(to_string(path)).c_str(), compared, shadowed, mismatched);
    EXPECT_GT(shadowed, 500u);
    EXPECT_EQ(mismatched, 0u);
  }
}

TEST_F(RayMarch, EditsRewriteOnlyTheirSectionsRecordsAndTheMarchShowsThem) {
  load_around(-700, -768);
  const View v{-700, -768, 80.0, -25.0};
  const int64_t ground = surface(-700, -768);
  // The records before: the edits below touch the cells of a few sections; every other record keeps its words.
  std::map<SectionPos, std::vector<uint32_t>> before;
  for (const ColumnPos& c : streamer->drawn_columns())
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const auto r = renderer->trace_record({c.x, s, c.z});
      if (!r.empty()) before[{c.x, s, c.z}] = {r.begin(), r.end()};
    }
  ASSERT_GT(before.size(), 50u);
  // Every section's cells went into its record: the store holds none waiting.
  EXPECT_EQ(renderer->trace_bytes().pending_cells, 0u);
  // A pit in front of the eye, a glass wall and a leaf block beside it, across a column border (x -705/-704).
  std::vector<Edit> edits;
  for (int64_t x = -708; x <= -700; ++x)
    for (int64_t z = -772; z <= -770; ++z)
      for (int64_t y = ground - 3; y <= ground + 3; ++y) {
        Cell to = y <= ground ? Cell{} : (y == ground + 3 ? Cell{*s_shared->registry.find("oak_leaves"), 0} : Cell{});
        if (z == -772 && y > ground) to = Cell{*s_shared->registry.find("glass"), 0};
        if (auto e = world->make_edit({x, y, z}, to)) edits.push_back(*e);
      }
  const stream::EditReport rep = streamer->apply_edits(edits);
  ASSERT_TRUE(rep.applied);
  std::set<SectionPos> remeshed(rep.remeshed.begin(), rep.remeshed.end());
  size_t changed = 0, kept = 0;
  for (const auto& [sp, words] : before) {
    const auto r = renderer->trace_record(sp);
    const bool same = std::vector<uint32_t>(r.begin(), r.end()) == words;
    if (!remeshed.count(sp)) {
      EXPECT_TRUE(same) << "section " << sp.x << "," << sp.y << "," << sp.z << " was not remeshed but its record changed";
      ++kept;
    } else {
      changed += !same;
    }
  }
  std::printf("%zu sections remeshed, %zu records changed, %zu kept\n", remeshed.size(), changed, kept);
  EXPECT_GT(changed, 0u);
  EXPECT_EQ(renderer->trace_bytes().pending_cells, 0u);
  // The march's picture of the edited world is the raster path's.
  const std::vector<Frame> frames = expect_paths_agree(*this, {v, {-712, -768, 100.0, -20.0}});
  // And it shows the edit: the pit's cells are seen where the raster path sees them (checked above), and some
  // pixel sees a cell inside the pit (below the old ground).
  size_t in_pit = 0;
  for (const HitId& id : frames[0].ids) in_pit += id.face >= 0 && -768 + id.z >= -772 && -700 + id.x <= -700 &&
                                                  id.y < 0 && id.y >= -8;
  EXPECT_GT(in_pit, 0u);
}

TEST_F(RayMarch, FarFromTheOriginTheMarchStillNamesTheRasterCells) {
  // Floating origin: 30,000,000 blocks out (float32 holds world positions there to 2 blocks), the eye's block is the
  // origin of every float both paths use.
  constexpr int64_t kFar = 30'000'000;
  load_around(kFar + 5, kFar - 3);
  // Deep ocean: water over a floor 20 blocks down, and a shore.
  expect_paths_agree(*this, {{kFar + 5, kFar - 3, 40.0, -40.0}, {kFar - 10, kFar + 7, 220.0, -15.0}});
}

TEST_F(RayMarch, TheBeamChangesWhereRaysStartNotWhatTheySee) {
  // From the peak down to the slopes, and from 40 blocks over the meadow across to its trees (thin features far
  // off: a tile's centre ray passes beside a trunk its corner pixels meet).
  load_around(0, 0);
  Camera peak = camera({0, 0, 0}, glm::dvec3(0.3, 0.4, 0.7), 30.0, -50.0);
  peak.block.y = surface(0, 0) + 6;
  auto compare = [&](const Camera& c) {
    const Frame with = draw(c, RenderPath::kRayMarch, Shadows::kNone, 10.0, true);
    const Frame without = draw(c, RenderPath::kRayMarch, Shadows::kNone, 10.0, false);
    size_t same = 0;
    for (size_t i = 0; i < with.ids.size(); ++i) same += with.ids[i] == without.ids[i];
    std::printf("beam: %.1f steps a ray (p99 %u); without: %.1f (p99 %u); ids equal in %zu of %zu pixels\n",
                with.stats.steps_mean, with.stats.steps_p99, without.stats.steps_mean, without.stats.steps_p99, same,
                with.ids.size());
    EXPECT_EQ(same, with.ids.size());
    EXPECT_EQ(compare_images(with.image, without.image, DiffMode::kLook).pixels_failing, 0u);
    EXPECT_LT(with.stats.steps_mean, without.stats.steps_mean);  // it skipped something
  };
  compare(peak);
  load_around(-700, -768);
  Camera meadow = camera({-700, 0, -768}, glm::dvec3(0.3, 0.4, 0.7), 80.0, -12.0);
  meadow.block.y = surface(-700, -768) + 40;
  compare(meadow);
}

}  // namespace
