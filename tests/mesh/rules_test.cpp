// The meshing rules, each checked on a hand-built section by reading back the faces the mesher emits: culling,
// ambient occlusion, smooth light, the flip rule, greedy merging, shapes, fluids, textures, and the quad format.
#include <gtest/gtest.h>

#include <map>
#include <thread>
#include <set>

#include "mesh_test_util.h"
#include "voxen/mesh/quad_geometry.h"
#include "voxen/mesh/shapes.h"

namespace voxen::mesh {
namespace {

using namespace testing;

constexpr Light kSky = make_light(15, 0, 0, 0);

SectionInput sky_input() {
  SectionInput in;
  in.light.fill(kSky);
  return in;
}

std::vector<FaceRecord> mesh_records(const SectionInput& in, MeshOptions opt = {}) {
  MeshScratch scratch;
  SectionMesh m;
  mesh_section(baked(), in, opt, scratch, m);
  auto r = records(m);
  std::sort(r.begin(), r.end());
  return r;
}

std::vector<FaceRecord> faces_of(const std::vector<FaceRecord>& all, int face) {
  std::vector<FaceRecord> out;
  for (const auto& r : all)
    if (r.f.face == face && r.f.kind == QuadKind::kAxis) out.push_back(r);
  return out;
}

// The axis face of the given direction whose origin is (x, y, z) in half-blocks, or null.
const QuadFields* face_at(const std::vector<FaceRecord>& all, int face, int x, int y, int z) {
  for (const auto& r : all)
    if (r.f.face == face && r.f.kind == QuadKind::kAxis && r.f.x == x && r.f.y == y && r.f.z == z) return &r.f;
  return nullptr;
}

// Area in quarter-blocks (half-block squares) of the axis faces facing `face`.
int area(const std::vector<FaceRecord>& all, int face) {
  int a = 0;
  for (const auto& r : faces_of(all, face)) a += r.f.w * r.f.h;
  return a;
}

TEST(MeshRules, LoneCubeHasSixOpenFaces) {
  SectionInput in = sky_input();
  in.set(3, 4, 5, cell_of("stone"));
  const auto r = mesh_records(in);
  ASSERT_EQ(r.size(), 6u);
  std::set<int> faces;
  for (const auto& f : r) {
    faces.insert(f.f.face);
    EXPECT_EQ(f.list, kListOpaque);
    EXPECT_EQ(f.f.w, 2);
    EXPECT_EQ(f.f.h, 2);
    EXPECT_FALSE(f.f.flip);
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(f.f.ao[k], 3);
      EXPECT_EQ(f.f.light[k], kSky);
    }
    // The origin lies on the face's plane: +X at x = 2 * 3 + 2, -X at 2 * 3, and so on.
    const int expect_axis[6] = {8, 6, 10, 8, 12, 10};
    const int got[3] = {f.f.x, f.f.y, f.f.z};
    EXPECT_EQ(got[kFaceAxes[f.f.face].axis], expect_axis[f.f.face]) << f.to_string();
  }
  EXPECT_EQ(faces.size(), 6u);
}

TEST(MeshRules, OpaqueNeighboursHideFacesAcrossTheSectionBorder) {
  SectionInput in = sky_input();
  in.set(0, 0, 0, cell_of("stone"));
  in.set(-1, 0, 0, cell_of("dirt"));   // padding west
  in.set(0, -1, 0, cell_of("stone"));  // padding below
  in.set(0, 0, -1, cell_of("glass"));  // padding north: glass hides nothing
  const auto r = mesh_records(in);
  std::set<int> faces;
  for (const auto& f : r) faces.insert(f.f.face);
  EXPECT_EQ(faces, (std::set<int>{kFacePosX, kFacePosY, kFacePosZ, kFaceNegZ}));
}

TEST(MeshRules, AmbientOcclusionClassicRule) {
  SectionInput in = sky_input();
  for (int x = 2; x < 8; ++x)
    for (int z = 2; z < 8; ++z) in.set(x, 3, z, cell_of("stone"));  // floor at y = 3
  in.set(5, 4, 4, cell_of("stone"));  // on the floor, east of (4, 3, 4)
  in.set(4, 4, 5, cell_of("stone"));  // on the floor, south of (4, 3, 4)
  const auto r = mesh_records(in, {false, true});
  // Top face of floor cell (4, 3, 4): corners 0 (-x -z), 1 (+x -z), 2 (+x +z), 3 (-x +z).
  const QuadFields* top = nullptr;
  for (const auto& f : r)
    if (f.f.face == kFacePosY && f.f.x == 8 && f.f.y == 8 && f.f.z == 8) top = &f.f;
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->ao[0], 3);
  EXPECT_EQ(top->ao[1], 2);  // one side (east) blocked
  EXPECT_EQ(top->ao[2], 0);  // both sides blocked: darkest whatever the diagonal
  EXPECT_EQ(top->ao[3], 2);  // one side (south) blocked
  // ao0 + ao2 = 3 < ao1 + ao3 = 4: split along 1-3.
  EXPECT_TRUE(top->flip);
  // Diagonal only: top of (3, 3, 3) has the block (4, 4, 4)? No: put one only on the diagonal of (6, 3, 6).
  SectionInput d = sky_input();
  d.set(6, 3, 6, cell_of("stone"));
  d.set(7, 4, 7, cell_of("stone"));
  const auto rd = mesh_records(d, {false, true});
  for (const auto& f : rd)
    if (f.f.face == kFacePosY && f.f.x == 12 && f.f.z == 12 && f.f.y == 8) {
      EXPECT_EQ(f.f.ao[2], 2);  // diagonal blocked only
      EXPECT_EQ(f.f.ao[0] + f.f.ao[1] + f.f.ao[3], 9);
    }
}

TEST(MeshRules, SmoothLightIsTheRoundedMeanOfOpenCells) {
  SectionInput in;
  in.set(8, 8, 8, cell_of("stone"));
  // The layer above (y = 9) around corner 2 (+x, +z) of the top face: front (8,9,8), sides (9,9,8), (8,9,9),
  // diagonal (9,9,9).
  in.set_light(8, 9, 8, make_light(15, 3, 0, 0));
  in.set_light(9, 9, 8, make_light(14, 4, 1, 0));
  in.set_light(8, 9, 9, make_light(14, 4, 1, 0));
  in.set_light(9, 9, 9, make_light(14, 6, 1, 1));
  const auto top = [&](const SectionInput& input, int x, int y, int z, std::vector<FaceRecord>& keep) {
    keep = mesh_records(input, {false, true});
    return face_at(keep, kFacePosY, 2 * x, 2 * y + 2, 2 * z);
  };
  std::vector<FaceRecord> keep;
  const QuadFields* t1 = top(in, 8, 8, 8, keep);
  ASSERT_NE(t1, nullptr);
  // sky (15 + 14 + 14 + 14 + 2) / 4 = 14; red (3 + 4 + 4 + 6 + 2) / 4 = 4; green (0 + 1 + 1 + 1 + 2) / 4 = 1;
  // blue (0 + 0 + 0 + 1 + 2) / 4 = 0.
  EXPECT_EQ(t1->light[2], make_light(14, 4, 1, 0));

  // One side opaque: three cells, (sum + 1) / 3. Sky (15 + 14 + 14 + 1) / 3 = 14 rounds 14.33 down; red
  // (3 + 4 + 6 + 1) / 3 = 4 rounds 4.33 down; blue (0 + 0 + 1 + 1) / 3 = 0.
  in.set(9, 9, 8, cell_of("stone"));
  const QuadFields* t2 = top(in, 8, 8, 8, keep);
  ASSERT_NE(t2, nullptr);
  EXPECT_EQ(t2->light[2], make_light(14, 4, 1, 0));
  EXPECT_EQ(t2->ao[2], 2);

  // Both sides opaque: the diagonal no longer counts (light cannot reach round the corner): front only.
  in.set(8, 9, 9, cell_of("stone"));
  const QuadFields* t3 = top(in, 8, 8, 8, keep);
  ASSERT_NE(t3, nullptr);
  EXPECT_EQ(t3->light[2], make_light(15, 3, 0, 0));
  EXPECT_EQ(t3->ao[2], 0);

  // Corners with fewer open cells.
  SectionInput two;
  two.set(8, 8, 8, cell_of("stone"));
  two.set(7, 9, 8, cell_of("stone"));  // the -x side of corners 0 and 3
  two.set(7, 9, 7, cell_of("stone"));  // the diagonal of corner 0
  two.set(8, 9, 7, cell_of("stone"));  // the -z side of corners 0 and 1
  two.set_light(8, 9, 8, make_light(15, 0, 0, 0));
  two.set_light(8, 9, 9, make_light(14, 0, 0, 0));
  two.set_light(7, 9, 9, make_light(0, 9, 9, 9));
  const QuadFields* t4 = top(two, 8, 8, 8, keep);
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(t4->light[0], make_light(15, 0, 0, 0));  // corner 0: only the front cell is open
  // Corner 3 (-x, +z): front 15, side -x opaque, side +z 14, diagonal (7, 9, 9) counted because its +z side is open:
  // sky (15 + 14 + 0 + 1) / 3 = 10, each colour (0 + 0 + 9 + 1) / 3 = 3.
  EXPECT_EQ(t4->light[3], make_light(10, 3, 3, 3));
}

TEST(MeshRules, GreedyMergesAFlatFloorIntoOneQuadAndStopsAtLightChanges) {
  SectionInput in = sky_input();
  for (int x = 0; x < 16; ++x)
    for (int z = 0; z < 16; ++z) {
      in.set(x, 5, z, cell_of("stone"));
      in.set(x, 4, z, cell_of("stone"));
    }
  // The padding ring is air, so the border column's sides show; the top must be one 16 x 16 quad.
  auto r = mesh_records(in);
  auto top = faces_of(r, kFacePosY);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].f.w, 32);
  EXPECT_EQ(top[0].f.h, 32);
  EXPECT_EQ(top[0].f.y, 12);
  // One brighter cell above the floor breaks the rectangle: the faces around it no longer agree.
  in.set_light(7, 6, 7, make_light(15, 15, 0, 0));
  auto r2 = mesh_records(in);
  auto top2 = faces_of(r2, kFacePosY);
  EXPECT_GT(top2.size(), 1u);
  int covered = 0;
  for (const auto& f : top2) covered += f.f.w * f.f.h;
  EXPECT_EQ(covered, 32 * 32);
  // The 3 x 3 faces whose corners see the bright cell are unit quads with unequal corners; the rest merged.
  int unit_nonuniform = 0;
  for (const auto& f : top2)
    if (f.f.light[0] != f.f.light[2] || f.f.light[1] != f.f.light[3]) {
      EXPECT_EQ(f.f.w * f.f.h, 4);
      ++unit_nonuniform;
    }
  EXPECT_EQ(unit_nonuniform, 8);  // the 3 x 3 around it, minus the centre face whose four corners all see it
  // Without the lighting rule the floor merges again.
  auto loose = faces_of(mesh_records(in, {true, false}), kFacePosY);
  EXPECT_EQ(loose.size(), 1u);
}

TEST(MeshRules, MergedQuadsTileTexturesByTypeAndNeverMixTextures) {
  SectionInput in = sky_input();
  for (int x = 0; x < 16; ++x)
    for (int z = 0; z < 16; ++z) in.set(x, 0, z, cell_of(x < 8 ? "stone" : "dirt"));
  auto top = faces_of(mesh_records(in), kFacePosY);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_NE(top[0].f.texture, top[1].f.texture);
  for (const auto& f : top) {
    EXPECT_EQ(f.f.w, 16);
    EXPECT_EQ(f.f.h, 32);
  }
}

// Translucent cubes against translucent cubes keep exactly one face on the plane between them: none between two of
// one id, the face of the higher-ranked block (shapes.h seam_rank: the higher id) between two different ones,
// whichever side it is on; cutout cubes (leaves) always draw theirs.
TEST(MeshRules, TranslucentNeighboursKeepOneFaceCutoutNeverHides) {
  SectionInput in = sky_input();
  in.set(4, 4, 4, cell_of("glass"));
  in.set(5, 4, 4, cell_of("glass"));
  in.set(4, 4, 8, cell_of("glass"));
  in.set(5, 4, 8, cell_of("ice"));
  in.set(4, 4, 10, cell_of("ice"));
  in.set(5, 4, 10, cell_of("glass"));
  in.set(4, 4, 12, cell_of("oak_leaves"));
  in.set(5, 4, 12, cell_of("oak_leaves"));
  const auto r = mesh_records(in, {false, true});
  const auto at = [&](int face, int x2, int z2) {
    std::vector<FaceRecord> out;
    for (const auto& f : r)
      if (f.f.face == face && f.f.x == x2 && f.f.z == z2) out.push_back(f);
    return out;
  };
  const auto& reg = registry();
  ASSERT_GT(reg.id("glass"), reg.id("ice"));
  const int glass_tex = reg[reg.id("glass")].face_texture_index[0];
  EXPECT_EQ(at(kFacePosX, 10, 8).size(), 0u);  // glass | glass
  EXPECT_EQ(at(kFaceNegX, 10, 8).size(), 0u);
  ASSERT_EQ(at(kFacePosX, 10, 16).size(), 1u);  // glass | ice: the glass's face only
  EXPECT_EQ(at(kFacePosX, 10, 16)[0].f.texture, glass_tex);
  EXPECT_EQ(at(kFaceNegX, 10, 16).size(), 0u);
  EXPECT_EQ(at(kFacePosX, 10, 20).size(), 0u);  // ice | glass: the glass's face only
  ASSERT_EQ(at(kFaceNegX, 10, 20).size(), 1u);
  EXPECT_EQ(at(kFaceNegX, 10, 20)[0].f.texture, glass_tex);
  EXPECT_EQ(at(kFacePosX, 10, 24).size(), 1u);  // leaves | leaves: both drawn
  EXPECT_EQ(at(kFaceNegX, 10, 24).size(), 1u);
  for (const auto& f : r) {
    const bool leaves = f.f.z >= 24 && f.f.z <= 26;
    EXPECT_EQ(f.list, leaves ? kListCutout : kListTranslucent) << f.to_string();
  }
}

// Imported translucent colours (.vox glass: translucent cubes with ids of their own, after the shipped blocks)
// against each other, against glass and ice and against themselves, on every side: one face per shared plane, the
// higher id's; none between two cells of one colour; the fast mesher equals the reference.
TEST(MeshRules, ImportedTranslucentColoursKeepTheHigherIdsFace) {
  const ImportedGlass& g = imported_glass();
  std::vector<uint16_t> ids = {g.registry.id("ice"), g.registry.id("glass")};
  ids.insert(ids.end(), g.ids.begin(), g.ids.end());
  int pairs = 0;
  for (uint16_t a : ids)
    for (uint16_t b : ids)
      for (int face = 0; face < 6; ++face) {
        const FaceAxes& fa = kFaceAxes[face];
        SectionInput in = sky_input();
        int pb[3] = {8, 8, 8};
        pb[fa.axis] += fa.sign;
        in.set(8, 8, 8, Cell{a, 0});
        in.set(pb[0], pb[1], pb[2], Cell{b, 0});
        const std::string what = g.registry[a].name + " against " + g.registry[b].name + " on face " +
                                 std::to_string(face);
        expect_matches_reference(in, what, g.registry, *g.baked);
        MeshScratch scratch;
        SectionMesh mesh;
        mesh_section(*g.baked, in, {false, true}, scratch, mesh);
        // The faces on the plane between the two cells: a's face toward b and b's face toward a.
        int plane[3] = {16, 16, 16};
        plane[fa.axis] += fa.sign > 0 ? 2 : 0;
        std::vector<FaceRecord> on_plane;
        for (const FaceRecord& rec : records(mesh))
          if (kFaceAxes[rec.f.face].axis == fa.axis && rec.f.x == plane[0] && rec.f.y == plane[1] && rec.f.z == plane[2])
            on_plane.push_back(rec);
        if (a == b) {
          EXPECT_TRUE(on_plane.empty()) << what;
          continue;
        }
        ++pairs;
        ASSERT_EQ(on_plane.size(), 1u) << what;
        const uint16_t keeper = std::max(a, b);
        EXPECT_EQ(on_plane[0].f.texture, g.registry[keeper].face_texture_index[0]) << what;
        EXPECT_EQ(on_plane[0].f.face, keeper == a ? face : opposite_face(face)) << what;
        EXPECT_EQ(on_plane[0].list, kListTranslucent) << what;
      }
  EXPECT_EQ(pairs, 5 * 4 * 6);
}

TEST(MeshRules, SlabsCoverWhatTheyFillAndShowTheirTopMidCell) {
  SectionInput in = sky_input();
  in.set(4, 4, 4, cell_of("stone"));
  in.set(4, 5, 4, cell_of("stone_slab", 0));  // bottom slab on the stone: hides the stone's top
  in.set(5, 5, 4, cell_of("stone"));          // stone east of the slab: its west face is half hidden
  const auto r = mesh_records(in, {false, true});
  for (const auto& f : faces_of(r, kFacePosY)) EXPECT_NE(f.f.y, 10) << "stone top under the slab must be hidden";
  // The slab's top is on the mid plane y = 2 * 5 + 1.
  bool slab_top = false;
  for (const auto& f : faces_of(r, kFacePosY))
    if (f.f.x == 8 && f.f.z == 8 && f.f.y == 11) slab_top = true;
  EXPECT_TRUE(slab_top);
  // The east stone's -X face: only the upper half, a 2 x 1 piece from y = 11.
  int west_pieces = 0;
  for (const auto& f : faces_of(r, kFaceNegX))
    if (f.f.x == 10 && f.f.y >= 10 && f.f.y <= 11 && f.f.z == 8) {
      ++west_pieces;
      EXPECT_EQ(f.f.y, 11);
      EXPECT_EQ(f.f.w, 2);
      EXPECT_EQ(f.f.h, 1);
    }
  EXPECT_EQ(west_pieces, 1);
  // The slab's own east side is hidden by the stone; its west side is a 2 x 1 piece at the bottom half.
  for (const auto& f : faces_of(r, kFacePosX)) EXPECT_FALSE(f.f.x == 10 && f.f.y == 10);
}

TEST(MeshRules, StairsAreTwoBoxesWithTheRightFaceAreas) {
  for (int facing = 0; facing < 4; ++facing)
    for (bool top : {false, true}) {
      SectionInput in = sky_input();
      in.set(6, 6, 6, cell_of("stone_stairs", state::make_facing(facing, top)));
      const auto r = mesh_records(in, {false, true});
      const int back = facing_face(facing);
      for (int face = 0; face < 6; ++face) {
        // Areas in half-block squares: the back and the full horizontal side (bottom, or top when upside-down)
        // are 4; the other horizontal direction shows 2 on the cell side and 2 on the mid plane, the front 2 + 2,
        // the two sides an L of 3.
        const int solid_horizontal = top ? kFacePosY : kFaceNegY;
        int expect = 3;
        if (face == back || face == solid_horizontal) expect = 4;
        else if (face == opposite_face(back) || face == opposite_face(solid_horizontal)) expect = 4;
        EXPECT_EQ(area(r, face), expect) << "facing " << facing << " top " << top << " face " << face;
      }
    }
}

TEST(MeshRules, SlopeCornersRiseToTheBackAndTrianglesCloseTheSides) {
  SectionInput in = sky_input();
  in.set(3, 3, 3, cell_of("stone_slope", state::make_facing(state::kEast, false)));  // rises toward +X
  const auto r = mesh_records(in, {false, true});
  int slopes = 0, triangles = 0;
  for (const auto& f : r) {
    const auto c = quad_corners(f.f, false);
    if (f.f.kind == QuadKind::kSlope) {
      ++slopes;
      EXPECT_EQ(f.f.face, kFacePosX);
      for (const auto& p : c) EXPECT_EQ(p.y, p.x == 4 * 64 ? 4 * 64 : 3 * 64) << "east corners high, west low";
    }
    if (f.f.kind == QuadKind::kTriangle) {
      ++triangles;
      // The triangle's corners: three distinct points; the highest one at the back (east) edge.
      std::set<std::tuple<int, int, int>> pts;
      for (const auto& p : c) pts.insert({p.x, p.y, p.z});
      EXPECT_EQ(pts.size(), 3u);
      for (const auto& p : c)
        if (p.y == 4 * 64) {
          EXPECT_EQ(p.x, 4 * 64);
        }
    }
  }
  EXPECT_EQ(slopes, 1);
  EXPECT_EQ(triangles, 2);
  EXPECT_EQ(area(r, kFacePosX), 4);  // back
  EXPECT_EQ(area(r, kFaceNegY), 4);  // bottom
  EXPECT_EQ(area(r, kFaceNegX), 0);  // no front face
  EXPECT_EQ(area(r, kFacePosY), 0);  // no top face
}

TEST(MeshRules, CrossPlantsAreTwoDiagonalQuadsInTheCutoutList) {
  SectionInput in = sky_input();
  in.set_light(2, 2, 2, make_light(9, 1, 2, 3));
  in.set(2, 2, 2, cell_of("poppy"));
  const auto r = mesh_records(in);
  ASSERT_EQ(r.size(), 2u);
  for (const auto& f : r) {
    EXPECT_EQ(f.list, kListCutout);
    EXPECT_TRUE(f.f.kind == QuadKind::kCrossA || f.f.kind == QuadKind::kCrossB);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(f.f.light[k], make_light(9, 1, 2, 3));
  }
}

// All fluid tops of a pool of mixed levels: corners shared by neighbouring cells sit at the same height, sides
// meet tops, and the flow points downhill.
TEST(MeshRules, FluidSurfacesMeetExactlyAndFlowDownhill) {
  SectionInput in = sky_input();
  for (int x = 0; x < 16; ++x)
    for (int z = 2; z < 6; ++z) {
      in.set(x, 3, z, cell_of("stone"));
      in.set(x, 4, z, cell_of("water", state::make_fluid(std::min(7, x / 2), false)));  // level rises eastward
    }
  MeshScratch scratch;
  SectionMesh m;
  mesh_section(baked(), in, {false, true}, scratch, m);
  std::map<std::pair<double, double>, double> top_height;  // (x, z) in 1/64 -> y of every top corner there
  for (const auto& rec : records(m)) {
    if (rec.list != kListTranslucent) continue;  // the stone bed
    const auto c = quad_corners(rec.f, true);
    if (rec.f.face == kFacePosY) {
      for (const auto& p : c) {
        auto [it, fresh] = top_height.emplace(std::pair{p.x, p.z}, p.y);
        EXPECT_EQ(it->second, p.y) << "tops disagree at x " << p.x << " z " << p.z;
      }
      const int cx = rec.f.x / 2;
      if (cx >= 2 && cx <= 12) {
        EXPECT_EQ(rec.f.flow, 2) << "flows east, toward lower levels: " << rec.to_string();
      }
    }
  }
  for (const auto& rec : records(m)) {
    if (rec.list != kListTranslucent || rec.f.face == kFacePosY || rec.f.face == kFaceNegY) continue;
    const auto c = quad_corners(rec.f, true);
    for (int k = 2; k < 4; ++k) {
      auto it = top_height.find({c[static_cast<size_t>(k)].x, c[static_cast<size_t>(k)].z});
      ASSERT_NE(it, top_height.end());
      EXPECT_EQ(it->second, c[static_cast<size_t>(k)].y) << "a side's top edge meets the surface";
    }
  }
  // No face between water cells of different levels.
  for (const auto& rec : records(m)) {
    if (rec.list == kListTranslucent && (rec.f.face == kFacePosX || rec.f.face == kFaceNegX)) {
      EXPECT_TRUE(rec.f.x == 0 || rec.f.x == 32) << rec.to_string();
    }
  }
}

TEST(MeshRules, FluidUnderFluidIsFullWithNoTopAndFallingFlows) {
  SectionInput in = sky_input();
  in.set(5, 5, 5, cell_of("water", state::make_fluid(0, true)));
  in.set(5, 6, 5, cell_of("water", state::make_fluid(0, true)));
  MeshScratch scratch;
  SectionMesh m;
  mesh_section(baked(), in, {false, true}, scratch, m);
  int tops = 0;
  for (const auto& rec : records(m)) {
    EXPECT_EQ(rec.f.flow, kFlowFalling);
    const auto c = quad_corners(rec.f, true);
    if (rec.f.face == kFacePosY) {
      ++tops;
      EXPECT_EQ(rec.f.y, 12);  // the upper cell's top, origin at its bottom
      for (const auto& p : c) EXPECT_EQ(p.y, 12 * 32 + fluid_level_height(0));
    }
    if (rec.f.y == 10 && rec.f.face != kFaceNegY) {  // lower cell's sides: plain, full height
      for (int k = 0; k < 4; ++k) EXPECT_EQ(rec.f.height[k], 0);
      EXPECT_EQ(c[2].y, 12 * 32);
    }
  }
  EXPECT_EQ(tops, 1);
}

TEST(MeshRules, LogTexturesTurnWithTheAxis) {
  const auto& reg = registry();
  const BlockDef& log = reg[reg.id("oak_log")];
  const int top = log.face_texture_index[kFacePosY], side = log.face_texture_index[kFacePosX];
  ASSERT_NE(top, side);
  for (int axis = 0; axis < 3; ++axis) {
    SectionInput in = sky_input();
    in.set(1, 1, 1, cell_of("oak_log", state::make_axis(axis)));
    for (const auto& f : mesh_records(in)) {
      const bool along = kFaceAxes[f.f.face].axis == (axis == 0 ? 1 : axis == 1 ? 0 : 2);
      EXPECT_EQ(f.f.texture, along ? top : side) << "axis " << axis << " " << f.to_string();
    }
  }
}

TEST(MeshRules, QuadPackUnpackRoundTrip) {
  HashStream rng(hash1(42, 1));
  for (int i = 0; i < 2000; ++i) {
    QuadFields f;
    f.x = static_cast<int>(rng.below(33));
    f.y = static_cast<int>(rng.below(33));
    f.z = static_cast<int>(rng.below(33));
    f.w = 1 + static_cast<int>(rng.below(32));
    f.h = 1 + static_cast<int>(rng.below(32));
    f.face = static_cast<int>(rng.below(6));
    f.flip = rng.below(2) != 0;
    f.texture = static_cast<int>(rng.below(1024));
    f.kind = static_cast<QuadKind>(rng.below(5));
    for (int k = 0; k < 4; ++k) {
      f.ao[k] = static_cast<uint8_t>(rng.below(4));
      f.light[k] = static_cast<uint16_t>(rng.below(65536));
      f.height[k] = static_cast<uint8_t>(rng.below(65));
    }
    f.flow = static_cast<int>(rng.below(16));
    const Quad q = pack_quad(f);
    const FluidQuad fq = pack_fluid_quad(f);
    FaceRecord a{kListOpaque, f}, b{kListOpaque, unpack_quad(fq.w, true)};
    EXPECT_EQ(a, b) << a.to_string() << " vs " << b.to_string();
    QuadFields g = unpack_quad(q.w, false);
    for (int k = 0; k < 4; ++k) g.height[k] = f.height[k];
    EXPECT_EQ(a, (FaceRecord{kListOpaque, g}));
    EXPECT_EQ((fq.w[1] >> 25), 0u) << "reserved bits stay zero";
    EXPECT_EQ((fq.w[4] >> 28), 0u);
  }
}

TEST(MeshRules, MeshBytesFollowTheRecordSizes) {
  const SectionInput in = noise_input(3, 0.4, 2, palette_of_everything());
  MeshScratch scratch;
  SectionMesh m;
  mesh_section(baked(), in, {}, scratch, m);
  ASSERT_FALSE(m.opaque.empty());
  ASSERT_FALSE(m.cutout.empty());
  ASSERT_FALSE(m.translucent.empty());
  EXPECT_EQ(m.bytes(), 16 * (m.opaque.size() + m.cutout.size()) + 20 * m.translucent.size());
  // Every position and extent stays inside the section: nothing merges across its border.
  for (const auto& rec : records(m)) {
    for (const auto& p : quad_corners(rec.f, rec.list == kListTranslucent)) {
      EXPECT_GE(p.x, 0);
      EXPECT_LE(p.x, 1024);
      EXPECT_GE(p.y, 0);
      EXPECT_LE(p.y, 1024);
      EXPECT_GE(p.z, 0);
      EXPECT_LE(p.z, 1024);
    }
  }
}

TEST(MeshRules, MeshingIsDeterministicAcrossThreadsAndScratches) {
  const SectionInput in = noise_input(9, 0.5, 2, palette_of_everything());
  MeshScratch s1;
  SectionMesh a;
  mesh_section(baked(), in, {}, s1, a);
  // A scratch that just meshed something else, and a mesh on another thread, give the same bytes.
  const SectionInput other = noise_input(10, 0.9, 1, palette_of_everything());
  SectionMesh junk, b, c;
  mesh_section(baked(), other, {}, s1, junk);
  mesh_section(baked(), in, {}, s1, b);
  std::thread t([&] {
    MeshScratch s2;
    mesh_section(baked(), in, {}, s2, c);
  });
  t.join();
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a == c);
}

TEST(MeshRules, UniformSectionsMeshToNothing) {
  MeshScratch scratch;
  SectionMesh m;
  SectionInput air;
  mesh_section(baked(), air, {}, scratch, m);
  EXPECT_TRUE(m.empty());
  SectionInput stone;
  stone.cells.fill(cell_of("stone").packed());
  mesh_section(baked(), stone, {}, scratch, m);
  EXPECT_TRUE(m.empty());
  // Unknown ids read as air.
  SectionInput unknown;
  unknown.cells.fill(Cell{60000, 0}.packed());
  mesh_section(baked(), unknown, {}, scratch, m);
  EXPECT_TRUE(m.empty());
  EXPECT_TRUE(reference_mesh(registry(), unknown).empty());
}

}  // namespace
}  // namespace voxen::mesh
