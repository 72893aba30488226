// Translucent faces drawn back to front, in-process on the headless EGL platform (320x180, llvmpipe): scenes of
// glass, ice and water on a stone floor in an otherwise empty world, each seen from several sides, drawn by the
// renderer (translucent quads sorted within each section, sections far-first) on both render paths and compared
// with an order-independent reference (FrameParams::reference_translucency: depth peeling, each fragment composited
// in exact depth order). Every pixel must be within 3/255 of the reference in every channel. Also: a section is
// re-sorted only when the eye crosses one of its planes, and a sort budget defers sections to later frames.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/render/platform.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"
#include "gl_suite.h"

using namespace voxen;
using namespace voxen::render;

namespace {

using render_test::kHeight;
using render_test::kWidth;

// A world of air with the given cells (world positions), generated like any other (lit by the real light pass).
class CellsGenerator : public gen::Generator {
 public:
  struct Placed {
    BlockPos pos;
    Cell cell;
  };
  explicit CellsGenerator(const std::vector<Placed>& cells) {
    for (const Placed& p : cells) m_cells[column_pos_of(p.pos)].push_back(p);
  }
  void generate(Column& out) const override {
    auto it = m_cells.find(out.pos());
    if (it == m_cells.end()) return;
    for (const Placed& p : it->second)
      out.set(static_cast<int>(p.pos.x - out.pos().min_x()), p.pos.y, static_cast<int>(p.pos.z - out.pos().min_z()), p.cell);
  }
  int64_t surface_y(int64_t, int64_t) const override { return kMinY - 1; }
  std::string_view name() const override { return "cells"; }
  uint64_t seed() const override { return 0; }

 private:
  std::unordered_map<ColumnPos, std::vector<Placed>, ColumnPosHash> m_cells;
};

render_test::GlSuite* g_shared = nullptr;  // no generator: each test makes its own scene

struct View {
  const char* name;
  BlockPos eye;
  glm::dvec3 frac;
  double yaw, pitch;
  uint32_t min_layers;  // translucent fragments some pixel must have (the view really overlaps translucent faces)
};

class Translucency : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { g_shared = render_test::make_gl_suite("").release(); }
  static void TearDownTestSuite() {
    delete g_shared;
    g_shared = nullptr;
  }

  static Cell cell(const char* name, uint8_t state = 0) { return Cell{g_shared->registry.id(name), state}; }
  // A stone floor at y 63 over x, z in [x0, x1) x [z0, z1).
  static void floor(std::vector<CellsGenerator::Placed>& cells, int64_t x0, int64_t x1, int64_t z0, int64_t z1) {
    for (int64_t x = x0; x < x1; ++x)
      for (int64_t z = z0; z < z1; ++z) cells.push_back({{x, 63, z}, cell("stone")});
  }
  static Camera camera(const View& v) {
    Camera c = Camera::at(v.eye, v.frac);
    c.yaw_deg = v.yaw;
    c.pitch_deg = v.pitch;
    c.aspect = static_cast<double>(kWidth) / kHeight;
    c.far_plane = 400;
    return c;
  }

  // Loads the scene once (every column within 48 blocks of each view's eye) into a fresh renderer.
  void load(const std::vector<CellsGenerator::Placed>& cells, const std::vector<View>& views, RendererOptions ro = {}) {
    ASSERT_NE(g_shared, nullptr);
    generator = std::make_unique<CellsGenerator>(cells);
    world = World{};
    ro.log = [this](const std::string& line) { log.push_back(line); };
    auto r = Renderer::create(*g_shared->platform, g_shared->registry, ro);
    ASSERT_TRUE(r.ok()) << r.error().message;
    renderer = std::move(r).value();
    stream::GeneratedSource source(*generator);
    stream::ColumnStreamer streamer(world, *renderer, source, *g_shared->light, *g_shared->baked, *g_shared->pool);
    for (const View& v : views) {
      const Camera cam = camera(v);
      ASSERT_TRUE(streamer.load_view(stream::columns_for_view(cam, 48.0, false), nullptr, &cam).ok());
    }
  }
  Image draw(const View& v, bool reference, FrameStats* stats = nullptr, uint64_t budget = 0) {
    FrameParams fp;
    fp.camera = camera(v);
    fp.fog_end = 48.0;
    fp.reference_translucency = reference;
    fp.sort_budget_quads = budget;
    const FrameStats st = renderer->render(fp);
    if (stats) *stats = st;
    return renderer->read_pixels();
  }

  // Pixels where some channel differs by more than `tolerance`, and the largest difference.
  static std::pair<int, int> compare(const Image& a, const Image& b, int tolerance) {
    int over = 0, worst = 0;
    for (size_t i = 0; i < a.pixel_count(); ++i) {
      int d = 0;
      for (int c = 0; c < 4; ++c) d = std::max(d, std::abs(int(a.pixels[i * 4 + c]) - int(b.pixels[i * 4 + c])));
      over += d > tolerance;
      worst = std::max(worst, d);
    }
    return {over, worst};
  }

  // Writes a picture to the test's temporary folder (for a failure message); returns its path.
  static std::string keep(const Image& img, std::string view, const char* what) {
    std::replace_if(view.begin(), view.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    const std::string path = ::testing::TempDir() + "voxen_translucency_" + view + "_" + what + ".png";
    return save_png(img, path).ok() ? path : "(not written)";
  }

  // Every view, on both paths, against the depth-peeled reference.
  void expect_back_to_front(const std::vector<View>& views) {
    for (const View& v : views) {
      SCOPED_TRACE(v.name);
      ASSERT_TRUE(renderer->set_path(RenderPath::kMultiDrawIndirect));
      FrameStats st, ref_st;
      const Image sorted = draw(v, false, &st);
      const Image reference = draw(v, true, &ref_st);
      EXPECT_GE(ref_st.peel_layers, v.min_layers) << "the view should look through that many translucent faces";
      EXPECT_GT(st.translucent_meshes, 0u);
      const auto [over, worst] = compare(sorted, reference, 3);
      EXPECT_EQ(over, 0) << "pixels more than 3/255 off the back-to-front reference (largest difference " << worst
                         << "/255); pictures: " << keep(sorted, v.name, "sorted") << ", " << keep(reference, v.name, "reference");
      ASSERT_TRUE(renderer->set_path(RenderPath::kPerChunk));
      const Image chunk = draw(v, false);
      EXPECT_EQ(compare(sorted, chunk, 0).first, 0) << "the per-chunk path draws other pixels than MDI";
      const auto [chunk_over, chunk_worst] = compare(chunk, draw(v, true), 3);
      EXPECT_EQ(chunk_over, 0) << "per-chunk: largest difference " << chunk_worst << "/255";
    }
    renderer->set_path(RenderPath::kMultiDrawIndirect);
  }

  std::unique_ptr<CellsGenerator> generator;
  World world;
  std::unique_ptr<Renderer> renderer;
  std::vector<std::string> log;
};

// The issue's scene: glass at (8, 64, 4) and water at (8, 64, 10) in one section over a stone floor, seen from
// z = 0.5 looking south (+z) through the glass at the water, and from the other side through the water at the
// glass, and obliquely.
std::vector<View> issue_views() {
  return {{"from z 0.5 looking +z", {8, 64, 0}, {0.5, 0.5, 0.5}, 180.0, -8.0, 4},
          {"from z 15.5 looking -z", {8, 64, 15}, {0.5, 0.5, 0.5}, 0.0, -8.0, 4},
          {"obliquely from the north-west, above", {5, 66, 1}, {0.25, 0.5, 0.75}, 165.0, -20.0, 2},
          {"obliquely from the south-east", {11, 64, 14}, {0.75, 0.9, 0.25}, 340.0, -5.0, 2}};
}

TEST_F(Translucency, GlassAndWaterInOneSectionFromBothSides) {
  std::vector<CellsGenerator::Placed> cells;
  floor(cells, -8, 24, -8, 24);
  cells.push_back({{8, 64, 4}, cell("glass")});
  cells.push_back({{8, 64, 10}, cell("water")});
  load(cells, issue_views());
  expect_back_to_front(issue_views());
}

TEST_F(Translucency, IceAndWaterInOneSectionFromBothSides) {
  std::vector<CellsGenerator::Placed> cells;
  floor(cells, -8, 24, -8, 24);
  cells.push_back({{8, 64, 4}, cell("ice")});
  cells.push_back({{8, 64, 10}, cell("water")});
  load(cells, issue_views());
  expect_back_to_front(issue_views());
}

TEST_F(Translucency, GlassAndWaterAcrossSectionBorders) {
  // Across the z = 16 border (glass at z 13, water at z 18) and across the y = 80 border (glass at y 78, water
  // at y 81 above it, on a stone post), each seen from both sides.
  std::vector<CellsGenerator::Placed> cells;
  floor(cells, -8, 24, -8, 32);
  cells.push_back({{8, 64, 13}, cell("glass")});
  cells.push_back({{8, 64, 18}, cell("water")});
  for (int64_t y = 64; y < 78; ++y) cells.push_back({{3, y, 8}, cell("stone")});
  cells.push_back({{3, 78, 8}, cell("glass")});
  cells.push_back({{3, 80, 8}, cell("stone")});
  cells.push_back({{3, 81, 8}, cell("water")});
  const std::vector<View> views = {{"z border, looking +z", {8, 64, 9}, {0.5, 0.6, 0.5}, 180.0, -6.0, 4},
                                   {"z border, looking -z", {8, 64, 22}, {0.5, 0.6, 0.5}, 0.0, -6.0, 4},
                                   {"y border, from above", {3, 90, 5}, {0.5, 0.5, 0.5}, 180.0, -70.0, 2},
                                   {"y border, from below", {3, 72, 5}, {0.5, 0.5, 0.5}, 180.0, 60.0, 2}};
  load(cells, views);
  expect_back_to_front(views);
}

TEST_F(Translucency, ALatticeOfGlassIceAndWaterFromEightDirections) {
  // Blocks on every other cell of a 5 x 3 x 5 lattice (no two touch: faces at one depth would peel as one), the
  // kind chosen by position; seen along the diagonals and the axes, so sight lines cross many blocks.
  std::vector<CellsGenerator::Placed> cells;
  floor(cells, -16, 32, -16, 32);
  const char* kinds[] = {"glass", "water", "ice"};
  for (int64_t x = 0; x < 5; ++x)
    for (int64_t y = 0; y < 3; ++y)
      for (int64_t z = 0; z < 5; ++z) cells.push_back({{4 + 2 * x, 65 + 2 * y, 4 + 2 * z}, cell(kinds[(x + 2 * y + z) % 3])});
  std::vector<View> views;
  const double yaws[] = {0, 45, 90, 135, 180, 225, 270, 315};
  for (int k = 0; k < 8; ++k) {
    // 14 blocks from the lattice's centre (8.5, 67.5, 8.5), a little above it, looking at it.
    const double a = yaws[k] * 3.14159265358979 / 180.0;
    const double ex = 8.5 - 14.0 * std::sin(a), ez = 8.5 + 14.0 * std::cos(a);
    const int64_t bx = static_cast<int64_t>(std::floor(ex)), bz = static_cast<int64_t>(std::floor(ez));
    static const char* kNames[] = {"lattice from the south", "lattice from the south-west", "lattice from the west", "lattice from the north-west", "lattice from the north", "lattice from the north-east", "lattice from the east", "lattice from the south-east"};
    views.push_back({kNames[k], {bx, 70, bz}, {ex - bx, 0.3, ez - bz}, yaws[k], -12.0, 6});
  }
  load(cells, views);
  expect_back_to_front(views);
}

TEST_F(Translucency, APondWithGlassInAndAboveIt) {
  // A pond (its surface merges into big quads) in a stone basin, a glass pillar standing in a hole in it, glass
  // and ice floating above it (none touching the water: faces at one depth would peel as one), seen from two sides
  // above and from just above the water.
  std::vector<CellsGenerator::Placed> cells;
  floor(cells, -8, 24, -8, 24);
  for (int64_t x = 1; x < 15; ++x)
    for (int64_t z = 1; z < 15; ++z) {
      const bool rim = x == 1 || x == 14 || z == 1 || z == 14;
      const bool hole = x >= 5 && x <= 7 && z >= 5 && z <= 7;
      if (rim) cells.push_back({{x, 64, z}, cell("stone")});
      else if (!hole) cells.push_back({{x, 64, z}, cell("water")});
    }
  for (int64_t y = 64; y < 68; ++y) cells.push_back({{6, y, 6}, cell("glass")});
  cells.push_back({{9, 66, 9}, cell("glass")});
  cells.push_back({{4, 67, 10}, cell("ice")});
  cells.push_back({{11, 66, 4}, cell("glass")});
  const std::vector<View> views = {{"pond from the north-west", {-2, 70, -2}, {0.5, 0.5, 0.5}, 135.0, -30.0, 4},
                                   {"pond from the south-east", {17, 69, 17}, {0.5, 0.5, 0.5}, 315.0, -28.0, 4},
                                   {"pond from just above the water", {3, 65, 12}, {0.5, 0.25, 0.5}, 25.0, -8.0, 2}};
  load(cells, views);
  expect_back_to_front(views);
}

TEST_F(Translucency, ASectionIsResortedOnlyWhenTheEyeCrossesOneOfItsPlanes) {
  std::vector<CellsGenerator::Placed> cells;
  floor(cells, -8, 24, -8, 24);
  cells.push_back({{8, 64, 4}, cell("glass")});
  cells.push_back({{8, 64, 10}, cell("water")});
  View v = issue_views()[0];  // eye (8.5, 64.5, 0.5), looking +z
  load(cells, {v});
  FrameStats st;
  draw(v, false, &st);
  EXPECT_EQ(st.sections_sorted, 1u) << "the first frame sorts the section (its meshes were uploaded before any eye)";
  draw(v, false, &st);
  EXPECT_EQ(st.sections_sorted, 0u) << "the same eye again";
  // Within the cell, short of the glass's planes (x 8 and 9, y 64 and 65, z 4 and 5) and the water's: no re-sort.
  v.frac = {0.9, 0.1, 0.2};
  v.yaw = 150;
  draw(v, false, &st);
  EXPECT_EQ(st.sections_sorted, 0u);
  // Across the glass's west face plane (x 8 -> 7.9): re-sorted once.
  v.eye.x = 7;
  v.frac.x = 0.9;
  draw(v, false, &st);
  EXPECT_EQ(st.sections_sorted, 1u);
  EXPECT_GT(st.quads_sorted, 0u);
  draw(v, false, &st);
  EXPECT_EQ(st.sections_sorted, 0u);
  // Meshes set after a frame are sorted for that frame's eye as they are uploaded: no re-sort at the next frame.
  auto edit = world.make_edit({8, 64, 7}, cell("ice"));
  ASSERT_TRUE(edit.has_value());
  stream::GeneratedSource source(*generator);
  stream::ColumnStreamer streamer(world, *renderer, source, *g_shared->light, *g_shared->baked, *g_shared->pool);
  ASSERT_TRUE(streamer.load_view(stream::columns_for_view(camera(v), 48.0, false)).ok());
  ASSERT_TRUE(streamer.apply_edit(*edit).applied);
  const Image after_edit = draw(v, false, &st);
  EXPECT_EQ(st.sections_sorted, 0u);
  EXPECT_EQ(compare(after_edit, draw(v, true), 3).first, 0);
}

TEST_F(Translucency, ASortBudgetDefersFarSectionsAndLaterFramesCatchUp) {
  // Glass and water in nine sections (3 x 3 columns, one height); the eye moves down across their y = 65 planes,
  // so each needs a re-sort. With a budget of one section's quads per frame the nearest is sorted first, one
  // section a frame, and the picture converges to the exact one.
  std::vector<CellsGenerator::Placed> cells;
  floor(cells, -24, 40, -8, 56);
  for (int64_t sx = -1; sx <= 1; ++sx)
    for (int64_t sz = 0; sz <= 2; ++sz) {
      cells.push_back({{16 * sx + 8, 64, 16 * sz + 4}, cell("glass")});
      cells.push_back({{16 * sx + 8, 64, 16 * sz + 10}, cell("water")});
    }
  View v{"over the grid", {8, 65, -12}, {0.5, 0.5, 0.5}, 180.0, -10.0, 1};
  load(cells, {v});
  FrameStats st;
  draw(v, false, &st);  // everything sorted for this eye
  EXPECT_EQ(st.sections_sorted, 9u);
  v.eye.y = 64;  // across y = 65 (the glass tops) and the water's surface in every section
  draw(v, false, &st, 12);
  EXPECT_EQ(st.sections_sorted, 1u) << "one section within a 12-quad budget";
  EXPECT_EQ(st.sections_sort_pending, 8u);
  int frames = 1;
  while (st.sections_sort_pending > 0 && frames < 20) {
    draw(v, false, &st, 12);
    EXPECT_EQ(st.sections_sorted, 1u);
    ++frames;
  }
  EXPECT_EQ(frames, 9);
  EXPECT_EQ(st.sections_sort_pending, 0u);
  const Image converged = draw(v, false);
  EXPECT_EQ(compare(converged, draw(v, true), 3).first, 0);
}

}  // namespace
