// The coarse terrain path (voxen/lod/coarse.h). Method, per level-L LOD section (docs/ARCHITECTURE.md, "Far view
// (LOD)", "Coarse terrain"):
//
//  1. Virtual columns. The section and its one-cell border (cells -1..32 in x and z) are covered by a grid of
//     virtual columns, n = 2^L / s per cell side, each standing for an s x s patch of block columns, s =
//     max(1, 2^L / 4), except level 5, which takes level 4's s = 4 (so n = 1, 2, 4, 4, 4, 8, 4, 4 ... for L = 0,
//     1, ...): level 5's cells are then exactly the Mipper over the coarse level-4 cells, which agree with full
//     columns in >= 99% of cells (with s = 8 level 5 agreed in 97.8-98.2%, at a third of the cost); levels 6..8,
//     beyond the default pyramid and the sample, keep 2^L / 4 and its cost.
//     Each takes the terrain sample at one block
//     column of its patch (TerrainModel::sample_grid, bit-identical to sample()): the patch's last block (highest
//     x and z, the column the Mipper keeps when tops tie) at s <= 4, its first at s >= 8 (where the terrain model's
//     lattice nodes fall on the samples: a quarter of the cost); its slope (largest step to the next virtual
//     columns, per block) and the generator's surface layers there (gen::SurfaceModel). At s >= 2 it also
//     estimates the patch's highest ground: the heights at the patch's four corners, bilinear between its own
//     sample and its neighbours', with the surface layers at the highest corner for that height. Where a ravine
//     opens the whole patch to the sky (all four corners), its ground is the highest corner's floor. At s = 1 (levels
//     0..2) virtual columns are block columns and everything below is exact except caves, ravines and ores.
//  2. Features above the ground, per virtual column, 32 slots y = height + 1 .. height + 32: plants (the
//     generator's own decision), then trees in the generator's order (grid cell z, then x): at s <= 4 every leaf
//     and log as the feature placer writes them into the virtual column of its patch (a leaf only into an empty
//     slot or a plant, a log also over leaves), the origin's sample being its virtual column's; at s >= 8 a tree
//     is its trunk's virtual column only, logs up to 3 below the top log and leaves from there to one above it (a
//     canopy narrower than a virtual column).
//  2b. Structures (gen/structures.h), from their own cells: per virtual column the highest structure cell of its
//     patch (StructurePlanner::top_at on every block column of the patch at s <= 4, a 4 x 4 grid of them above),
//     and in step 3, per cell and virtual column, the structure's highest non-air cell within the cell's y range
//     in that block column (cell_at), kept when it is at or above the terrain's candidate.
//  3. The Mipper, evaluated directly: a level-L cell of full columns keeps, among its non-air blocks, the one of
//     highest opacity, ties going to the highest Morton key of its local (y, z, x) with y most significant (the
//     child index dx | dz << 1 | dy << 2 applied level by level). Within one column a higher y always has the
//     higher key, so per virtual column only its highest block of each opacity within the cell's y range
//     competes: the terrain (top block, or the block at the cell's top y when the ground rises above the cell;
//     above the sampled column's own ground, the estimated highest ground of the patch), the highest feature
//     slot, the water or ice surface. A virtual column's blocks sit at its patch's last (x, z) position, the
//     highest key of the patch (between two patches of a cell only the top two y bits and the patches' own
//     positions are compared, so where inside its patch a block lies decides nothing).
//  4. Light, the value full columns give the winner under open sky: opaque blocks 0; air sky 15; water and ice
//     sky 15 - (1 + opacity) per block from the surface down (12, 9, ...); leaves 13; plants 15.
//
// The flat generator is exact: its world repeats every 64 blocks in x and z, so one 64 x 64 tile is generated and
// lit once (with its eight neighbours around it, so block light crossing tile borders is included) and mipped
// with periodic wrap; build() reads that pyramid.
#include "voxen/lod/coarse.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <mutex>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/gen/generator.h"
#include "voxen/gen/surface_model.h"
#include "voxen/light/light.h"
#include "voxen/world/world.h"

namespace voxen::lod {
namespace {

// Feature slots per virtual column: y = height + 1 .. height + kSlots (trees are at most 10 logs and a leaf).
constexpr int kSlots = 32;

// The flat world's period and the y range its tile pyramid holds (level 0: y in [-256, 256)).
constexpr int kFlatTile = 64;
constexpr int kFlatY0 = -256;
constexpr int kFlatHeight = 512;

// Morton key of local (y, z, x), each `level` bits, y most significant at each bit (the Mipper's child order).
inline uint32_t morton(int level, uint32_t y, uint32_t z, uint32_t x) {
  uint32_t key = 0;
  for (int b = level - 1; b >= 0; --b) key = (key << 3) | (((y >> b) & 1u) << 2) | (((z >> b) & 1u) << 1) | ((x >> b) & 1u);
  return key;
}

inline int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }

// Per virtual column.
struct VCol {
  gen::StripeSurface st;
  gen::TerrainSample sample;
  int64_t x = 0, z = 0;  // world block of the sample (the patch's last block at s <= 4, its first at s >= 8)
  int ground = 0;        // top solid block after a ravine that reaches the surface (else st.height)
  bool ravine = false;   // a ravine's shape is here (no plant or tree)
  int feature_top = -1;  // highest used feature slot, -1 for none
  // The patch's highest ground as estimated from this and the next virtual columns' samples (>= ground; equal to
  // it at s = 1 and where a ravine lowered the ground), the corner it lies at and the stripe there (height top).
  int top = 0;
  int64_t top_x = 0, top_z = 0;
  gen::StripeSurface st_top;
  // Structures (gen/structures.h): the highest structure block of the patch, as sampled (y < kMinY: none), the
  // block column it lies in and the structure (index into Scratch::structures).
  int s_top = kMinY - 1;
  int64_t s_x = 0, s_z = 0;
  int s_index = -1;
};

struct Scratch {
  std::vector<gen::TerrainSample> samples;
  std::vector<VCol> cols;
  std::vector<uint16_t> slots;  // kSlots per virtual column, block id (0 = empty)
  std::vector<int> hmin, top;   // per cell column -1..32 (34 x 34, z major): lowest ground, highest block
  std::vector<gen::Structure> structures;  // those meeting the stack's virtual columns
  std::vector<uint8_t> has_structure;      // per cell column -1..32 (34 x 34): a virtual column holds a structure
};

// What prepare() worked out for one (level, x, z) stack; the virtual columns themselves are in the thread's Scratch.
struct Prepared {
  int L = 0, cell = 1, s = 1, n = 1, margin = 0, G = 0;
  int off = 0;  // the samples' offset in their patches, x and z (s - 1 or 0)
  int64_t sx = 0, sz = 0;
  int hmin_all = 0, top_all = 0;  // over the stack's cell columns, border included
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Set while build_stack() visits on this thread: the scratch then holds the stack's virtual columns, so build() or
// build_stack() on the same thread (from inside `visit`) would overwrite them.
thread_local bool t_in_stack = false;

}  // namespace

LodSection to_section(const PaddedLodSection& padded) {
  LodSection out(padded.get(0, 0, 0));
  std::array<LodCell, LodBrick::kVolume> cells;
  for (int b = 0; b < LodSection::kBricks; ++b) {
    const int bx = (b & 3) * 8, bz = ((b >> 2) & 3) * 8, by = (b >> 4) * 8;
    for (int y = 0; y < 8; ++y)
      for (int z = 0; z < 8; ++z)
        for (int x = 0; x < 8; ++x) cells[static_cast<size_t>(LodBrick::index(x, y, z))] = padded.get(bx + x, by + y, bz + z);
    LodBrick brick;
    brick.pack(cells.data());
    out.replace_brick(b, std::move(brick));
  }
  out.compact();
  return out;
}

namespace {

// A level-`level` (>= 4) cell from real columns: the Mipper over its 8 children down to level 4, whose cells are the
// columns' own (level-4 cell x, z = column x, z). `cols` holds the k x k columns of the cell's footprint
// (k = 2^(level - 4), index (z - oz) * k + (x - ox), level-4 cell units).
LodCell real_cell(const Mipper& mipper, int level, int64_t cx, int64_t cy, int64_t cz, const ColumnMips* const* cols,
                  int64_t k, int64_t ox, int64_t oz) {
  if (level == 4) return cols[static_cast<size_t>((cz - oz) * k + (cx - ox))]->get(4, cx, cy, cz);
  std::array<LodCell, 8> ch;
  for (int c = 0; c < 8; ++c)
    ch[static_cast<size_t>(c)] =
        real_cell(mipper, level - 1, 2 * cx + (c & 1), 2 * cy + (c >> 2), 2 * cz + ((c >> 1) & 1), cols, k, ox, oz);
  return mipper.mip(ch);
}

}  // namespace

uint32_t overlay_columns(PaddedLodSection& padded, const std::function<const ColumnMips*(ColumnPos)>& find,
                         const Mipper& mipper, std::vector<uint8_t>* real_xz) {
  if (real_xz != nullptr) real_xz->assign(static_cast<size_t>(PaddedLodSection::kSide) * PaddedLodSection::kSide, 0);
  const int level = padded.pos.level;
  const int64_t ox = padded.pos.x * 32, oy = padded.pos.y * 32, oz = padded.pos.z * 32;  // level-L cell of local 0
  const int64_t k = level > 4 ? int64_t{1} << (level - 4) : 1;                               // columns a side per cell
  std::vector<const ColumnMips*> cols(static_cast<size_t>(k * k));
  uint32_t written = 0;
  for (int z = -1; z <= 32; ++z)
    for (int x = -1; x <= 32; ++x) {
      const bool x_border = x < 0 || x > 31, z_border = z < 0 || z > 31;
      if (x_border && z_border) continue;  // the border's edges and corners are unused
      const int64_t cx = ox + x, cz = oz + z;
      // The columns under this (x, z): one at levels 0..4, k x k above.
      const int64_t c0x = level >= 4 ? cx * k : floor_div(cx, int64_t{16} >> level);
      const int64_t c0z = level >= 4 ? cz * k : floor_div(cz, int64_t{16} >> level);
      bool all = true;
      for (int64_t j = 0; j < k && all; ++j)
        for (int64_t i = 0; i < k && all; ++i) {
          const ColumnMips* m = find(ColumnPos{c0x + i, c0z + j});
          cols[static_cast<size_t>(j * k + i)] = m;
          all = m != nullptr;
        }
      if (!all) continue;
      if (real_xz != nullptr) (*real_xz)[static_cast<size_t>((z + 1) * PaddedLodSection::kSide + x + 1)] = 1;
      for (int y = -1; y <= 32; ++y) {
        if ((x_border || z_border) && (y < 0 || y > 31)) continue;
        const int64_t cy = oy + y;
        const LodCell v = level <= 4 ? cols[0]->get(level, cx, cy, cz)
                                     : real_cell(mipper, level, cx, cy, cz, cols.data(), k, c0x, c0z);
        padded.set(x, y, z, v);
        ++written;
      }
    }
  return written;
}

struct CoarseTerrain::Impl {
  const gen::Generator& generator;
  const BlockRegistry& registry;
  const Mipper& mipper;
  bool flat = false;
  std::unique_ptr<gen::SurfaceModel> model;  // the default generator's
  uint16_t water = 0, ice = 0;
  Light water_light_top = 0;
  int water_drop = 3, ice_drop = 3;  // sky light lost per block of water / ice: 1 + opacity
  // Per block id, what a tree may write over it: kPlant (cross-shaped), kLeaf (other cutout), else 0.
  static constexpr uint8_t kPlant = 1, kLeaf = 2;
  std::vector<uint8_t> feature_kind;

  // The flat world's periodic pyramid: level k holds side(k)^2 x (kFlatHeight >> k) cells, side(k) =
  // max(1, 64 >> k), index (y * side + z) * side + x.
  mutable std::once_flag flat_once;
  mutable std::vector<std::vector<LodCell>> flat_levels;

  Impl(const gen::Generator& g, const BlockRegistry& r, const Mipper& m) : generator(g), registry(r), mipper(m) {}

  static int flat_side(int level) { return std::max(1, kFlatTile >> level); }

  void build_flat() const {
    // Tiles -1..1 in x and z (columns -4..7), lit together; tile 0 (columns 0..3) is read.
    World world;
    std::vector<ColumnPos> positions;
    for (int64_t cx = -4; cx <= 7; ++cx)
      for (int64_t cz = -4; cz <= 7; ++cz) positions.push_back({cx, cz});
    for (auto& c : gen::generate_columns(generator, positions, nullptr)) world.insert(std::move(c));
    const light::LightTable table(registry);
    light::light_columns(world, table, positions, nullptr);
    flat_levels.resize(kMaxLevels);
    std::vector<LodCell>& l0 = flat_levels[0];
    l0.resize(static_cast<size_t>(kFlatTile) * kFlatTile * kFlatHeight);
    for (int y = 0; y < kFlatHeight; ++y)
      for (int z = 0; z < kFlatTile; ++z)
        for (int x = 0; x < kFlatTile; ++x) {
          const BlockPos p{x, kFlatY0 + y, z};
          const size_t i = (static_cast<size_t>(y) * kFlatTile + static_cast<size_t>(z)) * kFlatTile + static_cast<size_t>(x);
          l0[i] = y_in_range(p.y) ? LodCell::make(world.get(p), world.light(p)) : background_cell(0, p.y);
        }
    for (int k = 1; k < kMaxLevels; ++k) {
      const int side = flat_side(k), below = flat_side(k - 1), h = kFlatHeight >> k;
      const std::vector<LodCell>& src = flat_levels[static_cast<size_t>(k - 1)];
      std::vector<LodCell>& dst = flat_levels[static_cast<size_t>(k)];
      dst.resize(static_cast<size_t>(side) * side * static_cast<size_t>(h));
      std::array<LodCell, 8> ch;
      for (int y = 0; y < h; ++y)
        for (int z = 0; z < side; ++z)
          for (int x = 0; x < side; ++x) {
            for (int c = 0; c < 8; ++c) {
              const int cx = (2 * x + (c & 1)) % below, cz = (2 * z + ((c >> 1) & 1)) % below, cy = 2 * y + (c >> 2);
              ch[static_cast<size_t>(c)] = src[(static_cast<size_t>(cy) * below + static_cast<size_t>(cz)) * below + static_cast<size_t>(cx)];
            }
            dst[(static_cast<size_t>(y) * side + static_cast<size_t>(z)) * side + static_cast<size_t>(x)] = mipper.mip(ch);
          }
    }
  }

  LodCell flat_cell(int level, int64_t cx, int64_t cy, int64_t cz) const {
    const int64_t ylo = kFlatY0 >> level, yn = kFlatHeight >> level;
    if (cy < ylo) return background_cell(level, cy);
    if (cy >= ylo + yn) return background_cell(level, cy);
    const int side = flat_side(level);
    const size_t x = static_cast<size_t>(floor_mod(cx, side)), z = static_cast<size_t>(floor_mod(cz, side));
    return flat_levels[static_cast<size_t>(level)][(static_cast<size_t>(cy - ylo) * static_cast<size_t>(side) + z) * static_cast<size_t>(side) + x];
  }

  PaddedLodSection build_flat_section(const LodSectionPos& pos) const {
    std::call_once(flat_once, [this] { build_flat(); });
    PaddedLodSection out;
    out.pos = pos;
    const int64_t bx = pos.x * 32, by = pos.y * 32, bz = pos.z * 32;
    for (int y = -1; y <= 32; ++y)
      for (int z = -1; z <= 32; ++z)
        for (int x = -1; x <= 32; ++x) {
          const int outside = (x < 0 || x > 31) + (y < 0 || y > 31) + (z < 0 || z > 31);
          if (outside > 1) continue;
          out.set(x, y, z, flat_cell(pos.level, bx + x, by + y, bz + z));
        }
    return out;
  }

  Light light_of(uint16_t id, int64_t y) const {
    if (id == water || id == ice) {
      const int sky = 15 - static_cast<int>(kSeaLevel - y + 1) * (id == ice ? ice_drop : water_drop);
      return make_light(static_cast<uint8_t>(std::max(0, sky)), 0, 0, 0);
    }
    const BlockDef& d = registry[id];
    if (d.transparency == Transparency::kCutout)  // under open sky: 15 through opacity 0, else 15 - 1 - opacity
      return make_light(static_cast<uint8_t>((d.opacity & 15) == 0 ? 15 : std::max(0, 14 - (d.opacity & 15))), 0, 0, 0);
    return 0;
  }

  /// Steps 1 and 2 for the stack of sections at (pos.level, pos.x, pos.z): virtual columns and features, into this
  /// thread's scratch. pos.y is not read.
  void prepare(const LodSectionPos& pos, Prepared& pr) const;
  /// Step 3 for one section of the prepared stack.
  PaddedLodSection cells(const LodSectionPos& pos, const Prepared& pr) const;
};

void CoarseTerrain::Impl::prepare(const LodSectionPos& pos, Prepared& pr) const {
  const int L = pos.level;
  const int cell = 1 << L;
  const int s = L == 5 ? 4 : std::max(1, cell / 4);  // blocks per virtual column side (see the top of the file)
  const int n = cell / s;               // virtual columns per cell side
  const int margin = (gen::SurfaceModel::kTreeReach + s - 1) / s + 1;
  const int V = 34 * n;
  const int G = V + 2 * margin;
  const BlockPos b = pos.min_block();
  const int64_t sx = wrap_add(b.x, -int64_t{cell} - int64_t{margin} * s);
  const int64_t sz = wrap_add(b.z, -int64_t{cell} - int64_t{margin} * s);
  // Each virtual column's sample: its patch's last block (x and z offset s - 1), the block column the Mipper keeps
  // among the patch's when their tops tie; at s >= 8 (levels 6 to 8) the patch's first block instead (offset 0),
  // where the terrain model's lattice nodes (every 4 blocks) fall on the samples and the node costs about a
  // quarter (level 5 sampled at s = 8 that way cost a third of what it does at s = 4).
  const int off = s >= 8 ? 0 : s - 1;
  pr = Prepared{L, cell, s, n, margin, G, off, sx, sz};
  const gen::SurfaceModel& m = *model;

  Scratch& sc = scratch();
  const size_t count = static_cast<size_t>(G) * static_cast<size_t>(G);
  sc.samples.resize(count);
  sc.cols.resize(count);
  sc.slots.assign(count * kSlots, 0);
  m.terrain().sample_grid(wrap_add(sx, off), wrap_add(sz, off), s, G, G, sc.samples.data());
  auto idx = [G](int i, int j) { return static_cast<size_t>(j) * static_cast<size_t>(G) + static_cast<size_t>(i); };

  // 1. Virtual columns: sample, slope, surface layers, plants.
  for (int j = 0; j < G; ++j)
    for (int i = 0; i < G; ++i) {
      const gen::TerrainSample& t = sc.samples[idx(i, j)];
      int step = 0;
      if (i > 0) step = std::max(step, std::abs(t.height - sc.samples[idx(i - 1, j)].height));
      if (i + 1 < G) step = std::max(step, std::abs(t.height - sc.samples[idx(i + 1, j)].height));
      if (j > 0) step = std::max(step, std::abs(t.height - sc.samples[idx(i, j - 1)].height));
      if (j + 1 < G) step = std::max(step, std::abs(t.height - sc.samples[idx(i, j + 1)].height));
      VCol& c = sc.cols[idx(i, j)];
      c.sample = t;
      c.x = wrap_add(sx, int64_t{i} * s + off);
      c.z = wrap_add(sz, int64_t{j} * s + off);
      c.st = m.stripe(c.x, c.z, t, (step + s - 1) / s);
      c.feature_top = -1;
      // Height at block offset (px, pz) of this patch (0..s-1 each), bilinear between the samples around it,
      // rounded to the nearest block.
      auto height_at = [&](int px, int pz) {
        const int ax = px - off, az = pz - off, di = ax < 0 ? -1 : 0, dj = az < 0 ? -1 : 0;
        const double u = static_cast<double>(ax - di * s) / s, v = static_cast<double>(az - dj * s) / s;
        const int i0 = std::clamp(i + di, 0, G - 1), i1 = std::clamp(i + di + 1, 0, G - 1);
        const int j0 = std::clamp(j + dj, 0, G - 1), j1 = std::clamp(j + dj + 1, 0, G - 1);
        const double a0 = sc.samples[idx(i0, j0)].height, a1 = sc.samples[idx(i1, j0)].height;
        const double b0 = sc.samples[idx(i0, j1)].height, b1 = sc.samples[idx(i1, j1)].height;
        return static_cast<int>(std::floor((1 - v) * (a0 + (a1 - a0) * u) + v * (b0 + (b1 - b0) * u) + 0.5));
      };
      // The patch's four corners (0 or 1 per axis: offset 0 or s - 1), its last block first: the highest ground
      // below keeps the first corner of the highest height.
      constexpr std::array<std::pair<int, int>, 4> kCorners{{{1, 1}, {0, 1}, {1, 0}, {0, 0}}};
      // Ravines: sealed where water lies within 2 blocks (the lowest height 2 blocks around, or the next virtual
      // columns when they are wider).
      const int reach = s == 1 ? 2 : 1;
      int lowest = t.height;
      for (int dj = -reach; dj <= reach; ++dj)
        for (int di = -reach; di <= reach; ++di) {
          const int ii = std::clamp(i + di, 0, G - 1), jj = std::clamp(j + dj, 0, G - 1);
          lowest = std::min(lowest, sc.samples[idx(ii, jj)].height);
        }
      const gen::SurfaceModel::Cut cut = m.ravine(c.x, c.z, t.height, lowest);
      c.ravine = cut.any;
      c.ground = t.height;
      if (!cut.empty() && cut.top >= t.height) {
        // Open to the sky. A wider virtual column keeps its ground unless the ravine spans the whole patch (its
        // other three corners, at their interpolated heights): the Mipper keeps the highest block of the patch, so
        // the ground is then the highest of the four corners' floors.
        bool whole = true;
        int floor = cut.bottom - 1;
        for (const auto& [qx, qz] : kCorners) {
          const int px = qx * (s - 1), pz = qz * (s - 1);
          if (s == 1 || !whole) break;
          if (px == off && pz == off) continue;  // the sample's own
          const int h = height_at(px, pz);
          const gen::SurfaceModel::Cut k =
              m.ravine(wrap_add(c.x, px - off), wrap_add(c.z, pz - off), h, std::min(lowest, h));
          whole = !k.empty() && k.top >= h;
          floor = std::max(floor, k.bottom - 1);
        }
        if (whole) c.ground = std::min(floor, t.height);
      }
      // The patch's highest ground: the highest of its four corners' heights, bilinear between this sample and its
      // neighbours' (at s <= 4 the patch's first block row and column lie one block past the previous virtual
      // columns' samples), the stripe re-evaluated there for that height.
      c.top = c.ground;
      c.top_x = c.x;
      c.top_z = c.z;
      if (s > 1 && c.ground == t.height) {
        for (const auto& [qx, qz] : kCorners) {
          const int px = qx * (s - 1), pz = qz * (s - 1);
          const int v = height_at(px, pz);
          if (v <= c.top) continue;
          c.top = v;
          c.top_x = wrap_add(c.x, px - off);
          c.top_z = wrap_add(c.z, pz - off);
        }
        if (c.top > c.ground && (t.biome == gen::Biome::kMountains || t.height < kSeaLevel + 2)) {
          gen::TerrainSample tt = t;
          tt.height = c.top;
          c.st_top = m.stripe(c.top_x, c.top_z, tt, (step + s - 1) / s);
        } else if (c.top > c.ground) {
          // Outside the mountains and above the water the layers do not depend on the height: this stripe's own
          // (saves the patch noise of a second stripe).
          c.st_top = c.st;
          c.st_top.height = c.top;
        }
      }
      const gen::SurfaceModel::Plant p = c.ground == t.height ? m.plant(c.x, c.z, t, c.st) : gen::SurfaceModel::Plant{};
      if (p.id != 0) {
        uint16_t* sl = &sc.slots[idx(i, j) * kSlots];
        for (int k = 0; k < p.height; ++k) sl[k] = p.id;
        c.feature_top = p.height - 1;
      }
    }

  // 2. Trees, in the generator's order.
  const int64_t span = int64_t{G} * s;
  const int64_t gx0 = sx >> gen::SurfaceModel::kTreeGridShift, gz0 = sz >> gen::SurfaceModel::kTreeGridShift;
  const int64_t gx1 = wrap_add(sx, span - 1) >> gen::SurfaceModel::kTreeGridShift;
  const int64_t gz1 = wrap_add(sz, span - 1) >> gen::SurfaceModel::kTreeGridShift;
  const int s_shift = std::countr_zero(static_cast<unsigned>(s));
  auto put = [&](int64_t x, int64_t y, int64_t z, uint16_t id, bool is_log) {
    const int64_t dx = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(sx));
    const int64_t dz = static_cast<int64_t>(static_cast<uint64_t>(z) - static_cast<uint64_t>(sz));
    if (dx < 0 || dz < 0 || dx >= span || dz >= span) return;
    const size_t k = idx(static_cast<int>(dx >> s_shift), static_cast<int>(dz >> s_shift));  // dx / s, s = 2^s_shift
    VCol& c = sc.cols[k];
    const int h = c.st.height;
    if (y <= h || y > h + kSlots || y > kMaxY) return;
    if (h < kSeaLevel && y <= kSeaLevel) return;  // water there: the generator writes leaves only into air
    uint16_t& slot = sc.slots[k * kSlots + static_cast<size_t>(y - h - 1)];
    const uint8_t kind = slot < feature_kind.size() ? feature_kind[slot] : 0;
    if (slot == 0 || kind == kPlant || (is_log && kind == kLeaf)) {
      slot = id;
      c.feature_top = std::max(c.feature_top, static_cast<int>(y - h - 1));
    }
  };
  for (int64_t gz = gz0;; gz = wrap_add(gz, 1)) {
    for (int64_t gx = gx0;; gx = wrap_add(gx, 1)) {
      int64_t ox = 0, oz = 0;
      m.tree_origin(gx, gz, ox, oz);
      const int64_t dx = static_cast<int64_t>(static_cast<uint64_t>(ox) - static_cast<uint64_t>(sx));
      const int64_t dz = static_cast<int64_t>(static_cast<uint64_t>(oz) - static_cast<uint64_t>(sz));
      if (dx >= 0 && dz >= 0 && dx < span && dz < span) {
        const int i = static_cast<int>(dx / s), j = static_cast<int>(dz / s);
        const VCol& c = sc.cols[idx(i, j)];
        int step = 0;
        if (i > 0 && i + 1 < G && j > 0 && j + 1 < G) {
          const int h = c.sample.height;
          step = std::max({std::abs(h - sc.cols[idx(i - 1, j)].sample.height), std::abs(h - sc.cols[idx(i + 1, j)].sample.height),
                           std::abs(h - sc.cols[idx(i, j - 1)].sample.height), std::abs(h - sc.cols[idx(i, j + 1)].sample.height)});
          step = (step + s - 1) / s;
        }
        gen::TreeSite t;
        if (!c.ravine && m.plan_tree(gx, gz, c.sample, step, /*check_caves=*/s <= 2, t)) {
          if (s <= 4) {
            m.tree_blocks(t, put);
          } else {
            const int top = t.base + t.height - 1;
            for (int y = t.base; y <= top - 3; ++y) put(t.x, y, t.z, t.log, true);
            for (int y = std::max(t.base, top - 2); y <= top + 1; ++y) put(t.x, y, t.z, t.leaves, false);
          }
        }
      }
      if (gx == gx1) break;
    }
    if (gz == gz1) break;
  }

  // 2b. Structures, from their own cells: per virtual column the highest structure block over its patch, sampled
  // at every block column of the patch at s <= 4 and on a 4 x 4 grid of them above (stride s / 4), each
  // with the virtual column's ground as the terrain height there.
  sc.structures.clear();
  if (span > 0 && sx <= wrap_add(sx, span - 1) && sz <= wrap_add(sz, span - 1))
    m.structures().find(sx, sz, sx + span - 1, sz + span - 1, sc.structures);
  for (VCol& c : sc.cols) c.s_top = kMinY - 1;
  if (!sc.structures.empty()) {
    const gen::StructurePlanner& planner = m.structures();
    const int stride = std::max(1, s / 4);
    for (int j = 0; j < G; ++j)
      for (int i = 0; i < G; ++i) {
        VCol& c = sc.cols[idx(i, j)];
        const int64_t px0 = wrap_add(c.x, -off), pz0 = wrap_add(c.z, -off);  // the patch's first block
        for (size_t k = 0; k < sc.structures.size(); ++k) {
          const gen::Structure& st = sc.structures[k];
          if (!st.box.intersects_xz(px0, pz0, px0 + s - 1, pz0 + s - 1)) continue;
          for (int qz = s - 1; qz >= 0; qz -= stride)
            for (int qx = s - 1; qx >= 0; qx -= stride) {
              const gen::StructureTop t = planner.top_at(st, px0 + qx, pz0 + qz, c.ground);
              if (t.y <= c.s_top) continue;
              c.s_top = t.y;
              c.s_x = px0 + qx;
              c.s_z = pz0 + qz;
              c.s_index = static_cast<int>(k);
            }
        }
      }
  }

  // Per cell column (-1..32 in x and z): the lowest ground and the highest block of its virtual columns.
  sc.hmin.assign(34 * 34, kMaxY + 1);
  sc.has_structure.assign(34 * 34, 0);
  sc.top.assign(34 * 34, kMinY - 1);
  pr.hmin_all = kMaxY + 1;
  pr.top_all = kMinY - 1;
  for (int cz = -1; cz <= 32; ++cz)
    for (int cx = -1; cx <= 32; ++cx) {
      if ((cx < 0 || cx > 31) && (cz < 0 || cz > 31)) continue;  // an edge of the border: unused
      const int i0 = margin + (cx + 1) * n, j0 = margin + (cz + 1) * n;
      int hmin = kMaxY + 1, top = kMinY - 1;
      for (int bj = 0; bj < n; ++bj)
        for (int bi = 0; bi < n; ++bi) {
          const VCol& c = sc.cols[idx(i0 + bi, j0 + bj)];
          hmin = std::min(hmin, c.ground);
          if (c.s_index >= 0) sc.has_structure[static_cast<size_t>((cz + 1) * 34 + cx + 1)] = 1;
          top = std::max({top, c.top, c.st.height + c.feature_top + 1, c.st.height < kSeaLevel ? kSeaLevel : kMinY, c.s_top});
        }
      sc.hmin[static_cast<size_t>((cz + 1) * 34 + cx + 1)] = hmin;
      sc.top[static_cast<size_t>((cz + 1) * 34 + cx + 1)] = top;
      pr.hmin_all = std::min(pr.hmin_all, hmin);
      pr.top_all = std::max(pr.top_all, top);
    }
}

PaddedLodSection CoarseTerrain::Impl::cells(const LodSectionPos& pos, const Prepared& pr) const {
  // 3. Cells by the Mipper's rule, from the virtual columns prepare() left in this thread's scratch.
  const int L = pr.L, cell = pr.cell, s = pr.s, n = pr.n, margin = pr.margin, G = pr.G, off = pr.off;
  const gen::SurfaceModel& m = *model;
  const Scratch& sc = scratch();
  auto idx = [G](int i, int j) { return static_cast<size_t>(j) * static_cast<size_t>(G) + static_cast<size_t>(i); };
  PaddedLodSection out;
  out.pos = pos;
  const LodCell open_air = LodCell::make(kAir, make_light(15, 0, 0, 0));
  const int64_t cy_base = pos.y * 32;
  for (int cz = -1; cz <= 32; ++cz)
    for (int cx = -1; cx <= 32; ++cx) {
      const bool x_out = cx < 0 || cx > 31, z_out = cz < 0 || cz > 31;
      if (x_out && z_out) continue;  // an edge of the border: unused
      const int i0 = margin + (cx + 1) * n, j0 = margin + (cz + 1) * n;
      const int hmin = sc.hmin[static_cast<size_t>((cz + 1) * 34 + cx + 1)];
      const int top = sc.top[static_cast<size_t>((cz + 1) * 34 + cx + 1)];
      const int y_first = (x_out || z_out) ? 0 : -1, y_last = (x_out || z_out) ? 31 : 32;
      for (int cy = y_first; cy <= y_last; ++cy) {
        const int64_t cyw = cy_base + cy;
        const int64_t y0 = cyw * cell, y1 = y0 + cell - 1;
        if (y0 > kMaxY || y1 < kMinY) {
          out.set(cx, cy, cz, background_cell(L, cyw));
          continue;
        }
        if (y0 > top) {
          out.set(cx, cy, cz, open_air);
          continue;
        }
        uint64_t best_key = 0;
        uint16_t best_id = kAirId;
        int64_t best_y = 0;
        // (Where a structure stands the cells at the ground go through the virtual columns: paths and
        // foundations replace the top block.)
        if (y1 <= hmin && (sc.has_structure[static_cast<size_t>((cz + 1) * 34 + cx + 1)] == 0 || y1 < hmin - cell)) {
          // Wholly in the ground: the block at the top of the last virtual column (highest key) wins.
          const VCol& c = sc.cols[idx(i0 + n - 1, j0 + n - 1)];
          best_id = m.block(wrap_add(c.x, s - 1 - off), y1, wrap_add(c.z, s - 1 - off), c.st);  // the patch's last
          best_y = y1;
        } else {
          for (int bj = 0; bj < n; ++bj)
            for (int bi = 0; bi < n; ++bi) {
              const size_t k = idx(i0 + bi, j0 + bj);
              const VCol& c = sc.cols[k];
              const int h = c.st.height;
              const int64_t kx = wrap_add(c.x, s - 1 - off), kz = wrap_add(c.z, s - 1 - off);  // the patch's last
              uint16_t id = kAirId;
              int64_t y = 0;
              // Features above the ground (all rank 15: cutout or opaque).
              if (c.feature_top >= 0 && y1 > h) {
                const int lo = static_cast<int>(std::max<int64_t>(y0 - h - 1, 0));
                const int hi = static_cast<int>(std::min<int64_t>(y1 - h - 1, c.feature_top));
                for (int q = hi; q >= lo; --q)
                  if (sc.slots[k * kSlots + static_cast<size_t>(q)] != 0) {
                    id = sc.slots[k * kSlots + static_cast<size_t>(q)];
                    y = h + 1 + q;
                    break;
                  }
              }
              if (c.top >= y0 && (id == kAirId || c.top > y)) {
                // The terrain (the patch's estimated highest ground above this column's own).
                y = std::min<int64_t>(c.top, y1);
                id = y <= c.ground ? m.block(kx, std::max<int64_t>(y, kMinY), kz, c.st)
                                   : m.block(c.top_x, y, c.top_z, c.st_top);
              }
              if (id == kAirId && h < kSeaLevel && y0 <= kSeaLevel && y1 > h) {
                y = std::min<int64_t>(kSeaLevel, y1);
                id = (y == kSeaLevel && c.st.frozen) ? ice : water;
              }
              if (c.s_index >= 0 && c.s_top >= y0) {
                // The structure's own highest non-air cell of this cell's y range in its sampled block column
                // (it is written over the terrain: at the same y it wins).
                const gen::Structure& st = sc.structures[static_cast<size_t>(c.s_index)];
                for (int64_t sy = std::min<int64_t>(c.s_top, y1); sy >= (id == kAirId ? y0 : std::max(y0, y)); --sy) {
                  Cell sc_cell;
                  if (m.structures().cell_at(st, c.s_x, sy, c.s_z, c.ground, sc_cell) && sc_cell.id != kAirId) {
                    id = sc_cell.id;
                    y = sy;
                    break;
                  }
                }
              }
              if (id == kAirId) continue;
              const uint64_t key = (uint64_t{mipper.opacity(id)} << (3 * L)) |
                                   morton(L, static_cast<uint32_t>(y - y0), static_cast<uint32_t>(bj * s + s - 1),
                                          static_cast<uint32_t>(bi * s + s - 1));
              if (best_id == kAirId || key > best_key) {
                best_key = key;
                best_id = id;
                best_y = y;
              }
            }
        }
        out.set(cx, cy, cz, best_id == kAirId ? open_air : LodCell::make(Cell{best_id, 0}, light_of(best_id, best_y)));
      }
    }
  return out;
}

CoarseTerrain::CoarseTerrain(const gen::Generator& generator, const BlockRegistry& registry, const Mipper& mipper)
    : m_impl(std::make_unique<Impl>(generator, registry, mipper)) {
  Impl& im = *m_impl;
  im.flat = generator.name() == "flat";
  if (!im.flat) {
    VOXEN_ASSERT(generator.name() == "default");
    im.model = std::make_unique<gen::SurfaceModel>(generator.seed(), registry);
    im.water = registry.id("water");
    im.ice = registry.id("ice");
    im.water_drop = 1 + (registry[im.water].opacity & 15);
    im.ice_drop = 1 + (registry[im.ice].opacity & 15);
    im.feature_kind.assign(registry.size(), 0);
    for (size_t id = 1; id < registry.size(); ++id) {
      const BlockDef& d = registry[static_cast<uint16_t>(id)];
      if (d.shape == Shape::kCross) im.feature_kind[id] = Impl::kPlant;
      else if (d.transparency == Transparency::kCutout) im.feature_kind[id] = Impl::kLeaf;
    }
  }
}

CoarseTerrain::~CoarseTerrain() = default;

PaddedLodSection CoarseTerrain::build(const LodSectionPos& pos) const {
  VOXEN_ASSERT(pos.level >= 0 && pos.level < kMaxLevels);
  VOXEN_ASSERT(!t_in_stack);  // not from inside build_stack's visit (the thread's scratch is in use)
  if (m_impl->flat) return m_impl->build_flat_section(pos);
  Prepared pr;
  m_impl->prepare(pos, pr);
  return m_impl->cells(pos, pr);
}

void CoarseTerrain::build_stack(int level, int64_t x, int64_t z,
                                const std::function<void(const PaddedLodSection&)>& visit, bool skip) const {
  VOXEN_ASSERT(level >= 0 && level < kMaxLevels);
  const int64_t cell = int64_t{1} << level;
  const int64_t y_lo = floor_div(kMinY, 32 * cell), y_hi = floor_div(kMaxY, 32 * cell);
  if (m_impl->flat) {
    for (int64_t y = y_lo; y <= y_hi; ++y) visit(m_impl->build_flat_section(LodSectionPos{level, x, y, z}));
    return;
  }
  VOXEN_ASSERT(!t_in_stack);  // not from inside another build_stack's visit
  Prepared pr;
  m_impl->prepare(LodSectionPos{level, x, 0, z}, pr);
  struct InStack {
    InStack() { t_in_stack = true; }
    ~InStack() { t_in_stack = false; }
  } in_stack;
  for (int64_t y = y_lo; y <= y_hi; ++y) {
    // Blocks spanned by the section's cells with its lower and upper border cells.
    const int64_t b0 = (y * 32 - 1) * cell, b1 = (y * 32 + 33) * cell - 1;
    if (skip && b0 > pr.top_all) continue;                    // open air (or the sky above the world) throughout
    if (skip && b0 >= kMinY && b1 <= pr.hmin_all) continue;  // in the ground throughout: opaque blocks only
    visit(m_impl->cells(LodSectionPos{level, x, y, z}, pr));
  }
}

}  // namespace voxen::lod
