#include "feature_placer.h"

#include <cstdlib>

#include "voxen/core/hash.h"

namespace voxen::gen {
namespace {

// Largest distance (blocks, per axis) a vein's cells lie from its origin.
constexpr int kVeinReach = 3;

struct OreKind {
  uint16_t BlockIds::*block;
  OreBand band;
  int attempts;  // per column
  int min_size, max_size;
};
constexpr OreKind kOres[] = {
    {&BlockIds::coal_ore, kCoalBand, 20, 6, 16},
    {&BlockIds::iron_ore, kIronBand, 10, 4, 9},
    {&BlockIds::gold_ore, kGoldBand, 4, 4, 8},
    {&BlockIds::diamond_ore, kDiamondBand, 3, 3, 7},
};

inline bool in_column(int lx, int lz) { return lx >= 0 && lx < kColumnWidth && lz >= 0 && lz < kColumnWidth; }

}  // namespace

FeaturePlacer::FeaturePlacer(uint64_t seed, const BlockIds& ids, const CaveModel& caves, const SurfaceRules& surface,
                             const StructurePlanner* structures)
    : m_ids(ids),
      m_caves(caves),
      m_surface(surface),
      m_structures(structures),
      m_ore_seed(derive_seed(seed, 0x61)),
      m_plant_seed(derive_seed(seed, 0x62)),
      m_tree_seed(derive_seed(seed, 0x63)) {}

void FeaturePlacer::place_ores(ColumnWork& w) const {
  for (int64_t dcz = -1; dcz <= 1; ++dcz)
    for (int64_t dcx = -1; dcx <= 1; ++dcx) {
      const int64_t cx = w.pos.x + dcx, cz = w.pos.z + dcz;
      for (size_t k = 0; k < std::size(kOres); ++k) {
        const OreKind& ore = kOres[k];
        const uint32_t cell = Cell{m_ids.*ore.block, 0}.packed();
        for (int a = 0; a < ore.attempts; ++a) {
          HashStream st(hash3(m_ore_seed, cx, cz, static_cast<int64_t>(k * 256 + static_cast<size_t>(a))));
          const int ox = static_cast<int>(st.below(16)), oz = static_cast<int>(st.below(16));
          const int oy = ore.band.min_y + static_cast<int>(st.below(static_cast<uint64_t>(ore.band.max_y - ore.band.min_y + 1)));
          // Origin in this column's local coordinates.
          const int lx0 = static_cast<int>(dcx * kColumnWidth) + ox, lz0 = static_cast<int>(dcz * kColumnWidth) + oz;
          if (lx0 < -kVeinReach || lx0 >= kColumnWidth + kVeinReach || lz0 < -kVeinReach ||
              lz0 >= kColumnWidth + kVeinReach)
            continue;
          const int size = ore.min_size + static_cast<int>(st.below(static_cast<uint64_t>(ore.max_size - ore.min_size + 1)));
          int d[3] = {0, 0, 0};
          for (int i = 0; i < size; ++i) {
            const int lx = lx0 + d[0], y = oy + d[1], lz = lz0 + d[2];
            if (in_column(lx, lz) && y >= ore.band.min_y && y <= ore.band.max_y && y_in_range(y)) {
              uint32_t& c = w.at(lx, y, lz);
              if (m_ids.is_host_rock(c)) c = cell;
            }
            // Step one block along a random axis, turning back at the reach limit.
            const uint64_t r = st.next();
            const int axis = static_cast<int>((r >> 8) % 3);
            int step = (r & 1) ? 1 : -1;
            if (std::abs(d[axis] + step) > kVeinReach) step = -step;
            d[axis] += step;
          }
        }
      }
    }
}

void FeaturePlacer::decide_plant(int64_t x, int64_t z, const TerrainSample& s, uint16_t ground, uint16_t& id,
                                 int& tall) const {
  const BlockIds& b = m_ids;
  id = 0;
  tall = 0;
  const uint64_t hh = hash2(m_plant_seed, x, z);
  const double u = hash_to_unit(hh);
  if (ground == b.grass) {
    double grass = 0, flowers = 0;
    switch (s.biome) {
      case Biome::kPlains: grass = 0.28, flowers = 0.035; break;
      case Biome::kForest: grass = 0.12, flowers = 0.02; break;
      case Biome::kMountains: grass = 0.08, flowers = 0.005; break;
      default: break;
    }
    if (u < flowers) {
      // Flowers grow in patches of one kind: the kind is a hash of the 8 x 8-block cell.
      const bool poppy = hash2(m_plant_seed ^ 0xF10E5ull, x >> 3, z >> 3) & 1;
      id = poppy ? b.poppy : b.dandelion;
      tall = 1;
    } else if (u < flowers + grass) {
      id = b.tall_grass;
      tall = 1;
    }
  } else if (ground == b.sand && s.biome == Biome::kDesert && u < 0.006) {
    id = b.cactus;
    tall = 1 + static_cast<int>((hh >> 40) % 3);
  }
}

void FeaturePlacer::place_plants(ColumnWork& w) const {
  for (int lz = 0; lz < kColumnWidth; ++lz)
    for (int lx = 0; lx < kColumnWidth; ++lx) {
      const TerrainSample& s = w.sample(lx, lz);
      const int h = s.height;
      if (h < kSeaLevel || h + 4 > kMaxY) continue;
      const uint32_t ground = w.at(lx, h, lz) & 0xFFFF;
      if (w.at(lx, h + 1, lz) != kAir.packed()) continue;
      uint16_t id = 0;
      int tall = 0;
      decide_plant(w.x0 + lx, w.z0 + lz, s, static_cast<uint16_t>(ground), id, tall);
      for (int y = h + 1; y <= h + tall; ++y) {
        uint32_t& c = w.at(lx, y, lz);
        if (c != kAir.packed()) break;
        c = Cell{id, 0}.packed();
      }
    }
}

void FeaturePlacer::tree_origin(int64_t gx, int64_t gz, int64_t& x, int64_t& z) const {
  const uint64_t h = hash2(m_tree_seed, gx, gz);
  x = static_cast<int64_t>(static_cast<uint64_t>(gx) << kTreeGridShift) + static_cast<int64_t>(h & 3);
  z = static_cast<int64_t>(static_cast<uint64_t>(gz) << kTreeGridShift) + static_cast<int64_t>((h >> 2) & 3);
}

bool FeaturePlacer::decide_tree(int64_t gx, int64_t gz, const TerrainSample& s, int slope, bool check_caves,
                                PlannedTree& t) const {
  const uint64_t h = hash2(m_tree_seed, gx, gz);
  int64_t x = 0, z = 0;
  tree_origin(gx, gz, x, z);
  double chance = 0;
  switch (s.biome) {
    case Biome::kForest: chance = 0.55; break;
    case Biome::kPlains: chance = 0.03; break;
    case Biome::kSnowyTundra: chance = 0.09; break;
    case Biome::kMountains: chance = s.height < 150 ? 0.14 : 0; break;
    default: break;
  }
  if (static_cast<double>((h >> 8) & 0xFFFF) >= chance * 65536.0) return false;
  if (s.height < kSeaLevel || s.height + 14 > kMaxY) return false;
  // Soil at the origin, decided from pure functions of (x, z): the surface rules and the cave shape.
  const SurfaceLayers L = m_surface.layers(x, z, s, slope);
  if (L.top != m_ids.grass && L.top != m_ids.dirt && L.top != m_ids.snow) return false;
  // No tree next to a structure (its region's plan, a pure function of seed and region).
  if (m_structures != nullptr && m_structures->tree_blocked(x, z)) return false;
  if (check_caves) {
    if (m_caves.carved_point(x, s.height, z, s.height) || m_caves.carved_point(x, s.height - 1, z, s.height))
      return false;
    if (!m_caves.ravine(x, z, s.height).empty()) return false;
  }
  t.x = x;
  t.z = z;
  t.base = s.height + 1;
  t.hash = h;
  const int r = static_cast<int>((h >> 32) & 0xFF);
  switch (s.biome) {
    case Biome::kForest: t.kind = ((h >> 24) & 0xFF) < 80 ? 1 : 0; break;
    case Biome::kPlains: t.kind = 0; break;
    default: t.kind = 2; break;
  }
  switch (t.kind) {
    case 0: t.height = 4 + r % 3; break;
    case 1: t.height = 5 + r % 3; break;
    default: t.height = 6 + r % 4; break;
  }
  return true;
}

bool FeaturePlacer::plan_tree(const ColumnWork& w, int64_t gx, int64_t gz, PlannedTree& t) const {
  int64_t x = 0, z = 0;
  tree_origin(gx, gz, x, z);
  const int lx = static_cast<int>(x - w.x0), lz = static_cast<int>(z - w.z0);
  if (lx < -kTreeReach || lx >= kColumnWidth + kTreeReach || lz < -kTreeReach || lz >= kColumnWidth + kTreeReach)
    return false;
  return decide_tree(gx, gz, w.sample(lx, lz), w.slope(lx, lz), true, t);
}

void FeaturePlacer::write_tree(ColumnWork& w, const PlannedTree& t) const {
  const BlockIds& b = m_ids;
  uint16_t log = b.oak_log, leaves = b.oak_leaves;
  if (t.kind == 1) log = b.birch_log, leaves = b.birch_leaves;
  if (t.kind == 2) log = b.spruce_log, leaves = b.spruce_leaves;
  const uint32_t log_cell = Cell{log, state::make_axis(0)}.packed();
  const uint32_t leaf_cell = Cell{leaves, 0}.packed();
  const int tlx = static_cast<int>(t.x - w.x0), tlz = static_cast<int>(t.z - w.z0);
  const int top = t.base + t.height - 1;  // highest log

  for_each_leaf(t, [&](int dx, int y, int dz) {
    const int lx = tlx + dx, lz = tlz + dz;
    if (!in_column(lx, lz) || !y_in_range(y)) return;
    uint32_t& c = w.at(lx, y, lz);
    if (c == kAir.packed() || b.is_plant(c)) c = leaf_cell;
  });
  if (in_column(tlx, tlz))
    for (int y = t.base; y <= top; ++y) {
      uint32_t& c = w.at(tlx, y, tlz);
      if (c == kAir.packed() || b.is_plant(c) || b.is_leaves(c)) c = log_cell;
    }
}

void FeaturePlacer::place_trees(ColumnWork& w) const {
  const int64_t gx0 = (w.x0 - kTreeReach) >> kTreeGridShift, gx1 = (w.x0 + kColumnWidth - 1 + kTreeReach) >> kTreeGridShift;
  const int64_t gz0 = (w.z0 - kTreeReach) >> kTreeGridShift, gz1 = (w.z0 + kColumnWidth - 1 + kTreeReach) >> kTreeGridShift;
  PlannedTree t;
  for (int64_t gz = gz0; gz <= gz1; ++gz)
    for (int64_t gx = gx0; gx <= gx1; ++gx)
      if (plan_tree(w, gx, gz, t)) write_tree(w, t);
}

}  // namespace voxen::gen
