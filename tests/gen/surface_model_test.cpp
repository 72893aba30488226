// The generator's decisions exposed for the far view (voxen/gen/surface_model.h and TerrainModel::sample_grid):
// the strided grid equals sample() bit for bit, and the stripe blocks, plants and trees the model describes are
// the generated column's blocks wherever caves and ores leave them alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

#include "gen_test_util.h"
#include "voxen/gen/surface_model.h"
#include "voxen/gen/terrain_model.h"

namespace voxen {
namespace {

bool same_sample(const gen::TerrainSample& a, const gen::TerrainSample& b) {
  return a.height == b.height && a.biome == b.biome && std::memcmp(&a.temperature, &b.temperature, 4) == 0 &&
         std::memcmp(&a.humidity, &b.humidity, 4) == 0 && std::memcmp(&a.continentalness, &b.continentalness, 4) == 0;
}

// Also where the grid wraps past int64's end (the noise's corner table then gives way to every point alone) and on
// a grid as wide as a level-5 far node's (70 x 70 at stride 4, off the lattice nodes: the corner tables' own case).
TEST(SampleGrid, EqualsSampleAtEveryStrideAndOrigin) {
  const gen::TerrainModel m(1);
  const auto wrap = [](int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); };
  for (int stride : {1, 2, 3, 4, 8, 32}) {
    for (int64_t x0 : {int64_t{0}, int64_t{-37}, int64_t{-1024}, int64_t{1} << 40, int64_t{5001},
                       std::numeric_limits<int64_t>::max() - 100, std::numeric_limits<int64_t>::min() + 7}) {
      const int64_t z0 = wrap(-(x0 / 2), -4);
      for (const auto& [w, d] : {std::pair{13, 9}, std::pair{70, 70}}) {
        if (w == 70 && stride != 4) continue;
        const int64_t gx = w == 70 ? wrap(x0, 3) : x0;
        std::vector<gen::TerrainSample> out(static_cast<size_t>(w * d));
        m.sample_grid(gx, z0, stride, w, d, out.data());
        for (int j = 0; j < d; ++j)
          for (int i = 0; i < w; ++i) {
            const int64_t x = wrap(gx, int64_t{i} * stride), z = wrap(z0, int64_t{j} * stride);
            const gen::TerrainSample ref = m.sample(x, z);
            ASSERT_TRUE(same_sample(out[static_cast<size_t>(j * w + i)], ref)) << "stride " << stride << " at " << x << ',' << z;
          }
      }
    }
  }
}

// Every generated block of a 3 x 3-column area is the model's stripe block, plant or tree block, except where a
// cave, ravine or ore vein changed it (air, lava, magma or ore in the generated column).
TEST(SurfaceModel, DescribesTheGeneratedColumns) {
  auto g = gentest::make("default", 1);
  ASSERT_TRUE(g);
  const gen::SurfaceModel m(1, gentest::registry());
  const BlockRegistry& r = gentest::registry();
  const uint16_t air = kAirId, lava = r.id("lava"), magma = r.id("magma");
  const uint16_t ores[] = {r.id("coal_ore"), r.id("iron_ore"), r.id("gold_ore"), r.id("diamond_ore")};
  size_t checked = 0, features = 0;
  for (const ColumnPos pos : {ColumnPos{0, 0}, ColumnPos{-3, 5}, ColumnPos{40, -17}}) {
    Column col(pos);
    g->generate(col);
    const int64_t x0 = pos.min_x(), z0 = pos.min_z();
    // Samples with a margin for slopes and trees.
    constexpr int kM = 5, kW = 16 + 2 * kM;
    std::vector<gen::TerrainSample> s(kW * kW);
    m.terrain().sample_grid(x0 - kM, z0 - kM, 1, kW, kW, s.data());
    auto at = [&](int lx, int lz) -> const gen::TerrainSample& { return s[static_cast<size_t>((lz + kM) * kW + lx + kM)]; };
    auto slope = [&](int lx, int lz) {
      const int h = at(lx, lz).height;
      return std::max({std::abs(h - at(lx - 1, lz).height), std::abs(h - at(lx + 1, lz).height),
                       std::abs(h - at(lx, lz - 1).height), std::abs(h - at(lx, lz + 1).height)});
    };
    // Feature blocks above the ground: plants, then trees in grid order.
    std::map<std::tuple<int, int, int>, uint16_t> feat;
    for (int lz = 0; lz < 16; ++lz)
      for (int lx = 0; lx < 16; ++lx) {
        const gen::StripeSurface st = m.stripe(x0 + lx, z0 + lz, at(lx, lz), slope(lx, lz));
        const auto p = m.plant(x0 + lx, z0 + lz, at(lx, lz), st);
        for (int k = 1; k <= p.height; ++k) feat[{lx, st.height + k, lz}] = p.id;
      }
    for (int64_t gz = (z0 - 3) >> 2; gz <= (z0 + 18) >> 2; ++gz)
      for (int64_t gx = (x0 - 3) >> 2; gx <= (x0 + 18) >> 2; ++gx) {
        int64_t ox, oz;
        m.tree_origin(gx, gz, ox, oz);
        const int lx = static_cast<int>(ox - x0), lz = static_cast<int>(oz - z0);
        if (lx < -3 || lx > 18 || lz < -3 || lz > 18) continue;
        gen::TreeSite t;
        if (!m.plan_tree(gx, gz, at(lx, lz), slope(lx, lz), true, t)) continue;
        m.tree_blocks(t, [&](int64_t x, int64_t y, int64_t z, uint16_t id, bool is_log) {
          const int bx = static_cast<int>(x - x0), bz = static_cast<int>(z - z0);
          if (bx < 0 || bx > 15 || bz < 0 || bz > 15) return;
          if (y <= at(bx, bz).height || (at(bx, bz).height < kSeaLevel && y <= kSeaLevel)) return;
          auto it = feat.find({bx, static_cast<int>(y), bz});
          const bool leaf_there = it != feat.end() && r[it->second].transparency == Transparency::kCutout &&
                                  r[it->second].shape != Shape::kCross;
          if (it == feat.end() || !leaf_there || is_log) feat[{bx, static_cast<int>(y), bz}] = id;
        });
      }
    for (int lz = 0; lz < 16; ++lz)
      for (int lx = 0; lx < 16; ++lx) {
        const gen::StripeSurface st = m.stripe(x0 + lx, z0 + lz, at(lx, lz), slope(lx, lz));
        for (int y = kMinY; y <= std::max(st.height, kSeaLevel) + 14; ++y) {
          const uint16_t got = col.get(lx, y, lz).id;
          auto f = feat.find({lx, y, lz});
          const uint16_t want = f != feat.end() ? f->second : m.block(x0 + lx, y, z0 + lz, st);
          if (f != feat.end()) ++features;
          if (got == want) {
            ++checked;
            continue;
          }
          const bool carved = got == air || got == lava || got == magma || std::find(std::begin(ores), std::end(ores), got) != std::end(ores);
          const bool under_features = y <= st.height + 1 && (got == air || r[got].shape == Shape::kCross);  // plant on carved ground
          ASSERT_TRUE((carved && y <= st.height) || under_features)
              << "at " << x0 + lx << ',' << y << ',' << z0 + lz << " generated " << r[got].name << ", model " << r[want].name;
        }
      }
  }
  EXPECT_GT(checked, 100000u);
  EXPECT_GT(features, 50u);
}

}  // namespace
}  // namespace voxen
