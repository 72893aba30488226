// Fluid faces against see-through and partial neighbours (issue 12): on a plane a fluid shares with a non-fluid
// neighbour, the neighbour's face stays and the fluid's face covers only what the neighbour leaves open, so no two
// faces lie in one plane over the same area. Checked face by face on the issue's scene (a water source with glass,
// leaves, a bottom slab, stairs and stone around it), inside a section and across a column border, read back from
// the fast mesher's quads as polygons in world coordinates; then for every fluid against every shape and state, on
// every side, with level and sloping surfaces. Two different fluids (water beside lava): the interface is drawn
// exactly once where both are present, by the fluid that ranks higher (shapes.h seam_rank: lava), and the other's
// side only above that fluid's surface; face by face, then every pair of fluid states on every side and above.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <string>
#include <tuple>

#include "face_polygons.h"
#include "mesh_test_util.h"
#include "voxen/mesh/shapes.h"

namespace voxen::mesh {
namespace {

using namespace testing;

constexpr int64_t kY = 64;  // the scene's layer (section 12 of each column, whose bottom is y = 64)

// The faces of the sections holding `cells`, culled (one quad per unit face or piece), as polygons in world
// 1/64-block coordinates.
std::vector<PlaneFace> world_faces(const World& world, const std::vector<BlockPos>& cells) {
  std::vector<SectionPos> sections;
  for (const BlockPos& c : cells) {
    const SectionPos s = section_pos_of(c);
    if (std::find(sections.begin(), sections.end(), s) == sections.end()) sections.push_back(s);
  }
  std::vector<PlaneFace> out;
  for (const SectionPos& s : sections) {
    SectionInput in;
    MeshScratch scratch;
    SectionMesh mesh;
    mesh_world_section(baked(), world, s, {false, true}, in, scratch, mesh);
    const std::array<double, 3> origin{static_cast<double>(s.x) * 16 * 64, static_cast<double>(section_base_y(s.y)) * 64,
                                       static_cast<double>(s.z) * 16 * 64};
    for (PlaneFace& f : plane_faces(mesh, origin)) out.push_back(std::move(f));
  }
  return out;
}

// The polygon of an axis rectangle [u0, u1] x [v0, v1] (blocks) on a plane's two axes, in 1/64 block.
std::vector<Point2> rect(double u0, double v0, double u1, double v1) {
  return {{u0 * 64, v0 * 64}, {u1 * 64, v0 * 64}, {u1 * 64, v1 * 64}, {u0 * 64, v1 * 64}};
}

// The faces lying in plane `axis` = `blocks` (world blocks) over some of `area` (a polygon on the plane's axes).
std::vector<PlaneFace> in_plane(const std::vector<PlaneFace>& faces, int axis, double blocks,
                                const std::vector<Point2>& area) {
  std::vector<PlaneFace> out;
  for (const PlaneFace& f : faces)
    if (f.axis == axis && f.level == blocks * 64 && intersection_area(f.poly, area) > 0) out.push_back(f);
  return out;
}

// Requires exactly one face of `block` (a texture of that block) in `faces`, covering exactly `poly`, and returns it.
::testing::AssertionResult one_face(const std::vector<PlaneFace>& faces, const std::string& block,
                                    const std::vector<Point2>& poly) {
  const BlockDef& def = registry()[registry().id(block)];
  std::vector<const PlaneFace*> found;
  for (const PlaneFace& f : faces)
    for (uint16_t t : def.face_texture_index)
      if (f.r.f.texture == t) {
        found.push_back(&f);
        break;
      }
  if (found.size() != 1) {
    auto r = ::testing::AssertionFailure() << found.size() << " faces of " << block << " on the plane";
    for (const PlaneFace* f : found) r << "\n  " << f->r.to_string();
    return r;
  }
  const double area = signed_area(poly), got = signed_area(found[0]->poly);
  const double common = intersection_area(found[0]->poly, poly);
  if (std::abs(common - area) > 1e-6 || std::abs(got - area) > 1e-6)
    return ::testing::AssertionFailure() << block << "'s face has area " << got << " (1/4096 block^2), expected " << area
                                         << ", in common " << common << ": " << found[0]->r.to_string();
  return ::testing::AssertionSuccess();
}

// The issue's scene with the water at (x0, 64, 8): glass east of it, oak leaves west, a bottom stone slab south,
// stone stairs (facing north, upright) north, stone below.
std::unique_ptr<World> issue_scene(int64_t x0) {
  auto world = empty_world(-1, -1, 3);
  const auto put = [&](int64_t x, int64_t y, int64_t z, const Cell& c) { world->apply({{x, y, z}, kAir, c, 0}); };
  put(x0, kY, 8, cell_of("water", state::make_fluid(0, false)));
  put(x0 + 1, kY, 8, cell_of("glass"));
  put(x0 - 1, kY, 8, cell_of("oak_leaves"));
  put(x0, kY, 9, cell_of("stone_slab", 0));
  put(x0, kY, 7, cell_of("stone_stairs", state::make_facing(state::kNorth, false)));
  put(x0, kY - 1, 8, cell_of("stone"));
  return world;
}

// Face by face at every seam of the issue's scene around the water at (x0, 64, 8).
void check_issue_scene(int64_t x0) {
  SCOPED_TRACE("water at x = " + std::to_string(x0));
  const auto world = issue_scene(x0);
  const auto faces = world_faces(*world, {{x0, kY, 8}, {x0 + 1, kY, 8}, {x0 - 1, kY, 8}, {x0, kY - 1, 8}});
  const double x = static_cast<double>(x0), y = kY;
  // x = x0 + 1: the glass's -X face alone (z 8..9, y 64..65); no water face.
  const auto glass_seam = in_plane(faces, 0, x + 1, rect(8, y, 9, y + 1));
  EXPECT_EQ(glass_seam.size(), 1u);
  EXPECT_TRUE(one_face(glass_seam, "glass", rect(8, y, 9, y + 1)));
  // x = x0: the leaves' +X face alone.
  const auto leaves_seam = in_plane(faces, 0, x, rect(8, y, 9, y + 1));
  EXPECT_EQ(leaves_seam.size(), 1u);
  EXPECT_TRUE(one_face(leaves_seam, "oak_leaves", rect(8, y, 9, y + 1)));
  // z = 9: the slab's -Z face (y 64..64.5) and the water's +Z face over the rest of the water's side, 64.5..64.875.
  const auto slab_seam = in_plane(faces, 2, 9, rect(x, y, x + 1, y + 1));
  EXPECT_EQ(slab_seam.size(), 2u);
  EXPECT_TRUE(one_face(slab_seam, "stone_slab", rect(x, y, x + 1, y + 0.5)));
  EXPECT_TRUE(one_face(slab_seam, "water", rect(x, y + 0.5, x + 1, y + 56.0 / 64)));
  // z = 8: the stairs' +Z face (their bottom half: the step's riser is on the mid plane z = 7.5) and the water's -Z
  // face above it.
  const auto stairs_seam = in_plane(faces, 2, 8, rect(x, y, x + 1, y + 1));
  EXPECT_EQ(stairs_seam.size(), 2u);
  EXPECT_TRUE(one_face(stairs_seam, "stone_stairs", rect(x, y, x + 1, y + 0.5)));
  EXPECT_TRUE(one_face(stairs_seam, "water", rect(x, y + 0.5, x + 1, y + 56.0 / 64)));
  // y = 64: the stone's top (seen through the water) alone; y = 64.875: the water's top.
  const auto bed = in_plane(faces, 1, y, rect(x, 8, x + 1, 9));
  EXPECT_EQ(bed.size(), 1u);
  EXPECT_TRUE(one_face(bed, "stone", rect(x, 8, x + 1, 9)));
  EXPECT_TRUE(one_face(in_plane(faces, 1, y + 56.0 / 64, rect(x, 8, x + 1, 9)), "water", rect(x, 8, x + 1, 9)));
  EXPECT_TRUE(no_shared_plane_area(faces));
}

TEST(FluidSeams, IssueSceneInsideASection) { check_issue_scene(8); }

TEST(FluidSeams, IssueSceneAcrossAColumnBorder) {
  // Water at x = 15 (column 0), glass at x = 16 (column 1): the glass seam is the column border.
  check_issue_scene(15);
}

// Whether face f is one of block `name`'s (by texture).
bool is_face_of(const PlaneFace& f, const std::string& name) {
  const BlockDef& def = registry()[registry().id(name)];
  return std::find(def.face_texture_index.begin(), def.face_texture_index.end(), f.r.f.texture) !=
         def.face_texture_index.end();
}

// Water beside lava and over it, at x0 (water) and x0 + 1 (lava) in rows along z, stone below each cell of layer
// 64: the lava (opaque, so it ranks above water) keeps its whole side, the water's side covers only what lies above
// the lava's surface.
void check_water_beside_lava(int64_t x0) {
  SCOPED_TRACE("water at x = " + std::to_string(x0));
  auto world = empty_world(-1, -1, 3);
  std::vector<BlockPos> cells;
  const auto put = [&](int64_t x, int64_t y, int64_t z, const std::string& name) {
    auto c = registry().parse_cell(name);
    ASSERT_TRUE(c.ok()) << name;
    world->apply({{x, y, z}, kAir, c.value(), 0});
    cells.push_back({x, y, z});
    if (y == kY && !world->get({x, y - 1, z}).id) world->apply({{x, y - 1, z}, kAir, cell_of("stone"), 0});
  };
  // Rows: z = 2, water source beside level-3 lava (surface 35/64); z = 4, level-3 water beside a lava source; z = 6,
  // a water source beside falling lava under more lava (its side full height); z = 8 and 9, surfaces that cross:
  // the water falls from 56 to 32 along the side (a level-7 cell south of it) while the lava rises from 14 to 35 (a
  // level-6 cell with a source south of it); z = 12, water over a lava source; z = 14, lava over a water source.
  put(x0, kY, 2, "water");
  put(x0 + 1, kY, 2, "lava:3");
  put(x0, kY, 4, "water:3");
  put(x0 + 1, kY, 4, "lava");
  put(x0, kY, 6, "water");
  put(x0 + 1, kY, 6, "lava:" + std::to_string(state::make_fluid(0, true)));
  put(x0 + 1, kY + 1, 6, "lava");
  put(x0, kY, 8, "water");
  put(x0, kY, 9, "water:7");
  put(x0 + 1, kY, 8, "lava:6");
  put(x0 + 1, kY, 9, "lava");
  put(x0, kY, 12, "lava");
  put(x0, kY + 1, 12, "water");
  put(x0, kY, 14, "water");
  put(x0, kY + 1, 14, "lava");
  const auto faces = world_faces(*world, cells);
  const double x = static_cast<double>(x0 + 1), y = kY;
  // z = 2: the lava's face up to its surface, the water's from there to the water's surface.
  const auto low_lava = in_plane(faces, 0, x, rect(2, y, 3, y + 1));
  EXPECT_EQ(low_lava.size(), 2u);
  EXPECT_TRUE(one_face(low_lava, "lava", rect(2, y, 3, y + 35.0 / 64)));
  EXPECT_TRUE(one_face(low_lava, "water", rect(2, y + 35.0 / 64, 3, y + 56.0 / 64)));
  // z = 4 and 6: the lava's face alone (to its surface; full height under more lava).
  const auto high_lava = in_plane(faces, 0, x, rect(4, y, 5, y + 1));
  EXPECT_EQ(high_lava.size(), 1u);
  EXPECT_TRUE(one_face(high_lava, "lava", rect(4, y, 5, y + 56.0 / 64)));
  const auto full_lava = in_plane(faces, 0, x, rect(6, y, 7, y + 1));
  EXPECT_EQ(full_lava.size(), 1u);
  EXPECT_TRUE(one_face(full_lava, "lava", rect(6, y, 7, y + 1)));
  // z = 8: the lava's face under its rising surface (14 -> 35), the water's face between that and its falling surface
  // (56 -> 32) up to where the two cross, 42/45 of the way along (a pulled-in end); z = 9: the lava's face alone
  // (35 -> 56, above the water's 32 -> 7).
  const auto crossing = in_plane(faces, 0, x, rect(8, y, 9, y + 1));
  EXPECT_EQ(crossing.size(), 2u);
  EXPECT_TRUE(one_face(crossing, "lava", {{8 * 64, y * 64}, {9 * 64, y * 64}, {9 * 64, y * 64 + 35}, {8 * 64, y * 64 + 14}}));
  const double t = 42.0 / 45;
  EXPECT_TRUE(one_face(crossing, "water", {{8 * 64, y * 64 + 14}, {(8 + t) * 64, y * 64 + 14 + 21 * t}, {8 * 64, y * 64 + 56}}));
  const auto after = in_plane(faces, 0, x, rect(9, y, 10, y + 1));
  EXPECT_EQ(after.size(), 1u);
  EXPECT_TRUE(one_face(after, "lava", {{9 * 64, y * 64}, {10 * 64, y * 64}, {10 * 64, y * 64 + 56}, {9 * 64, y * 64 + 35}}));
  // z = 12 and 14: the upper fluid's bottom alone on the plane between the cells (the lower one's top stays at its
  // surface, 56/64, below that plane).
  const double x_col = static_cast<double>(x0);
  for (const auto& [z, upper, lower] : {std::tuple{12.0, "water", "lava"}, std::tuple{14.0, "lava", "water"}}) {
    const auto between = in_plane(faces, 1, y + 1, rect(x_col, z, x_col + 1, z + 1));
    EXPECT_EQ(between.size(), 1u) << upper << " over " << lower;
    EXPECT_TRUE(one_face(between, upper, rect(x_col, z, x_col + 1, z + 1)));
    EXPECT_TRUE(one_face(in_plane(faces, 1, y + 56.0 / 64, rect(x_col, z, x_col + 1, z + 1)), lower,
                         rect(x_col, z, x_col + 1, z + 1)));
  }
  EXPECT_TRUE(no_shared_plane_area(faces));
}

TEST(FluidSeams, WaterBesideLavaInsideASection) { check_water_beside_lava(8); }

TEST(FluidSeams, WaterBesideLavaAcrossAColumnBorder) {
  // Water at x = 15 (column 0), lava at x = 16 (column 1).
  check_water_beside_lava(15);
}

// The faces of `in` (culled) as polygons, after requiring the fast mesher to equal the reference on it and no two
// of its faces to share plane area against the seam rule (face_polygons.h seam_rule_pair).
std::vector<PlaneFace> checked_faces(const SectionInput& in, const std::string& what) {
  expect_matches_reference(in, what);
  MeshScratch scratch;
  SectionMesh mesh;
  mesh_section(baked(), in, {false, true}, scratch, mesh);
  std::vector<PlaneFace> faces = plane_faces(mesh);
  EXPECT_TRUE(no_shared_plane_area(faces)) << what;
  return faces;
}

// The area (1/4096 block^2) of the part of a fluid side under the surface (heights t_lo, t_hi at its U ends, 1/64)
// that `band` (the neighbour's open band per column) leaves open: the integral over U of the open height, exact
// for the piecewise-linear lines (each half-block column is split where a line crosses another).
double open_area(const SideBand band[2], int t_lo, int t_hi) {
  double area = 0;
  for (int col = 0; col < 2; ++col) {
    const auto at = [&](const int v[2], double s) { return v[0] + s * (v[1] - v[0]); };
    const double surf[2] = {t_lo + (t_hi - t_lo) * col / 2.0, t_lo + (t_hi - t_lo) * (col + 1) / 2.0};
    const auto height = [&](double s) {
      const double top = std::min(surf[0] + s * (surf[1] - surf[0]), at(band[col].ceiling, s));
      return std::max(0.0, top - at(band[col].floor, s));
    };
    // The open height is piecewise linear with at most two kinks: integrate finely enough to be exact at 1e-3.
    constexpr int kSteps = 3200;
    for (int i = 0; i < kSteps; ++i) area += (height((i + 0.5) / kSteps)) * 32.0 / kSteps;
  }
  return area;
}

// Every fluid (water, lava), level and sloping surfaces, against every shape and state and see-through cube, on
// each side and below: no fluid face shares area with another face; the neighbour's own face on the plane is drawn
// whole; and the fluid's face covers what the neighbour leaves open under the surface: exactly where the surface
// is level, up to the chord of a surface crossing a ceiling (docs/ARCHITECTURE.md, Fluids) where it slopes.
TEST(FluidSeams, EveryFluidAgainstEveryNeighbourCoversOnlyWhatIsOpen) {
  std::vector<Cell> neighbours;
  for (const Cell& c : palette_of_everything())
    if (registry()[c.id].shape != Shape::kFluid) neighbours.push_back(c);
  double worst_level = 0, worst_sloped = 0;
  int cases = 0;
  for (const char* fluid : {"water", "lava"})
    for (int variant = 0; variant < 4; ++variant)
      for (const Cell& n : neighbours)
        for (int face : {kFacePosX, kFaceNegX, kFacePosZ, kFaceNegZ, kFaceNegY}) {
          // The fluid at (8, 8, 8) on stone; variant 0: a lone source (level surface); 1: under more fluid (full
          // side); 2: a level-3 cell beside a source to the west and a level-6 cell to the east (sloping along X);
          // 3: the same along Z.
          SectionInput in;
          in.light.fill(make_light(15, 0, 0, 0));
          const Cell f = cell_of(fluid, state::make_fluid(variant >= 2 ? 3 : 0, false));
          in.set(8, 8, 8, f);
          if (face != kFaceNegY) in.set(8, 7, 8, cell_of("stone"));
          if (variant == 1) in.set(8, 9, 8, f);
          if (variant == 2) {
            in.set(7, 8, 8, cell_of(fluid, state::make_fluid(0, false)));
            in.set(9, 8, 8, cell_of(fluid, state::make_fluid(6, false)));
          }
          if (variant == 3) {
            in.set(8, 8, 7, cell_of(fluid, state::make_fluid(0, false)));
            in.set(8, 8, 9, cell_of(fluid, state::make_fluid(6, false)));
          }
          const FaceAxes& fa = kFaceAxes[face];
          int np[3] = {8, 8, 8};
          np[fa.axis] += fa.sign;
          if (variant >= 2 && in.cell(np[0], np[1], np[2]).id == f.id) continue;  // the side faces more fluid
          in.set(np[0], np[1], np[2], n);
          const std::string what = std::string(fluid) + " variant " + std::to_string(variant) + " face " +
                                   std::to_string(face) + " against " + registry()[n.id].name + ":" +
                                   std::to_string(n.state);
          SCOPED_TRACE(what);
          ++cases;
          const auto faces = checked_faces(in, what);
          // The plane between the two cells, and the areas on it of the fluid's faces and the neighbour's.
          const double level = (fa.sign > 0 ? 9.0 : 8.0) * 64;
          double fluid_area = 0, other_area = 0;
          const auto cell_side = rect(8, 8, 9, 9);  // the side between the two cells, on the plane's two axes
          for (const PlaneFace& pf : faces) {
            if (pf.axis != fa.axis || pf.level != level) continue;
            (pf.fluid ? fluid_area : other_area) += intersection_area(pf.poly, cell_side);
          }
          const uint8_t nstate = static_cast<uint8_t>(n.state & registry()[n.id].state_mask);
          SideBand band[2];
          for (int col = 0; col < 2; ++col) band[col] = side_band(registry()[n.id].shape, nstate, opposite_face(face), col);
          // The neighbour's face on the plane: all it covers of the side (1/4096 block^2).
          EXPECT_NEAR(other_area, 64.0 * 64 - open_area(band, 64, 64), 0.5);
          if (face == kFaceNegY) {
            // A bottom: exactly the squares the top side of the neighbour below leaves open.
            const int open = 0xF & ~side_cover(registry()[n.id].shape, nstate, kFacePosY);
            EXPECT_NEAR(fluid_area, 1024.0 * std::popcount(static_cast<unsigned>(open)), 1e-6);
            continue;
          }
          // The surface over the side's two ends, from the fluid's own top (or full under more fluid).
          int t_lo = 64, t_hi = 64;
          for (const PlaneFace& pf : faces)
            if (pf.fluid && pf.r.f.face == kFacePosY && pf.r.f.x == 16 && pf.r.f.y == 16 && pf.r.f.z == 16) {
              const auto c = quad_corners(pf.r.f, true);
              // The top's corners on this side: those whose coordinate on the side's axis is on the plane.
              std::vector<std::pair<double, double>> ends;  // (U, height)
              for (const Corner64& k : c) {
                const double w[3] = {k.x, k.y, k.z};
                if (w[fa.axis] == level) ends.push_back({w[fa.u], w[1] - 8 * 64});
              }
              ASSERT_EQ(ends.size(), 2u);
              std::sort(ends.begin(), ends.end());
              t_lo = static_cast<int>(ends[0].second);
              t_hi = static_cast<int>(ends[1].second);
            }
          const double open = open_area(band, t_lo, t_hi);
          const double missing = open - fluid_area;
          EXPECT_GE(missing, -0.5) << "the fluid's face covers more than is open";
          (t_lo == t_hi ? worst_level : worst_sloped) = std::max(t_lo == t_hi ? worst_level : worst_sloped, missing);
          // Only a sloping ceiling (an upside-down slope's triangle) can cross a level surface inside a column.
          const bool sloping_ceiling = band[0].ceiling[0] != band[0].ceiling[1] || band[1].ceiling[0] != band[1].ceiling[1];
          if (t_lo == t_hi && !sloping_ceiling) {
            EXPECT_NEAR(missing, 0, 0.5) << "a level surface is covered exactly";
          }
          // Elsewhere the pieces may fall short of the open part by the triangle between a chord and the surface's
          // crossing with the ceiling (and 1/128 block at the middle of a sloping surface): at most 1/32 block^2.
          EXPECT_LE(missing, 128.0) << "open " << open << ", fluid " << fluid_area;
        }
  EXPECT_GT(cases, 800);
  std::printf("largest part left open without a fluid face: level surfaces %.1f, sloping %.1f (1/4096 block^2)\n",
              worst_level, worst_sloped);
}

// The heights (1/64 above the cell's bottom) at the U-low and U-high ends of the top edge of fluid cell `cell`'s
// side on plane `axis` = `level` (1/64, section-local): the corners of the cell's top face on that plane, sorted by
// U, or full height (64) when the cell has no top (its own fluid above).
std::array<double, 2> side_top_of(const std::vector<PlaneFace>& faces, const std::array<int, 3>& cell, int axis,
                                  double level) {
  const int u = axis == 2 ? 0 : 2;  // U of the side: +Z for x planes, +X for z planes
  for (const PlaneFace& pf : faces)
    if (pf.fluid && pf.r.f.face == kFacePosY && pf.r.f.x == 2 * cell[0] && pf.r.f.y == 2 * cell[1] &&
        pf.r.f.z == 2 * cell[2]) {
      std::vector<std::pair<double, double>> ends;  // (U, height)
      for (const Corner64& k : quad_corners(pf.r.f, true)) {
        const double w[3] = {k.x, k.y, k.z};
        if (w[axis] == level) ends.push_back({w[u], w[1] - cell[1] * 64});
      }
      EXPECT_EQ(ends.size(), 2u);
      if (ends.size() != 2) return {64, 64};
      std::sort(ends.begin(), ends.end());
      return {ends[0].second, ends[1].second};
    }
  return {64, 64};
}

// Two different fluids (water and lava, either one ranking higher by place) in every pairing of states: sources,
// thin and falling cells, cells under more of their fluid (full height), and surfaces sloping along the side (a
// source of the same fluid beside each at opposite ends, so the two surfaces cross inside the side), on each of the
// four sides, and one over the other. On the plane between them the interface is drawn exactly once where both
// fluids are: the higher-ranked fluid's face covers all under its surface, the other's face only what lies between
// that surface and its own; no two faces share area; the fast mesher equals the reference. Above and below: the
// upper fluid's bottom is whole and nothing else lies on its plane.
TEST(FluidSeams, TwoDifferentFluidsDrawTheirInterfaceOnce) {
  const uint16_t lava = registry().id("lava"), water = registry().id("water");
  ASSERT_GT(seam_rank(registry()[lava].transparency, lava), seam_rank(registry()[water].transparency, water))
      << "lava, opaque, ranks above water";
  // Variants: 0 source, 1 level 3, 2 level 7, 3 falling level 5, 4 under more of its fluid, 5 level 7 with a source
  // of its fluid beside it along the side (at the U-low end for the first cell, the U-high end for the second).
  constexpr int kVariants = 6;
  int cases = 0;
  for (const auto& [first, second] : {std::pair{"water", "lava"}, std::pair{"lava", "water"}})
    for (int va = 0; va < kVariants; ++va)
      for (int vb = 0; vb < kVariants; ++vb)
        for (int face : {kFacePosX, kFaceNegX, kFacePosZ, kFaceNegZ, kFacePosY}) {
          const FaceAxes& fa = kFaceAxes[face];
          const std::array<int, 3> a{8, 8, 8};
          std::array<int, 3> b = a;
          b[static_cast<size_t>(fa.axis)] += fa.sign;
          SectionInput in;
          in.light.fill(make_light(15, 0, 0, 0));
          const auto place = [&](const std::array<int, 3>& at, const char* fluid, int variant, int u_step) {
            static constexpr int kLevel[kVariants] = {0, 3, 7, 5, 1, 7};
            in.set(at[0], at[1], at[2], cell_of(fluid, state::make_fluid(kLevel[variant], variant == 3)));
            if (variant == 4) in.set(at[0], at[1] + 1, at[2], cell_of(fluid));
            if (variant == 5 && face != kFacePosY) {
              std::array<int, 3> beside = at;
              beside[static_cast<size_t>(fa.u)] += u_step;
              in.set(beside[0], beside[1], beside[2], cell_of(fluid));
            }
          };
          place(a, first, va, -1);
          if (face == kFacePosY && va == 4) continue;  // more of the first fluid above it, not the second
          place(b, second, vb, +1);
          const std::string what = std::string(first) + " variant " + std::to_string(va) + " against " + second +
                                   " variant " + std::to_string(vb) + " on face " + std::to_string(face);
          SCOPED_TRACE(what);
          ++cases;
          const auto faces = checked_faces(in, what);
          const double level = (fa.sign > 0 ? 9.0 : 8.0) * 64;
          const auto cell_side = rect(8, 8, 9, 9);
          double area_first = 0, area_second = 0, area_other = 0;
          for (const PlaneFace& pf : faces) {
            if (pf.axis != fa.axis || pf.level != level) continue;
            const double in_side = intersection_area(pf.poly, cell_side);
            (is_face_of(pf, first) ? area_first : is_face_of(pf, second) ? area_second : area_other) += in_side;
          }
          EXPECT_EQ(area_other, 0);
          if (face == kFacePosY) {
            // The second fluid above the first: its bottom whole; the first's top lies below the plane.
            EXPECT_NEAR(area_second, 4096, 1e-6);
            EXPECT_EQ(area_first, 0);
            continue;
          }
          // The two sides' top edges, each straight across the side from its U-low to its U-high end.
          const auto ta = side_top_of(faces, a, fa.axis, level), tb = side_top_of(faces, b, fa.axis, level);
          const bool first_keeps = std::string(first) == "lava";
          const auto keeper = first_keeps ? ta : tb, other = first_keeps ? tb : ta;
          double under_keeper = 0, above_keeper = 0;  // areas, 1/4096 block^2
          constexpr int kSteps = 6400;
          for (int i = 0; i < kSteps; ++i) {
            const double s = (i + 0.5) / kSteps;
            const double k = keeper[0] + s * (keeper[1] - keeper[0]), o = other[0] + s * (other[1] - other[0]);
            under_keeper += k * 64.0 / kSteps;
            above_keeper += std::max(0.0, o - k) * 64.0 / kSteps;
          }
          EXPECT_NEAR(first_keeps ? area_first : area_second, under_keeper, 0.5) << "the keeper's side is whole";
          EXPECT_NEAR(first_keeps ? area_second : area_first, above_keeper, 0.5)
              << "the other side covers exactly what lies above the keeper's surface";
        }
  EXPECT_GT(cases, 300);
}

}  // namespace
}  // namespace voxen::mesh
