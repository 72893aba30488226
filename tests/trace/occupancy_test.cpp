// The occupancy bit pyramid and the CPU tracers (trace/occupancy.h, trace/dda.h): every bit says what its cell's
// block is (drawn, casts a shadow, fills), an edit applied to the bits equals building them again, the plain DDA
// stops where a hand-worked ray says, and the hierarchical DDA names the same cell, face and distance as the plain
// one for random rays, rays along diagonals (boundary crossings tied) and rays along the axes, in fewer steps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/trace/dda.h"
#include "voxen/trace/occupancy.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/column.h"

namespace voxen::trace {
namespace {

const BlockRegistry& registry() {
  static const BlockRegistry reg = BlockRegistry::load_default().value();
  return reg;
}

Cell block(const char* name) { return Cell{*registry().find(name), 0}; }

/// A deterministic stream of numbers from a seed (a hash of the seed and a counter: no global random stream).
struct Hash {
  uint64_t seed, n = 0;
  uint64_t next() {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * ++n;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }  // [0, 1)
  int64_t below(int64_t n_) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n_)); }
};

/// A column of ground (stone up to y 10) with a scatter of stone, leaves, glass and water above it, and a few
/// filled 4^3 bricks; `density` of the cells above the ground hold something.
std::unique_ptr<Column> scattered_column(ColumnPos pos, uint64_t seed, double density) {
  auto c = std::make_unique<Column>(pos);
  Hash h{seed * 1000003 + static_cast<uint64_t>(pos.x * 31 + pos.z)};
  const Cell kinds[] = {block("stone"), block("oak_leaves"), block("glass"), block("water")};
  for (int x = 0; x < 16; ++x)
    for (int z = 0; z < 16; ++z) {
      for (int64_t y = kMinY; y <= 10; ++y) c->set(x, y, z, block("stone"));
      for (int64_t y = 11; y < 80; ++y)
        if (h.unit() < density) c->set(x, y, z, kinds[h.below(4)]);
    }
  for (int64_t y = 40; y < 44; ++y)  // a filled brick: section-local (4..7, 8..11, 0..3) of the section at y 32
    for (int x = 4; x < 8; ++x)
      for (int z = 0; z < 4; ++z) c->set(x, y, z, block("stone"));
  return c;
}

TEST(Occupancy, TheBitLayoutIsTheDocumentedOne) {
  // occupancy.h: bit (y & 3) << 4 | (z & 3) << 2 | (x & 3) of brick (y >> 2) << 4 | (z >> 2) << 2 | (x >> 2). The GPU
  // pass reads the same words: this pins them.
  EXPECT_EQ(bit_in_brick(1, 0, 0), 1);
  EXPECT_EQ(bit_in_brick(0, 0, 1), 4);
  EXPECT_EQ(bit_in_brick(0, 1, 0), 16);
  EXPECT_EQ(bit_in_brick(3, 3, 3), 63);
  EXPECT_EQ(brick_of(4, 0, 0), 1);
  EXPECT_EQ(brick_of(0, 0, 4), 4);
  EXPECT_EQ(brick_of(0, 4, 0), 16);
  EXPECT_EQ(brick_of(15, 15, 15), 63);
  const OccupancyTable table(registry());
  Section s;
  s.set(section_index(5, 9, 14), block("stone"));  // brick 2 << 4 | 3 << 2 | 1 = 45, bit 1 << 4 | 2 << 2 | 1 = 25
  const SectionOccupancy o = build_section(s, table);
  EXPECT_EQ(o.hit_bricks, uint64_t{1} << 45);
  EXPECT_EQ(o.hit[45], uint64_t{1} << 25);
}

TEST(Occupancy, EveryBitSaysWhatItsCellsBlockIs) {
  const OccupancyTable table(registry());
  EXPECT_FALSE(table.hits(0));
  EXPECT_TRUE(table.hits(block("water").id));
  EXPECT_FALSE(table.shadows(block("water").id));
  EXPECT_FALSE(table.shadows(block("glass").id));
  EXPECT_TRUE(table.shadows(block("oak_leaves").id));
  EXPECT_FALSE(table.shadows(block("poppy").id));  // a plant's two planes cast no cell-sized shadow
  EXPECT_TRUE(table.hits(block("poppy").id));
  EXPECT_FALSE(table.fills(block("oak_leaves").id));
  EXPECT_TRUE(table.fills(block("stone").id));
  const auto col = scattered_column({3, -2}, 1, 0.2);
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    const SectionOccupancy o = build_section(col->section(s), table);
    for (int y = 0; y < 16; ++y)
      for (int z = 0; z < 16; ++z)
        for (int x = 0; x < 16; ++x) {
          const uint16_t id = col->section(s).get(x, y, z).id;
          ASSERT_EQ(o.at(Layer::kHit, x, y, z), table.hits(id)) << s << " " << x << "," << y << "," << z;
          ASSERT_EQ(o.at(Layer::kShadow, x, y, z), table.shadows(id));
          ASSERT_EQ((o.fill[static_cast<size_t>(brick_of(x, y, z))] >> bit_in_brick(x, y, z)) & 1, table.fills(id) ? 1u : 0u);
        }
    for (int b = 0; b < kBricksPerSection; ++b) {
      EXPECT_EQ((o.hit_bricks >> b) & 1, o.hit[static_cast<size_t>(b)] != 0 ? 1u : 0u);
      EXPECT_EQ((o.full_bricks >> b) & 1, o.fill[static_cast<size_t>(b)] == ~uint64_t{0} ? 1u : 0u);
    }
  }
  // The stone below y 11 fills whole sections; the filled brick at y 40..43 is full, its neighbours are not.
  const SectionOccupancy ground = build_section(col->section(section_of_y(-100)), table);
  EXPECT_EQ(ground.full_bricks, ~uint64_t{0});
  const SectionOccupancy mid = build_section(col->section(section_of_y(40)), table);
  EXPECT_TRUE((mid.full_bricks >> brick_of(4, 8, 0)) & 1);
  // A uniform section (one palette entry) gives the bits a mixed one with the same cells gives.
  Section uniform(block("glass")), mixed(block("stone"));
  for (int i = 0; i < kSectionVolume; ++i) mixed.set(i, block("glass"));
  EXPECT_EQ(build_section(uniform, table), build_section(mixed, table));
}

TEST(Occupancy, AnEditAppliedToTheBitsEqualsBuildingThemAgain) {
  const OccupancyTable table(registry());
  auto col = scattered_column({-1, 5}, 2, 0.1);
  OccupancyMap map(table);
  map.set_column(*col);
  Hash h{77};
  const Cell kinds[] = {kAir, block("stone"), block("oak_leaves"), block("glass"), block("water")};
  for (int i = 0; i < 3000; ++i) {
    // Edits in a small box so bricks fill and empty (including the filled brick and a section's last cell).
    const int x = 4 + static_cast<int>(h.below(4)), z = static_cast<int>(h.below(4));
    const int64_t y = 36 + h.below(12);
    const Cell c = kinds[h.below(5)];
    col->set(x, y, z, c);
    map.set_cell({col->pos().min_x() + x, y, col->pos().min_z() + z}, c);
  }
  for (int i = 0; i < 64; ++i) {  // then fill one brick completely: it must become full
    const int x = 8 + (i & 3), z = 8 + ((i >> 2) & 3);
    const int64_t y = 64 + (i >> 4);
    col->set(x, y, z, block("stone"));
    map.set_cell({col->pos().min_x() + x, y, col->pos().min_z() + z}, block("stone"));
  }
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    const SectionOccupancy rebuilt = build_section(col->section(s), table);
    const SectionOccupancy* kept = map.section({col->pos().x, s, col->pos().z});
    if (rebuilt.empty()) {
      EXPECT_EQ(kept, nullptr) << "section " << s;
      EXPECT_FALSE((map.section_mask(col->pos()) >> s) & 1);
      continue;
    }
    ASSERT_NE(kept, nullptr) << "section " << s;
    EXPECT_EQ(*kept, rebuilt) << "section " << s;
    EXPECT_TRUE((map.section_mask(col->pos()) >> s) & 1);
  }
  EXPECT_TRUE((map.section({col->pos().x, section_of_y(64), col->pos().z})->full_bricks >> brick_of(8, 0, 8)) & 1);
}

TEST(Trace, ThePlainDdaStopsWhereAHandWorkedRaySays) {
  const OccupancyTable table(registry());
  auto col = std::make_unique<Column>(ColumnPos{0, 0});
  col->set(9, 20, 3, block("stone"));
  col->set(5, 20, 3, block("glass"));
  OccupancyMap map(table);
  map.set_column(*col);
  // From (2.25, 20.5, 3.5) east: the glass's west face at x 5 (t 2.75), the stone's at x 9 for a sun ray (t 6.75).
  const Ray east{{2, 20, 3}, {0.25, 0.5, 0.5}, {1, 0, 0}};
  const auto glass = trace_cells(map, east, 100, Layer::kHit);
  ASSERT_TRUE(glass);
  EXPECT_EQ(glass->cell, (BlockPos{5, 20, 3}));
  EXPECT_EQ(glass->face, kFaceNegX);
  EXPECT_DOUBLE_EQ(glass->t, 2.75);
  const auto stone = trace_cells(map, east, 100, Layer::kShadow);
  ASSERT_TRUE(stone);
  EXPECT_EQ(stone->cell, (BlockPos{9, 20, 3}));
  EXPECT_DOUBLE_EQ(stone->t, 6.75);
  EXPECT_FALSE(trace_cells(map, east, 6.5, Layer::kShadow)) << "past max_t";
  // Starting inside a block: face -1, t 0. Straight up from the ground: nothing (the world ends at 255).
  const auto inside = trace_cells(map, Ray{{9, 20, 3}, {0.5, 0.5, 0.5}, {0, 1, 0}}, 10, Layer::kHit);
  ASSERT_TRUE(inside);
  EXPECT_EQ(inside->face, -1);
  EXPECT_FALSE(trace_hierarchical(map, Ray{{9, 21, 3}, {0.5, 0.5, 0.5}, {0, 1, 0}}, 1000, Layer::kHit));
}

/// The hierarchical DDA against the plain one over 3 x 3 scattered columns round column (0, 0).
void expect_same(const OccupancyMap& map, const Ray& ray, double max_t, uint64_t& plain_steps, uint64_t& fast_steps) {
  for (Layer layer : {Layer::kHit, Layer::kShadow}) {
    const auto a = trace_cells(map, ray, max_t, layer), b = trace_hierarchical(map, ray, max_t, layer);
    ASSERT_EQ(a.has_value(), b.has_value()) << "ray from " << ray.block.x << "," << ray.block.y << "," << ray.block.z
                                            << " dir " << ray.dir.x << "," << ray.dir.y << "," << ray.dir.z;
    if (!a) continue;
    EXPECT_EQ(a->cell, b->cell);
    EXPECT_EQ(a->face, b->face);
    EXPECT_EQ(a->t, b->t);  // bit for bit: the same closed form
    EXPECT_LE(b->steps, a->steps);
    plain_steps += a->steps;
    fast_steps += b->steps;
  }
}

TEST(Trace, TheHierarchicalDdaNamesTheSameCellFaceAndDistanceAsThePlainOne) {
  const OccupancyTable table(registry());
  OccupancyMap map(table);
  for (int64_t cx = -1; cx <= 1; ++cx)
    for (int64_t cz = -1; cz <= 1; ++cz) map.set_column(*scattered_column({cx, cz}, 3, 0.004));
  Hash h{5};
  uint64_t plain = 0, fast = 0;
  for (int i = 0; i < 3000; ++i) {
    Ray r;
    r.block = {-16 + h.below(48), 11 + h.below(90), -16 + h.below(48)};
    r.frac = {h.unit(), h.unit(), h.unit()};
    r.dir = {h.unit() * 2 - 1, h.unit() * 2 - 1, h.unit() * 2 - 1};
    if (glm::length(r.dir) < 1e-3) continue;
    r.dir = glm::normalize(r.dir);
    expect_same(map, r, 200, plain, fast);
    if (HasFailure()) return;
  }
  // Tied crossings: from cell centres and corners along diagonals, and along the axes, both ways.
  const glm::dvec3 dirs[] = {{1, 1, 0}, {1, -1, 1}, {-1, -1, -1}, {0, -1, 1}, {1, 0, 0}, {0, 0, -1}, {0, -1, 0}, {2, -1, 1}};
  for (const glm::dvec3& d : dirs)
    for (int k = 0; k < 60; ++k) {
      Ray r;
      r.block = {-14 + h.below(40), 12 + h.below(70), -14 + h.below(40)};
      r.frac = k % 2 ? glm::dvec3(0.5) : glm::dvec3(0.0);
      r.dir = d;
      expect_same(map, r, 120, plain, fast);
      if (HasFailure()) return;
    }
  EXPECT_LT(fast * 2, plain) << "the skips should at least halve the steps over sparse air (" << fast << " vs " << plain << ")";
  std::printf("steps: plain %llu, hierarchical %llu\n", static_cast<unsigned long long>(plain), static_cast<unsigned long long>(fast));
}

}  // namespace
}  // namespace voxen::trace
