// The far pass in-process on the headless EGL platform (320x180, llvmpipe): LOD sections' 8-byte quads (built by
// hand with mesh::pack_lod_quad) drawn through the LOD arena and multi-draw indirect. Checks: the far view off, or
// on with its fog end equal to the render radius and nothing far drawn, is the frame of before byte for byte; a
// stone slab of level 3 turns the sky below the horizon into ground; the hand-over: over near columns the near
// mesh's pixels, elsewhere the far pass's, and no sky at the seam; at most 4 terrain draw calls with MDI; removing a
// LOD section frees its span; a level-L cell is 2^L blocks on a side; the hand-over mask is rebuilt only when its
// inputs change; the per-chunk path draws no far view; bad input is refused with a message; face directions facing
// away from the eye are not submitted, and the picture is the same bytes as submitting them (the margin: render.cpp,
// build_far); terrain wholly fog is not drawn.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "voxen/core/hash.h"
#include "voxen/gen/generator.h"
#include "voxen/mesh/lod_mesher.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"
#include "gl_suite.h"

using namespace voxen;
using namespace voxen::render;

namespace {

using render_test::kHeight;
using render_test::kWidth;

// A world of air with the given cells (world positions), lit by the real light pass (as translucency_test's).
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

render_test::GlSuite* g_shared = nullptr;

constexpr double kNearRadius = 48.0;  // the near render radius (blocks): FrameParams::fog_end
constexpr double kFarFog = 240.0;     // the far fog end of these tests
constexpr uint16_t kSkyLight = 0xF000;

class Far : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { g_shared = render_test::make_gl_suite("").release(); }
  static void TearDownTestSuite() {
    delete g_shared;
    g_shared = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(g_shared, nullptr);
    ASSERT_NE(g_shared->platform, nullptr);
    RendererOptions ro;
    ro.log = [this](const std::string& line) { log.push_back(line); };
    auto r = Renderer::create(*g_shared->platform, g_shared->registry, ro);
    ASSERT_TRUE(r.ok()) << r.error().message;
    renderer = std::move(r).value();
    ASSERT_EQ(renderer->path(), RenderPath::kMultiDrawIndirect);
  }

  static uint16_t top_texture(const char* name) {
    return g_shared->registry[g_shared->registry.id(name)].face_texture_index[2];  // world::Face +Y
  }
  // A flat slab: the top faces (+Y) of every cell of LOD-section-local layer y = `cell_y`, as 16 x 16-cell quads.
  static std::vector<mesh::LodQuad> slab(int cell_y, uint16_t texture) {
    std::vector<mesh::LodQuad> q;
    for (int x = 0; x < 32; x += 16)
      for (int z = 0; z < 32; z += 16)
        q.push_back(mesh::pack_lod_quad({x, cell_y, z, 2, 16, 16, texture, kSkyLight}));
    return q;
  }
  // The level-3 stone slab with its top at y = 64 over x, z in [-256, 256): four LOD sections.
  std::vector<lod::LodSectionPos> set_stone_slab() {
    std::vector<lod::LodSectionPos> sections;
    const auto quads = slab(7, top_texture("stone"));  // cell y 7 of level 3: blocks 56..63, top face at 64
    for (int64_t x = -1; x <= 0; ++x)
      for (int64_t z = -1; z <= 0; ++z) {
        sections.push_back({3, x, 0, z});
        renderer->set_lod_section(sections.back(), quads);
      }
    return sections;
  }
  static Camera camera(BlockPos eye, double yaw, double pitch) {
    Camera c = Camera::at(eye, {0.5, 0.5, 0.5});
    c.yaw_deg = yaw;
    c.pitch_deg = pitch;
    c.aspect = static_cast<double>(kWidth) / kHeight;
    c.far_plane = 400;
    return c;
  }
  Image draw(const Camera& cam, const FarParams& far, FrameStats* stats = nullptr) {
    FrameParams fp;
    fp.camera = cam;
    fp.fog_end = kNearRadius;
    fp.far = far;
    const FrameStats st = renderer->render(fp);
    if (stats) *stats = st;
    return renderer->read_pixels();
  }
  // Whether pixel (x, y) looks at least `degrees` below the horizon (so a ground plane 16 blocks down is closer
  // than 16 / tan(degrees) blocks there).
  static bool below_horizon(const Camera& cam, int x, int y, double degrees) {
    const glm::dvec3 dir = glm::normalize(pixel_ray(glm::inverse(cam.view_projection()), x, y).second);
    return -dir.y >= std::sin(degrees * 3.14159265358979323846 / 180.0);
  }
  // The ray through pixel (x, y)'s centre (row 0 at the top) of a frame drawn with `inverse_view_proj`'s camera:
  // its point on the near plane and its direction to the far plane's, camera-relative blocks.
  static std::pair<glm::dvec3, glm::dvec3> pixel_ray(const glm::dmat4& inverse_view_proj, int x, int y) {
    const double nx = (x + 0.5) / kWidth * 2.0 - 1.0, ny = 1.0 - (y + 0.5) / kHeight * 2.0;
    const glm::dvec4 a = inverse_view_proj * glm::dvec4(nx, ny, -1.0, 1.0), b = inverse_view_proj * glm::dvec4(nx, ny, 1.0, 1.0);
    const glm::dvec3 from = glm::dvec3(a) / a.w;
    return {from, glm::dvec3(b) / b.w - from};
  }
  static bool same(const Image& a, const Image& b, int x, int y) { return std::memcmp(a.at(x, y), b.at(x, y), 4) == 0; }

  std::unique_ptr<Renderer> renderer;
  std::vector<std::string> log;
};

// (a) Off is off: the far view off, and on with its fog end at the render radius but nothing far drawn (no LOD
// section set, or set but not selected), give the frame of before byte for byte. The goldens (golden_test.cpp)
// are the frames of before the far pass existed.
TEST_F(Far, FogEndAtTheRenderRadiusWithNothingFarDrawnIsTheFrameWithoutTheFarView) {
  std::vector<CellsGenerator::Placed> cells;
  for (int64_t x = -40; x < 40; ++x)
    for (int64_t z = -40; z < 40; ++z) cells.push_back({{x, 63, z}, Cell{g_shared->registry.id(((x ^ z) & 4) ? "stone" : "planks"), 0}});
  CellsGenerator gen(cells);
  World world;
  stream::GeneratedSource source(gen);
  stream::ColumnStreamer streamer(world, *renderer, source, *g_shared->light, *g_shared->baked, *g_shared->pool);
  const Camera cam = camera({0, 80, 0}, 20.0, -25.0);
  const auto columns = stream::columns_for_view(cam, kNearRadius, false);
  ASSERT_TRUE(streamer.load_view(columns, nullptr, &cam).ok());

  const Image off = draw(cam, {});
  FarParams on;
  on.fog_end = kNearRadius;
  on.near_columns = columns;
  FrameStats st;
  EXPECT_TRUE(draw(cam, on, &st) == off) << "nothing set";
  EXPECT_EQ(st.lod_sections_drawn, 0u);
  const auto sections = set_stone_slab();
  EXPECT_TRUE(draw(cam, on, &st) == off) << "set, not selected";
  EXPECT_EQ(st.lod_draw_calls, 0u);
  // And with the far fog farther, the picture really changes (the check above can fail).
  on.fog_end = kFarFog;
  EXPECT_FALSE(draw(cam, on) == off);
}

// (b) A synthetic level-3 stone slab fills the sky below the horizon with ground, and leaves the sky above it.
TEST_F(Far, AStoneSlabOfLevelThreeDrawsGroundWhereTheSkyWas) {
  const Camera cam = camera({0, 80, 0}, 0.0, -10.0);
  FarParams far;
  far.fog_end = kFarFog;
  const Image sky = draw(cam, far);
  const auto sections = set_stone_slab();
  far.draw = sections;
  FrameStats st;
  const Image ground = draw(cam, far, &st);
  // The depth read-back reports the far-only pixels as terrain (Renderer::kFarDepth) and the sky as 1.0.
  const std::vector<float> depth = renderer->read_depth();
  ASSERT_EQ(depth.size(), static_cast<size_t>(kWidth) * kHeight);
  EXPECT_EQ(st.lod_sections_drawn, 4u);  // the eye is inside the two with z = 0: all four in view
  EXPECT_EQ(st.lod_sections_per_level[3], 4u);
  EXPECT_EQ(st.lod_quads, 16u);
  EXPECT_EQ(st.lod_sections_missing, 0u);
  int ground_px = 0, ground_sky = 0, above = 0, above_changed = 0, ground_not_far_depth = 0, above_not_sky_depth = 0;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const float d = depth[static_cast<size_t>(kHeight - 1 - y) * kWidth + static_cast<size_t>(x)];  // row 0 at the bottom
      if (below_horizon(cam, x, y, 8.0)) {  // the slab is < 114 blocks away there: before the fog starts
        ++ground_px;
        ground_sky += same(sky, ground, x, y);
        ground_not_far_depth += d != Renderer::kFarDepth;
      } else if (!below_horizon(cam, x, y, -0.5)) {  // above the horizon
        ++above;
        above_changed += !same(sky, ground, x, y);
        above_not_sky_depth += d != 1.0f;
      }
    }
  EXPECT_GT(ground_px, 5000);
  EXPECT_EQ(ground_sky, 0) << "of " << ground_px << " ground pixels";
  EXPECT_GT(above, 5000);
  EXPECT_EQ(above_changed, 0) << "of " << above << " sky pixels";
  EXPECT_EQ(ground_not_far_depth, 0) << "of " << ground_px << " ground pixels";
  EXPECT_EQ(above_not_sky_depth, 0) << "of " << above << " sky pixels";
  // Stone-grey: the centre of the ground is a grey (channels within 12 of each other), not the sky's blue.
  const uint8_t* c = ground.at(kWidth / 2, kHeight - 10);
  EXPECT_LE(std::max({c[0], c[1], c[2]}) - std::min({c[0], c[1], c[2]}), 12) << int(c[0]) << "," << int(c[1]) << "," << int(c[2]);
}

// (c) The hand-over: near planks in the drawn columns (the streamer's draw set, its ring of stone loaded but not
// drawn, so no edge faces) except one drawn column left empty (a hole to the void), the far stone slab under
// everything at the same height, and a pillar of planks in a near column. Where the near pass draws, the pixels are the near frame's; through the hole the
// sky shows (the far pass draws nothing inside a near column); elsewhere the far frame's; and no other pixel of the
// ground region shows sky, so there is no gap at the seam.
TEST_F(Far, OverNearColumnsTheNearMeshShowsElsewhereTheFarAndNoSkyAtTheSeam) {
  const Camera cam = camera({0, 80, 0}, 0.0, -20.0);
  const auto columns = stream::columns_for_view(cam, kNearRadius, false);
  std::unordered_set<ColumnPos, ColumnPosHash> drawn(columns.begin(), columns.end());
  const ColumnPos hole{0, -2};  // x in [0, 16), z in [-32, -16): in view, drawn, empty
  ASSERT_TRUE(drawn.count(hole));
  std::vector<CellsGenerator::Placed> cells;
  const Cell planks{g_shared->registry.id("planks"), 0}, stone{g_shared->registry.id("stone"), 0};
  for (int64_t cx = -6; cx <= 6; ++cx)
    for (int64_t cz = -6; cz <= 6; ++cz) {
      if (ColumnPos{cx, cz} == hole) continue;
      for (int64_t x = 0; x < 16; ++x)
        for (int64_t z = 0; z < 16; ++z)
          cells.push_back({{cx * 16 + x, 63, cz * 16 + z}, drawn.count({cx, cz}) ? planks : stone});
    }
  // A pillar in a near column, standing in front of far ground: near terrain is always in front of far terrain.
  for (int64_t x = 4; x < 8; ++x)
    for (int64_t z = -44; z < -40; ++z)
      for (int64_t y = 64; y < 78; ++y) cells.push_back({{x, y, z}, planks});
  CellsGenerator gen(cells);
  World world;
  stream::GeneratedSource source(gen);
  stream::ColumnStreamer streamer(world, *renderer, source, *g_shared->light, *g_shared->baked, *g_shared->pool);
  ASSERT_TRUE(streamer.load_view(columns, nullptr, &cam).ok());

  FarParams far;
  far.fog_end = kFarFog;
  far.near_columns = columns;
  const Image near_only = draw(cam, far);  // the near planks, sky beyond them and through the hole
  const auto sections = set_stone_slab();
  far.draw = sections;
  FrameStats st;
  const Image both = draw(cam, far, &st);
  EXPECT_TRUE(st.lod_mask_rebuilt);
  EXPECT_EQ(st.lod_sections_drawn, 4u);
  // The far slab alone: no near sections, no near columns.
  renderer->clear();
  far.near_columns = {};
  const Image far_only = draw(cam, far);
  renderer->clear_lod();
  far.draw = {};
  const Image sky = draw(cam, far);

  // Where a pixel's ray meets the plane y = 64 (the tops): in the hole (0 blocks or more inside), outside it (0.05
  // blocks or more), or on its edge (left out).
  const glm::dmat4 inv = glm::inverse(cam.view_projection());
  auto hole_side = [&](int x, int y) {
    const double nx = (x + 0.5) / kWidth * 2.0 - 1.0, ny = 1.0 - (y + 0.5) / kHeight * 2.0;
    const glm::dvec4 a = inv * glm::dvec4(nx, ny, -1.0, 1.0), b = inv * glm::dvec4(nx, ny, 1.0, 1.0);
    const glm::dvec3 dir = glm::normalize(glm::dvec3(b) / b.w - glm::dvec3(a) / a.w);
    if (dir.y >= 0) return 1;
    const glm::dvec3 p = cam.relative({0, 64, 0}).y / dir.y * dir;  // eye-relative
    const double wx = 0.5 + p.x, wz = 0.5 + p.z;                      // the eye is at x, z = 0.5
    const double inside = std::min({wx - 0.0, 16.0 - wx, wz + 32.0, -16.0 - wz});
    return inside >= 0.0 ? 0 : (inside <= -0.05 ? 1 : -1);
  };
  int near_px = 0, near_bad = 0, far_px = 0, far_bad = 0, hole_px = 0, hole_bad = 0, ground = 0, ground_sky = 0;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const int side = hole_side(x, y);
      if (!same(near_only, sky, x, y)) {
        ++near_px;
        near_bad += !same(both, near_only, x, y);
      } else if (side == 0) {
        ++hole_px;
        hole_bad += !same(both, sky, x, y);
      } else if (side == 1) {
        ++far_px;
        far_bad += !same(both, far_only, x, y);
      }
      if (side == 1 && below_horizon(cam, x, y, 8.0)) {
        ++ground;
        ground_sky += same(both, sky, x, y);
      }
    }
  EXPECT_GT(near_px, 5000);
  EXPECT_GT(far_px, 5000);
  EXPECT_GT(hole_px, 200);
  EXPECT_EQ(near_bad, 0) << "of " << near_px << " near pixels differ from the near frame";
  EXPECT_EQ(hole_bad, 0) << "of " << hole_px << " pixels through the hole are not sky";
  EXPECT_EQ(far_bad, 0) << "of " << far_px << " other pixels differ from the far frame";
  EXPECT_GT(ground, 20000);
  EXPECT_EQ(ground_sky, 0) << "of " << ground << " ground pixels show sky";
  // The colours really differ: planks (warm) near, stone (grey) far, so the checks above tell them apart.
  const uint8_t* n = both.at(kWidth / 2, kHeight - 5);
  EXPECT_GT(int(n[0]) - int(n[2]), 20) << "planks below the eye";
}

// (d) The draw-call budget: near opaque, near translucent and far opaque, one MDI call each while each arena fits
// one buffer, however many LOD sections are drawn.
// Face directions facing away from the eye are not submitted (Renderer::set_lod_section groups a section's quads
// by direction; build_far skips a direction whose every plane in the section faces away), and the picture is the
// bytes of submitting them all (FarParams::submit_facing_away, the oracle): LOD sections of levels 0, 1 and 2 of
// hilly ground, floating cells (bottom faces) and pools (fluid faces), meshed with their skirts appended and every
// other section's quads reversed (so they come ungrouped), seen from eyes outside, inside and exactly on the sections' planes, in many directions.
TEST_F(Far, FacesAwayFromTheEyeAreNotSubmittedAndThePictureIsTheSame) {
  const mesh::LodMeshTables tables(g_shared->registry);
  const Cell stone{g_shared->registry.id("stone")}, grass{g_shared->registry.id("grass_block")},
      water{g_shared->registry.id("water")};
  ASSERT_NE(stone.id, kAirId);
  ASSERT_NE(grass.id, kAirId);
  ASSERT_NE(water.id, kAirId);
  std::vector<lod::LodSectionPos> sections;
  auto add = [&](const lod::LodSectionPos& pos) {
    lod::PaddedLodSection padded;
    padded.pos = pos;
    for (int z = 0; z < 32; ++z)
      for (int x = 0; x < 32; ++x) {
        const uint64_t h = hash3(7777, pos.level, pos.x * 32 + x, pos.z * 32 + z);
        const int top = 4 + static_cast<int>(h % 21);  // ground 4..24 cells
        for (int y = 0; y <= top; ++y) padded.set(x, y, z, lod::LodCell::make(y == top ? grass : stone, 0));
        for (int y = top + 1; y <= 12; ++y) padded.set(x, y, z, lod::LodCell::make(water, 0xF000));  // pools up to 12
        if ((h >> 20) % 7 == 0) padded.set(x, 28, z, lod::LodCell::make(stone, 0xF000));          // floating cells
      }
    for (int i = 0; i < 32; ++i)  // solid neighbours across the x and z borders, 16 cells tall: skirts
      for (int y = 0; y < 16; ++y)
        for (const auto& [bx, bz] : {std::pair{-1, i}, std::pair{32, i}, std::pair{i, -1}, std::pair{i, 32}})
          padded.set(bx, y, bz, lod::LodCell::make(stone, 0));
    mesh::LodMesh m;
    mesh::mesh_lod_section(padded, tables, m);
    const size_t greedy = m.quads.size();
    mesh::append_lod_skirts(padded, tables, m);
    ASSERT_GT(m.quads.size(), greedy) << "no skirts";
    if (sections.size() % 2) std::reverse(m.quads.begin(), m.quads.end());  // any order is allowed
    renderer->set_lod_section(pos, m.quads);
    sections.push_back(pos);
  };
  for (int64_t x = 0; x <= 1; ++x)
    for (int64_t z = -2; z <= 1; ++z) add({0, x, 1, z});  // blocks x [0, 64), y [32, 64), z [-64, 64)
  for (int64_t z = -1; z <= 0; ++z) add({1, 1, 0, z});    // x [64, 128), y [0, 64), z [-64, 64)
  for (int64_t z = -1; z <= 0; ++z) add({2, 1, 0, z});    // x [128, 256), y [0, 128), z [-128, 128)

  FarParams far;
  far.fog_end = kFarFog;
  far.draw = sections;
  FarParams oracle = far;
  oracle.submit_facing_away = true;
  struct Eye {
    BlockPos block;
    glm::dvec3 frac;
  };
  const std::vector<Eye> eyes = {{{-40, 90, 10}, {0.5, 0.5, 0.5}},  {{20, 70, -30}, {0.25, 0.5, 0.75}},
                                 {{32, 40, 0}, {0.5, 0.5, 0.5}},    {{64, 64, 64}, {0.0, 0.0, 0.0}},
                                 {{100, 30, -100}, {0.5, 0.5, 0.5}}, {{150, 10, 0}, {0.5, 0.1, 0.5}},
                                 {{128, 128, -128}, {0.0, 0.0, 0.0}}, {{300, 60, 200}, {0.5, 0.5, 0.5}},
                                 {{-70, 20, -90}, {0.9, 0.5, 0.1}}};
  uint64_t skipped = 0, drawn_cameras = 0;
  for (const Eye& e : eyes)
    for (const double yaw : {0.0, 45.0, 90.0, 180.0, 270.0})
      for (const double pitch : {-35.0, 0.0, 25.0}) {
        SCOPED_TRACE("eye " + std::to_string(e.block.x) + "," + std::to_string(e.block.y) + "," + std::to_string(e.block.z) +
                     " yaw " + std::to_string(yaw) + " pitch " + std::to_string(pitch));
        Camera cam = Camera::at(e.block, e.frac);
        cam.yaw_deg = yaw;
        cam.pitch_deg = pitch;
        cam.aspect = static_cast<double>(kWidth) / kHeight;
        cam.far_plane = 400;
        FrameStats st, st_oracle;
        const Image a = draw(cam, far, &st);
        const Image b = draw(cam, oracle, &st_oracle);
        EXPECT_TRUE(a == b) << st.lod_quads_facing_away << " quads facing away not submitted";
        EXPECT_EQ(st.lod_quads, st_oracle.lod_quads);
        EXPECT_EQ(st_oracle.lod_quads_facing_away, 0u);
        EXPECT_LT(st.lod_quads_facing_away, st.lod_quads + (st.lod_quads == 0));
        skipped += st.lod_quads_facing_away;
        drawn_cameras += st.lod_sections_drawn > 0;
      }
  EXPECT_GT(drawn_cameras, 100u);
  EXPECT_GT(skipped, 0u) << "no direction was ever skipped: the check would pass without the skip";
}

TEST_F(Far, AtMostFourTerrainDrawCallsWithManyLodSections) {
  std::vector<CellsGenerator::Placed> cells;
  for (int64_t x = -20; x < 20; ++x)
    for (int64_t z = -30; z < 0; ++z)
      cells.push_back({{x, 63, z}, Cell{g_shared->registry.id(z < -15 ? "water" : "stone"), 0}});
  CellsGenerator gen(cells);
  World world;
  stream::GeneratedSource source(gen);
  stream::ColumnStreamer streamer(world, *renderer, source, *g_shared->light, *g_shared->baked, *g_shared->pool);
  const Camera cam = camera({0, 80, 0}, 0.0, -20.0);
  const auto columns = stream::columns_for_view(cam, kNearRadius, false);
  ASSERT_TRUE(streamer.load_view(columns, nullptr, &cam).ok());
  // 36 LOD sections of levels 2 and 3 north of the eye.
  std::vector<lod::LodSectionPos> sections;
  for (int level = 2; level <= 3; ++level)
    for (int64_t x = -3; x < 3; ++x)
      for (int64_t z = -3; z < 0; ++z) {
        sections.push_back({level, x, 0, z});
        renderer->set_lod_section(sections.back(), slab(level == 2 ? 14 : 6, top_texture("stone")));
      }
  FarParams far;
  far.fog_end = 1000;
  far.draw = sections;
  far.near_columns = columns;
  FrameStats st;
  draw(cam, far, &st);
  EXPECT_GE(st.lod_sections_drawn, 20u);
  EXPECT_GT(st.translucent_meshes, 0u);
  EXPECT_GT(st.opaque_meshes, 0u);
  EXPECT_EQ(st.lod_draw_calls, 1u);
  EXPECT_EQ(st.draw_calls, 3u);
  EXPECT_LE(st.draw_calls, 4u);
}

// (e) Removing a LOD section gives its span back: the arena's used bytes fall by its quads and the next section
// of that size takes the same span; a removed section listed in far.draw is skipped, counted and draws nothing.
TEST_F(Far, RemovingALodSectionFreesItsSpan) {
  const auto quads = slab(7, top_texture("stone"));
  const lod::LodSectionPos a{3, -1, 0, -1}, b{3, 0, 0, -1}, c{3, 5, 0, 5};
  renderer->set_lod_section(a, quads);
  renderer->set_lod_section(b, quads);
  ASSERT_TRUE(renderer->has_lod_section(a));
  const Span span_a = *renderer->lod_span(a);
  const uint64_t used = renderer->lod_arena().used_bytes().value;
  EXPECT_EQ(used, 2u * 64u * 8u);  // two spans of 64 quads (the granularity), 8 bytes each
  renderer->remove_lod_section(a);
  EXPECT_FALSE(renderer->has_lod_section(a));
  EXPECT_FALSE(renderer->lod_span(a).has_value());
  EXPECT_EQ(renderer->lod_arena().used_bytes().value, used / 2);
  EXPECT_EQ(renderer->lod_section_count(), 1u);
  renderer->set_lod_section(c, quads);
  ASSERT_TRUE(renderer->lod_span(c).has_value());
  EXPECT_EQ(renderer->lod_span(c)->buffer, span_a.buffer);
  EXPECT_EQ(renderer->lod_span(c)->offset.value, span_a.offset.value);
  // An empty set removes too.
  renderer->set_lod_section(c, {});
  EXPECT_FALSE(renderer->has_lod_section(c));
  EXPECT_EQ(renderer->lod_arena().used_bytes().value, used / 2);

  const Camera cam = camera({0, 80, 0}, 0.0, -10.0);
  FarParams far;
  far.fog_end = kFarFog;
  const Image sky = draw(cam, far);
  renderer->clear_lod();
  EXPECT_EQ(renderer->lod_arena().used_bytes().value, 0u);
  const lod::LodSectionPos listed[] = {a, b};
  far.draw = listed;
  FrameStats st;
  EXPECT_TRUE(draw(cam, far, &st) == sky);
  EXPECT_EQ(st.lod_sections_missing, 2u);
  EXPECT_EQ(st.lod_sections_drawn, 0u);
  EXPECT_EQ(st.lod_used_bytes, 0u);
}

// (f) Levels: one cell of level L is 2^L blocks on a side: its top face draws exactly the pixels of a level-0
// quad of 2^L x 2^L cells over the same blocks (same texture coordinates, so the same bytes), and its extent on
// screen is the projection of those blocks.
TEST_F(Far, ACellOfLevelLIsTwoToTheLBlocksOnASide) {
  const Camera cam = camera({12, 100, 12}, 0.0, -89.9);  // straight down over x, z in [2, 32)
  FarParams far;
  far.fog_end = kFarFog;
  const Image sky = draw(cam, far);
  const uint16_t tex = top_texture("stone");
  for (int level = 1; level <= 4; ++level) {
    SCOPED_TRACE("level " + std::to_string(level));
    const int s = 1 << level;  // blocks per cell
    renderer->clear_lod();
    const lod::LodSectionPos coarse{level, 0, 0, 0}, fine{0, 0, 1, 0};
    const mesh::LodQuad one = mesh::pack_lod_quad({1, 64 / s - 1, 1, 2, 1, 1, tex, kSkyLight});  // blocks [s, 2s)
    renderer->set_lod_section(coarse, std::span(&one, 1));
    far.draw = std::span(&coarse, 1);
    const Image a = draw(cam, far);
    renderer->clear_lod();
    // Level 0, section y 1 (blocks 32..63): cells (s, 31, s), s x s cells, top face at y 64.
    const mesh::LodQuad many = mesh::pack_lod_quad({s, 31, s, 2, s, s, tex, kSkyLight});
    renderer->set_lod_section(fine, std::span(&many, 1));
    far.draw = std::span(&fine, 1);
    const Image b = draw(cam, far);
    EXPECT_TRUE(a == b);
    // The drawn pixels' bounding box against the projection of [s, 2s) x [s, 2s) at y 64.
    int x0 = kWidth, x1 = -1, y0 = kHeight, y1 = -1;
    for (int y = 0; y < kHeight; ++y)
      for (int x = 0; x < kWidth; ++x)
        if (!same(a, sky, x, y)) x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    ASSERT_GE(x1, 0) << "nothing drawn";
    const glm::dmat4 vp = cam.view_projection();
    double px0 = 1e9, px1 = -1e9, py0 = 1e9, py1 = -1e9;
    for (int k = 0; k < 4; ++k) {
      const glm::dvec4 q = vp * glm::dvec4(cam.relative({k & 1 ? 2 * s : s, 64, k & 2 ? 2 * s : s}), 1.0);
      const double sx = (q.x / q.w * 0.5 + 0.5) * kWidth, sy = (0.5 - q.y / q.w * 0.5) * kHeight;
      px0 = std::min(px0, sx), px1 = std::max(px1, sx), py0 = std::min(py0, sy), py1 = std::max(py1, sy);
    }
    EXPECT_NEAR(x0, px0, 1.0);
    EXPECT_NEAR(x1 + 1, px1, 1.0);
    EXPECT_NEAR(y0, py0, 1.0);
    EXPECT_NEAR(y1 + 1, py1, 1.0);
  }
}

// Terrain wholly fog is not drawn: the level-3 stone slab (top at y 64, x and z in [-256, 256)) seen from 16.5
// blocks above it, looking north-west along its diagonal (fov 20 degrees): where a pixel's ray meets the slab
// nearer than the fog end (240 blocks, horizontally) the depth read-back says far terrain, where it meets the slab
// past it the pixel is the sky frame's and reads as sky (seen red: the far pass drew those pixels, the sky's
// colour within a unit here (no sun toward them), and marked them terrain).
TEST_F(Far, TerrainWhollyFogIsNotDrawnAndReadsAsSky) {
  Camera cam = camera({0, 80, 0}, 315.0, -4.0);
  cam.fov_y_deg = 20.0;
  FarParams far;
  far.fog_end = kFarFog;
  const Image sky = draw(cam, far);
  const auto sections = set_stone_slab();
  far.draw = sections;
  const Image img = draw(cam, far);
  const std::vector<float> depth = renderer->read_depth();
  const glm::dmat4 inv = glm::inverse(cam.view_projection());
  int nearer = 0, past = 0, nearer_not_far = 0, past_not_sky = 0;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const auto [from, dir] = pixel_ray(inv, x, y);
      if (dir.y >= 0) continue;
      const double t = (64.0 - 80.5 - from.y) / dir.y;
      const double hx = from.x + dir.x * t + 0.5, hz = from.z + dir.z * t + 0.5;  // world x, z of the hit
      if (std::abs(hx) > 250.0 || std::abs(hz) > 250.0) continue;                 // off the slab (or at its edge)
      const double d = std::hypot(hx - 0.5, hz - 0.5);
      const float z = depth[static_cast<size_t>(kHeight - 1 - y) * kWidth + static_cast<size_t>(x)];
      if (d < kFarFog - 2.0) {
        ++nearer;
        nearer_not_far += z != Renderer::kFarDepth;
      } else if (d > kFarFog + 2.0) {
        ++past;
        past_not_sky += z != 1.0f || !same(sky, img, x, y);
      }
    }
  EXPECT_GT(nearer, 1000);
  EXPECT_GT(past, 1000);
  EXPECT_EQ(nearer_not_far, 0) << "of " << nearer;
  EXPECT_EQ(past_not_sky, 0) << "of " << past;
}

// Skirts close a cliff beside a coarser node (mesh::append_lod_skirts): a level-0 node (x [-32, 0), y [32, 64),
// z [0, 64)) of ground with its top at y 40 and, in its last column (x = -1), a pillar up to y 60 at every odd z,
// beside a level-1 node (x [0, 64), y [0, 128), z [0, 64): two sections, meshed from the top down as the far view
// meshes a stack) of ground up to y 70. The level-1 node's border across x = 0 is the mip of the level-0 ground,
// solid to y 60 wherever a pillar stands in its 2 x 2 columns, so the face rule hides its -X side below that;
// between the pillars the eye looks down the gaps onto it, 20 blocks of it, all in the lower section, whose own
// columns hold no air (the ground's top is in the section above). Seen from above the level-0 node, every pixel
// whose ray reaches y 40 inside the two nodes' footprint has met ground on the way, so none may read as sky
// (depth 1). Seen red with the skirts on the top 2 cells of a column only (the first rule), and with each section
// meshed alone (the second: 13,851 of 74,673 pixels; the case a break-it pass found).
TEST_F(Far, SkirtsCloseACliffBesideACoarserNode) {
  const mesh::LodMeshTables tables(g_shared->registry);
  const Cell stone{g_shared->registry.id("stone")};
  const lod::LodCell solid = lod::LodCell::make(stone, 0), open = lod::LodCell::make(Cell{kAirId}, kSkyLight);
  // Ground of each section, by its own cell coordinates (border included): whether (x, y, z) is solid.
  auto fine_ground = [](int x, int y, int z) {  // level 0, section y 1: block y = 32 + y
    const int top = (x == 31 && (z & 1)) || x == 32 ? 60 : 40;  // x = 32: the level-1 ground at block x 0
    return 32 + y < (x == 32 ? 70 : top);
  };
  auto padded_of = [&](const lod::LodSectionPos& pos, const auto& ground) {
    lod::PaddedLodSection padded;
    padded.pos = pos;
    for (int z = -1; z <= 32; ++z)
      for (int y = -1; y <= 32; ++y)
        for (int x = -1; x <= 32; ++x) padded.set(x, y, z, ground(x, y, z) ? solid : open);
    return padded;
  };
  const lod::LodSectionPos fine_a{0, -1, 1, 0}, fine_b{0, -1, 1, 1}, coarse_lo{1, 0, 0, 0}, coarse_hi{1, 0, 1, 0};
  for (const lod::LodSectionPos& pos : {fine_a, fine_b}) {
    mesh::LodMesh m;
    const lod::PaddedLodSection p = padded_of(pos, fine_ground);
    mesh::mesh_lod_section(p, tables, m);
    mesh::append_lod_skirts(p, tables, m);
    renderer->set_lod_section(pos, m.quads);
  }
  mesh::LodSkirtColumns above;
  for (const lod::LodSectionPos& pos : {coarse_hi, coarse_lo}) {  // level 1: cells of 2 blocks, ground to y 70
    mesh::LodMesh m;
    const lod::PaddedLodSection p = padded_of(pos, [&](int, int y, int) { return 2 * (32 * pos.y + y) < 70; });
    mesh::mesh_lod_section(p, tables, m);
    mesh::append_lod_skirts(p, tables, m, &above);
    renderer->set_lod_section(pos, m.quads);
  }
  FarParams far;
  far.fog_end = kFarFog;
  const std::vector<lod::LodSectionPos> nodes = {fine_a, fine_b, coarse_lo, coarse_hi};
  far.draw = nodes;
  int checked = 0, sky = 0;
  for (const double pitch : {-30.0, -45.0, -60.0}) {
    const Camera cam = camera({-12, 76, 31}, 90.0, pitch);  // east, over the level-0 node; the eye at -11.5, 76.5, 31.5
    draw(cam, far);
    const std::vector<float> depth = renderer->read_depth();
    const glm::dmat4 inv = glm::inverse(cam.view_projection());
    for (int y = 0; y < kHeight; ++y)
      for (int x = 0; x < kWidth; ++x) {
        const auto [from, dir] = pixel_ray(inv, x, y);
        if (dir.y >= 0) continue;
        const double t = (40.0 - 76.5 - from.y) / dir.y;
        const double hx = -11.5 + from.x + dir.x * t, hz = 31.5 + from.z + dir.z * t;  // world x, z at y 40
        if (hx < -31.0 || hx > 63.0 || hz < 1.0 || hz > 63.0) continue;                   // off the footprint
        ++checked;
        sky += depth[static_cast<size_t>(kHeight - 1 - y) * kWidth + static_cast<size_t>(x)] == 1.0f;
      }
  }
  EXPECT_GT(checked, 20000);
  EXPECT_EQ(sky, 0) << "of " << checked << " pixels whose ray reaches y 40 inside the nodes";
}

// The hand-over mask is rebuilt only when the near columns or the camera's column change.
TEST_F(Far, TheMaskIsRebuiltOnlyWhenTheNearColumnsOrTheCameraColumnChange) {
  const auto sections = set_stone_slab();
  const std::vector<ColumnPos> near_a = {{0, -1}, {0, -2}}, near_b = {{0, -1}};
  FarParams far;
  far.fog_end = kFarFog;
  far.draw = sections;
  far.near_columns = near_a;
  FrameStats st;
  const Image a = draw(camera({0, 80, 0}, 0.0, -20.0), far, &st);
  EXPECT_TRUE(st.lod_mask_rebuilt);
  EXPECT_TRUE(draw(camera({0, 80, 0}, 0.0, -20.0), far, &st) == a);
  EXPECT_FALSE(st.lod_mask_rebuilt);
  draw(camera({5, 80, 3}, 0.0, -20.0), far, &st);  // same column
  EXPECT_FALSE(st.lod_mask_rebuilt);
  draw(camera({16, 80, 3}, 0.0, -20.0), far, &st);  // the next column east
  EXPECT_TRUE(st.lod_mask_rebuilt);
  far.near_columns = near_b;
  const Image b = draw(camera({0, 80, 0}, 0.0, -20.0), far, &st);
  EXPECT_TRUE(st.lod_mask_rebuilt);
  EXPECT_FALSE(a == b);  // column (0, -2) is drawn far now
}

// The per-chunk path (the GL 3.3 fallback) draws no far view: with LOD sections selected and a far fog end, its
// frame is its far-off frame.
TEST_F(Far, ThePerChunkPathIgnoresTheFarView) {
  ASSERT_TRUE(renderer->set_path(RenderPath::kPerChunk));
  const Camera cam = camera({0, 80, 0}, 0.0, -10.0);
  const Image off = draw(cam, {});
  const auto sections = set_stone_slab();
  FarParams far;
  far.fog_end = kFarFog;
  far.draw = sections;
  FrameStats st;
  EXPECT_TRUE(draw(cam, far, &st) == off);
  EXPECT_EQ(st.lod_sections_drawn, 0u);
  EXPECT_EQ(st.lod_draw_calls, 0u);
  ASSERT_TRUE(renderer->set_path(RenderPath::kMultiDrawIndirect));
  EXPECT_FALSE(draw(cam, far) == off);
}

// Bad input: a level out of range or a quad with face 6 or 7 is refused with a message naming the section; the
// renderer goes on.
TEST_F(Far, BadLodSectionsAreRefusedWithAMessage) {
  const auto quads = slab(7, top_texture("stone"));
  renderer->set_lod_section({lod::kMaxLevels, 0, 0, 0}, quads);
  EXPECT_FALSE(renderer->has_lod_section({lod::kMaxLevels, 0, 0, 0}));
  renderer->set_lod_section({-1, 0, 0, 0}, quads);
  EXPECT_FALSE(renderer->has_lod_section({-1, 0, 0, 0}));
  std::vector<mesh::LodQuad> bad = quads;
  bad[2].bits |= uint64_t{7} << 15;
  renderer->set_lod_section({3, 0, 0, 0}, quads);
  renderer->set_lod_section({3, 0, 0, 0}, bad);  // replacing a good one: it goes
  EXPECT_FALSE(renderer->has_lod_section({3, 0, 0, 0}));
  EXPECT_EQ(renderer->lod_arena().used_bytes().value, 0u);
  ASSERT_EQ(log.size(), 3u);
  EXPECT_NE(log[0].find("level outside"), std::string::npos) << log[0];
  EXPECT_NE(log[2].find("LOD section 3:0,0,0: quad 2 has face 7"), std::string::npos) << log[2];
}

}  // namespace
