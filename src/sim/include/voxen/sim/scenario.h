// The named simulation scenarios of `voxen sim --scenario` (and the tour's flood segment): structures placed on the
// world's own terrain at a site, whose cells then move. Each is a list of cells to place, built from the registry
// and the ground height the World has at the site, so the same scenario on another seed or generator runs off
// into other terrain.
//
//   dam-break        a 11 x 11 lake of water sources, 4 deep, walled on a stone platform; its east wall removed
//   sand-tower       a 3 x 3 tower of sand with a gravel band, 16 high, on a stone slab that is removed, over a
//                    basin of water it falls into
//   lava-meets-water a lava and a water source 8 apart on a walled platform, and lava poured from above into the
//                    water's path: cobblestone, obsidian and stone where they meet
//   smoke-room       a closed stone room with 50 cells of smoke on its floor
//   border           water poured 7 blocks west of a column border; the column east of it is loaded half-way
//                    through the run (ScenarioPlan::held_back)
//
// Space: world blocks, Y up. The site is a world (x, z); the platform stands one block above the highest non-air
// cell there.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/sim/simulator.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::sim {

/// The scenario names, in the order `voxen sim --help` lists them.
const std::vector<std::string>& scenario_names();

/// A scenario placed at a site.
struct ScenarioPlan {
  std::string name;
  BlockPos site;                     // (x, floor y, z): the platform's top is at site.y
  std::vector<CellChange> cells;     // placed before the first tick (the caller wakes each): each position once (the
                                     // structure's last word on it), none already holding its cell
  std::optional<ColumnPos> held_back;  // border: the column to keep unloaded until the run's half-way tick
  int64_t ground_y = 0;              // the highest non-air cell at the site before the scenario
  /// Every column the scenario's cells touch (sorted); the caller loads them (and their neighbours) first.
  std::vector<ColumnPos> columns() const;
};

/// The columns a scenario at (x, z) touches before it knows the ground: a square of radius 1 column around the
/// site's column, plus the border scenario's held-back column and the one past it. Load these (and a ring) before
/// make_scenario.
std::vector<ColumnPos> scenario_area(std::string_view name, int64_t x, int64_t z);

/// The column a scenario keeps unloaded for the first half of the run (border: the one east of the site's), or
/// nullopt.
std::optional<ColumnPos> scenario_held_back(std::string_view name, int64_t x, int64_t z);

/// Plans scenario `name` at world (x, z) over `world` (the site's column must be loaded: its ground is read).
/// Errors: an unknown name (the message lists the names); a site past kWorldReach (2^62) in x or z; the site's
/// column not loaded; ground too high for the structure (it needs 28 blocks above it below y 255).
Result<ScenarioPlan> make_scenario(std::string_view name, const BlockRegistry& registry, const World& world, int64_t x,
                                   int64_t z);

}  // namespace voxen::sim
