// Features that cross column borders are placed identically from either side: a tree whose trunk stands near a
// column edge has its leaves in the neighbouring column whichever column is generated first, or alone.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "gen_test_util.h"
#include "voxen/gen/terrain_model.h"

namespace voxen {
namespace {

using gentest::area;
using gentest::make;

bool is_log(Cell c) { return gentest::registry()[c.id].name.find("_log") != std::string::npos; }
bool is_leaves(Cell c) { return gentest::registry()[c.id].name.find("_leaves") != std::string::npos; }

// The top log of a trunk: a log whose cell above is leaves.
bool is_trunk_top(const World& w, const BlockPos& p) {
  return is_log(w.get(p)) && is_leaves(w.get({p.x, p.y + 1, p.z}));
}

struct Straddle {
  BlockPos top;         // trunk top, world
  ColumnPos owner;      // column holding the trunk
  ColumnPos neighbour;  // column its leaves reach into
  BlockPos leaf;        // a leaf cell in the neighbour, beside the trunk top
};

// Scans forest columns of a few seeds for a trunk within 2 blocks of a column edge whose leaves (the ring beside
// the trunk top) cross into the neighbouring column.
std::optional<std::pair<uint64_t, Straddle>> find_straddling_tree() {
  for (uint64_t seed : {11u, 12u, 13u}) {
    const auto g = make("default", seed);
    const gen::TerrainModel m(seed);
    for (int64_t i = 0; i < 400; ++i) {
      const int64_t x = (i % 20) * 300 - 3000, z = (i / 20) * 300 - 3000;
      const gen::TerrainSample s = m.sample(x, z);
      if (s.biome != gen::Biome::kForest || s.height <= kSeaLevel) continue;
      const ColumnPos owner{column_of(x), column_of(z)};
      const World w = gentest::generate_world(*g, area(owner, 1));
      for (int lz = 0; lz < 16; ++lz)
        for (int lx = 0; lx < 16; ++lx) {
          const int dir_x = lx >= 14 ? 1 : (lx <= 1 ? -1 : 0);
          const int dir_z = lz >= 14 ? 1 : (lz <= 1 ? -1 : 0);
          if (dir_x == 0 && dir_z == 0) continue;
          for (int64_t y = kSeaLevel; y < kMaxY; ++y) {
            const BlockPos top{owner.min_x() + lx, y, owner.min_z() + lz};
            if (!is_trunk_top(w, top)) continue;
            // The leaf beside the trunk top in the direction of the near edge, stepped into the neighbour.
            const int step = dir_x != 0 ? (dir_x > 0 ? 16 - lx : lx + 1) : (dir_z > 0 ? 16 - lz : lz + 1);
            const BlockPos leaf{top.x + dir_x * step, top.y - 1, top.z + (dir_x != 0 ? 0 : dir_z * step)};
            if (!is_leaves(w.get(leaf))) continue;
            const ColumnPos nb = column_pos_of(leaf);
            if (nb == owner) continue;
            return std::make_pair(seed, Straddle{top, owner, nb, leaf});
          }
        }
    }
  }
  return std::nullopt;
}

TEST(Borders, TreeStraddlingAColumnBorderIsIdenticalFromBothSides) {
  const auto found = find_straddling_tree();
  ASSERT_TRUE(found) << "no tree near a column edge found in the scanned forests";
  const auto& [seed, t] = *found;
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " trunk top " << t.top.x << "," << t.top.y << "," << t.top.z
                                    << " leaf " << t.leaf.x << "," << t.leaf.y << "," << t.leaf.z);

  // The neighbour generated alone, by a fresh generator, before anything else on this thread.
  const auto alone_gen = make("default", seed);
  Column alone(t.neighbour);
  alone_gen->generate(alone);
  const int lx = local_of(t.leaf.x), lz = local_of(t.leaf.z);
  EXPECT_TRUE(is_leaves(alone.get(lx, t.leaf.y, lz))) << "leaf missing when the neighbour is generated alone";

  // Owner first, then neighbour; and neighbour first, then owner; and both at once on two threads.
  const auto g = make("default", seed);
  Column owner_first(t.owner), nb_second(t.neighbour);
  g->generate(owner_first);
  g->generate(nb_second);
  Column nb_first(t.neighbour), owner_second(t.owner);
  g->generate(nb_first);
  g->generate(owner_second);
  JobPool pool(2);
  const auto both = gen::generate_columns(*g, {t.owner, t.neighbour}, &pool);

  EXPECT_TRUE(gentest::same_cells(alone, nb_second));
  EXPECT_TRUE(gentest::same_cells(alone, nb_first));
  EXPECT_TRUE(gentest::same_cells(alone, *both[1]));
  EXPECT_TRUE(gentest::same_cells(owner_first, owner_second));
  EXPECT_TRUE(gentest::same_cells(owner_first, *both[0]));
  // The shared tree: trunk in the owner, its leaf in the neighbour, in every version.
  for (const Column* o : {&owner_first, &owner_second, both[0].get()})
    EXPECT_TRUE(is_log(o->get(local_of(t.top.x), t.top.y, local_of(t.top.z))));
  for (const Column* n : {&alone, &nb_first, &nb_second, both[1].get()}) EXPECT_TRUE(is_leaves(n->get(lx, t.leaf.y, lz)));
}

// Every tree in an area has the ring of leaves beside its trunk top, including where that ring lies in another
// column (no tree is cut at a border), and every leaf lies in the canopy of a trunk of its own species (no canopy
// without its tree, which is what a column deciding differently from its neighbour would leave).
TEST(Borders, NoCanopyIsCutOrOrphanedAtAColumnBorder) {
  const auto g = make("default", 21);
  ASSERT_TRUE(g);
  const gen::TerrainModel m(21);
  struct Trunk {
    std::string species;  // "oak", "birch", "spruce"
    int64_t base = 0, top = 0;
  };
  int checked = 0, across = 0, leaves = 0;
  int areas[2] = {0, 0};  // forest, snowy tundra (dense and sparse trees)
  for (int64_t i = 0; i < 300 && (areas[0] < 3 || areas[1] < 3); ++i) {
    const int64_t x = (i % 15) * 400 - 3000, z = (i / 15) * 400 - 2500;
    const gen::TerrainSample s = m.sample(x, z);
    const int kind = s.biome == gen::Biome::kForest ? 0 : (s.biome == gen::Biome::kSnowyTundra ? 1 : -1);
    if (kind < 0 || areas[kind] >= 3 || s.height <= kSeaLevel) continue;
    ++areas[kind];
    const ColumnPos mid{column_of(x), column_of(z)};
    const World w = gentest::generate_world(*g, area(mid, 1));
    // Trunks anywhere in the 3 x 3 columns, by world (x, z).
    std::map<std::pair<int64_t, int64_t>, Trunk> trunks;
    for (const ColumnPos& cp : area(mid, 1))
      for (int lz = 0; lz < 16; ++lz)
        for (int lx = 0; lx < 16; ++lx)
          for (int64_t y = kSeaLevel; y < kMaxY; ++y) {
            const Cell c = w.find(cp)->get(lx, y, lz);
            if (!is_log(c)) continue;
            Trunk& t = trunks[{cp.min_x() + lx, cp.min_z() + lz}];
            const std::string& name = gentest::registry()[c.id].name;
            if (t.species.empty()) t = {name.substr(0, name.find('_')), y, y};
            t.top = y;
          }
    // Every trunk stands on soil (the origin's ground is decided by pure functions, caves included).
    for (const auto& [xz, t] : trunks) {
      const uint16_t below = w.get({xz.first, t.base - 1, xz.second}).id;
      EXPECT_TRUE(below == gentest::id("grass_block") || below == gentest::id("dirt") || below == gentest::id("snow"))
          << t.species << " trunk at " << xz.first << "," << t.base << "," << xz.second << " stands on "
          << gentest::registry()[below].name;
    }
    for (int lz = 0; lz < 16; ++lz)
      for (int lx = 0; lx < 16; ++lx)
        for (int64_t y = kSeaLevel; y < kMaxY - 1; ++y) {
          const BlockPos p{mid.min_x() + lx, y, mid.min_z() + lz};
          const Cell c = w.get(p);
          if (is_leaves(c)) {
            ++leaves;
            const std::string& name = gentest::registry()[c.id].name;
            const std::string species = name.substr(0, name.find('_'));
            const int reach = species == "spruce" ? 3 : 2;
            bool owned = false;
            for (int dz = -reach; dz <= reach && !owned; ++dz)
              for (int dx = -reach; dx <= reach && !owned; ++dx) {
                const auto it = trunks.find({p.x + dx, p.z + dz});
                if (it == trunks.end() || it->second.species != species) continue;
                const Trunk& t = it->second;
                owned = species == "spruce" ? (y >= t.base + 2 && y <= t.top + 1) : (y >= t.top - 2 && y <= t.top + 1);
              }
            ASSERT_TRUE(owned) << name << " outside every " << species << " canopy at " << p.x << "," << p.y << "," << p.z;
          }
          if (!is_trunk_top(w, p)) continue;
          ++checked;
          const BlockPos ring[4] = {{p.x + 1, y, p.z}, {p.x - 1, y, p.z}, {p.x, y, p.z + 1}, {p.x, y, p.z - 1}};
          for (const BlockPos& r : ring) {
            EXPECT_NE(w.get(r), kAir) << "bare trunk side at " << r.x << "," << r.y << "," << r.z;
            if (column_pos_of(r) != mid) ++across;
          }
        }
  }
  EXPECT_EQ(areas[0], 3);
  EXPECT_EQ(areas[1], 3);
  EXPECT_GT(checked, 20);
  EXPECT_GT(across, 0);
  EXPECT_GT(leaves, 1000);
}

}  // namespace
}  // namespace voxen
