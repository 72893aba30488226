// The world's simulation: fluids that flow, granular blocks that fall, gases that rise and dissipate, as a
// cellular automaton stepped in fixed ticks (20 a second by default) over the active sections only.
//
// Sources: voxelG's (seed 002) active-brick cellular automaton (water levels, sand gravity, rising smoke, only the
// bricks holding movable voxels stepped); Minecraft's and Luanti's fluid rules (levels falling with distance, flow
// down first, then sideways towards the nearest drop within a few blocks, two sources renew a third, lava and
// water making stone); docs/ARCHITECTURE.md, Simulation, lists every rule.
//
// Determinism: a tick is a pure function of the world's cells before it, the world seed and the tick number. Every
// cell's next value is computed from the cells as they were when the tick began (nothing a tick writes is read in
// the same tick), so the order sections are visited in and the number of threads change nothing; the changes come
// back sorted by section, then cell index. Randomness (where a gas spreads under a ceiling) is a hash of
// (seed, tick, position).
//
// Space: world blocks (int64), Y up. Sections are the World's 16^3 sections (SectionPos).
// Threads: step() runs on the thread that owns the World (the main thread), spreading its sections over a JobPool
// while the World is not changed; the caller applies the changes afterwards.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/core/job_pool.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"
#include "voxen/world/edit.h"
#include "voxen/world/world.h"

namespace voxen::sim {

struct SimTables;  // what the rules need per block id (simulator.cpp)

/// Ticks per second unless `--tick-rate` says otherwise.
inline constexpr double kDefaultTickRate = 20.0;

/// How far a cell's next value looks up and down (blocks, from the cell): the fluid and gas rules. Sideways it looks
/// Simulator::reach() blocks: the registry's longest search for a drop (FluidDef::slope) from a neighbour, plus
/// one for the neighbour, one for the search's last look and one for a gas's hand-over. A change wakes every section this box around it touches
/// (plus a falling granular run above it, however tall).
inline constexpr int kReachDown = 2;
inline constexpr int kReachUp = 3;

/// One cell the tick changes: where, and the cell it becomes (the caller makes it an Edit: World::make_edit).
struct CellChange {
  BlockPos pos;
  Cell after;
  friend bool operator==(const CellChange&, const CellChange&) = default;
};

/// What one tick did.
struct TickReport {
  uint64_t tick = 0;                 // the tick's number (the first step() is tick 1)
  std::vector<CellChange> changes;   // sorted by section (x, then section index, then z), then cell index
  size_t sections_stepped = 0;       // active sections evaluated
  uint64_t cells_evaluated = 0;      // 4096 per section stepped (the "active cell updates")
  uint64_t cells_ruled = 0;          // of those, cells whose rule ran (the rest are inert blocks, or air with
                                     // nothing that moves beside it, settled in a few comparisons)
  size_t waiting_sections = 0;       // sections waiting for an unloaded column after the tick
  size_t deferred_cells = 0;         // cells that would change on a later tick (a slow fluid between its ticks)
  size_t frozen_cells = 0;           // cells held because their rule reads an unloaded column
  double ms = 0;                     // wall time of step(), the caller's application of the changes excluded
};

/// The simulation of one World. Holds the active set (sections to step next tick), the sections waiting for an
/// unloaded column, and the tick counter; everything else is in the World's cells (fluid levels, a gas's age).
class Simulator {
 public:
  /// `registry` must outlive the simulator; its physics fields say what moves (block_registry.h).
  Simulator(const BlockRegistry& registry, uint64_t seed);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  /// Wakes the neighbourhood of a cell that changed outside the simulation (a player's edit, an import, a
  /// scenario's structure): every section within the reach box (kReach*) of p, and a granular run standing on it.
  /// Sections of unloaded columns wait for their column.
  void wake(const BlockPos& p);

  /// Runs one tick over `world` (read only): sections whose column loaded since the last tick join first; active
  /// sections of unloaded columns wait for them. Each active section's cells are evaluated (on `pool` when given,
  /// one job a section; else on this thread), and the changes come back for the caller to apply, all of them,
  /// before the next step (ColumnStreamer::apply_edits or light::apply_edits: light, meshes and journals see them
  /// as edits). The sections next to each change are woken for the next tick; a section that changed nothing and
  /// defers nothing leaves the active set. A cell whose rule reads a cell of an unloaded column keeps its value
  /// (flow waits at the border), and its section waits for that column.
  TickReport step(const World& world, JobPool* pool = nullptr);

  uint64_t tick() const { return m_tick; }
  /// How far sideways a cell's rule reads (blocks): max FluidDef::slope + 3.
  int reach() const { return m_reach; }
  size_t active_sections() const { return m_active.size(); }
  /// Sections waiting for a column to load (the column may be their own).
  size_t waiting_sections() const;
  /// Distinct sections with pending updates: active, waiting, or under a falling run to check (what save_state keeps).
  size_t pending_sections() const { return pending_set().size(); }
  /// True when nothing is active or waiting: a tick costs nothing.
  bool quiet() const { return m_active.empty() && m_waiting.empty(); }
  /// The active sections, sorted.
  const std::set<SectionPos>& active() const { return m_active; }

  /// The state a saved world keeps (its pending updates): the tick counter and every active or waiting section, as
  /// bytes (docs/formats/world_store_v1.md, record 'c'): "VXSIM" 1, uint64 tick, uint32 count, count x (int64 x,
  /// uint8 section, int64 z), little-endian. Sections come back waiting for their own column.
  std::string save_state() const;
  /// Restores save_state()'s bytes, replacing the tick counter and adding the sections (each waits for its own
  /// column to load). Errors (nothing changed): a wrong magic or version, a truncated or overlong record, a section
  /// index past 23, sections not in save_state's order (ascending x, section, z, each once); the message names the
  /// byte offset. So bytes that load are exactly what save_state() of the result writes.
  Status load_state(std::string_view bytes);

 private:
  const BlockRegistry& m_registry;
  uint64_t m_seed;
  uint64_t m_tick = 0;
  std::set<SectionPos> m_active;
  std::map<ColumnPos, std::set<SectionPos>> m_waiting;  // column to load -> sections to step when it does
  int m_reach = 2;
  std::vector<BlockPos> m_run_checks;  // changed cells a falling run may stand on: its sections wake next tick
  std::unique_ptr<SimTables> m_tables; // rebuilt when the registry grows (an import adds blocks)
  size_t m_tables_size = 0;

  const SimTables& tables();

  void wake_box(const BlockPos& p, std::set<SectionPos>& into) const;
  std::set<SectionPos> pending_set() const;
};

/// The changes as edits of `world` (World::make_edit: the cell there now as `before`, the next sequence numbers), in
/// order; changes outside the loaded columns or y -128..255 are left out. Nothing is applied.
std::vector<Edit> to_edits(World& world, std::span<const CellChange> changes);

/// FNV-1a over the loaded columns' cells in position order (Column::content_hash of each, cells only): the "world
/// hash" `voxen sim` prints, equal for equal worlds on every machine.
uint64_t cells_hash(const World& world);

}  // namespace voxen::sim
