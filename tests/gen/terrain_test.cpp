// The default generator's terrain, read back from generated cells: surface_y agrees with the cells, every biome
// shows its surface blocks and vegetation, ores stay in their depth bands, water lies level at sea level, and
// the deep (deepslate, lava, magma, bedrock) sits where it should.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <optional>
#include <set>

#include "gen_test_util.h"
#include "voxen/gen/terrain_model.h"

namespace voxen {
namespace {

using gen::Biome;
using gentest::area;
using gentest::id;
using gentest::make;

// Calls f(lx, y, lz, cell) for every cell of a column (sections unpacked once each).
template <class F>
void for_each_cell(const Column& col, F&& f) {
  std::array<uint32_t, kSectionVolume> buf;
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    col.section(s).unpack(buf.data());
    for (int i = 0; i < kSectionVolume; ++i)
      f(i & 15, section_base_y(s) + (i >> 8), (i >> 4) & 15, Cell::from_packed(buf[static_cast<size_t>(i)]));
  }
}

// Top ground cell that belongs to the terrain (not a tree trunk or cactus standing on it).
int64_t terrain_top(const Column& col, int lx, int lz) {
  for (int64_t y = kMaxY; y >= kMinY; --y) {
    const Cell c = col.get(lx, y, lz);
    const std::string& n = gentest::registry()[c.id].name;
    if (gentest::is_ground(c) && n.find("_log") == std::string::npos && n != "cactus") return y;
  }
  return kMinY - 1;
}

struct Place {
  int64_t x, z;
  gen::TerrainSample sample;
};

// A world (x, z) where `want` is the biome at the point and 8 points 8 blocks around it (inside a biome, not on
// its dithered border) and `extra` holds; scans a grid outwards from the origin.
template <class Pred>
std::optional<Place> find_biome(const gen::TerrainModel& m, Biome want, Pred extra) {
  constexpr int64_t kStep = 192;
  for (int64_t ring = 0; ring <= 80; ++ring)
    for (int64_t i = -ring; i <= ring; ++i)
      for (int64_t j = -ring; j <= ring; ++j) {
        if (std::max(std::abs(i), std::abs(j)) != ring) continue;
        const int64_t x = i * kStep, z = j * kStep;
        const gen::TerrainSample s = m.sample(x, z);
        if (s.biome != want || !extra(s)) continue;
        bool inside = true;
        for (int dz = -1; dz <= 1 && inside; ++dz)
          for (int dx = -1; dx <= 1 && inside; ++dx) inside = m.sample(x + dx * 8, z + dz * 8).biome == want;
        if (inside) return Place{x, z, s};
      }
  return std::nullopt;
}

auto any = [](const gen::TerrainSample&) { return true; };

// Block counts by name over a set of columns.
std::map<std::string, int64_t> histogram(const World& w) {
  std::map<std::string, int64_t> h;
  for (const ColumnPos& p : w.positions())
    for_each_cell(*w.find(p), [&](int, int, int, Cell c) { h[gentest::registry()[c.id].name]++; });
  return h;
}

TEST(Terrain, SurfaceYAgreesWithTheGeneratedCells) {
  const auto g = make("default", 1);
  ASSERT_TRUE(g);
  const gen::TerrainModel m(1);
  // The origin, plus an ocean, a forest and a high mountain column.
  std::vector<ColumnPos> cols = {{0, 0}, {-1, -1}};
  for (Biome b : {Biome::kOcean, Biome::kForest})
    if (auto p = find_biome(m, b, any)) cols.push_back({column_of(p->x), column_of(p->z)});
  if (auto p = find_biome(m, Biome::kMountains, [](const gen::TerrainSample& s) { return s.height > 130; }))
    cols.push_back({column_of(p->x), column_of(p->z)});
  ASSERT_EQ(cols.size(), 5u);
  for (const ColumnPos& cp : cols) {
    Column col(cp);
    g->generate(col);
    for (int lz = 0; lz < 16; ++lz)
      for (int lx = 0; lx < 16; ++lx) {
        const int64_t x = cp.min_x() + lx, z = cp.min_z() + lz;
        ASSERT_EQ(g->surface_y(x, z), gentest::top_ground(col, lx, lz)) << "at " << x << "," << z;
      }
  }
}

TEST(Terrain, EveryBiomeShowsItsSurfaceAndVegetation) {
  const uint64_t seed = 1;
  const auto g = make("default", seed);
  ASSERT_TRUE(g);
  const gen::TerrainModel m(seed);

  // Generates the 3 x 3 columns around a place and returns them with the centre column's local coordinates.
  auto around = [&](const Place& p) { return gentest::generate_world(*g, area({column_of(p.x), column_of(p.z)}, 1)); };
  // The most common terrain top block over the 256 (x, z) of the place's column: robust against the odd cave
  // mouth or tree at the sampled point.
  auto top_at = [&](const World& w, const Place& p) {
    const Column& c = *w.find({column_of(p.x), column_of(p.z)});
    std::map<uint16_t, int> count;
    for (int lz = 0; lz < 16; ++lz)
      for (int lx = 0; lx < 16; ++lx) count[c.get(lx, terrain_top(c, lx, lz), lz).id]++;
    return std::max_element(count.begin(), count.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
  };

  {
    SCOPED_TRACE("ocean");
    const auto p = find_biome(m, Biome::kOcean, [](const gen::TerrainSample& s) { return s.height < kSeaLevel - 4; });
    ASSERT_TRUE(p);
    const World w = around(*p);
    const Column& c = *w.find({column_of(p->x), column_of(p->z)});
    const int lx = local_of(p->x), lz = local_of(p->z);
    const Cell at_sea = c.get(lx, kSeaLevel, lz);
    EXPECT_TRUE(at_sea.id == id("water") || at_sea.id == id("ice"));
    EXPECT_EQ(c.get(lx, kSeaLevel + 1, lz), kAir);
    const int64_t floor = terrain_top(c, lx, lz);
    EXPECT_LT(floor, kSeaLevel);
    for (int64_t y = floor + 1; y < kSeaLevel; ++y) EXPECT_EQ(c.get(lx, y, lz).id, id("water")) << "y " << y;
    const uint16_t f = c.get(lx, floor, lz).id;
    EXPECT_TRUE(f == id("sand") || f == id("gravel") || f == id("clay")) << gentest::registry()[f].name;
  }
  {
    SCOPED_TRACE("beach");
    const auto p = find_biome(m, Biome::kBeach, any);
    ASSERT_TRUE(p);
    const World w = around(*p);
    EXPECT_EQ(top_at(w, *p), id("sand"));
    const int64_t top = terrain_top(*w.find({column_of(p->x), column_of(p->z)}), local_of(p->x), local_of(p->z));
    EXPECT_GE(top, kSeaLevel - 3);
    EXPECT_LE(top, kSeaLevel + 3);
  }
  {
    SCOPED_TRACE("desert");
    const auto p = find_biome(m, Biome::kDesert, [](const gen::TerrainSample& s) { return s.height > kSeaLevel + 2; });
    ASSERT_TRUE(p);
    const World w = around(*p);
    EXPECT_EQ(top_at(w, *p), id("sand"));
    const auto h = histogram(w);
    EXPECT_GT(h.count("sandstone") ? h.at("sandstone") : 0, 0);
    EXPECT_GT(h.count("cactus") ? h.at("cactus") : 0, 0);
    EXPECT_GT(h.at("sand"), 20 * (h.count("grass_block") ? h.at("grass_block") : 0));
  }
  {
    SCOPED_TRACE("snowy tundra");
    const auto p = find_biome(m, Biome::kSnowyTundra, [](const gen::TerrainSample& s) { return s.height > kSeaLevel + 2; });
    ASSERT_TRUE(p);
    const World w = around(*p);
    EXPECT_EQ(top_at(w, *p), id("snow"));
    const auto h = histogram(w);
    EXPECT_GT(h.count("spruce_log") ? h.at("spruce_log") : 0, 0);
    EXPECT_GT(h.count("spruce_leaves") ? h.at("spruce_leaves") : 0, 0);
  }
  {
    SCOPED_TRACE("mountains");
    const auto p = find_biome(m, Biome::kMountains, [](const gen::TerrainSample& s) { return s.height > 130; });
    ASSERT_TRUE(p);
    const World w = around(*p);
    const uint16_t top = top_at(w, *p);
    EXPECT_TRUE(top == id("stone") || top == id("gravel") || top == id("snow")) << gentest::registry()[top].name;
  }
  {
    SCOPED_TRACE("forest");
    const auto p = find_biome(m, Biome::kForest, [](const gen::TerrainSample& s) { return s.height > kSeaLevel + 2; });
    ASSERT_TRUE(p);
    const World w = around(*p);
    const auto h = histogram(w);
    const int64_t logs = (h.count("oak_log") ? h.at("oak_log") : 0) + (h.count("birch_log") ? h.at("birch_log") : 0);
    EXPECT_GT(logs, 100);  // dozens of trees in 9 columns
    EXPECT_GT(h.count("oak_leaves") ? h.at("oak_leaves") : 0, 0);
    EXPECT_GT(h.count("grass_block") ? h.at("grass_block") : 0, 500);
  }
  {
    SCOPED_TRACE("plains");
    const auto p = find_biome(m, Biome::kPlains, [](const gen::TerrainSample& s) { return s.height > kSeaLevel + 2; });
    ASSERT_TRUE(p);
    const World w = around(*p);
    EXPECT_EQ(top_at(w, *p), id("grass_block"));
    const auto h = histogram(w);
    EXPECT_GT(h.count("tall_grass") ? h.at("tall_grass") : 0, 100);
    EXPECT_GT((h.count("poppy") ? h.at("poppy") : 0) + (h.count("dandelion") ? h.at("dandelion") : 0), 0);
  }
}

TEST(Terrain, BiomeSamplesMatchBulkSamplesAndCoverAllBiomes) {
  const gen::TerrainModel m(42);
  std::set<Biome> seen;
  for (int64_t ox : {int64_t{0}, int64_t{-123457}, int64_t{1} << 40, -(int64_t{1} << 40) + 3})
    for (int i = 0; i < 40; ++i) {
      const int64_t x0 = ox + i * 997, z0 = -ox + i * 1511 - 5;
      std::array<gen::TerrainSample, 7 * 5> bulk;
      m.sample_area(x0, z0, 7, 5, bulk.data());
      for (int dz = 0; dz < 5; ++dz)
        for (int dx = 0; dx < 7; ++dx) {
          const gen::TerrainSample a = m.sample(x0 + dx, z0 + dz), &b = bulk[static_cast<size_t>(dz * 7 + dx)];
          ASSERT_EQ(a.height, b.height);
          ASSERT_EQ(a.biome, b.biome);
          ASSERT_EQ(a.temperature, b.temperature);
          seen.insert(a.biome);
        }
    }
  EXPECT_EQ(seen.size(), static_cast<size_t>(gen::kBiomeCount));
  for (int b = 0; b < gen::kBiomeCount; ++b) EXPECT_NE(gen::biome_name(static_cast<Biome>(b)), "unknown");
}

TEST(Terrain, OresStayInTheirDepthBandsAndTheDeepIsLayered) {
  const auto g = make("default", 3);
  ASSERT_TRUE(g);
  struct Band {
    const char* name;
    int lo, hi;
  };
  const Band bands[] = {{"coal_ore", 0, 143}, {"iron_ore", -64, 63}, {"gold_ore", -96, -33}, {"diamond_ore", -128, -65}};
  std::vector<ColumnPos> cols = area({0, 0}, 1);
  for (const ColumnPos& p : area({-2000, 777}, 1)) cols.push_back(p);
  const World w = gentest::generate_world(*g, cols);
  // Lowest and highest y and count of every block id over all cells.
  const size_t n = gentest::registry().size();
  std::vector<int> lo(n, kMaxY + 1), hi(n, kMinY - 1);
  std::vector<int64_t> count(n, 0);
  const uint16_t water = id("water");
  for (const ColumnPos& p : cols) {
    const Column& col = *w.find(p);
    for_each_cell(col, [&](int lx, int y, int lz, Cell c) {
      lo[c.id] = std::min(lo[c.id], y);
      hi[c.id] = std::max(hi[c.id], y);
      count[c.id]++;
      if (y == kMinY) {
        ASSERT_EQ(c.id, id("bedrock"));
      }
      if (c.id == water) {
        // Water never floats: below it is more water or a solid block.
        const Cell below = col.get(lx, y - 1, lz);
        ASSERT_TRUE(below.id == water || gentest::registry()[below.id].solid) << "water over air at y " << y;
      }
    });
  }
  for (const Band& b : bands) {
    SCOPED_TRACE(b.name);
    EXPECT_GT(count[id(b.name)], 0) << "never generated";
    EXPECT_GE(lo[id(b.name)], b.lo);
    EXPECT_LE(hi[id(b.name)], b.hi);
  }
  EXPECT_LE(hi[id("bedrock")], kMinY + 4);
  for (const char* deep : {"lava", "magma", "deepslate"}) {
    EXPECT_GT(count[id(deep)], 0) << deep;
    EXPECT_LT(hi[id(deep)], 0) << deep;
  }
  EXPECT_GE(lo[id("stone")], -8);
  if (count[id("ice")] > 0) {
    EXPECT_EQ(lo[id("ice")], kSeaLevel);
    EXPECT_EQ(hi[id("ice")], kSeaLevel);
  }
  if (count[water] > 0) {
    EXPECT_LE(hi[water], kSeaLevel);
  }
}

TEST(Terrain, OceanWaterIsLevelAtSeaLevel) {
  const auto g = make("default", 9);
  ASSERT_TRUE(g);
  const gen::TerrainModel m(9);
  const auto p = find_biome(m, Biome::kOcean, [](const gen::TerrainSample& s) { return s.height < kSeaLevel - 8; });
  ASSERT_TRUE(p);
  Column col({column_of(p->x), column_of(p->z)});
  g->generate(col);
  int water_tops = 0;
  for (int lz = 0; lz < 16; ++lz)
    for (int lx = 0; lx < 16; ++lx) {
      const int64_t top = gentest::top_ground(col, lx, lz);
      if (top >= kSeaLevel) continue;  // an island
      const Cell surface = col.get(lx, kSeaLevel, lz);
      EXPECT_TRUE(surface.id == id("water") || surface.id == id("ice"));
      EXPECT_EQ(col.get(lx, kSeaLevel + 1, lz), kAir);
      for (int64_t y = top + 1; y < kSeaLevel; ++y) ASSERT_EQ(col.get(lx, y, lz).id, id("water"));
      ++water_tops;
    }
  EXPECT_GT(water_tops, 128);
}

}  // namespace
}  // namespace voxen
