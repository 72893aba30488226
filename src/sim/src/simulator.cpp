// The simulation's rules (docs/ARCHITECTURE.md, Simulation): one pure function per cell, next(), of the cells
// around it as the tick began, evaluated over a padded copy of each active section (a window).
#include "voxen/sim/simulator.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>

#include "voxen/core/clock.h"
#include "voxen/core/hash.h"

namespace voxen::sim {
namespace {

// Window cells are packed cells (Cell::packed). Two values no block has (ids 0xFFFF and 0xFFFE):
constexpr uint32_t kUnknown = 0x00FFFFFFu;  // a cell of an unloaded column: a rule reading it waits
constexpr uint32_t kBarrier = 0x00FFFFFEu;  // outside y -128..255: solid, holds nothing
constexpr uint32_t kAirPacked = 0;

constexpr uint16_t id_of(uint32_t v) { return static_cast<uint16_t>(v & 0xFFFF); }
constexpr uint8_t state_of(uint32_t v) { return static_cast<uint8_t>(v >> 16); }
constexpr uint32_t pack(uint16_t id, uint8_t st) { return static_cast<uint32_t>(id) | (static_cast<uint32_t>(st) << 16); }

// The horizontal directions, in Face order (+X, -X, +Z, -Z); opposite(d) = d ^ 1.
constexpr int kDx[4] = {1, -1, 0, 0};
constexpr int kDz[4] = {0, 0, 1, -1};
constexpr int kFromBelow = 4;  // gas provenance: the cell below

/// What the rules need of a block id.
struct Props {
  Physics physics = Physics::kNone;
  bool solid = true;        // supports a renewed source (BlockDef::solid)
  bool air = false;         // shape none: a gas may move in
  bool replaceable = false; // fluids and falling blocks destroy it: air, gases, non-solid cross plants
  bool quenches = false;    // a fluid with a quench product (lava): another fluid touching it makes stone
  FluidDef fluid;
  uint8_t life = 0;
};

}  // namespace

struct SimTables {
  std::vector<Props> by_id;
  Props barrier;  // ids past the registry: kBarrier, kUnknown (read as a barrier, flagged)
  explicit SimTables(const BlockRegistry& reg) {
    by_id.resize(reg.size());
    for (size_t i = 0; i < reg.size(); ++i) {
      const BlockDef& d = reg[static_cast<uint16_t>(i)];
      Props& p = by_id[i];
      if (!d.defined) continue;
      p.physics = d.physics;
      p.solid = d.solid;
      p.air = d.shape == Shape::kNone;
      p.replaceable = p.air || d.physics == Physics::kGas || (d.shape == Shape::kCross && !d.solid);
      p.fluid = d.fluid;
      p.quenches = d.physics == Physics::kFluid &&
                   (d.fluid.quench_source != 0 || d.fluid.quench_flowing != 0 || d.fluid.quench_below != 0);
      p.life = d.life;
    }
  }
  const Props& operator[](uint32_t v) const {
    const uint16_t id = id_of(v);
    return id < by_id.size() ? by_id[id] : barrier;
  }
};

namespace {
using Tables = SimTables;

/// A padded copy of one section and its surroundings: `m` cells on each horizontal side, kReachDown below and
/// kReachUp + 1 above (a gas target's rule reads two cells above it).
struct Window {
  int m = 0, nx = 0, ny = 0;
  int64_t x0 = 0, y0 = 0, z0 = 0;  // world position of window cell (0, 0, 0)
  std::vector<uint32_t> cells;
  uint32_t get(int x, int y, int z) const { return cells[(static_cast<size_t>(y) * nx + z) * nx + x]; }
};

constexpr int kBelow = kReachDown;
constexpr int kAbove = kReachUp + 1;

void fill_window(const World& world, SectionPos s, int m, Window& w) {
  w.m = m;
  w.nx = 16 + 2 * m;
  w.ny = 16 + kBelow + kAbove;
  w.x0 = s.x * 16 - m;
  w.z0 = s.z * 16 - m;
  w.y0 = section_base_y(s.y) - kBelow;
  w.cells.assign(static_cast<size_t>(w.nx) * w.nx * w.ny, kUnknown);
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dx = -1; dx <= 1; ++dx) {
      const ColumnPos cp{s.x + dx, s.z + dz};
      const Column* col = world.find(cp);
      // The window's x range covered by this column (window coordinates).
      const int wx_lo = std::max(0, static_cast<int>(cp.min_x() - w.x0));
      const int wx_hi = std::min(w.nx, static_cast<int>(cp.min_x() + 16 - w.x0));
      const int wz_lo = std::max(0, static_cast<int>(cp.min_z() - w.z0));
      const int wz_hi = std::min(w.nx, static_cast<int>(cp.min_z() + 16 - w.z0));
      if (wx_lo >= wx_hi || wz_lo >= wz_hi) continue;
      for (int wy = 0; wy < w.ny; ++wy) {
        const int64_t y = w.y0 + wy;
        uint32_t* row_base = w.cells.data() + static_cast<size_t>(wy) * w.nx * w.nx;
        if (!y_in_range(y)) {
          for (int wz = wz_lo; wz < wz_hi; ++wz)
            for (int wx = wx_lo; wx < wx_hi; ++wx) row_base[wz * w.nx + wx] = kBarrier;
          continue;
        }
        if (!col) continue;  // stays kUnknown
        const Section& sec = col->section(section_of_y(y));
        const int ly = local_of(y);
        if (sec.is_uniform()) {
          const uint32_t v = sec.palette()[0];
          for (int wz = wz_lo; wz < wz_hi; ++wz)
            for (int wx = wx_lo; wx < wx_hi; ++wx) row_base[wz * w.nx + wx] = v;
          continue;
        }
        for (int wz = wz_lo; wz < wz_hi; ++wz) {
          const int lz = local_of(w.z0 + wz);
          for (int wx = wx_lo; wx < wx_hi; ++wx)
            row_base[wz * w.nx + wx] = sec.get(local_of(w.x0 + wx), ly, lz).packed();
        }
      }
    }
  }
}

/// The outcome of one cell's rule.
struct Next {
  uint32_t cell = 0;
  int gas_from = -1;     // a gas moved in from this neighbour (0..3 horizontal, kFromBelow), else -1
  bool deferred = false; // it would change, but its fluid does not move this tick
};

/// Evaluates next() for cells of one window. `unknown_cols` collects the columns (3 x 3 around the section, bit
/// (dz + 1) * 3 + dx + 1) whose unloaded cells a rule read.
struct Eval {
  const Tables& t;
  const Window& w;
  const World& world;
  uint64_t tick;
  uint64_t tick_seed;  // derive_seed(seed, tick): the gas's choices
  bool unknown = false;
  uint16_t unknown_cols = 0;

  uint32_t at(int x, int y, int z) {
    const uint32_t v = w.get(x, y, z);
    if (v == kUnknown) {
      unknown = true;
      const int cx = x < w.m ? 0 : (x < w.m + 16 ? 1 : 2);
      const int cz = z < w.m ? 0 : (z < w.m + 16 ? 1 : 2);
      unknown_cols = static_cast<uint16_t>(unknown_cols | (1u << (cz * 3 + cx)));
      return kBarrier;
    }
    return v;
  }
  const Props& p(uint32_t v) const { return t[v]; }
  bool fluid(uint32_t v) const { return p(v).physics == Physics::kFluid; }
  bool granular(uint32_t v) const { return p(v).physics == Physics::kGranular; }
  bool gas(uint32_t v) const { return p(v).physics == Physics::kGas; }
  static bool source(uint32_t v) { return (state_of(v) & (state::kLevelMask | state::kFallingBit)) == 0; }
  static bool falling(uint32_t v) { return state::fluid_falling(state_of(v)); }
  // Minecraft's "amount": 8 for a source or a falling cell, else 8 - level.
  static int amount(uint32_t v) { return falling(v) ? 8 : 8 - state::fluid_level(state_of(v)); }
  // Fluid K may flow into v: v is replaceable, or K itself but not a source.
  bool holds(uint32_t v, uint16_t k) const { return p(v).replaceable || (id_of(v) == k && !source(v)); }
  // Falling blocks may fall into v: replaceable or any fluid.
  bool sand_passes(uint32_t v) const { return p(v).replaceable || fluid(v); }

  bool flows_down(int x, int y, int z, uint16_t k) { return holds(at(x, y - 1, z), k); }
  int source_neighbours(int x, int y, int z, uint16_t k) {
    int n = 0;
    for (int d = 0; d < 4; ++d) {
      const uint32_t v = at(x + kDx[d], y, z + kDz[d]);
      n += (id_of(v) == k && source(v)) ? 1 : 0;
    }
    return n;
  }
  // A fluid cell spreads sideways when it cannot flow down (a source also when 3 sources surround it), and not when
  // it is flowing over its own fluid.
  bool spreads_sideways(int x, int y, int z, uint32_t v) {
    const uint16_t k = id_of(v);
    if (flows_down(x, y, z, k)) return source(v) && source_neighbours(x, y, z, k) >= 3;
    if (source(v)) return true;
    return id_of(at(x, y - 1, z)) != k;
  }
  int spread_amount(uint32_t v) const { return falling(v) ? 7 : amount(v) - p(v).fluid.drop; }
  // A drop: the cell under (x, y, z) is fluid K or can hold it.
  bool hole(int x, int y, int z, uint16_t k) {
    const uint32_t b = at(x, y - 1, z);
    return id_of(b) == k || holds(b, k);
  }
  int slope_distance(int x, int y, int z, int depth, int from, uint16_t k, int slope) {
    int best = 1000;
    for (int d = 0; d < 4; ++d) {
      if (d == from) continue;
      const int nx = x + kDx[d], nz = z + kDz[d];
      if (!holds(at(nx, y, nz), k)) continue;
      if (hole(nx, y, nz, k)) return depth;
      if (depth < slope) best = std::min(best, slope_distance(nx, y, nz, depth + 1, d ^ 1, k, slope));
    }
    return best;
  }
  // The directions (bit d) a spreading cell flows in: towards the nearest drop within its slope distance, or every
  // open direction when there is none (Minecraft's FlowingFluid.getSpread).
  int preferred(int x, int y, int z, uint16_t k) {
    const int slope = p(pack(k, 0)).fluid.slope;
    int best = 1000, mask = 0;
    for (int d = 0; d < 4; ++d) {
      const int nx = x + kDx[d], nz = z + kDz[d];
      if (!holds(at(nx, y, nz), k)) continue;
      const int dist = hole(nx, y, nz, k) ? 0 : slope_distance(nx, y, nz, 1, d ^ 1, k, slope);
      if (dist < best) {
        best = dist;
        mask = 0;
      }
      if (dist == best) mask |= 1 << d;
    }
    return mask;
  }
  // The fluid cell K makes at (x, y, z) from its neighbours (Minecraft's getNewLiquid), or kAirPacked.
  uint32_t new_liquid(int x, int y, int z, uint16_t k) {
    const FluidDef& f = p(pack(k, 0)).fluid;
    int sources = 0, best = 0;
    for (int d = 0; d < 4; ++d) {
      const uint32_t v = at(x + kDx[d], y, z + kDz[d]);
      if (id_of(v) != k) continue;
      sources += source(v) ? 1 : 0;
      best = std::max(best, amount(v));
    }
    if (f.renews && sources >= 2) {
      const uint32_t b = at(x, y - 1, z);
      if (p(b).solid || (id_of(b) == k && source(b))) return pack(k, 0);
    }
    if (id_of(at(x, y + 1, z)) == k) return pack(k, state::make_fluid(0, true));
    const int a = best - f.drop;
    if (a <= 0) return kAirPacked;
    return pack(k, state::make_fluid(8 - a, false));
  }
  // True when fluid K flows into the cell at (x, y, z) this tick (it can hold K and is not K): from above, or from
  // a side neighbour that spreads sideways towards it.
  bool arrives(int x, int y, int z, uint16_t k) {
    if (id_of(at(x, y + 1, z)) == k) return true;
    for (int d = 0; d < 4; ++d) {
      const int nx = x + kDx[d], nz = z + kDz[d];
      const uint32_t v = at(nx, y, nz);
      if (id_of(v) != k || spread_amount(v) <= 0 || !spreads_sideways(nx, y, nz, v)) continue;
      if (preferred(nx, y, nz, k) & (1 << (d ^ 1))) return true;
    }
    return false;
  }
  // Where the gas at (x, y, z) moves: up into air, else into one side cell of air chosen by hash; -1: nowhere.
  int gas_target(int x, int y, int z) {
    if (p(at(x, y + 1, z)).air) return kFromBelow;  // "up" (seen from the target, the gas comes from below)
    int cand[4], n = 0;
    for (int d = 0; d < 4; ++d)
      if (p(at(x + kDx[d], y, z + kDz[d])).air) cand[n++] = d;
    if (n == 0) return -1;
    const uint64_t h = hash3(tick_seed, w.x0 + x, w.y0 + y, w.z0 + z);
    return cand[h % static_cast<uint64_t>(n)];
  }
  // The gas that moves into the air cell (x, y, z): from below first, then the sides in direction order; -1: none.
  int gas_claim(int x, int y, int z) {
    if (gas(at(x, y - 1, z)) && gas_target(x, y - 1, z) == kFromBelow) return kFromBelow;
    for (int d = 0; d < 4; ++d) {
      const int nx = x + kDx[d], nz = z + kDz[d];
      if (gas(at(nx, y, nz)) && gas_target(nx, y, nz) == (d ^ 1)) return d;
    }
    return -1;
  }
  bool moves(const FluidDef& f) const { return tick % f.every == 0; }

  // The run of falling blocks from (x, y, z) down (the cell is granular): it falls when the first cell under the
  // run lets it through. Below the window the column is read from the World (the same, loaded, column).
  bool run_falls(int x, int y, int z) {
    int yy = y - 1;
    while (yy >= 0) {
      const uint32_t v = at(x, yy, z);
      if (!granular(v)) return sand_passes(v);
      --yy;
    }
    for (int64_t wy = w.y0 + yy;; --wy) {
      if (!y_in_range(wy)) return false;
      const uint32_t v = world.get(BlockPos{w.x0 + x, wy, w.z0 + z}).packed();
      if (!granular(v)) return sand_passes(v);
    }
  }

  Next next(int x, int y, int z, const int8_t* falls_below) {
    const uint32_t v = at(x, y, z);
    const Props& pv = p(v);
    // 1. Falling blocks: a run whose support lets it through moves down one cell as a whole.
    if (pv.physics == Physics::kGranular) {
      const bool falls = falls_below && *falls_below >= 0 ? *falls_below != 0 : run_falls(x, y, z);
      if (!falls) return {v};
      const uint32_t a = at(x, y + 1, z);
      return {granular(a) ? a : kAirPacked};
    }
    const uint32_t above = at(x, y + 1, z);
    if (granular(above) && sand_passes(v)) return {above};
    // 2. Quench: lava touched by water from above or the side; water right under lava.
    if (pv.physics == Physics::kFluid) {
      if (pv.quenches) {
        const uint32_t n[5] = {above, at(x + 1, y, z), at(x - 1, y, z), at(x, y, z + 1), at(x, y, z - 1)};
        for (uint32_t u : n) {
          if (!fluid(u) || id_of(u) == id_of(v) || p(u).quenches) continue;
          const uint16_t q = source(v) ? pv.fluid.quench_source : pv.fluid.quench_flowing;
          if (q != 0) return {pack(q, 0)};
        }
      } else if (fluid(above) && p(above).quenches && p(above).fluid.quench_below != 0) {
        return {pack(p(above).fluid.quench_below, 0)};
      }
      // 3. A fluid cell: sources stay; flowing cells take the level their neighbours give, or drain.
      if (source(v)) return {v};
      const uint32_t nl = new_liquid(x, y, z, id_of(v));
      if (nl == v) return {v};
      if (!moves(pv.fluid)) return {v, -1, true};
      return {nl};
    }
    if (!pv.replaceable) return {v};
    // 4. Fluids flowing in (lowest id first: water before lava).
    uint16_t kinds[5];
    int nk = 0;
    auto add_kind = [&](uint32_t u) {
      if (!fluid(u)) return;
      const uint16_t k = id_of(u);
      for (int i = 0; i < nk; ++i)
        if (kinds[i] == k) return;
      kinds[nk++] = k;
    };
    add_kind(above);
    for (int d = 0; d < 4; ++d) add_kind(at(x + kDx[d], y, z + kDz[d]));
    for (int i = 1; i < nk; ++i)  // insertion sort of at most 5 ids
      for (int j = i; j > 0 && kinds[j - 1] > kinds[j]; --j) std::swap(kinds[j - 1], kinds[j]);
    for (int i = 0; i < nk; ++i) {
      if (!arrives(x, y, z, kinds[i])) continue;
      if (!moves(p(pack(kinds[i], 0)).fluid)) return {v, -1, true};
      return {new_liquid(x, y, z, kinds[i])};
    }
    // 5. Gases: a gas moves in where it is the winning claim; a gas that moved leaves air; one that stays ages.
    if (pv.air) {
      const int from = gas_claim(x, y, z);
      if (from < 0) return {v};
      const uint32_t src = from == kFromBelow ? at(x, y - 1, z) : at(x + kDx[from], y, z + kDz[from]);
      const int age = state_of(src) + 1;
      if (age >= p(src).life) return {v, from};  // it dissipates as it moves
      return {pack(id_of(src), static_cast<uint8_t>(age)), from};
    }
    if (pv.physics == Physics::kGas) {
      const int to = gas_target(x, y, z);
      if (to >= 0) {
        const int tx = to == kFromBelow ? x : x + kDx[to];
        const int ty = to == kFromBelow ? y + 1 : y;
        const int tz = to == kFromBelow ? z : z + kDz[to];
        const Next there = next(tx, ty, tz, nullptr);
        const int expect = to == kFromBelow ? kFromBelow : (to ^ 1);
        if (there.gas_from == expect) return {kAirPacked};
      }
      const int age = state_of(v) + 1;
      if (age >= pv.life) return {kAirPacked};
      return {pack(id_of(v), static_cast<uint8_t>(age))};
    }
    return {v};
  }
};

/// One section's results.
struct SectionResult {
  std::vector<CellChange> changes;
  std::vector<BlockPos> run_checks;  // changed cells with a falling block on or above them
  size_t deferred = 0, frozen = 0;
  uint64_t ruled = 0;
  uint16_t unknown_cols = 0;
};

void step_section(const World& world, const Tables& t, SectionPos s, int margin, uint64_t tick, uint64_t seed,
                  SectionResult& out) {
  thread_local Window w;
  fill_window(world, s, margin, w);
  Eval ev{t, w, world, tick, derive_seed(seed, tick)};
  // falls[z][x]: whether the granular cell just below (previous y) falls; -1 unknown.
  int8_t falls[16][16];
  std::memset(falls, -1, sizeof(falls));
  const int base_y = section_base_y(s.y);
  for (int ly = 0; ly < 16; ++ly) {
    const int y = ly + kBelow;
    for (int lz = 0; lz < 16; ++lz) {
      const int z = lz + margin;
      for (int lx = 0; lx < 16; ++lx) {
        const int x = lx + margin;
        const uint32_t v = w.get(x, y, z);
        const Props& pv = t[v];
        int8_t& f = falls[lz][lx];
        if (pv.physics == Physics::kNone && !pv.replaceable) {
          f = -1;
          continue;  // inert: stone, wood, ... never change
        }
        if (pv.replaceable && pv.physics == Physics::kNone) {
          // Air or a plant changes only when something that moves is beside it.
          const uint32_t n[6] = {w.get(x, y + 1, z), w.get(x, y - 1, z), w.get(x + 1, y, z),
                                 w.get(x - 1, y, z), w.get(x, y, z + 1), w.get(x, y, z - 1)};
          bool any = false;
          for (uint32_t u : n) any |= u == kUnknown || t[u].physics != Physics::kNone;
          if (!any) {
            f = -1;
            continue;
          }
        }
        ev.unknown = false;
        ++out.ruled;
        Next r;
        if (pv.physics == Physics::kGranular) {
          // The granular cell below, in this section, already knows whether its run falls: so does this one.
          const bool below_granular = ly > 0 && t[w.get(x, y - 1, z)].physics == Physics::kGranular;
          const int8_t run = (below_granular && f >= 0) ? f : static_cast<int8_t>(ev.run_falls(x, y, z));
          r = ev.next(x, y, z, &run);
          f = ev.unknown ? -1 : run;
        } else {
          r = ev.next(x, y, z, nullptr);
          f = -1;
        }
        if (ev.unknown) {
          ++out.frozen;
          out.unknown_cols = static_cast<uint16_t>(out.unknown_cols | ev.unknown_cols);
          ev.unknown_cols = 0;
          continue;
        }
        if (r.deferred) ++out.deferred;
        if (r.cell == v) continue;
        const BlockPos pos{w.x0 + x, static_cast<int64_t>(base_y + ly), w.z0 + z};
        out.changes.push_back(CellChange{pos, Cell::from_packed(r.cell)});
        if (t[r.cell].physics == Physics::kGranular || t[w.get(x, y + 1, z)].physics == Physics::kGranular)
          out.run_checks.push_back(pos);
      }
    }
  }
}

}  // namespace

Simulator::~Simulator() = default;

const SimTables& Simulator::tables() {
  if (!m_tables || m_tables_size != m_registry.size()) {
    m_tables = std::make_unique<SimTables>(m_registry);
    m_tables_size = m_registry.size();
  }
  return *m_tables;
}

Simulator::Simulator(const BlockRegistry& registry, uint64_t seed) : m_registry(registry), m_seed(seed) {
  int slope = 0;
  for (size_t i = 0; i < registry.size(); ++i) {
    const BlockDef& d = registry[static_cast<uint16_t>(i)];
    if (d.defined && d.physics == Physics::kFluid) slope = std::max<int>(slope, d.fluid.slope);
  }
  m_reach = slope + 3;
}

void Simulator::wake_box(const BlockPos& p, std::set<SectionPos>& into) const {
  const int64_t y_lo = std::max<int64_t>(kMinY, p.y - kReachUp);
  const int64_t y_hi = std::min<int64_t>(kMaxY, p.y + kReachDown);
  if (y_lo > y_hi) return;
  const int64_t cx_lo = column_of(p.x - m_reach), cx_hi = column_of(p.x + m_reach);
  const int64_t cz_lo = column_of(p.z - m_reach), cz_hi = column_of(p.z + m_reach);
  for (int64_t cx = cx_lo; cx <= cx_hi; ++cx)
    for (int64_t cz = cz_lo; cz <= cz_hi; ++cz)
      for (int s = section_of_y(y_lo); s <= section_of_y(y_hi); ++s) into.insert(SectionPos{cx, s, cz});
}

void Simulator::wake(const BlockPos& p) {
  wake_box(p, m_active);
  if (y_in_range(p.y)) m_run_checks.push_back(p);
}

size_t Simulator::waiting_sections() const {
  size_t n = 0;
  for (const auto& [col, secs] : m_waiting) n += secs.size();
  return n;
}

TickReport Simulator::step(const World& world, JobPool* pool) {
  const double t0 = wall_ms();
  TickReport rep;
  rep.tick = ++m_tick;
  // Sections waiting for a column that is loaded now join; a falling run standing on a changed cell wakes whole.
  for (auto it = m_waiting.begin(); it != m_waiting.end();) {
    if (world.find(it->first)) {
      m_active.insert(it->second.begin(), it->second.end());
      it = m_waiting.erase(it);
    } else {
      ++it;
    }
  }
  const SimTables& t = tables();
  for (const BlockPos& p : m_run_checks) {
    const Column* col = world.find(column_pos_of(p));
    if (!col) continue;
    int64_t y = p.y + 1;
    while (y <= kMaxY && t[col->get(local_of(p.x), y, local_of(p.z)).packed()].physics == Physics::kGranular) ++y;
    for (int s = section_of_y(std::min<int64_t>(p.y + 1, kMaxY)); s <= section_of_y(std::min<int64_t>(y, kMaxY)); ++s)
      m_active.insert(SectionPos{p.x >> 4, s, p.z >> 4});
  }
  m_run_checks.clear();
  std::vector<SectionPos> list;
  list.reserve(m_active.size());
  for (const SectionPos& s : m_active) {
    if (world.find(s.column())) list.push_back(s);
    else m_waiting[s.column()].insert(s);
  }
  m_active.clear();
  if (list.empty()) {
    rep.waiting_sections = waiting_sections();
    rep.ms = wall_ms() - t0;
    return rep;
  }
  std::vector<SectionResult> results(list.size());
  const uint64_t tick = m_tick, seed = m_seed;
  const int margin = m_reach;
  auto work = [&, tick, seed, margin](size_t i) { step_section(world, t, list[i], margin, tick, seed, results[i]); };
  if (pool && pool->thread_count() > 0 && list.size() > 1) {
    // The calling thread works too; helpers take sections from a shared counter. The state is shared so that a
    // helper the pool starts late (after every section is done) touches nothing of this call.
    struct Shared {
      std::atomic<size_t> next{0};
      std::atomic<size_t> done{0};
      std::mutex mu;
      std::condition_variable cv;
      size_t n = 0;
      std::function<void(size_t)> work;
    };
    auto sh = std::make_shared<Shared>();
    sh->n = list.size();
    sh->work = work;
    auto run = [sh] {
      for (;;) {
        const size_t i = sh->next.fetch_add(1);
        if (i >= sh->n) return;
        sh->work(i);
        if (sh->done.fetch_add(1) + 1 == sh->n) {
          std::lock_guard lock(sh->mu);
          sh->cv.notify_all();
        }
      }
    };
    const size_t helpers = std::min(static_cast<size_t>(pool->thread_count()), list.size() - 1);
    for (size_t h = 0; h < helpers; ++h) pool->submit(-1.0, run);
    run();
    std::unique_lock lock(sh->mu);
    sh->cv.wait(lock, [&] { return sh->done.load() == sh->n; });
    sh->work = nullptr;  // the lambda's references die with this call
  } else {
    for (size_t i = 0; i < list.size(); ++i) work(i);
  }
  rep.sections_stepped = list.size();
  rep.cells_evaluated = static_cast<uint64_t>(list.size()) * 4096;
  for (size_t i = 0; i < list.size(); ++i) {
    SectionResult& r = results[i];
    const SectionPos s = list[i];
    rep.deferred_cells += r.deferred;
    rep.frozen_cells += r.frozen;
    rep.cells_ruled += r.ruled;
    if (r.deferred) m_active.insert(s);
    for (const CellChange& c : r.changes) wake_box(c.pos, m_active);
    for (const BlockPos& p : r.run_checks) m_run_checks.push_back(p);
    for (int b = 0; b < 9; ++b) {
      if (!(r.unknown_cols & (1u << b))) continue;
      const ColumnPos wait_for{s.x + (b % 3) - 1, s.z + (b / 3) - 1};
      m_waiting[wait_for].insert(s);
    }
    rep.changes.insert(rep.changes.end(), r.changes.begin(), r.changes.end());
  }
  rep.waiting_sections = waiting_sections();
  rep.ms = wall_ms() - t0;
  return rep;
}

namespace {
constexpr char kMagic[5] = {'V', 'X', 'S', 'I', 'M'};
constexpr uint8_t kStateVersion = 1;
constexpr size_t kEntryBytes = 17;

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint64_t get_u64(std::string_view in, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}
}  // namespace

std::set<SectionPos> Simulator::pending_set() const {
  std::set<SectionPos> all = m_active;
  for (const auto& [col, secs] : m_waiting) all.insert(secs.begin(), secs.end());
  // A falling run still to be checked: its cell's section and the one above are stepped after loading.
  for (const BlockPos& p : m_run_checks) {
    all.insert(section_pos_of(p));
    if (p.y + 16 <= kMaxY) all.insert(section_pos_of(BlockPos{p.x, p.y + 16, p.z}));
  }
  return all;
}

std::string Simulator::save_state() const {
  const std::set<SectionPos> all = pending_set();
  std::string out(kMagic, sizeof(kMagic));
  out.push_back(static_cast<char>(kStateVersion));
  put_u64(out, m_tick);
  const uint32_t n = static_cast<uint32_t>(all.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  for (const SectionPos& s : all) {
    put_u64(out, static_cast<uint64_t>(s.x));
    out.push_back(static_cast<char>(s.y));
    put_u64(out, static_cast<uint64_t>(s.z));
  }
  return out;
}

Status Simulator::load_state(std::string_view in) {
  constexpr size_t kHeader = sizeof(kMagic) + 1 + 8 + 4;
  if (in.size() < kHeader) {
    Error e{"simulation state: truncated header (" + std::to_string(in.size()) + " of " + std::to_string(kHeader) + " bytes)"};
    e.offset = static_cast<int64_t>(in.size());
    return e;
  }
  if (std::memcmp(in.data(), kMagic, sizeof(kMagic)) != 0) {
    Error e{"simulation state: bad magic (expected VXSIM)"};
    e.offset = 0;
    return e;
  }
  if (static_cast<uint8_t>(in[5]) != kStateVersion) {
    Error e{"simulation state: version " + std::to_string(static_cast<uint8_t>(in[5])) + " is not " +
            std::to_string(kStateVersion) + " (written by a newer voxen?)"};
    e.offset = 5;
    return e;
  }
  const uint64_t tick = get_u64(in, 6);
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(static_cast<uint8_t>(in[14 + i])) << (8 * i);
  if (in.size() != kHeader + static_cast<size_t>(n) * kEntryBytes) {
    Error e{"simulation state: " + std::to_string(n) + " sections need " +
            std::to_string(kHeader + static_cast<size_t>(n) * kEntryBytes) + " bytes, the record has " +
            std::to_string(in.size())};
    e.offset = static_cast<int64_t>(std::min(in.size(), kHeader + static_cast<size_t>(n) * kEntryBytes));
    return e;
  }
  std::vector<SectionPos> secs;
  secs.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t at = kHeader + static_cast<size_t>(i) * kEntryBytes;
    const int s = static_cast<uint8_t>(in[at + 8]);
    if (s >= kSectionsPerColumn) {
      Error e{"simulation state: section index " + std::to_string(s) + " past 23"};
      e.offset = static_cast<int64_t>(at + 8);
      return e;
    }
    const SectionPos pos{static_cast<int64_t>(get_u64(in, at)), s, static_cast<int64_t>(get_u64(in, at + 9))};
    if (!secs.empty() && !(secs.back() < pos)) {
      Error e{"simulation state: section " + std::to_string(i) + " is not after the one before it (sections are sorted "
              "by x, section, z, each once)"};
      e.offset = static_cast<int64_t>(at);
      return e;
    }
    secs.push_back(pos);
  }
  m_tick = tick;
  for (const SectionPos& s : secs) m_waiting[s.column()].insert(s);
  return Ok{};
}

std::vector<Edit> to_edits(World& world, std::span<const CellChange> changes) {
  std::vector<Edit> edits;
  edits.reserve(changes.size());
  for (const CellChange& c : changes)
    if (auto e = world.make_edit(c.pos, c.after)) edits.push_back(*e);
  return edits;
}

uint64_t cells_hash(const World& world) {
  uint64_t h = kFnv1aOffset;
  for (const ColumnPos& p : world.positions()) {
    h = fnv1a_u64(h, static_cast<uint64_t>(p.x));
    h = fnv1a_u64(h, static_cast<uint64_t>(p.z));
    h = fnv1a_u64(h, world.find(p)->content_hash(false));
  }
  return h;
}

}  // namespace voxen::sim
