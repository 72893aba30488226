// Structure planning and cells (voxen/gen/structures.h; docs/ARCHITECTURE.md, "Structures").
#include "voxen/gen/structures.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "voxen/core/coords.h"
#include "voxen/core/hash.h"

namespace voxen::gen {
namespace {

// Village layout (blocks, from the village origin): plots every 16 blocks in a 3 x 3 grid (the middle one is the
// plaza), streets along x, z = +-kStreet out to +-kVillageReach.
constexpr int64_t kPlot = 16;
constexpr int64_t kStreet = 8;
constexpr int64_t kVillageReach = 24;
// Wall height above the floor (the floor slab at `floor`, walls floor + 1 .. floor + 4, the roof from floor + 5).
constexpr int kWallTop = 4;
// The highest roof cell above a house floor: 5 + half the roof depth (depth <= 9 with the eaves).
constexpr int kRoofReach = 9;

uint64_t next_serial() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

}  // namespace

std::string_view structure_kind_name(StructureKind k) {
  switch (k) {
    case StructureKind::kVillage: return "village";
    case StructureKind::kTower: return "tower";
    case StructureKind::kRuin: return "ruin";
    case StructureKind::kZiggurat: return "ziggurat";
  }
  return "unknown";
}

struct StructurePlanner::Impl {
  uint64_t small_seed, mega_seed, cell_seed;
  uint64_t serial;
  TerrainModel model;
  // Block ids.
  uint16_t planks, glass, oak_stairs, oak_slab, oak_log, cobblestone, mossy_cobblestone, gravel, stone_bricks,
      mossy_stone_bricks, stone_brick_stairs, sandstone, red_sandstone, glowstone, lamps[3];

  Impl(uint64_t seed, const BlockRegistry& r)
      : small_seed(derive_seed(seed, 0x91)),
        mega_seed(derive_seed(seed, 0x92)),
        cell_seed(derive_seed(seed, 0x93)),
        serial(next_serial()),
        model(seed),
        planks(r.id("planks")),
        glass(r.id("glass")),
        oak_stairs(r.id("oak_stairs")),
        oak_slab(r.id("oak_slab")),
        oak_log(r.id("oak_log")),
        cobblestone(r.id("cobblestone")),
        mossy_cobblestone(r.id("mossy_cobblestone")),
        gravel(r.id("gravel")),
        stone_bricks(r.id("stone_bricks")),
        mossy_stone_bricks(r.id("mossy_stone_bricks")),
        stone_brick_stairs(r.id("stone_brick_stairs")),
        sandstone(r.id("sandstone")),
        red_sandstone(r.id("red_sandstone")),
        glowstone(r.id("glowstone")),
        lamps{r.id("red_lamp"), r.id("green_lamp"), r.id("blue_lamp")} {}

  // --- Memo: the last plans of this thread, direct-mapped by (grid, region), 512 entries (a level-5 far-view stack
  // meets about 25 regions; 64 entries were evicted between stacks). Plans are pure, so a hit returns
  // exactly what planning again would.
  struct MemoEntry {
    uint64_t owner = 0;  // serial of the planner (0: empty)
    bool mega = false;
    int64_t rx = 0, rz = 0;
    std::optional<Structure> s;
  };
  static constexpr size_t kMemo = 512;
  static std::array<MemoEntry, kMemo>& memo() {
    thread_local std::array<MemoEntry, kMemo> m;
    return m;
  }
  const std::optional<Structure>& cached(bool mega, int64_t rx, int64_t rz) const {
    MemoEntry& e = memo()[static_cast<size_t>(hash2(mega ? 1 : 0, rx, rz) & (kMemo - 1))];
    if (e.owner == serial && e.mega == mega && e.rx == rx && e.rz == rz) return e.s;
    // Planned into a local first: planning a small region looks its mega region up, which may reuse this slot.
    std::optional<Structure> planned = mega ? plan_mega(rx, rz) : plan_small(rx, rz);
    e.owner = 0;
    e.s = std::move(planned);
    e.mega = mega;
    e.rx = rx;
    e.rz = rz;
    e.owner = serial;
    return e.s;
  }

  std::optional<Structure> plan_mega(int64_t mx, int64_t mz) const;
  std::optional<Structure> plan_small(int64_t rx, int64_t rz) const;
  void plan_village(Structure& s) const;
  void plan_tower(Structure& s, bool ruin) const;

  void span(const Structure& s, int64_t x, int64_t z, int ground, int& lo, int& hi) const;
  bool cell(const Structure& s, int64_t x, int64_t y, int64_t z, int ground, Cell& out) const;
  bool village_cell(const Structure& s, int64_t x, int64_t y, int64_t z, int ground, Cell& out) const;
  bool tower_cell(const Structure& s, int64_t x, int64_t y, int64_t z, int ground, Cell& out) const;
  bool ziggurat_cell(const Structure& s, int64_t x, int64_t y, int64_t z, int ground, Cell& out) const;
  int ziggurat_top(const Structure& s, int64_t x, int64_t z) const;
};

// --- Planning -----------------------------------------------------------------------------------------------

std::optional<Structure> StructurePlanner::Impl::plan_mega(int64_t mx, int64_t mz) const {
  const uint64_t h = hash2(mega_seed, mx, mz);
  if (h % 3 != 0) return std::nullopt;  // about one mega region in three
  HashStream st(h);
  st.next();
  Structure s;
  s.kind = StructureKind::kZiggurat;
  s.region_x = mx;
  s.region_z = mz;
  s.hash = h;
  s.radius = 72 + static_cast<int>(st.below(40));
  s.step = 4;
  // Origin inside the region with room for the footprint: 256 .. 1791 from the region's corner.
  s.x = mx * kMegaRegionSize + 256 + static_cast<int64_t>(st.below(1536));
  s.z = mz * kMegaRegionSize + 256 + static_cast<int64_t>(st.below(1536));
  const TerrainSample c = model.sample(s.x, s.z);
  if (c.height <= kSeaLevel) return std::nullopt;  // stands on land
  s.base = c.height;
  // Terraces rise 6 blocks for every `step` (4) inwards, up to 6 blocks under the world's top.
  s.height = std::min(6 * (s.radius / s.step + 1), kMaxY - 6 - s.base);
  if (s.height < 40) return std::nullopt;  // the land is too high for a landmark
  // Lowest ground under the footprint on a 16-block grid (a bound for the box; the writer clips to the box).
  int low = s.base;
  const int n = 2 * s.radius / 16 + 1;
  std::vector<TerrainSample> g(static_cast<size_t>(n * n));
  model.sample_grid(s.x - s.radius, s.z - s.radius, 16, n, n, g.data());
  for (const TerrainSample& t : g) low = std::min(low, t.height);
  s.box = BlockBox{s.x - s.radius, std::max<int64_t>(kMinY + 5, low - 24), s.z - s.radius,
                   s.x + s.radius, s.base + s.height + 1, s.z + s.radius};
  return s;
}

std::optional<Structure> StructurePlanner::Impl::plan_small(int64_t rx, int64_t rz) const {
  const uint64_t h = hash2(small_seed, rx, rz);
  HashStream st(h);
  Structure s;
  s.region_x = rx;
  s.region_z = rz;
  s.hash = h;
  // Origin 40 .. 215 blocks into the region: a village (reach 24 + eaves) or tower stays inside it.
  s.x = rx * kRegionSize + 40 + static_cast<int64_t>(st.below(176));
  s.z = rz * kRegionSize + 40 + static_cast<int64_t>(st.below(176));
  const int roll = static_cast<int>(st.below(100));
  // Nothing where a megastructure stands (its box plus 16 blocks meets this region).
  const int64_t mx = rx >> (kMegaRegionShift - kRegionShift), mz = rz >> (kMegaRegionShift - kRegionShift);
  if (const std::optional<Structure>& m = cached(true, mx, mz)) {
    const int64_t x0 = rx * kRegionSize, z0 = rz * kRegionSize;
    const BlockBox mega_box = m->box;  // copied at once: the memo slot may be reused below
    if (mega_box.intersects_xz(x0 - 16, z0 - 16, x0 + kRegionSize + 15, z0 + kRegionSize + 15)) return std::nullopt;
  }
  // The terrain at the origin and at 8 points 20 blocks around it.
  const TerrainSample c = model.sample(s.x, s.z);
  int lo = c.height, hi = c.height;
  for (int k = 0; k < 8; ++k) {
    static constexpr int kDx[8] = {-20, 0, 20, -20, 20, -20, 0, 20}, kDz[8] = {-20, -20, -20, 0, 0, 20, 20, 20};
    const int t = model.sample(s.x + kDx[k], s.z + kDz[k]).height;
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  if (lo <= kSeaLevel + 1) return std::nullopt;  // dry land only
  s.base = c.height;
  const bool land_biome = c.biome == Biome::kPlains || c.biome == Biome::kForest || c.biome == Biome::kDesert ||
                          c.biome == Biome::kSnowyTundra;
  if (land_biome && hi - lo <= 6 && roll < 45) {
    s.kind = StructureKind::kVillage;
    plan_village(s);
    return s;
  }
  if ((c.height >= 90 || hi - lo >= 10) && roll < 40) {
    const bool ruin = (h >> 40) & 1;
    s.kind = ruin ? StructureKind::kRuin : StructureKind::kTower;
    plan_tower(s, ruin);
    return s;
  }
  return std::nullopt;
}

void StructurePlanner::Impl::plan_village(Structure& s) const {
  HashStream st(s.hash ^ 0x7111A6Eull);
  s.street = kStreet;
  int top = s.base;
  // Houses on the eight plots around the plaza, each with probability 3/4.
  for (int j = -1; j <= 1; ++j)
    for (int i = -1; i <= 1; ++i) {
      const uint64_t r = st.next();
      if (i == 0 && j == 0) continue;
      if ((r & 3) == 0) continue;
      const int hx = 2 + static_cast<int>((r >> 2) & 1), hz = 2 + static_cast<int>((r >> 3) & 1);
      const int64_t jx = static_cast<int64_t>((r >> 8) % 5) - 2, jz = static_cast<int64_t>((r >> 16) % 5) - 2;
      const int64_t cx = s.x + i * kPlot + jx, cz = s.z + j * kPlot + jz;
      House hs;
      hs.x0 = cx - hx;
      hs.x1 = cx + hx;
      hs.z0 = cz - hz;
      hs.z1 = cz + hz;
      hs.floor = model.sample(cx, cz).height;
      // The door faces the nearest street: the plots east and west of the plaza column open to x = +-kStreet,
      // the middle column's to z = +-kStreet.
      hs.door = i > 0 ? 3 : i < 0 ? 1 : j > 0 ? 0 : 2;
      top = std::max(top, hs.floor + kRoofReach);
      s.houses.push_back(hs);
    }
  // Lamp posts at the four street crossings (one block off the paths) and in the plaza's middle.
  static constexpr int64_t kLampAt[5][2] = {{0, 0}, {-9, -9}, {9, -9}, {-9, 9}, {9, 9}};
  for (const auto& p : kLampAt) {
    LampPost l;
    l.x = s.x + p[0];
    l.z = s.z + p[1];
    l.ground = model.sample(l.x, l.z).height;
    l.lamp = lamps[st.below(3)];
    top = std::max(top, l.ground + 3);
    s.lamps.push_back(l);
  }
  // The lowest ground of the village square (paths and foundations go down to it).
  const int64_t reach = kVillageReach + 1;
  int low = s.base;
  std::vector<TerrainSample> g(static_cast<size_t>((2 * reach + 1) * (2 * reach + 1)));
  model.sample_area(s.x - reach, s.z - reach, static_cast<int>(2 * reach + 1), static_cast<int>(2 * reach + 1), g.data());
  for (const TerrainSample& t : g) low = std::min(low, t.height);
  s.box = BlockBox{s.x - reach, low, s.z - reach, s.x + reach, top, s.z + reach};
}

void StructurePlanner::Impl::plan_tower(Structure& s, bool ruin) const {
  HashStream st(s.hash ^ 0x70E4ull);
  s.radius = 3 + static_cast<int>(st.below(2));
  s.height = ruin ? 8 + static_cast<int>(st.below(7)) : 16 + static_cast<int>(st.below(11));
  const int n = 2 * s.radius + 1;
  std::vector<TerrainSample> g(static_cast<size_t>(n * n));
  model.sample_area(s.x - s.radius, s.z - s.radius, n, n, g.data());
  int low = s.base;
  for (const TerrainSample& t : g) low = std::min(low, t.height);
  s.box = BlockBox{s.x - s.radius, low, s.z - s.radius, s.x + s.radius, s.base + s.height + 2, s.z + s.radius};
}

// --- Cells ----------------------------------------------------------------------------------------------------

// The y range the structure may write in block column (x, z) with ground `ground` (lo > hi: nothing), before
// clipping to the box.
void StructurePlanner::Impl::span(const Structure& s, int64_t x, int64_t z, int ground, int& lo, int& hi) const {
  lo = 1;
  hi = 0;
  if (!s.box.contains_xz(x, z)) return;
  switch (s.kind) {
    case StructureKind::kVillage:
      lo = ground;
      hi = ground + 3;
      for (const House& h : s.houses)
        if (x >= h.x0 - 1 && x <= h.x1 + 1 && z >= h.z0 - 1 && z <= h.z1 + 1) {
          lo = std::min(lo, h.floor);
          hi = std::max(hi, h.floor + kRoofReach);
        }
      return;
    case StructureKind::kTower:
    case StructureKind::kRuin:
      lo = std::min(ground, s.base);
      hi = s.base + s.height + 2;
      return;
    case StructureKind::kZiggurat:
      lo = std::min(ground, s.base);
      hi = ziggurat_top(s, x, z) + 1;
      return;
  }
}

bool StructurePlanner::Impl::cell(const Structure& s, int64_t x, int64_t y, int64_t z, int ground, Cell& out) const {
  if (!s.box.contains_xz(x, z) || y < s.box.y0 || y > s.box.y1) return false;
  switch (s.kind) {
    case StructureKind::kVillage: return village_cell(s, x, y, z, ground, out);
    case StructureKind::kTower:
    case StructureKind::kRuin: return tower_cell(s, x, y, z, ground, out);
    case StructureKind::kZiggurat: return ziggurat_cell(s, x, y, z, ground, out);
  }
  return false;
}

bool StructurePlanner::Impl::village_cell(const Structure& s, int64_t x, int64_t y, int64_t z, int ground,
                                          Cell& out) const {
  // Lamp posts: two cobblestone blocks on the ground, the lamp on top.
  for (const LampPost& l : s.lamps)
    if (x == l.x && z == l.z && y > ground && y <= ground + 3) {
      out = Cell{y == ground + 3 ? l.lamp : cobblestone, 0};
      return true;
    }
  // Houses (with their roof's overhang of one block).
  for (const House& h : s.houses) {
    if (x < h.x0 - 1 || x > h.x1 + 1 || z < h.z0 - 1 || z > h.z1 + 1) continue;
    const int f = h.floor;
    const bool inside_walls = x >= h.x0 && x <= h.x1 && z >= h.z0 && z <= h.z1;
    if (inside_walls && y < f) {
      if (y < ground) return false;
      out = Cell{cobblestone, 0};  // foundation down to the ground
      return true;
    }
    if (inside_walls && y == f) {
      out = Cell{oak_slab, state::kHalfBit};  // a top-half slab: flush floor
      return true;
    }
    if (y > f && y <= f + kWallTop) {
      if (!inside_walls) {
        // Slab eaves along the gable ends under the roof's overhang.
        if (y == f + kWallTop && (x == h.x0 - 1 || x == h.x1 + 1) && z >= h.z0 && z <= h.z1) {
          out = Cell{oak_slab, state::kHalfBit};
          return true;
        }
        continue;
      }
      const bool wx = x == h.x0 || x == h.x1, wz = z == h.z0 || z == h.z1;
      if (!wx && !wz) {
        out = kAir;  // the room
        return true;
      }
      if (wx && wz) {
        out = Cell{oak_log, 0};
        return true;
      }
      // Door gap: two blocks high in the middle of the door's wall.
      const int64_t mx = (h.x0 + h.x1) / 2, mz = (h.z0 + h.z1) / 2;
      const bool on_door_wall = (h.door == 0 && z == h.z0) || (h.door == 2 && z == h.z1) ||
                                (h.door == 1 && x == h.x1) || (h.door == 3 && x == h.x0);
      const int64_t along = wz ? x - h.x0 : z - h.z0;
      if (on_door_wall && (wz ? x == mx : z == mz) && y <= f + 2) {
        out = kAir;
        return true;
      }
      // Windows: glass at heights 2 and 3 on every other wall block.
      if ((y == f + 2 || y == f + 3) && (along % 2) == 0 && !(on_door_wall && (wz ? x == mx : z == mz))) {
        out = Cell{glass, 0};
        return true;
      }
      out = Cell{planks, 0};
      return true;
    }
    if (y > f + kWallTop) {
      // Gable roof along x: layer k at y = f + 5 + k, stair rows at z = z0 - 1 + k (facing south: back to the
      // ridge) and z1 + 1 - k (facing north), a slab ridge where they meet; plank gables at x0 and x1 between.
      const int k = static_cast<int>(y - f - kWallTop - 1);
      const int64_t zn = h.z0 - 1 + k, zs = h.z1 + 1 - k;
      if (zn > zs) continue;
      if (zn == zs) {
        if (z == zn) {
          out = Cell{oak_slab, 0};
          return true;
        }
        continue;
      }
      if (z == zn) {
        out = Cell{oak_stairs, 2};
        return true;
      }
      if (z == zs) {
        out = Cell{oak_stairs, 0};
        return true;
      }
      if (z > zn && z < zs && x >= h.x0 && x <= h.x1) {
        out = (x == h.x0 || x == h.x1) ? Cell{planks, 0} : kAir;
        return true;
      }
      continue;
    }
  }
  // Paths: gravel at the ground (the plants above cleared) along the streets and from each door to its street.
  if (y < ground || y > ground + 2) return false;
  const int64_t dx = x - s.x, dz = z - s.z;
  bool path = (std::abs(dx) == s.street && std::abs(dz) <= kVillageReach) ||
              (std::abs(dz) == s.street && std::abs(dx) <= kVillageReach);
  for (const House& h : s.houses) {
    if (path) break;
    const int64_t mx = (h.x0 + h.x1) / 2, mz = (h.z0 + h.z1) / 2;
    switch (h.door) {
      case 0: path = x == mx && z < h.z0 && z >= s.z + s.street; break;
      case 2: path = x == mx && z > h.z1 && z <= s.z - s.street; break;
      case 1: path = z == mz && x > h.x1 && x <= s.x - s.street; break;
      case 3: path = z == mz && x < h.x0 && x >= s.x + s.street; break;
    }
  }
  if (!path) return false;
  out = y == ground ? Cell{gravel, 0} : kAir;
  return true;
}

bool StructurePlanner::Impl::tower_cell(const Structure& s, int64_t x, int64_t y, int64_t z, int ground,
                                        Cell& out) const {
  const bool ruin = s.kind == StructureKind::kRuin;
  const int64_t dx = x - s.x, dz = z - s.z;
  const int64_t d = std::max(std::abs(dx), std::abs(dz));
  if (d > s.radius) return false;
  const int base = s.base, top = s.base + s.height;
  const uint64_t hc = hash3(cell_seed ^ s.hash, x, y, z);
  const uint16_t wall = ruin ? ((hc >> 8) % 3 == 0 ? mossy_cobblestone : cobblestone)
                             : ((hc >> 8) % 5 == 0 ? mossy_stone_bricks : stone_bricks);
  if (y < std::min(ground, base)) return false;
  if (y <= base) {  // foundation and ground floor
    out = Cell{wall, 0};
    return true;
  }
  // Broken: a ruin's walls end at a hashed height per block column and lose a fifth of their blocks; a tower
  // loses one block in 25 above its fourth layer.
  const int col_top = ruin ? top - static_cast<int>(hash2(cell_seed ^ s.hash, x, z) % static_cast<uint64_t>(s.height / 2 + 1)) : top;
  const bool missing = ruin ? (hc % 100) < 20 : (y > base + 4 && (hc % 100) < 4);
  if (d == s.radius) {
    if (y > col_top + (ruin ? 0 : ((dx + dz) % 2 == 0 ? 1 : 0))) return false;  // crenellations on a tower
    if (missing) return false;
    // Door (south wall middle, two high) and windows (the middle of each wall every fourth layer).
    if (dz == s.radius && dx == 0 && y <= base + 2) {
      out = kAir;
      return true;
    }
    if ((dx == 0 || dz == 0) && (y - base) % 4 == 3) {
      out = kAir;
      return true;
    }
    out = Cell{wall, 0};
    return true;
  }
  // Inside: air up to the top (a tower has a floor at its top with a lamp standing in the middle).
  if (!ruin && y == top) {
    out = Cell{wall, 0};
    return true;
  }
  if (!ruin && y == top + 1) {
    if (dx != 0 || dz != 0) return false;
    out = Cell{lamps[s.hash % 3], 0};
    return true;
  }
  if (y < top) {
    out = kAir;
    return true;
  }
  return false;
}

int StructurePlanner::Impl::ziggurat_top(const Structure& s, int64_t x, int64_t z) const {
  const int64_t d = std::max(std::abs(x - s.x), std::abs(z - s.z));
  if (d > s.radius) return kMinY - 1;
  const int terraces = static_cast<int>((s.radius - d) / s.step) + 1;
  return s.base + std::min(6 * terraces, s.height);
}

bool StructurePlanner::Impl::ziggurat_cell(const Structure& s, int64_t x, int64_t y, int64_t z, int ground,
                                           Cell& out) const {
  const int top = ziggurat_top(s, x, z);
  if (top < kMinY) return false;
  const bool desert = (s.hash >> 20) % 3 == 0;
  const int64_t dx = x - s.x, dz = z - s.z;
  const int64_t d = std::max(std::abs(dx), std::abs(dz));
  if (y == top + 1) {
    // A glowstone beacon on the summit's middle and lamps at each terrace's corners.
    if (d <= 1) {
      out = Cell{glowstone, 0};
      return true;
    }
    const int64_t ring = (s.radius - d) % s.step;
    if (ring == 0 && std::abs(dx) == std::abs(dz) && top < s.base + s.height) {
      out = Cell{lamps[static_cast<size_t>(((s.radius - d) / s.step) % 3)], 0};
      return true;
    }
    return false;
  }
  if (y > top || y < std::min<int64_t>(ground, s.base)) return false;
  // A stair up the middle of each side.
  if ((dx == 0 || dz == 0) && y == top && top < s.base + s.height) {
    const uint8_t facing = dx == 0 ? (dz > 0 ? 0 : 2) : (dx > 0 ? 3 : 1);  // back toward the summit
    out = Cell{stone_brick_stairs, facing};
    return true;
  }
  if (y == top)
    out = Cell{desert ? red_sandstone : mossy_stone_bricks, 0};
  else
    out = Cell{desert ? sandstone : stone_bricks, 0};
  return true;
}

// --- Public -------------------------------------------------------------------------------------------------

StructurePlanner::StructurePlanner(uint64_t seed, const BlockRegistry& registry)
    : m_impl(std::make_unique<Impl>(seed, registry)) {}
StructurePlanner::~StructurePlanner() = default;

std::optional<Structure> StructurePlanner::plan(int64_t rx, int64_t rz) const { return m_impl->cached(false, rx, rz); }
std::optional<Structure> StructurePlanner::plan_mega(int64_t mx, int64_t mz) const {
  return m_impl->cached(true, mx, mz);
}

void StructurePlanner::find(int64_t x0, int64_t z0, int64_t x1, int64_t z1, std::vector<Structure>& out) const {
  if (x1 < x0 || z1 < z0) return;
  for (int64_t mz = z0 >> kMegaRegionShift; mz <= (z1 >> kMegaRegionShift); ++mz)
    for (int64_t mx = x0 >> kMegaRegionShift; mx <= (x1 >> kMegaRegionShift); ++mx) {
      const std::optional<Structure>& s = m_impl->cached(true, mx, mz);
      if (s && s->box.intersects_xz(x0, z0, x1, z1)) out.push_back(*s);
    }
  for (int64_t rz = z0 >> kRegionShift; rz <= (z1 >> kRegionShift); ++rz)
    for (int64_t rx = x0 >> kRegionShift; rx <= (x1 >> kRegionShift); ++rx) {
      const std::optional<Structure>& s = m_impl->cached(false, rx, rz);
      if (s && s->box.intersects_xz(x0, z0, x1, z1)) out.push_back(*s);
    }
}

bool StructurePlanner::cell_at(const Structure& s, int64_t x, int64_t y, int64_t z, int ground, Cell& out) const {
  return m_impl->cell(s, x, y, z, ground, out);
}

void StructurePlanner::span(const Structure& s, int64_t x, int64_t z, int ground, int& lo, int& hi) const {
  m_impl->span(s, x, z, ground, lo, hi);
  lo = static_cast<int>(std::max<int64_t>({lo, s.box.y0, kMinY}));
  hi = static_cast<int>(std::min<int64_t>({hi, s.box.y1, kMaxY}));
}

StructureTop StructurePlanner::top_at(const Structure& s, int64_t x, int64_t z, int ground) const {
  StructureTop t;
  t.y = kMinY - 1;
  int lo = 0, hi = -1;
  span(s, x, z, ground, lo, hi);
  for (int y = hi; y >= lo; --y) {
    Cell c;
    if (m_impl->cell(s, x, y, z, ground, c) && c.id != kAirId) {
      t.y = y;
      t.cell = c;
      return t;
    }
  }
  return t;
}

bool StructurePlanner::tree_blocked(int64_t x, int64_t z) const {
  constexpr int64_t r = kTreeClearance;
  // A structure's box lies inside its region: only the regions the clearance square meets can hold one.
  for (int64_t mz = (z - r) >> kMegaRegionShift; mz <= ((z + r) >> kMegaRegionShift); ++mz)
    for (int64_t mx = (x - r) >> kMegaRegionShift; mx <= ((x + r) >> kMegaRegionShift); ++mx) {
      const std::optional<Structure>& s = m_impl->cached(true, mx, mz);
      if (s && s->box.intersects_xz(x - r, z - r, x + r, z + r)) return true;
    }
  for (int64_t rz = (z - r) >> kRegionShift; rz <= ((z + r) >> kRegionShift); ++rz)
    for (int64_t rx = (x - r) >> kRegionShift; rx <= ((x + r) >> kRegionShift); ++rx) {
      const std::optional<Structure>& s = m_impl->cached(false, rx, rz);
      if (s && s->box.intersects_xz(x - r, z - r, x + r, z + r)) return true;
    }
  return false;
}

}  // namespace voxen::gen
