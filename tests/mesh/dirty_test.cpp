// Dirty marking: an edit dirties exactly the sections whose padded input holds the edited cell (plus what its light
// changes reach), and remeshing only those after random edits gives the same meshes as remeshing everything.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

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

// Air cells of `world` at least 8 below the generator's surface, above the bedrock floor and out of the open sky
// (sky light below 15): the caves, found by scanning every cell of every loaded column. In scan order (column,
// z, x, y): deterministic.
std::vector<BlockPos> cave_cells(const World& world, const gen::Generator& gen) {
  std::vector<BlockPos> out;
  for (const ColumnPos c : world.positions())
    for (int lz = 0; lz < 16; ++lz)
      for (int lx = 0; lx < 16; ++lx) {
        const int64_t x = c.x * 16 + lx, z = c.z * 16 + lz;
        const int64_t top = gen.surface_y(x, z) - 8;
        for (int64_t y = kMinY + 2; y <= top; ++y)
          if (world.get({x, y, z}) == kAir && light_sky(world.light({x, y, z})) < 15) out.push_back({x, y, z});
      }
  return out;
}

// Random edits (150) on a generated 3 x 3 column world, each kind of place an edit can reach a mesh from:
//  - near the terrain surface, biased to column borders (local x, z in 0, 1, 14, 15) and the surface's section
//    borders;
//  - in real caves (air cells found by scanning the world): blocks of every kind placed in cave air, cave walls
//    dug out or filled;
//  - deep section borders (local y 0 or 15, two to five sections below the surface) at column borders;
//  - emitters (torch, glowstone, red and blue lamps) placed in cave air or just above the ground and removed again
//    a few edits later, whose light changes reach several sections.
// After each edit only the dirty sections are remeshed; every section's mesh must then equal remeshing everything.
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
  const Cell emitters[] = {cell_of("torch"), cell_of("glowstone"), cell_of("red_lamp"), cell_of("blue_lamp")};
  const auto gen = gen::make_generator("default", 31, registry());
  ASSERT_TRUE(gen);
  const std::vector<BlockPos> caves = cave_cells(*world, **gen);
  // The world has real caves to edit in (seed 31 has 86,358 such cells in these 9 columns, all with sky light 0).
  ASSERT_GE(caves.size(), 500u);
  HashStream rng(hash1(31, 0xD1));
  SectionInput in;
  MeshScratch scratch;
  // Positions biased to borders: local coordinates 0, 1, 14, 15 half the time.
  const auto coord = [&]() -> int64_t {
    const int64_t col = static_cast<int64_t>(rng.below(3)) - 1;
    static constexpr int kEdge[4] = {0, 1, 14, 15};
    const int local = rng.below(2) ? kEdge[rng.below(4)] : static_cast<int>(rng.below(16));
    return col * 16 + local;
  };
  const BlockPos kNeighbour[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  struct Placed {
    BlockPos pos;
    Cell before;
    int at;  // edit index of the placement
  };
  std::vector<Placed> lit;  // emitters placed and not yet removed
  size_t total_dirty = 0, edits = 0, cave_edits = 0, deep_edits = 0, removals = 0, wide_removals = 0;
  size_t changed_beyond_cell = 0;  // sections whose mesh changed though the edited cell is outside their input
  constexpr int kEdits = 150;
  for (int i = 0; i < kEdits; ++i) {
    BlockPos p{0, 0, 0};
    Cell after = kAir;
    const char* what = "";
    const int kind = static_cast<int>(rng.below(10));
    if (!lit.empty() && (i - lit.front().at >= 4 || i == kEdits - 1)) {
      // Remove the oldest emitter: its cell goes back to what it was before.
      p = lit.front().pos;
      after = lit.front().before;
      lit.erase(lit.begin());
      what = "emitter removal";
      ++removals;
    } else if (kind < 3) {
      // Near the surface, at its section border a quarter of the time.
      p.x = coord(), p.z = coord();
      const int64_t surface = (*gen)->surface_y(p.x, p.z);
      p.y = surface + static_cast<int64_t>(rng.below(5)) - 2;
      if (rng.below(4) == 0) p.y = section_base_y(section_of_y(surface)) + (rng.below(2) ? 0 : 15);
      after = kinds[rng.below(kinds.size())];
      what = "surface";
    } else if (kind < 6) {
      // In a cave: fill cave air with anything, or dig out / fill in a wall cell next to it.
      const BlockPos c = caves[rng.below(caves.size())];
      if (rng.below(2)) {
        p = c;
        after = kinds[rng.below(kinds.size())];
        what = "cave air";
      } else {
        const BlockPos d = kNeighbour[rng.below(6)];
        p = {c.x + d.x, c.y + d.y, c.z + d.z};
        after = rng.below(2) ? kAir : cell_of("stone");
        what = "cave wall";
      }
      ++cave_edits;
    } else if (kind < 8) {
      // A deep section border: local y 0 or 15, two to five sections below the surface section.
      p.x = coord(), p.z = coord();
      const int s = section_of_y((*gen)->surface_y(p.x, p.z)) - 2 - static_cast<int>(rng.below(4));
      p.y = section_base_y(s) + (rng.below(2) ? 0 : 15);
      after = kinds[rng.below(kinds.size())];
      what = "deep section border";
      ++deep_edits;
    } else {
      // An emitter in cave air or just above the ground, removed again four edits later.
      const auto pending = [&](const BlockPos& q) {
        return std::any_of(lit.begin(), lit.end(), [&](const Placed& e) { return e.pos == q; });
      };
      do {
        if (rng.below(2)) {
          p = caves[rng.below(caves.size())];
        } else {
          p.x = coord(), p.z = coord();
          p.y = (*gen)->surface_y(p.x, p.z) + 1;
        }
      } while (pending(p));  // one emitter per cell, so each removal restores the original cell
      after = emitters[rng.below(4)];
      lit.push_back({p, world->get(p), i});
      what = "emitter";
    }
    const auto edit = world->make_edit(p, after);
    ASSERT_TRUE(edit);
    const light::EditResult res = light::apply_edit(*world, table, *edit);
    ASSERT_TRUE(res.applied);
    const auto light_dirty = res.light.dirty_sections();
    const auto dirty = sections_dirtied_by(*edit, light_dirty);
    total_dirty += dirty.size();
    ++edits;
    // Remesh the dirty sections; count those that changed although the edited cell is not in their padded input
    // (only the light could change them).
    const auto touching = sections_touching_cell(p);
    size_t beyond = 0;
    for (const SectionPos& s : dirty) {
      if (!world->find(s.column())) continue;
      SectionMesh fresh;
      mesh_world_section(baked(), *world, s, {}, in, scratch, fresh);
      if (!std::binary_search(touching.begin(), touching.end(), s) && !(fresh == meshes[s])) ++beyond;
      meshes[s] = std::move(fresh);
    }
    changed_beyond_cell += beyond;
    if (std::string(what) == "emitter removal" && beyond >= 2) ++wide_removals;
    const MeshMap all = mesh_everything(*world);
    for (const auto& [pos, mesh] : all) {
      ASSERT_TRUE(meshes[pos] == mesh) << "after edit " << i << " (" << what << ") at " << p.x << "," << p.y << ","
                                       << p.z << " section (" << pos.x << "," << pos.y << "," << pos.z
                                       << ") was not marked dirty but changed";
    }
  }
  // Every kind of edit happened, and light carried mesh changes beyond the edited cell's own sections.
  EXPECT_EQ(edits, static_cast<size_t>(kEdits));
  EXPECT_GE(cave_edits, 30u);
  EXPECT_GE(deep_edits, 20u);
  EXPECT_GE(removals, 10u);
  EXPECT_GE(wide_removals, 5u);  // removals that changed two or more meshes beyond the cell
  EXPECT_GE(changed_beyond_cell, 20u);
  EXPECT_TRUE(lit.empty());
  // The dirty sets stay small: one to a few dozen sections per edit, not the whole area (216 sections).
  EXPECT_LT(total_dirty, edits * 60);
}

}  // namespace
}  // namespace voxen::mesh
