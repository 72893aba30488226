// The far view's coarse terrain path (voxen/lod/coarse.h): one test per rule (the flat world exact, water up to
// sea level, borders from the neighbours, determinism and threads, 2^40 blocks out, to_section) and the agreement
// with cells mipped from full generated columns (figures printed; docs/PERFORMANCE.md, "Coarse terrain agreement").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <tuple>

#include "lod_test_util.h"
#include "voxen/gen/structures.h"
#include "voxen/gen/surface_model.h"
#include "voxen/gen/terrain_model.h"
#include "voxen/lod/coarse.h"

namespace voxen {
namespace {

using lodtest::mipper;
using lodtest::registry;

std::unique_ptr<gen::Generator> generator(const char* name, uint64_t seed = 1) {
  auto g = gen::make_generator(name, seed, registry());
  EXPECT_TRUE(g.ok());
  return std::move(g).value();
}

// Coarse cells read through a cache of built sections.
struct CoarseReader {
  const lod::CoarseTerrain& coarse;
  std::map<lod::LodSectionPos, lod::PaddedLodSection> built;
  lod::LodCell get(int level, int64_t x, int64_t y, int64_t z) {
    const lod::LodSectionPos pos = lod::lod_section_of(level, x, y, z);
    auto it = built.find(pos);
    if (it == built.end()) it = built.emplace(pos, coarse.build(pos)).first;
    return it->second.get(static_cast<int>(x & 31), static_cast<int>(y & 31), static_cast<int>(z & 31));
  }
};

// Full columns (cx0..cx0+n-1, cz0..cz0+n-1) generated and lit, and their pyramid.
struct FullArea {
  World world;
  lod::Pyramid pyramid{mipper(), lod::kDefaultLevels};
  /// With `uncarve`, caves and ore veins are undone before lighting (what the coarse path does not model):
  /// every air, lava, magma or ore cell at or below its stripe's terrain height, outside the ravine cut, becomes
  /// the stripe's block again (gen::SurfaceModel::block).
  FullArea(const gen::Generator& g, int64_t cx0, int64_t cz0, int n, bool uncarve = false) {
    const std::vector<ColumnPos> positions = lodtest::area(cx0, cx0 + n - 1, cz0, cz0 + n - 1);
    for (auto& c : gen::generate_columns(g, positions, nullptr)) {
      if (uncarve) undo_caves(g.seed(), *c);
      world.insert(std::move(c));
    }
    light::light_columns(world, lodtest::table(), positions, nullptr);
    pyramid.add_columns(world, positions, nullptr);
  }

  static void undo_caves(uint64_t seed, Column& col) {
    static const gen::SurfaceModel m(seed, registry());
    const BlockRegistry& r = registry();
    const uint16_t lava = r.id("lava"), magma = r.id("magma");
    const int64_t x0 = col.pos().min_x(), z0 = col.pos().min_z();
    constexpr int kM = 3, kW = 16 + 2 * kM;
    std::vector<gen::TerrainSample> s(kW * kW);
    m.terrain().sample_grid(x0 - kM, z0 - kM, 1, kW, kW, s.data());
    auto h = [&](int lx, int lz) { return s[static_cast<size_t>((lz + kM) * kW + lx + kM)].height; };
    for (int lz = 0; lz < 16; ++lz)
      for (int lx = 0; lx < 16; ++lx) {
        const int hh = h(lx, lz);
        const int slope = std::max({std::abs(hh - h(lx - 1, lz)), std::abs(hh - h(lx + 1, lz)), std::abs(hh - h(lx, lz - 1)),
                                    std::abs(hh - h(lx, lz + 1))});
        int lowest = hh;
        for (int dz = -2; dz <= 2; ++dz)
          for (int dx = -2; dx <= 2; ++dx) lowest = std::min(lowest, h(lx + dx, lz + dz));
        const gen::TerrainSample& t = s[static_cast<size_t>((lz + kM) * kW + lx + kM)];
        const gen::StripeSurface st = m.stripe(x0 + lx, z0 + lz, t, slope);
        const gen::SurfaceModel::Cut cut = m.ravine(x0 + lx, z0 + lz, hh, lowest);
        for (int y = kMinY; y <= hh; ++y) {
          if (!cut.empty() && y >= cut.bottom && y <= cut.top) continue;
          const uint16_t id = col.get(lx, y, lz).id;
          const std::string& name = r[id].name;
          if (id == kAirId || id == lava || id == magma || name.ends_with("_ore"))
            col.set(lx, y, lz, Cell{m.block(x0 + lx, y, z0 + lz, st), 0});
        }
      }
  }
};

std::map<std::string, size_t> g_why;  // COARSE_DEBUG: mismatches by (level, full block, coarse block, band)

bool is_feature(uint16_t id) {
  const BlockDef& d = registry()[id];
  const std::string& n = d.name;
  return d.transparency == Transparency::kCutout || n.find("_log") != std::string::npos || n == "cactus";
}

// Per level: cells compared, equal by block (id + state), non-air in either and equal among those, equal with their
// light too; cell columns, the largest difference of their top non-air cells (in cells) and how many differ by any
// / by more than one cell; the largest difference where the excess is terrain (not only tree or plant cells; in
// cells, so max_terrain_diff << L blocks, the bound being 2^L) and how many of those exceed one cell.
struct LevelFigures {
  size_t cells = 0, equal = 0, nonair = 0, nonair_equal = 0, light_equal = 0;
  size_t columns = 0, top_differs = 0, top_over_one = 0, terrain_over_one = 0;
  int64_t max_top_diff = 0, max_terrain_diff = 0;

  double equal_share() const { return static_cast<double>(equal) / static_cast<double>(cells); }
  void add(const LevelFigures& a) {
    cells += a.cells, equal += a.equal, nonair += a.nonair, nonair_equal += a.nonair_equal;
    light_equal += a.light_equal, columns += a.columns, top_differs += a.top_differs;
    top_over_one += a.top_over_one, terrain_over_one += a.terrain_over_one;
    max_top_diff = std::max(max_top_diff, a.max_top_diff);
    max_terrain_diff = std::max(max_terrain_diff, a.max_terrain_diff);
  }
};
using Figures = std::array<LevelFigures, 6>;  // levels 0..5

// Prints one row per level (the table docs/PERFORMANCE.md quotes), with the terrain height difference in blocks.
void print_figures(const Figures& figs) {
  std::printf("level  cells  equal%%  nonair  nonair-equal%%  light-equal%%  columns  top-max  top-differs%%  top>1cell%%  "
              "terrain-max  terrain>1cell  terrain-max-blocks (bound 2^L)\n");
  for (int level = 0; level <= 5; ++level) {
    const LevelFigures& f = figs[static_cast<size_t>(level)];
    const double cells = static_cast<double>(f.cells), cols = static_cast<double>(f.columns);
    std::printf("%5d %7zu %7.3f %7zu %13.2f %13.2f %8zu %8lld %13.2f %11.2f %12lld %13zu %8lld (%d)\n", level, f.cells,
                100.0 * f.equal_share(), f.nonair,
                100.0 * static_cast<double>(f.nonair_equal) / static_cast<double>(f.nonair),
                100.0 * static_cast<double>(f.light_equal) / cells, f.columns, static_cast<long long>(f.max_top_diff),
                100.0 * static_cast<double>(f.top_differs) / cols, 100.0 * static_cast<double>(f.top_over_one) / cols,
                static_cast<long long>(f.max_terrain_diff), f.terrain_over_one,
                static_cast<long long>(f.max_terrain_diff << level), 1 << level);
  }
}

// Compares every level-L cell wholly inside the blocks [x0, x0 + w) x [z0, z0 + w) (x0, z0, w multiples of 32).
void compare_area(const FullArea& full, CoarseReader& coarse, int64_t x0, int64_t z0, int w,
                  Figures& figs) {
  for (int level = 0; level <= 5; ++level) {
    LevelFigures& f = figs[static_cast<size_t>(level)];
    const int64_t n = w >> level;
    const int64_t ylo = kMinY >> level, yhi = kMaxY >> level;
    for (int64_t cz = (z0 >> level); cz < (z0 >> level) + n; ++cz)
      for (int64_t cx = (x0 >> level); cx < (x0 >> level) + n; ++cx) {
        int64_t top_full = ylo - 1, top_coarse = ylo - 1;
        for (int64_t cy = ylo; cy <= yhi; ++cy) {
          const lod::LodCell a = full.pyramid.get(level, cx, cy, cz);
          const lod::LodCell b = coarse.get(level, cx, cy, cz);
          ++f.cells;
          const bool eq = a.cell() == b.cell();
          if (!eq && std::getenv("COARSE_DEBUG")) {
            const std::string k = std::to_string(level) + " " + registry()[a.id()].name + " vs " + registry()[b.id()].name + (cy * (1 << level) > 40 ? " high" : " low");
            ++g_why[k];
          }
          f.equal += eq;
          f.light_equal += eq && a.light() == b.light();
          if (eq && a.light() != b.light() && std::getenv("COARSE_DEBUG"))
            ++g_why[std::to_string(level) + " light of " + registry()[a.id()].name + " full " + std::to_string(light_sky(a.light())) +
                    " coarse " + std::to_string(light_sky(b.light()))];
          if (!a.is_air() || !b.is_air()) {
            ++f.nonair;
            f.nonair_equal += eq;
          }
          if (!a.is_air()) top_full = cy;
          if (!b.is_air()) top_coarse = cy;
        }
        ++f.columns;
        const int64_t d = std::abs(top_full - top_coarse);
        f.top_differs += d != 0;
        f.max_top_diff = std::max(f.max_top_diff, d);
        if (d == 0) continue;
        f.top_over_one += d > 1;
        // The cells the higher side holds above the lower one's top: all tree or plant cells (a canopy one side
        // has and the other not), or terrain.
        bool features_only = true;
        for (int64_t cy = std::min(top_full, top_coarse) + 1; cy <= std::max(top_full, top_coarse); ++cy) {
          const lod::LodCell c = top_full > top_coarse ? full.pyramid.get(level, cx, cy, cz) : coarse.get(level, cx, cy, cz);
          if (!c.is_air() && !is_feature(c.id())) features_only = false;
        }
        if (features_only) continue;
        f.max_terrain_diff = std::max(f.max_terrain_diff, d);
        if (d <= 1) continue;
        ++f.terrain_over_one;
        if (std::getenv("COARSE_DEBUG"))
          std::printf("L%d column %lld,%lld: top full %lld (%s) coarse %lld (%s)\n", level, static_cast<long long>(cx),
                      static_cast<long long>(cz), static_cast<long long>(top_full),
                      registry()[full.pyramid.get(level, cx, top_full, cz).id()].name.c_str(),
                      static_cast<long long>(top_coarse), registry()[coarse.get(level, cx, top_coarse, cz).id()].name.c_str());
      }
  }
}

// The flat world's coarse cells equal the mipped full columns exactly, light included, at levels 0..5 (cells
// kept 32 blocks clear of the loaded area's edge, where unloaded neighbours darken the full columns).
TEST(CoarseTerrain, FlatWorldIsExact) {
  auto g = generator("flat");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const FullArea full(*g, -8, -8, 16);  // blocks -128..127
  CoarseReader reader{coarse, {}};
  for (int level = 0; level <= 5; ++level) {
    size_t cells = 0, nonair = 0;
    const int64_t lo = -96 >> level, hi = (96 >> level) - 1;
    for (int64_t cz = lo; cz <= hi; ++cz)
      for (int64_t cx = lo; cx <= hi; ++cx)
        for (int64_t cy = kMinY >> level; cy <= (40 >> level); ++cy) {
          const lod::LodCell a = full.pyramid.get(level, cx, cy, cz), b = reader.get(level, cx, cy, cz);
          ASSERT_EQ(a, b) << "level " << level << " cell " << cx << ',' << cy << ',' << cz << ": full " << a.id() << ':'
                          << int(a.state()) << " light " << a.light() << ", coarse " << b.id() << ':' << int(b.state())
                          << " light " << b.light();
          ++cells;
          nonair += !a.is_air();
        }
    EXPECT_GT(nonair, 0u);
    EXPECT_GT(cells, nonair);
  }
}

// Where the ground lies below sea level the cells above it are water up to y = 62 (ice there when frozen), and
// air above; the same as the full columns give.
TEST(CoarseTerrain, WaterFillsToSeaLevel) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const gen::TerrainModel model(1);
  const uint16_t water = registry().id("water"), ice = registry().id("ice");
  // The first deep-ocean point of a coarse scan.
  int64_t ox = 0, oz = 0;
  bool found = false;
  for (int64_t z = 0; z < 8192 && !found; z += 64)
    for (int64_t x = 0; x < 8192 && !found; x += 64)
      if (model.sample(x, z).height < 50) ox = x, oz = z, found = true;
  ASSERT_TRUE(found);
  const lod::PaddedLodSection s = coarse.build(lod::lod_section_of(0, ox, kSeaLevel, oz));
  const int lx = static_cast<int>(ox & 31), lz = static_cast<int>(oz & 31);
  const int h = model.sample(ox, oz).height;
  const bool frozen = model.sample(ox, oz).temperature < gen::kFreezing;
  // The section spanning y = 62 (32..63) holds the sea surface.
  for (int y = std::max(h + 1, 32); y <= 63; ++y) {
    const lod::LodCell c = s.get(lx, y - 32, lz);
    if (y < kSeaLevel) {
      EXPECT_EQ(c.id(), water) << "y " << y;
    } else if (y == kSeaLevel) {
      EXPECT_EQ(c.id(), frozen ? ice : water);
    } else {
      EXPECT_TRUE(c.is_air()) << "y " << y;
    }
  }
  // At level 3 the 8-block cell holding the surface (y 56..63) is water or ice, as the full columns' is.
  const FullArea full(*g, floor_div(ox, 16) - 1, floor_div(oz, 16) - 1, 3);
  CoarseReader reader{coarse, {}};
  const lod::LodCell a = full.pyramid.get(3, ox >> 3, kSeaLevel >> 3, oz >> 3), b = reader.get(3, ox >> 3, kSeaLevel >> 3, oz >> 3);
  EXPECT_TRUE(b.id() == water || b.id() == ice);
  EXPECT_EQ(a.cell(), b.cell());
}

// The one-cell border of a section is its face neighbours' own cells (built the same way), at every level; the
// edges and corners of the border hold air.
TEST(CoarseTerrain, BorderCellsAreTheNeighboursCells) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  for (int level = 0; level <= 5; ++level) {
    const lod::LodSectionPos p{level, -1, (64 >> level) >> 5, 2};
    const lod::PaddedLodSection s = coarse.build(p);
    const lod::PaddedLodSection xp = coarse.build({level, p.x + 1, p.y, p.z}), xn = coarse.build({level, p.x - 1, p.y, p.z});
    const lod::PaddedLodSection yp = coarse.build({level, p.x, p.y + 1, p.z}), yn = coarse.build({level, p.x, p.y - 1, p.z});
    const lod::PaddedLodSection zp = coarse.build({level, p.x, p.y, p.z + 1}), zn = coarse.build({level, p.x, p.y, p.z - 1});
    size_t nonair = 0;
    for (int a = 0; a < 32; ++a)
      for (int b = 0; b < 32; ++b) {
        ASSERT_EQ(s.get(32, a, b), xp.get(0, a, b)) << "level " << level;
        ASSERT_EQ(s.get(-1, a, b), xn.get(31, a, b)) << "level " << level;
        ASSERT_EQ(s.get(a, 32, b), yp.get(a, 0, b)) << "level " << level;
        ASSERT_EQ(s.get(a, -1, b), yn.get(a, 31, b)) << "level " << level;
        ASSERT_EQ(s.get(a, b, 32), zp.get(a, b, 0)) << "level " << level;
        ASSERT_EQ(s.get(a, b, -1), zn.get(a, b, 31)) << "level " << level;
        nonair += !s.get(32, a, b).is_air();
      }
    EXPECT_GT(nonair, 0u) << "level " << level;
    for (int e : {-1, 32})
      for (int f : {-1, 32})
        for (int a = -1; a <= 32; ++a) {
          EXPECT_EQ(s.get(e, f, a), lod::LodCell{});
          EXPECT_EQ(s.get(e, a, f), lod::LodCell{});
          EXPECT_EQ(s.get(a, e, f), lod::LodCell{});
        }
  }
}

// build() is a pure function of (seed, kind, pos): rebuilt in another order, on other threads, the cells are the
// same bytes; a second CoarseTerrain of the same generator agrees.
TEST(CoarseTerrain, DeterministicOnAnyThread) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  std::vector<lod::LodSectionPos> positions;
  for (int level = 0; level <= 5; ++level)
    for (int64_t x = -1; x <= 0; ++x) positions.push_back({level, x, level >= 3 ? 0 : 1, -x});
  std::vector<lod::PaddedLodSection> serial;
  for (const auto& p : positions) serial.push_back(coarse.build(p));
  std::vector<lod::PaddedLodSection> parallel(positions.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = positions.size(); i-- > 0;)
        if (static_cast<int>(i % 3) == t) parallel[i] = coarse.build(positions[i]);
    });
  for (auto& t : threads) t.join();
  auto g2 = generator("default");
  const lod::CoarseTerrain coarse2(*g2, registry(), mipper());
  for (size_t i = 0; i < positions.size(); ++i) {
    EXPECT_TRUE(serial[i].cells == parallel[i].cells) << "section " << i;
    EXPECT_TRUE(serial[i].cells == coarse2.build(positions[i]).cells) << "section " << i;
    EXPECT_EQ(parallel[i].pos, positions[i]);
  }
}

// 2^40 blocks out the coarse cells still agree with the full columns (caves and ores undone; levels 0..2 of a
// 32 x 32-block area), as they do at the origin; the far sections of every level build with ground in them.
TEST(CoarseTerrain, HugeCoordinates) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const int64_t big = int64_t{1} << 40;
  const FullArea full(*g, big / 16, -big / 16, 2, /*uncarve=*/true);
  CoarseReader reader{coarse, {}};
  Figures figs{};
  compare_area(full, reader, big, -big, 32, figs);
  for (int level = 0; level <= 2; ++level) {
    const LevelFigures& f = figs[static_cast<size_t>(level)];
    EXPECT_GE(static_cast<double>(f.equal) / static_cast<double>(f.cells), 0.99) << "level " << level;
    EXPECT_EQ(f.terrain_over_one, 0u) << "level " << level;
  }
  for (int level = 0; level < lod::kMaxLevels; ++level) {
    const lod::PaddedLodSection s = coarse.build(lod::lod_section_of(level, big >> level, 64 >> level, -big >> level));
    size_t nonair = 0;
    for (const lod::LodCell& c : s.cells) nonair += !c.is_air();
    EXPECT_GT(nonair, 0u) << "level " << level;
  }
}

// build_stack() hands over each section of the stack equal to build() of it, bottom to top, and skips only
// sections that mesh to nothing: all used cells air, or all opaque blocks. Stacks of every level at the origin, in
// the mountains (x 1,700), at sea (z 5,000), 2^40 blocks out, and of the flat world.
TEST(CoarseTerrain, BuildStackEqualsBuild) {
  auto g = generator("default");
  auto flat = generator("flat");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const lod::CoarseTerrain flat_coarse(*flat, registry(), mipper());
  const int64_t big = int64_t{1} << 40;
  size_t visited = 0, skipped = 0;
  for (const lod::CoarseTerrain* ct : {&coarse, &flat_coarse})
    for (int level = 0; level <= 5; ++level)
      for (const auto& [bx, bz] : {std::pair<int64_t, int64_t>{0, 0}, std::pair<int64_t, int64_t>{1700, -300},
                                  std::pair<int64_t, int64_t>{-200, 5000}, std::pair<int64_t, int64_t>{big, -big}}) {
        const int64_t x = floor_div(bx, int64_t{32} << level), z = floor_div(bz, int64_t{32} << level);
        std::vector<int64_t> ys;
        std::vector<lod::PaddedLodSection> got;  // compared after the visit (build() may not run inside it)
        ct->build_stack(level, x, z, [&](const lod::PaddedLodSection& s) {
          ASSERT_EQ(s.pos.level, level);
          ASSERT_EQ(s.pos.x, x);
          ASSERT_EQ(s.pos.z, z);
          EXPECT_TRUE(ys.empty() || s.pos.y > ys.back());
          ys.push_back(s.pos.y);
          got.push_back(s);
        });
        for (const lod::PaddedLodSection& s : got)
          EXPECT_TRUE(s.cells == ct->build(s.pos).cells) << "level " << level << " y " << s.pos.y;
        const int64_t span = int64_t{32} << level;
        for (int64_t y = floor_div(kMinY, span); y <= floor_div(kMaxY, span); ++y) {
          if (std::find(ys.begin(), ys.end(), y) != ys.end()) {
            ++visited;
            continue;
          }
          ++skipped;
          const lod::PaddedLodSection s = ct->build({level, x, y, z});
          bool all_air = true, all_opaque = true;
          for (int cy = -1; cy <= 32; ++cy)
            for (int cz = -1; cz <= 32; ++cz)
              for (int cx = -1; cx <= 32; ++cx) {
                if ((cx < 0 || cx > 31) + (cy < 0 || cy > 31) + (cz < 0 || cz > 31) > 1) continue;
                const lod::LodCell c = s.get(cx, cy, cz);
                const BlockDef& d = registry()[c.cell().id];
                all_air = all_air && c.is_air();
                all_opaque = all_opaque && !c.is_air() && d.transparency == Transparency::kOpaque && (d.opacity & 15) == 15;
              }
          EXPECT_TRUE(all_air || all_opaque) << "skipped level " << level << " (" << x << ", " << y << ", " << z << ")";
        }
      }
  std::printf("build_stack: %zu sections visited, %zu skipped\n", visited, skipped);
  EXPECT_GT(skipped, 0u);
}

// Real columns win (lod::overlay_columns): over columns handed in, every overlaid cell (inner and border) is the
// Pyramid's for the same columns at every level 0..5 (the oracle), including a pillar the coarse path knows nothing
// of; a cell over any column not handed in keeps its coarse value. 4 x 4 columns straddling the origin (negative
// coordinates), so level-5 cells (2 x 2 columns) are both wholly real and half real.
TEST(OverlayColumns, RealColumnsGiveThePyramidsCellsAndTheRestStaysCoarse) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const std::vector<ColumnPos> positions = lodtest::area(-2, 1, -2, 1);
  World world;
  for (auto& c : gen::generate_columns(*g, positions, nullptr)) world.insert(std::move(c));
  const uint16_t stone = registry().id("stone");
  for (int64_t y = 180; y <= 250; ++y) world.find({-1, 0})->set(3, y, 5, Cell{stone, 0});  // block (-13, y, 5)
  light::light_columns(world, lodtest::table(), positions, nullptr);
  lod::Pyramid pyramid(mipper(), lod::kDefaultLevels);
  pyramid.add_columns(world, positions, nullptr);
  std::map<ColumnPos, lod::ColumnMips> mips;
  for (const ColumnPos& p : positions) mips.emplace(p, lod::build_column_mips(*world.find(p), mipper()));
  const auto find = [&](ColumnPos p) -> const lod::ColumnMips* {
    const auto it = mips.find(p);
    return it == mips.end() ? nullptr : &it->second;
  };
  for (int level = 0; level < lod::kDefaultLevels; ++level) {
    const int64_t span = int64_t{32} << level, cell = int64_t{1} << level;
    size_t real = 0, kept = 0, written = 0;
    for (int64_t z = floor_div(-32 - cell, span); z <= floor_div(31 + cell, span); ++z)
      for (int64_t x = floor_div(-32 - cell, span); x <= floor_div(31 + cell, span); ++x)
        for (int64_t y = floor_div(kMinY, span); y <= floor_div(kMaxY, span); ++y) {
          const lod::PaddedLodSection base = coarse.build({level, x, y, z});
          lod::PaddedLodSection over = base;
          written += lod::overlay_columns(over, find, mipper());
          for (int cy = -1; cy <= 32; ++cy)
            for (int cz = -1; cz <= 32; ++cz)
              for (int cx = -1; cx <= 32; ++cx) {
                if ((cx < 0 || cx > 31) + (cy < 0 || cy > 31) + (cz < 0 || cz > 31) > 1) continue;
                const int64_t wx = x * 32 + cx, wy = y * 32 + cy, wz = z * 32 + cz;  // level-L cell
                // Columns under the cell: blocks [wx << L, (wx + 1) << L) in x, likewise z.
                const bool all_real = floor_div(wx * cell, 16) >= -2 && floor_div((wx + 1) * cell - 1, 16) <= 1 &&
                                      floor_div(wz * cell, 16) >= -2 && floor_div((wz + 1) * cell - 1, 16) <= 1;
                if (all_real) {
                  ASSERT_EQ(over.get(cx, cy, cz), pyramid.get(level, wx, wy, wz))
                      << "level " << level << " cell " << wx << ',' << wy << ',' << wz;
                  ++real;
                } else {
                  ASSERT_EQ(over.get(cx, cy, cz), base.get(cx, cy, cz))
                      << "level " << level << " cell " << wx << ',' << wy << ',' << wz << " (not real)";
                  ++kept;
                }
              }
        }
    EXPECT_EQ(written, real) << "level " << level;
    EXPECT_GT(real, 0u) << "level " << level;
    EXPECT_GT(kept, 0u) << "level " << level;
    // The pillar's top block (-13, 250, 5), far above the coarse ground, is what its cell holds at every level.
    {
      const lod::LodSectionPos sp = lod::lod_section_of(level, floor_div(-13, cell), floor_div(250, cell), floor_div(5, cell));
      lod::PaddedLodSection over = coarse.build(sp);
      lod::overlay_columns(over, find, mipper());
      const lod::LodCell top = over.get(static_cast<int>(floor_div(-13, cell) & 31), static_cast<int>(floor_div(250, cell) & 31),
                                        static_cast<int>(floor_div(5, cell) & 31));
      EXPECT_EQ(top.id(), stone) << "level " << level;
    }
  }
}

// to_section keeps the inner 32^3 cells.
TEST(CoarseTerrain, ToSectionKeepsTheInnerCells) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  for (const lod::LodSectionPos p : {lod::LodSectionPos{0, 0, 2, 0}, lod::LodSectionPos{3, 1, 0, -1}, lod::LodSectionPos{2, 0, 3, 0}}) {
    const lod::PaddedLodSection s = coarse.build(p);
    const lod::LodSection sec = lod::to_section(s);
    for (int y = 0; y < 32; ++y)
      for (int z = 0; z < 32; ++z)
        for (int x = 0; x < 32; ++x) ASSERT_EQ(sec.get(x, y, z), s.get(x, y, z)) << x << ',' << y << ',' << z;
  }
}

// The sample areas of seed 1, each a 128 x 128-block square given by its lowest block (x, z): the highest point of
// a scan of 8,192 x 8,192 blocks around the origin (mountains; `mountain_height`: the height at its centre); a
// forest (the first square of a scan whose corners and centre are all forest: trees) and a coast (the first whose
// centre is sea with land at a corner: water, sand, perhaps ice).
struct Sites {
  int64_t mx = 0, mz = 0, fx = 0, fz = 0, cx = 0, cz = 0;
  int mountain_height = 0;
  bool found = false;  // the forest and the coast were both found
};

Sites find_sites() {
  const gen::TerrainModel model(1);
  Sites s;
  for (int64_t z = -4096; z < 4096; z += 128)
    for (int64_t x = -4096; x < 4096; x += 128) {
      const gen::TerrainSample t = model.sample(x + 64, z + 64);
      if (t.height > s.mountain_height) s.mountain_height = t.height, s.mx = x, s.mz = z;
    }
  bool forest = false, coast = false;
  for (int64_t z = 0; z < 16384 && !(forest && coast); z += 128)
    for (int64_t x = 0; x < 16384 && !(forest && coast); x += 128) {
      bool all_forest = true, land = false;
      for (const auto& [dx, dz] : {std::pair{0, 0}, std::pair{127, 0}, std::pair{0, 127}, std::pair{127, 127}, std::pair{64, 64}}) {
        const gen::TerrainSample t = model.sample(x + dx, z + dz);
        all_forest = all_forest && t.biome == gen::Biome::kForest;
        land = land || t.height > kSeaLevel + 1;
      }
      if (!forest && all_forest) s.fx = x, s.fz = z, forest = true;
      if (!coast && land && model.sample(x + 64, z + 64).height < kSeaLevel - 3) s.cx = x, s.cz = z, coast = true;
    }
  s.found = forest && coast;
  return s;
}

// Level 5 samples its virtual columns at level 4's resolution (4 blocks; docs/ARCHITECTURE.md, "Coarse terrain"), so
// the Mipper over a level-5 cell's 8 level-4 children, each as the coarse path builds it, gives the coarse level-5
// cell exactly: every inner cell of the level-5 sections holding the ground at the origin, the mountains, the forest
// and the coast of find_sites(). (With virtual columns of 8 blocks at level 5, as before, 661 of these cells differed.)
TEST(CoarseTerrain, LevelFiveIsTheMipOfItsLevelFour) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const Sites sites = find_sites();
  ASSERT_TRUE(sites.found);
  CoarseReader reader{coarse, {}};
  size_t cells = 0, differ = 0, nonair = 0;
  std::set<lod::LodSectionPos> done;
  for (const auto& [bx, bz] : {std::pair<int64_t, int64_t>{0, 0}, {sites.mx, sites.mz}, {sites.fx, sites.fz}, {sites.cx, sites.cz}}) {
    const lod::LodSectionPos sp{5, floor_div(bx, 1024), 0, floor_div(bz, 1024)};
    if (!done.insert(sp).second) continue;
    const lod::PaddedLodSection five = coarse.build(sp);
    for (int y = 0; y < 32; ++y)
      for (int z = 0; z < 32; ++z)
        for (int x = 0; x < 32; ++x) {
          std::array<lod::LodCell, 8> children;
          for (int dy = 0; dy < 2; ++dy)
            for (int dz = 0; dz < 2; ++dz)
              for (int dx = 0; dx < 2; ++dx)
                children[static_cast<size_t>(lod::child_index(dx, dy, dz))] =
                    reader.get(4, (sp.x * 32 + x) * 2 + dx, (sp.y * 32 + y) * 2 + dy, (sp.z * 32 + z) * 2 + dz);
          const lod::LodCell want = mipper().mip(children), got = five.get(x, y, z);
          ++cells;
          nonair += !got.is_air();
          if (!(got == want)) {
            if (differ < 5)
              ADD_FAILURE() << "level-5 cell (" << sp.x * 32 + x << ", " << sp.y * 32 + y << ", " << sp.z * 32 + z
                            << "): coarse id " << got.id() << ", mip of level 4 id " << want.id();
            ++differ;
          }
        }
  }
  std::printf("level 5 against the mip of level 4: %zu cells (%zu not air), %zu differ\n", cells, nonair, differ);
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(nonair, 0u);
}

// Prints the mismatches by kind (COARSE_DEBUG set): those over 0.5% of a level's cells.
void print_why(const Figures& figs) {
  if (!std::getenv("COARSE_DEBUG")) return;
  for (auto& [k, v] : g_why)
    if (v * 200 > figs[static_cast<size_t>(k[0] - '0')].cells / 100) std::printf("%s: %zu\n", k.c_str(), v);
}

// The agreement check: four 128 x 128-block areas of seed 1 (around the origin, and find_sites()'
// mountains, forest and coast), every level-L cell (L = 0..5) wholly inside compared with the mipped full columns
// by block (id and state), twice: the columns as generated, and with caves and ores undone (what the coarse path
// leaves out). Prints the figures (docs/PERFORMANCE.md, "Coarse terrain agreement"); the bounds are in the loop.
// The issue's own sample size, 64 x 64 columns, is DISABLED_AgreesOnA64x64ColumnSample below.
TEST(CoarseTerrain, AgreesWithMippedFullColumns) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const Sites sites = find_sites();
  ASSERT_TRUE(sites.found);
  std::printf("forest area at x %lld, z %lld; coast area at x %lld, z %lld\n", static_cast<long long>(sites.fx),
              static_cast<long long>(sites.fz), static_cast<long long>(sites.cx), static_cast<long long>(sites.cz));
  CoarseReader reader{coarse, {}};
  for (const bool uncarve : {false, true}) {
  Figures figs{};
  g_why.clear();
  using Corner = std::pair<int64_t, int64_t>;
  for (const auto& [x0, z0] : {Corner{-64, -64}, Corner{sites.mx, sites.mz}, Corner{sites.fx, sites.fz},
                               Corner{sites.cx, sites.cz}}) {
    const FullArea full(*g, floor_div(x0, 16), floor_div(z0, 16), 8, uncarve);
    Figures area{};
    compare_area(full, reader, x0, z0, 128, area);
    std::printf("%s, area at x %lld, z %lld: equal%% by level", uncarve ? "caves and ores undone" : "as generated",
                static_cast<long long>(x0), static_cast<long long>(z0));
    for (int level = 0; level <= 5; ++level) {
      std::printf(" %.2f", 100.0 * area[static_cast<size_t>(level)].equal_share());
      figs[static_cast<size_t>(level)].add(area[static_cast<size_t>(level)]);
    }
    std::printf("\n");
  }
  std::printf("%s\n", uncarve ? "full columns with caves and ores undone:" : "full columns as generated:");
  print_why(figs);
  std::printf("mountain area at x %lld, z %lld (height %d at its centre)\n", static_cast<long long>(sites.mx),
              static_cast<long long>(sites.mz), sites.mountain_height);
  print_figures(figs);
  for (int level = 0; level <= 5; ++level) {
    const LevelFigures& f = figs[static_cast<size_t>(level)];
    if (uncarve) {
      // The issue asks >= 99% on 64 x 64 columns (DISABLED_AgreesOnA64x64ColumnSample: met at every level).
      // These four small areas hold only 768 level-5 cells (16 cell columns each), where 98.6% agree (11 cells:
      // canopies and the surface block where a mountain's slope turns), so level 5's bound here is 98%, a
      // regression guard (it was 95% when level 5 sampled every 8 blocks and gave 97%; docs/PERFORMANCE.md).
      EXPECT_GE(f.equal_share(), level <= 4 ? 0.99 : 0.98) << "level " << level;
      // Levels 0..2 sample every block column: there the coarse cells are the mipped ones but for at most 0.05%
      // (ravines sealed under the ground beside water, trees the generator leaves out over a cave mouth).
      if (level <= 2) {
        EXPECT_LE((f.cells - f.equal) * 2000, f.cells) << "level " << level;
      }
      EXPECT_EQ(f.terrain_over_one, 0u) << "level " << level;
    } else {
      // Caves, lava lakes and ores are not modelled: about 6% of the cells at level 0, under the ground.
      EXPECT_GE(f.equal_share(), 0.90) << "level " << level;
      if (level >= 3) {
        EXPECT_EQ(f.terrain_over_one, 0u) << "level " << level;
      }
    }
  }
  }
}

// Structures on the far view come from their own cells (gen/structures.h, coarse.cpp step 2b): over a village and
// over the summit of a ziggurat, coarse cells against cells mipped from full columns (caves and ores undone), and
// the ziggurat stands far above the plain terrain model in the coarse cells.
TEST(CoarseTerrain, StructuresComeFromTheirOwnCells) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const gen::StructurePlanner planner(1, registry());
  std::vector<gen::Structure> found;
  planner.find(-4096, -4096, 4096, 4096, found);
  const gen::Structure* village = nullptr;
  const gen::Structure* ziggurat = nullptr;
  for (const gen::Structure& st : found) {
    if (!village && st.kind == gen::StructureKind::kVillage) village = &st;
    if (!ziggurat && st.kind == gen::StructureKind::kZiggurat) ziggurat = &st;
  }
  ASSERT_NE(village, nullptr);
  ASSERT_NE(ziggurat, nullptr);

  for (const gen::Structure* st : {village, ziggurat}) {
    // The 64 x 64 blocks (multiples of 32) around the structure's origin.
    const int64_t x0 = floor_div(st->x - 32, 32) * 32, z0 = floor_div(st->z - 32, 32) * 32;
    const FullArea full(*g, floor_div(x0, 16) - 1, floor_div(z0, 16) - 1, 6, /*uncarve=*/true);
    CoarseReader reader{coarse, {}};
    Figures figs{};
    compare_area(full, reader, x0, z0, 64, figs);
    std::printf("%s at %lld,%lld:\n", std::string(gen::structure_kind_name(st->kind)).c_str(),
                static_cast<long long>(st->x), static_cast<long long>(st->z));
    print_figures(figs);
    for (int level = 0; level <= 5; ++level) {
      const LevelFigures& f = figs[static_cast<size_t>(level)];
      // Levels 0..2 sample every block column (their structure cells are the structure's own; seen 99.85% and
      // more); above, a virtual column samples its patch's highest structure block on a grid, a house's hollow
      // rooms and thin posts less exactly (seen 96.4% at level 5's 28 non-air cells of the village).
      EXPECT_GE(static_cast<double>(f.nonair_equal) / static_cast<double>(f.nonair), level <= 2 ? 0.995 : 0.95)
          << gen::structure_kind_name(st->kind) << " level " << level;
    }
  }

  // The ziggurat's summit in the coarse cells at levels 2..5: its highest non-air cell lies within one cell of the
  // summit's own top and far above the terrain model's ground there.
  const int64_t x = ziggurat->x, z = ziggurat->z;
  const int ground = gen::TerrainModel(1).sample(x, z).height;
  const int summit = planner.top_at(*ziggurat, x, z, ground).y;
  ASSERT_GT(summit, ground + 40);
  for (int level = 2; level <= 5; ++level) {
    CoarseReader reader{coarse, {}};
    int64_t top = kMinY - 1;
    for (int64_t cy = kMaxY >> level; cy >= (kMinY >> level); --cy)
      if (!reader.get(level, x >> level, cy, z >> level).is_air()) {
        top = ((cy + 1) << level) - 1;
        break;
      }
    EXPECT_GE(top, summit) << "level " << level;
    EXPECT_LT(top, summit + (1 << level) + 1) << "level " << level;
  }
}

// Every level-L cell (L = 0..5) wholly inside the 64 x 64 columns (1,024 x 1,024 blocks) whose lowest block is
// (x0, z0) (multiples of 256), coarse against mipped full columns. Compared 16 x 16 columns at a time, each tile's
// columns generated with a one-column margin (light reaches 15 blocks, so the tile's light is what the whole area's
// would be) and a fresh CoarseReader: the whole area at once would hold ~15 GB of columns, pyramid and sections.
Figures compare_large_area(const gen::Generator& g, const lod::CoarseTerrain& coarse, int64_t x0, int64_t z0,
                           bool uncarve) {
  Figures figs{};
  for (int64_t tz = 0; tz < 4; ++tz)
    for (int64_t tx = 0; tx < 4; ++tx) {
      const int64_t bx = x0 + tx * 256, bz = z0 + tz * 256;
      const FullArea full(g, floor_div(bx, 16) - 1, floor_div(bz, 16) - 1, 18, uncarve);
      CoarseReader reader{coarse, {}};
      Figures tile{};
      compare_area(full, reader, bx, bz, 256, tile);
      for (int level = 0; level <= 5; ++level) figs[static_cast<size_t>(level)].add(tile[static_cast<size_t>(level)]);
    }
  return figs;
}

// The sample size: 64 x 64 columns (1,024 x 1,024 blocks), two areas of seed 1: the mountains of
// find_sites() at the centre of one, its forest and coast both inside the other. Slow (about 4 minutes on one
// core: 2 x 2 x 5,184 columns generated, lit and mipped), so not part of the suite; run it by name:
//   build/voxen_lod_tests --gtest_also_run_disabled_tests --gtest_filter=CoarseTerrain.DISABLED_AgreesOnA64x64ColumnSample
// With COARSE_SAMPLE_QUICK=1 only the mountains with caves and ores undone (a quarter of the time). Prints the
// figures per area and pass (docs/PERFORMANCE.md, "Coarse terrain agreement"); the bounds with caves and
// ores undone are asserted: >= 99% of cells equal at every level 0..5, and no terrain height differing by more
// than one cell (2^L blocks) at any level.
TEST(CoarseTerrain, DISABLED_AgreesOnA64x64ColumnSample) {
  auto g = generator("default");
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const Sites sites = find_sites();
  ASSERT_TRUE(sites.found);
  // Lowest blocks of the two areas: centred on the mountain square, and on the middle of the forest and coast
  // squares (rounded to 256), which must both lie inside.
  auto corner = [](int64_t centre) { return floor_div(centre - 512 + 128, int64_t{256}) * 256; };
  const int64_t ax = corner(sites.mx + 64), az = corner(sites.mz + 64);
  const int64_t bx = corner((sites.fx + sites.cx) / 2 + 64), bz = corner((sites.fz + sites.cz) / 2 + 64);
  for (const int64_t x : {sites.fx, sites.cx}) ASSERT_TRUE(x >= bx && x + 128 <= bx + 1024);
  for (const int64_t z : {sites.fz, sites.cz}) ASSERT_TRUE(z >= bz && z + 128 <= bz + 1024);
  const bool quick = std::getenv("COARSE_SAMPLE_QUICK") != nullptr;
  for (const bool uncarve : {true, false}) {
    if (quick && !uncarve) continue;
    for (const auto& [name, x0, z0] : {std::tuple{"mountains", ax, az}, std::tuple{"forest and coast", bx, bz}}) {
      if (quick && x0 != ax) continue;
      g_why.clear();
      const Figures figs = compare_large_area(*g, coarse, x0, z0, uncarve);
      std::printf("%s, 64 x 64 columns from x %lld, z %lld (%s):\n", name, static_cast<long long>(x0),
                  static_cast<long long>(z0), uncarve ? "caves and ores undone" : "as generated");
      print_why(figs);
      print_figures(figs);
      std::fflush(stdout);
      if (!uncarve) continue;
      for (int level = 0; level <= 5; ++level) {
        const LevelFigures& f = figs[static_cast<size_t>(level)];
        EXPECT_GE(f.equal_share(), 0.99) << name << ", level " << level;
        EXPECT_EQ(f.terrain_over_one, 0u) << name << ", level " << level;
      }
    }
  }
}

}  // namespace
}  // namespace voxen
