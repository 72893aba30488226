// The `default` generator's column pipeline (see docs/ARCHITECTURE.md, "Generation"):
//   1. terrain samples (height, biome, climate) for the column and a 4-block margin: TerrainModel::sample_area;
//   2. per (x, z): surface layers and the carve limit (no carving within reach of water);
//   3. rock, soil, water and ice written straight into a dense buffer laid out as the 24 sections back to back;
//   4. caves on a coarse 4 x 8 x 4 lattice with trilinear interpolation, then ravines; lava below kLavaLevel
//      with magma under it;
//   5. ore veins, plants and cacti, trees (feature_placer.h: decided at their origins, so borders agree);
//   6. structures (structures.h: villages, towers, ruins, ziggurats; cells from their own pure functions);
//   7. each section packed from the buffer (Section::pack), or filled with air when wholly above all content.
#include "terrain_generator.h"

#include <algorithm>
#include <array>
#include <atomic>

#include "caves.h"
#include "column_work.h"
#include "feature_placer.h"
#include "gen_blocks.h"
#include "surface.h"
#include "voxen/core/hash.h"
#include "voxen/gen/terrain_model.h"

namespace voxen::gen {
namespace {

// Room above the highest terrain block for trees and cacti.
constexpr int kFeatureHeadroom = 12;

class TerrainGenerator final : public Generator {
 public:
  TerrainGenerator(uint64_t seed, const BlockRegistry& r)
      : m_seed(seed),
        m_ids(r),
        m_model(seed),
        m_caves(seed),
        m_surface(seed, m_ids),
        m_structures(seed, r),
        m_features(seed, m_ids, m_caves, m_surface, &m_structures),
        m_bedrock_seed(derive_seed(seed, 0x71)),
        m_magma_seed(derive_seed(seed, 0x72)),
        m_serial(next_serial()) {
    m_ground.assign(r.size(), false);
    for (size_t id = 0; id < r.size(); ++id) {
      const BlockDef& d = r[static_cast<uint16_t>(id)];
      m_ground[id] = d.defined && d.solid && !m_ids.is_leaves(static_cast<uint32_t>(id));
    }
  }

  std::string_view name() const override { return "default"; }
  uint64_t seed() const override { return m_seed; }

  void generate(Column& out) const override {
    ColumnWork& w = work();
    build(out.pos(), w);
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      if (section_base_y(s) > w.top_y)
        out.section(s).fill(kAir);
      else
        out.section(s).pack(w.cells.data() + static_cast<size_t>(s) * kSectionVolume);
    }
  }

  // Builds the whole column holding (x, z) into the thread's scratch buffer (no packing) and reads the stripe:
  // exactly what generate() stores. Cost: one column build (about half a millisecond), skipped when the buffer
  // already holds that column from this generator.
  int64_t surface_y(int64_t x, int64_t z) const override {
    ColumnWork& w = work();
    const ColumnPos pos{column_of(x), column_of(z)};
    if (w.built_by != m_serial || w.built_pos != pos) build(pos, w);
    const int lx = local_of(x), lz = local_of(z);
    for (int y = std::min(w.top_y, kMaxY); y >= kMinY; --y) {
      const uint32_t id = w.at(lx, y, lz) & 0xFFFF;
      if (id < m_ground.size() && m_ground[id]) return y;
    }
    return kMinY;
  }

 private:
  static ColumnWork& work() {
    thread_local ColumnWork w;
    return w;
  }

  // A serial number per generator instance (never its address) tags what the scratch buffer holds.
  static uint64_t next_serial() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
  }

  void build(ColumnPos pos, ColumnWork& w) const {
    w.built_by = 0;  // an exception part-way must not leave a stale tag
    w.pos = pos;
    w.x0 = pos.min_x();
    w.z0 = pos.min_z();
    m_model.sample_area(w.x0 - kMapMargin, w.z0 - kMapMargin, kMapWidth, kMapWidth, w.map.data());
    plan_stripes(w);
    fill_base(w);
    carve_caves(w);
    carve_ravines(w);
    m_features.place_ores(w);
    m_features.place_plants(w);
    m_features.place_trees(w);
    place_structures(w);
    w.built_by = m_serial;
    w.built_pos = pos;
  }

  void plan_stripes(ColumnWork& w) const {
    int top = kSeaLevel;
    for (const TerrainSample& s : w.map) top = std::max(top, s.height);
    w.top_y = std::min(kMaxY, top + kFeatureHeadroom);
    // Structures meeting the column raise its top to their boxes' (the buffer is cleared up to there).
    w.structures.clear();
    m_structures.find(w.x0, w.z0, w.x0 + kColumnWidth - 1, w.z0 + kColumnWidth - 1, w.structures);
    for (const Structure& s : w.structures) w.top_y = static_cast<int>(std::clamp<int64_t>(s.box.y1, w.top_y, kMaxY));
    for (int lz = 0; lz < kColumnWidth; ++lz)
      for (int lx = 0; lx < kColumnWidth; ++lx) {
        StripeInfo& st = w.stripes[static_cast<size_t>((lz << 4) | lx)];
        const TerrainSample& s = w.sample(lx, lz);
        st.height = s.height;
        st.layers = m_surface.layers(w.x0 + lx, w.z0 + lz, s, w.slope(lx, lz));
        st.frozen = s.temperature < kFreezing;
        // Carving may open the surface only where no water lies within 2 blocks; elsewhere it stays
        // kWaterSeal blocks below the lowest ground nearby.
        int lowest = s.height;
        for (int dz = -2; dz <= 2; ++dz)
          for (int dx = -2; dx <= 2; ++dx) lowest = std::min(lowest, w.sample(lx + dx, lz + dz).height);
        st.carve_top = lowest < kSeaLevel ? lowest - kWaterSeal : s.height;
      }
  }

  // Rock type at world y for a stripe whose dither hash is hd: deepslate below y = -8, stone from y = 0, and in
  // between a mix that turns from deepslate to stone (one hash byte per layer).
  uint32_t rock(int y, uint64_t hd) const {
    if (y < -8) return Cell{m_ids.deepslate, 0}.packed();
    if (y >= 0) return Cell{m_ids.stone, 0}.packed();
    const bool stone = static_cast<int>((hd >> (8 * (y + 8))) & 0xFF) < (y + 9) * 28;
    return Cell{stone ? m_ids.stone : m_ids.deepslate, 0}.packed();
  }

  // Rock, soil, water and air for the whole column. Rows of rock below every stripe's soil are written a whole
  // 16 x 16 layer at a time (contiguous in the buffer); the rest stripe by stripe.
  void fill_base(ColumnWork& w) const {
    int solid_top = kMaxY;  // highest y that is rock in every stripe
    std::array<uint64_t, 256> dither;
    for (int i = 0; i < 256; ++i) {
      const StripeInfo& st = w.stripes[static_cast<size_t>(i)];
      solid_top = std::min(solid_top, st.height - st.layers.under_depth - st.layers.deep_depth - 1);
      dither[static_cast<size_t>(i)] = hash2(m_bedrock_seed ^ 0xD5ull, w.x0 + (i & 15), w.z0 + (i >> 4));
    }
    for (int y = kMinY + 5; y <= solid_top; ++y) {
      uint32_t* row = w.cells.data() + cell_index(0, y, 0);
      if (y < -8 || y >= 0) {
        std::fill(row, row + 256, rock(y, 0));
      } else {
        for (int i = 0; i < 256; ++i) row[i] = rock(y, dither[static_cast<size_t>(i)]);
      }
    }
    for (int lz = 0; lz < kColumnWidth; ++lz)
      for (int lx = 0; lx < kColumnWidth; ++lx)
        fill_stripe(w, lx, lz, std::max(kMinY + 5, solid_top + 1), dither[static_cast<size_t>((lz << 4) | lx)]);
  }

  // One stripe: the bedrock floor, then everything from y_from up to the top of the highest non-empty section.
  void fill_stripe(ColumnWork& w, int lx, int lz, int y_from, uint64_t hd) const {
    const StripeInfo& st = w.stripes[static_cast<size_t>((lz << 4) | lx)];
    const BlockIds& b = m_ids;
    const int64_t x = w.x0 + lx, z = w.z0 + lz;
    uint32_t* cells = w.cells.data() + ((lz << 4) | lx);
    auto put = [cells](int y, uint32_t v) { cells[static_cast<size_t>(y - kMinY) << 8] = v; };
    auto fill = [&](int y0, int y1, uint16_t id) {
      const uint32_t v = Cell{id, 0}.packed();
      for (int y = std::max(y0, y_from); y <= y1; ++y) put(y, v);
    };
    const int h = st.height;
    const int ceiling = section_base_y(section_of_y(w.top_y)) + kSectionSize - 1;

    // Bedrock floor: y = -128 always, then thinning out over the next four layers (one hash byte per layer).
    const uint64_t hb = hash2(m_bedrock_seed, x, z);
    put(kMinY, Cell{b.bedrock, 0}.packed());
    for (int i = 1; i <= 4; ++i) {
      const bool bedrock = static_cast<int>((hb >> (8 * i)) & 0xFF) < (5 - i) * 51;
      put(kMinY + i, Cell{bedrock ? b.bedrock : b.deepslate, 0}.packed());
    }
    // Rock, then the soil layers and the top block.
    const int deep_top = h - st.layers.under_depth - 1;
    const int rock_top = deep_top - st.layers.deep_depth;
    for (int y = y_from; y <= rock_top; ++y) put(y, rock(y, hd));
    fill(deep_top - st.layers.deep_depth + 1, deep_top, st.layers.deep);
    fill(deep_top + 1, h - 1, st.layers.under);
    put(h, Cell{st.layers.top, 0}.packed());
    // Water up to sea level (ice on top where it is cold), then air.
    if (h < kSeaLevel) {
      fill(h + 1, kSeaLevel, b.water);
      if (st.frozen) put(kSeaLevel, Cell{b.ice, 0}.packed());
    }
    fill(std::max(h, kSeaLevel) + 1, ceiling, kAirId);
  }

  // Replaces a carvable cell by the cave's content at that depth.
  void carve(ColumnWork& w, int lx, int y, int lz) const {
    uint32_t& c = w.at(lx, y, lz);
    if (!m_ids.is_carvable(c)) return;
    c = y <= kLavaLevel ? Cell{m_ids.lava, 0}.packed() : kAir.packed();
    // Magma where lava rests on rock.
    if (y <= kLavaLevel && y - 1 >= kMinY) {
      uint32_t& below = w.at(lx, y - 1, lz);
      if (m_ids.is_host_rock(below) && (hash3(m_magma_seed, w.x0 + lx, y - 1, w.z0 + lz) & 1))
        below = Cell{m_ids.magma, 0}.packed();
    }
  }

  void carve_caves(ColumnWork& w) const {
    int carve_max = kMinY;
    for (const StripeInfo& s : w.stripes) carve_max = std::max(carve_max, s.carve_top);
    if (carve_max < kCarveFloor) return;
    // Lattice nodes covering the column: 5 x 5 in x, z and enough in y to reach carve_max.
    constexpr int kNx = kColumnWidth / kCaveStepXZ + 1;
    const int64_t i0 = w.x0 >> kCaveShiftXZ, k0 = w.z0 >> kCaveShiftXZ;
    const int j0 = kMinY >> kCaveShiftY;
    const int j1 = (carve_max >> kCaveShiftY) + 1;
    const int ny = j1 - j0 + 1;
    w.cave_nodes.resize(static_cast<size_t>(ny * kNx * kNx));
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < kNx; ++k)
        for (int i = 0; i < kNx; ++i)
          w.cave_nodes[static_cast<size_t>((j * kNx + k) * kNx + i)] = m_caves.node(i0 + i, j0 + j, k0 + k);

    for (int ck = 0; ck < kNx - 1; ++ck)
      for (int ci = 0; ci < kNx - 1; ++ci) {
        // Highest carvable y among this coarse cell's 4 x 4 stripes.
        int cell_top = kMinY;
        for (int fz = 0; fz < kCaveStepXZ; ++fz)
          for (int fx = 0; fx < kCaveStepXZ; ++fx)
            cell_top = std::max(cell_top, w.stripes[static_cast<size_t>(((ck * kCaveStepXZ + fz) << 4) | (ci * kCaveStepXZ + fx))].carve_top);
        for (int cj = 0; cj < ny - 1; ++cj) {
          const int y_base = (j0 + cj) * kCaveStepY;
          if (y_base > cell_top) break;
          if (y_base + kCaveStepY - 1 < kCarveFloor) continue;
          CaveNode c[8];
          for (int dy = 0; dy < 2; ++dy)
            for (int dz = 0; dz < 2; ++dz)
              for (int dx = 0; dx < 2; ++dx)
                c[dx + 2 * dz + 4 * dy] = w.cave_nodes[static_cast<size_t>(((cj + dy) * kNx + ck + dz) * kNx + ci + dx)];
          if (CaveModel::cell_is_solid(c)) continue;
          for (int fz = 0; fz < kCaveStepXZ; ++fz)
            for (int fx = 0; fx < kCaveStepXZ; ++fx) {
              const int lx = ci * kCaveStepXZ + fx, lz = ck * kCaveStepXZ + fz;
              const StripeInfo& st = w.stripes[static_cast<size_t>((lz << 4) | lx)];
              const int top = std::min(st.carve_top, y_base + kCaveStepY - 1);
              if (top < y_base) continue;
              const CaveModel::Ends e = CaveModel::ends(c, fx, fz);
              for (int y = std::max(y_base, kCarveFloor); y <= top; ++y)
                if (CaveModel::carves(e, y - y_base, y < st.height - kCavernCover)) carve(w, lx, y, lz);
            }
        }
      }
  }

  // Step 6: every structure meeting the column writes its cells into it (StructurePlanner::cell_at, with the
  // stripe's terrain height as the ground), in the planner's fixed order, over everything generated before.
  // A pure function of (seed, position): the same cells whichever column of a structure is built first.
  void place_structures(ColumnWork& w) const {
    for (const Structure& s : w.structures)
      for (int lz = 0; lz < kColumnWidth; ++lz)
        for (int lx = 0; lx < kColumnWidth; ++lx) {
          const int64_t x = w.x0 + lx, z = w.z0 + lz;
          const int ground = w.stripes[static_cast<size_t>((lz << 4) | lx)].height;
          int lo = 0, hi = -1;
          m_structures.span(s, x, z, ground, lo, hi);
          for (int y = lo; y <= hi; ++y) {
            Cell c;
            if (m_structures.cell_at(s, x, y, z, ground, c)) w.at(lx, y, lz) = c.packed();
          }
        }
  }

  void carve_ravines(ColumnWork& w) const {
    for (int lz = 0; lz < kColumnWidth; ++lz)
      for (int lx = 0; lx < kColumnWidth; ++lx) {
        const StripeInfo& st = w.stripes[static_cast<size_t>((lz << 4) | lx)];
        const RavineSpan r = m_caves.ravine(w.x0 + lx, w.z0 + lz, st.height);
        for (int y = std::max(r.bottom, kCarveFloor); y <= std::min(r.top, st.carve_top); ++y) carve(w, lx, y, lz);
      }
  }

  uint64_t m_seed;
  BlockIds m_ids;
  TerrainModel m_model;
  CaveModel m_caves;
  SurfaceRules m_surface;
  StructurePlanner m_structures;
  FeaturePlacer m_features;
  uint64_t m_bedrock_seed, m_magma_seed;
  uint64_t m_serial;
  std::vector<bool> m_ground;  // by block id: counts as the surface for surface_y
};

}  // namespace

std::unique_ptr<Generator> make_terrain_generator(uint64_t seed, const BlockRegistry& registry) {
  return std::make_unique<TerrainGenerator>(seed, registry);
}

}  // namespace voxen::gen
