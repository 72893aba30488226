// Dirty marking: an edit dirties exactly the sections whose padded input holds the edited cell (plus what its light
// changes reach), and remeshing only those after random edits gives the same meshes as remeshing everything.
#include <gtest/gtest.h>

#include <map>

#include "mesh_test_util.h"
#include "voxen/mesh/dirty.h"

namespace voxen::mesh {
namespace {

using namespace testing;

TEST(MeshDirty, TouchingCellCountsFollowTheBorders) {
  // Inside a section: only it. On a face: 2. On an edge: 4. On a corner: 8 (across column borders too).
  EXPECT_EQ(sections_touching_cell({5, 5, 5}).size(), 1u);
  EXPECT_EQ(sections_touching_cell({0, 5, 5}).size(), 2u);
  EXPECT_EQ(sections_touching_cell({15, 5, 0}).size(), 4u);
  EXPECT_EQ(sections_touching_cell({-1, -1, -1}).size(), 8u);
  const auto corner = sections_touching_cell({-16, 16, 31});
  // x = -16 is local 0 of column -1 (neighbour -2), y = 16 local 0 of section 9 (neighbour 8), z = 31 local 15 of
  // column 1 (neighbour 2).
  const std::vector<SectionPos> expect = {{-2, 8, 1}, {-2, 8, 2}, {-2, 9, 1}, {-2, 9, 2},
                                          {-1, 8, 1}, {-1, 8, 2}, {-1, 9, 1}, {-1, 9, 2}};
  EXPECT_EQ(corner, expect);
  // The world's top and bottom have no section beyond them.
  EXPECT_EQ(sections_touching_cell({3, kMaxY, 3}).size(), 1u);
  EXPECT_EQ(sections_touching_cell({3, kMinY, 3}).size(), 1u);
  EXPECT_TRUE(sections_touching_cell({3, kMaxY + 1, 3}).empty());
  // Light-dirty sections join the set, without duplicates.
  const Edit e{{5, 5, 5}, kAir, cell_of("stone"), 1};
  const std::vector<SectionPos> light = {{0, 8, 0}, {0, 8, 1}, {0, 8, 0}};
  EXPECT_EQ(sections_dirtied_by(e, light), (std::vector<SectionPos>{{0, 8, 0}, {0, 8, 1}}));
}

using MeshMap = std::map<SectionPos, SectionMesh>;

MeshMap mesh_everything(const World& world) {
  MeshMap out;
  SectionInput in;
  MeshScratch scratch;
  for (const ColumnPos c : world.positions())
    for (int s = 0; s < kSectionsPerColumn; ++s) mesh_world_section(baked(), world, {c.x, s, c.z}, {}, in, scratch, out[{c.x, s, c.z}]);
  return out;
}

// Random edits near column and section borders, at the terrain surface and in caves: blocks of every kind, light
// sources, air. After each edit only the dirty sections are remeshed; the result must equal remeshing everything.
TEST(MeshDirty, RemeshingDirtySectionsEqualsRemeshingAll) {
  auto world = generated_world("default", 31, {0, 0}, 1);
  ASSERT_TRUE(world);
  const light::LightTable table(registry());
  MeshMap meshes = mesh_everything(*world);
  auto kinds = palette_of_everything();
  kinds.push_back(kAir);
  kinds.push_back(kAir);
  kinds.push_back(cell_of("glowstone"));
  kinds.push_back(cell_of("red_lamp"));
  const auto gen = gen::make_generator("default", 31, registry());
  ASSERT_TRUE(gen);
  HashStream rng(hash1(31, 0xD1));
  SectionInput in;
  MeshScratch scratch;
  size_t total_dirty = 0, edits = 0;
  for (int i = 0; i < 30; ++i) {
    // Positions biased to borders: local coordinates 0, 1, 14, 15 half the time.
    const auto coord = [&]() -> int64_t {
      const int64_t col = static_cast<int64_t>(rng.below(3)) - 1;
      static constexpr int kEdge[4] = {0, 1, 14, 15};
      const int local = rng.below(2) ? kEdge[rng.below(4)] : static_cast<int>(rng.below(16));
      return col * 16 + local;
    };
    const int64_t x = coord(), z = coord();
    const int64_t surface = (*gen)->surface_y(x, z);
    int64_t y = surface + static_cast<int64_t>(rng.below(5)) - 2;
    if (rng.below(4) == 0) y = section_base_y(section_of_y(surface)) + (rng.below(2) ? 0 : 15);  // a section border
    const Cell after = kinds[rng.below(kinds.size())];
    const auto edit = world->make_edit({x, y, z}, after);
    ASSERT_TRUE(edit);
    const light::EditResult res = light::apply_edit(*world, table, *edit);
    ASSERT_TRUE(res.applied);
    const auto light_dirty = res.light.dirty_sections();
    const auto dirty = sections_dirtied_by(*edit, light_dirty);
    total_dirty += dirty.size();
    ++edits;
    for (const SectionPos& s : dirty)
      if (world->find(s.column())) mesh_world_section(baked(), *world, s, {}, in, scratch, meshes[s]);
    const MeshMap all = mesh_everything(*world);
    for (const auto& [pos, mesh] : all) {
      ASSERT_TRUE(meshes[pos] == mesh) << "after edit " << i << " at " << x << "," << y << "," << z << " section (" << pos.x
                                       << "," << pos.y << "," << pos.z << ") was not marked dirty but changed";
    }
  }
  // The dirty sets stay small: one to a few dozen sections per edit, not the whole area (216 sections).
  EXPECT_LT(total_dirty, edits * 60);
}

}  // namespace
}  // namespace voxen::mesh
