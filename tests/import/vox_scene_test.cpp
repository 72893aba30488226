// The scene graph on hand-built files: the 48 rotation bytes, the pivot rule for odd and even sizes, nested
// transforms, hidden layers and nodes, instancing and overlaps, scenes wider than one model.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <set>

#include "voxen/import/vox_scene.h"
#include "vox_builder.h"

namespace voxen::import {
namespace {

using testing::VoxBuilder;

/// Oracle for one voxel: the unit cell [v - p, v - p + 1] (p = floor(size / 2), the pivot grid vertex) is
/// rotated as a box about the pivot, then moved by t; the cell it becomes is the rotated box's min corner.
/// Box geometry only; no floor-division formula.
std::array<int64_t, 3> oracle_cell(const VoxRotation& r, const std::array<int64_t, 3>& t,
                                   const std::array<uint32_t, 3>& size, const std::array<int64_t, 3>& v) {
  std::array<int64_t, 3> lo{}, hi{};
  for (int i = 0; i < 3; ++i) {
    lo[i] = v[i] - size[i] / 2;
    hi[i] = lo[i] + 1;
  }
  std::array<int64_t, 3> out{};
  for (int row = 0; row < 3; ++row) {
    int64_t a = 0, b = 0;
    for (int col = 0; col < 3; ++col) {
      a += r.m[row][col] * lo[col];
      b += r.m[row][col] * hi[col];
    }
    out[row] = t[row] + std::min(a, b);
  }
  return out;
}

std::vector<uint32_t> valid_rotation_bytes() {
  std::vector<uint32_t> out;
  for (uint32_t b = 0; b < 256; ++b)
    if (VoxRotation::decode(b)) out.push_back(b);
  return out;
}

TEST(VoxRotationTest, FortyEightValidBytesTwentyFourRotations) {
  const auto bytes = valid_rotation_bytes();
  EXPECT_EQ(bytes.size(), 48u);
  int proper = 0;
  std::set<std::array<std::array<int8_t, 3>, 3>> distinct;
  for (uint32_t b : bytes) {
    const VoxRotation r = *VoxRotation::decode(b);
    EXPECT_EQ(r.encode(), b);
    proper += r.determinant() == 1;
    distinct.insert(r.m);
  }
  EXPECT_EQ(proper, 24);
  EXPECT_EQ(distinct.size(), 48u);
  // The specification's example: rows (0 1 0), (0 0 -1), (-1 0 0) pack to (1<<0)|(2<<2)|(0<<4)|(1<<5)|(1<<6).
  const VoxRotation ex = *VoxRotation::decode((1 << 0) | (2 << 2) | (0 << 4) | (1 << 5) | (1 << 6));
  EXPECT_EQ(ex.m, (std::array<std::array<int8_t, 3>, 3>{{{0, 1, 0}, {0, 0, -1}, {-1, 0, 0}}}));
}

/// A file with one model (size, one voxel) placed by one transform with rotation `r` and translation `t`.
Result<VoxFile> one_instance(uint32_t r, const std::array<int32_t, 3>& t, const std::array<uint32_t, 3>& size,
                             const testing::Voxel& v) {
  VoxBuilder b;
  b.model(size[0], size[1], size[2], {v});
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, {2});
  b.ntrn(2, 3, 0,
         {{"_r", std::to_string(r)},
          {"_t", std::to_string(t[0]) + " " + std::to_string(t[1]) + " " + std::to_string(t[2])}});
  b.nshp(3, 0);
  return read_vox(b.bytes(), "rot.vox");
}

TEST(VoxSceneTest, KnownVoxelUnderKnownTransforms) {
  // Identity, sizes 3 x 4 x 5 (pivot (1, 2, 2)): voxel (0, 1, 2) -> scene (t - pivot + v) = (9, 19, 30)
  // -> voxen (9, 30, -20).
  {
    auto f = one_instance(4, {10, 20, 30}, {3, 4, 5}, {0, 1, 2, 7});  // 4 = rows (x, y, z): identity
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    auto s = evaluate_scene(*f);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s->voxels.size(), 1u);
    EXPECT_EQ(s->voxels[0].x, 9);
    EXPECT_EQ(s->voxels[0].y, 30);
    EXPECT_EQ(s->voxels[0].z, -20);
    EXPECT_EQ(s->voxels[0].color, 7);
  }
  // _r = 17: rows (0 -1 0), (1 0 0), (0 0 1), a quarter turn about Z. The cell x in [-1, 0], y in [-1, 0],
  // z in [0, 1] about the pivot becomes x' = -y in [0, 1], y' = x in [-1, 0]: scene (10, 19, 30) ->
  // voxen (10, 30, -20).
  {
    auto f = one_instance(17, {10, 20, 30}, {3, 4, 5}, {0, 1, 2, 7});
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    auto s = evaluate_scene(*f);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s->voxels.size(), 1u);
    EXPECT_EQ(s->voxels[0].x, 10);
    EXPECT_EQ(s->voxels[0].y, 30);
    EXPECT_EQ(s->voxels[0].z, -20);
  }
}

TEST(VoxSceneTest, EveryRotationAndReflectionPlacesAKnownVoxel) {
  // Odd and even sizes on every axis, so every pivot case is met.
  const std::array<uint32_t, 3> size{5, 4, 7};
  const std::array<int32_t, 3> t{-13, 40, 2};
  for (uint32_t bits : valid_rotation_bytes()) {
    for (const testing::Voxel v : {testing::Voxel{0, 0, 0, 3}, testing::Voxel{4, 1, 6, 3}, testing::Voxel{2, 3, 3, 3}}) {
      auto f = one_instance(bits, t, size, v);
      ASSERT_TRUE(f.ok()) << f.error().to_string();
      auto s = evaluate_scene(*f);
      ASSERT_TRUE(s.ok());
      ASSERT_EQ(s->voxels.size(), 1u);
      const auto want = vox_to_voxen(oracle_cell(*VoxRotation::decode(bits), {t[0], t[1], t[2]}, size, {v.x, v.y, v.z}));
      EXPECT_EQ(BlockPos(s->voxels[0].x, s->voxels[0].y, s->voxels[0].z), want)
          << "rotation byte " << bits << " voxel " << int(v.x) << "," << int(v.y) << "," << int(v.z);
    }
  }
}

TEST(VoxSceneTest, WholeModelKeepsItsShapeUnderEveryRotation) {
  // A full 2 x 3 x 4 block of voxels stays a box of the permuted size, centred per the pivot rule.
  std::vector<testing::Voxel> all;
  for (uint8_t z = 0; z < 4; ++z)
    for (uint8_t y = 0; y < 3; ++y)
      for (uint8_t x = 0; x < 2; ++x) all.push_back({x, y, z, 1});
  for (uint32_t bits : valid_rotation_bytes()) {
    VoxBuilder b;
    b.model(2, 3, 4, all);
    b.ntrn(0, 1, -1, {});
    b.ntrn(1, 2, 0, {{"_r", std::to_string(bits)}});
    b.nshp(2, 0);
    auto f = read_vox(b.bytes(), "box.vox");
    ASSERT_TRUE(f.ok());
    auto s = evaluate_scene(*f);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->voxels.size(), 24u);
    const int64_t volume = int64_t{s->max[0] - s->min[0] + 1} * (s->max[1] - s->min[1] + 1) * (s->max[2] - s->min[2] + 1);
    EXPECT_EQ(volume, 24) << "rotation byte " << bits;
  }
}

TEST(VoxSceneTest, NestedTransformsCompose) {
  // root -> group -> T_a (rotate 17, move (100, 0, 0)) -> group -> T_b (move (5, 0, 0)) -> shape.
  // Composed: rotation 17, translation R (5, 0, 0) + (100, 0, 0) = (100, 5, 0).
  VoxBuilder b;
  b.model(1, 1, 1, {{0, 0, 0, 4}});
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, {2});
  b.ntrn(2, 3, 0, {{"_r", "17"}, {"_t", "100 0 0"}});
  b.ngrp(3, {4});
  b.ntrn(4, 5, -1, {{"_t", "5 0 0"}});
  b.nshp(5, 0);
  auto f = read_vox(b.bytes(), "nested.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  const auto inst = scene_instances(*f);
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(inst[0].transform.translation, (std::array<int64_t, 3>{100, 5, 0}));
  EXPECT_EQ(inst[0].transform.rotation.encode(), 17);
  EXPECT_EQ(inst[0].layer, 0);
  auto s = evaluate_scene(*f);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->voxels.size(), 1u);
  // The 1x1x1 voxel's cell [0, 1]^3 about pivot 0, turned by R: x' = -y in [-1, 0] -> cell x 99.
  EXPECT_EQ(BlockPos(s->voxels[0].x, s->voxels[0].y, s->voxels[0].z), (BlockPos{99, 0, -6}));
  // Two rotations compose as matrices: 17 twice is a half turn (rows (-1 0 0), (0 -1 0), (0 0 1)).
  const VoxRotation q = *VoxRotation::decode(17);
  const VoxTransform half = VoxTransform::compose({q, {0, 0, 0}}, {q, {0, 0, 0}});
  EXPECT_EQ(half.rotation.m, (std::array<std::array<int8_t, 3>, 3>{{{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}}}));
}

VoxBuilder two_shapes(bool hidden_layer, bool hidden_node) {
  VoxBuilder b;
  b.model(1, 1, 1, {{0, 0, 0, 1}});
  b.model(1, 1, 1, {{0, 0, 0, 2}});
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, {2, 4});
  b.ntrn(2, 3, 0, {{"_t", "0 0 0"}});
  b.nshp(3, 0);
  b.ntrn(4, 5, 1, {{"_t", "3 0 0"}}, hidden_node ? testing::Dict{{"_hidden", "1"}} : testing::Dict{});
  b.nshp(5, 1);
  b.layr(0, {{"_name", "shown"}});
  b.layr(1, hidden_layer ? testing::Dict{{"_hidden", "1"}} : testing::Dict{});
  return b;
}

TEST(VoxSceneTest, HiddenLayersAndHiddenNodesAreNotPlaced) {
  for (auto [layer, node] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
    auto f = read_vox(two_shapes(layer, node).bytes(), "hidden.vox");
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    auto s = evaluate_scene(*f);
    ASSERT_TRUE(s.ok());
    const bool hidden = layer || node;
    EXPECT_EQ(s->voxels.size(), hidden ? 1u : 2u);
    EXPECT_EQ(s->hidden_instances, hidden ? 1u : 0u);
    EXPECT_EQ(s->voxels[0].color, 1);  // the shown one stays
  }
}

TEST(VoxSceneTest, InstancesCountEachTimeOverlapsOnce) {
  VoxBuilder b;
  b.model(2, 1, 1, {{0, 0, 0, 1}, {1, 0, 0, 1}});
  b.model(1, 1, 1, {{0, 0, 0, 9}});
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, {2, 4, 6, 8});
  b.ntrn(2, 3, 0, {{"_t", "0 0 0"}});
  b.nshp(3, 0);
  b.ntrn(4, 5, 0, {{"_t", "0 0 0"}});  // the same model again, same place: overlaps
  b.nshp(5, 0);
  b.ntrn(6, 7, 0, {{"_t", "0 10 0"}});  // again, elsewhere
  b.nshp(7, 0);
  b.ntrn(8, 9, 0, {{"_t", "0 0 0"}});  // a different model over one cell: placed last, wins
  b.nshp(9, 1);
  auto f = read_vox(b.bytes(), "inst.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  auto s = evaluate_scene(*f);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->instances, 4u);
  EXPECT_EQ(s->instance_voxels, 7u);
  EXPECT_EQ(s->voxels.size(), 4u);
  // Model 0 (size 2, pivot 1) covers scene x -1..0; model 1 (size 1) covers x 0: that cell takes colour 9.
  int nines = 0;
  for (const auto& v : s->voxels) nines += v.color == 9;
  EXPECT_EQ(nines, 1);
}

TEST(VoxSceneTest, OverlapsKeepOpaqueOverGlassOverMediaWhicheverIsPlacedLast) {
  // Four one-voxel models, each placed by its own nTRN at the same cell, in the order given; the colour of that
  // cell after evaluation. Colours: 1, 2 opaque (2 emissive), 3, 4 glass, 5, 6 media.
  auto winner = [](const std::vector<uint8_t>& order) {
    VoxBuilder b;
    for (uint8_t c : order) b.model(1, 1, 1, {{0, 0, 0, c}});
    b.matl(2, {{"_type", "_emit"}, {"_emit", "1"}});
    b.matl(3, {{"_type", "_glass"}, {"_trans", "0.5"}});
    b.matl(4, {{"_type", "_blend"}});
    b.matl(5, {{"_type", "_media"}, {"_d", "0.04"}});
    b.matl(6, {{"_type", "_media"}, {"_d", "0.9"}});
    std::vector<uint32_t> children;
    for (uint32_t k = 0; k < order.size(); ++k) children.push_back(2 + 2 * k);
    b.ntrn(0, 1, -1, {});
    b.ngrp(1, children);
    for (uint32_t k = 0; k < order.size(); ++k) {
      b.ntrn(2 + 2 * k, 3 + 2 * k, -1, {{"_t", "5 5 5"}});
      b.nshp(3 + 2 * k, k);
    }
    auto f = read_vox(b.bytes(), "overlap.vox");
    EXPECT_TRUE(f.ok()) << f.error().to_string();
    auto s = evaluate_scene(*f);
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s->voxels.size(), 1u);
    EXPECT_EQ(s->instance_voxels, order.size());
    return s->voxels.empty() ? 0 : s->voxels[0].color;
  };
  EXPECT_EQ(winner({1, 5}), 1);  // a cloud placed over a building keeps the building
  EXPECT_EQ(winner({5, 1}), 1);
  EXPECT_EQ(winner({2, 6}), 2);  // dense media too
  EXPECT_EQ(winner({3, 5}), 3);  // glass over media
  EXPECT_EQ(winner({5, 3}), 3);
  EXPECT_EQ(winner({3, 1}), 1);  // opaque over glass
  EXPECT_EQ(winner({1, 4}), 1);  // and over _blend
  EXPECT_EQ(winner({5, 2, 3}), 2);
  // Among equals the one placed last wins.
  EXPECT_EQ(winner({1, 2}), 2);
  EXPECT_EQ(winner({2, 1}), 1);
  EXPECT_EQ(winner({3, 4}), 4);
  EXPECT_EQ(winner({6, 5}), 5);
  EXPECT_EQ(overlap_rank(VoxMaterial{}), 2);  // no material: diffuse, opaque
}

TEST(VoxSceneTest, SharedShapeNodesInstanceTheirModelOncePerPath) {
  // MagicaVoxel's own instancing: several transforms point at one nSHP.
  VoxBuilder b;
  b.model(1, 1, 1, {{0, 0, 0, 1}});
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, {2, 4, 5});
  b.ntrn(2, 3, 0, {{"_t", "0 0 0"}});
  b.nshp(3, 0);
  b.ntrn(4, 3, 0, {{"_t", "10 0 0"}});
  b.ntrn(5, 3, 0, {{"_t", "20 0 0"}});
  auto f = read_vox(b.bytes(), "shared.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  const auto inst = scene_instances(*f);
  ASSERT_EQ(inst.size(), 3u);
  EXPECT_EQ(inst[1].transform.translation[0], 10);
  EXPECT_EQ(inst[2].shape_node, 3u);
  auto s = evaluate_scene(*f);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->voxels.size(), 3u);
}

TEST(VoxSceneTest, ScenesWiderThanOneModelKeepTheirPositions) {
  VoxBuilder b;
  b.model(256, 1, 1, {{0, 0, 0, 1}, {255, 0, 0, 1}});
  b.model(8, 8, 8, {{7, 7, 7, 2}});
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, {2, 4});
  b.ntrn(2, 3, 0, {{"_t", "-300 0 0"}});
  b.nshp(3, 0);
  b.ntrn(4, 5, 0, {{"_t", "400 -500 300"}});
  b.nshp(5, 1);
  auto f = read_vox(b.bytes(), "wide.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  auto s = evaluate_scene(*f);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->voxels.size(), 3u);
  // Model 0: x = -300 + v - 128 -> -428 and -173. Model 1: (400, -500, 300) + 7 - 4 = (403, -497, 303)
  // -> voxen (403, 303, 496).
  EXPECT_EQ(s->min[0], -428);
  EXPECT_EQ(s->max[0], 403);
  EXPECT_EQ(s->max[1], 303);
  EXPECT_EQ(s->max[2], 496);
}

TEST(VoxSceneTest, FilesWithoutASceneGraphPlaceEachModelAtTheOrigin) {
  VoxBuilder b;
  b.model(8, 6, 11, {{0, 0, 0, 1}, {7, 5, 10, 2}});
  auto f = read_vox(b.bytes(), "old.vox");
  ASSERT_TRUE(f.ok());
  auto s = evaluate_scene(*f);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->voxels.size(), 2u);
  // (0,0,0) - (4,3,5) = (-4,-3,-5) -> voxen (-4, -5, 2); (7,5,10) - (4,3,5) = (3,2,5) -> voxen (3, 5, -3).
  EXPECT_EQ(s->min, (std::array<int32_t, 3>{-4, -5, -3}));
  EXPECT_EQ(s->max, (std::array<int32_t, 3>{3, 5, 2}));
}

TEST(VoxSceneTest, VoxAndVoxenAxesAreInverse) {
  for (const BlockPos p : {BlockPos{0, 0, 0}, BlockPos{-5, 100, 7}, BlockPos{3, -128, -1}})
    EXPECT_EQ(vox_to_voxen(voxen_to_vox(p)), p);
  // MagicaVoxel's up (+Z) is voxen's up (+Y); its +Y (away from the viewer) is voxen's -Z (north).
  EXPECT_EQ(vox_to_voxen({0, 0, 1}), (BlockPos{0, 1, -1}));
  EXPECT_EQ(vox_to_voxen({0, 1, 0}), (BlockPos{0, 0, -2}));
}

TEST(VoxSceneTest, VoxelCapProtectsMemory) {
  VoxBuilder b;
  b.model(2, 2, 1, {{0, 0, 0, 1}, {1, 1, 0, 1}});
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, {2, 4});
  b.ntrn(2, 3, 0, {});
  b.nshp(3, 0);
  b.ntrn(4, 5, 0, {});
  const size_t shape = b.nshp(5, 0);
  auto f = read_vox(b.bytes(), "cap.vox");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(evaluate_scene(*f, 4).ok());
  auto s = evaluate_scene(*f, 3);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().offset, static_cast<int64_t>(shape));
}

TEST(VoxSceneTest, SharedNodesUnfoldingIntoMillionsOfInstancesCostTimeNotMemory) {
  // Under nTRN 0, 22 groups each list the next one twice, then one shape of an empty model: about 1 KB that
  // unfolds into 2^22 instances (2^23 node visits, within kMaxSceneVisits). Visiting them one at a time keeps
  // the memory that of one path; a list of them would take some 400 MB.
  constexpr uint32_t kDepth = 22;
  VoxBuilder b;
  b.model(1, 1, 1, {});
  b.ntrn(0, 1, -1, {});
  for (uint32_t k = 0; k < kDepth; ++k) b.ngrp(1 + k, {2 + k, 2 + k});
  b.nshp(1 + kDepth, 0);
  const auto bytes = b.bytes();
  EXPECT_LT(bytes.size(), 1200u);
  auto f = read_vox(bytes, "unfold.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  auto peak_kb = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<long>(u.ru_maxrss);
  };
  const long before = peak_kb();
  auto s = evaluate_scene(*f);
  const long after = peak_kb();
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->instances, 1u << kDepth);
  EXPECT_TRUE(s->voxels.empty());
  EXPECT_LT(after - before, 64 * 1024) << "the peak resident size grew by " << (after - before) << " KB";
  uint64_t visited = 0;
  for_each_instance(*f, [&](const VoxInstance& inst) { visited += inst.model == 0; });
  EXPECT_EQ(visited, uint64_t{1} << kDepth);
}

}  // namespace
}  // namespace voxen::import
