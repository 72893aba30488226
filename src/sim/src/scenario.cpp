// The named scenarios (scenario.h): boxes of cells over a stone platform at the site's ground.
#include "voxen/sim/scenario.h"

#include <algorithm>
#include <map>
#include <set>

namespace voxen::sim {
namespace {

constexpr int kHeadroom = 28;  // blocks above the ground every scenario may use

struct Builder {
  std::vector<CellChange> cells;
  void box(BlockPos lo, BlockPos hi, Cell c) {
    for (int64_t y = lo.y; y <= hi.y; ++y)
      for (int64_t z = lo.z; z <= hi.z; ++z)
        for (int64_t x = lo.x; x <= hi.x; ++x) cells.push_back(CellChange{{x, y, z}, c});
  }
};

Cell named(const BlockRegistry& reg, std::string_view name, uint8_t st = 0) { return Cell{reg.id(name), st}; }

}  // namespace

const std::vector<std::string>& scenario_names() {
  static const std::vector<std::string> names = {"dam-break", "sand-tower", "lava-meets-water", "smoke-room", "border"};
  return names;
}

std::vector<ColumnPos> ScenarioPlan::columns() const {
  std::set<ColumnPos> s;
  for (const CellChange& c : cells) s.insert(column_pos_of(c.pos));
  return {s.begin(), s.end()};
}

std::optional<ColumnPos> scenario_held_back(std::string_view name, int64_t x, int64_t z) {
  if (name != "border") return std::nullopt;
  return ColumnPos{column_of(x) + 1, column_of(z)};
}

std::vector<ColumnPos> scenario_area(std::string_view name, int64_t x, int64_t z) {
  const ColumnPos c{column_of(x), column_of(z)};
  std::set<ColumnPos> s;
  for (int64_t dz = -1; dz <= 1; ++dz)
    for (int64_t dx = -1; dx <= 1; ++dx) s.insert({c.x + dx, c.z + dz});
  if (name == "border") {
    s.insert({c.x + 1, c.z});
    s.insert({c.x + 2, c.z});
  }
  return {s.begin(), s.end()};
}

Result<ScenarioPlan> make_scenario(std::string_view name, const BlockRegistry& reg, const World& world, int64_t x,
                                   int64_t z) {
  const auto& names = scenario_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return Error{"unknown scenario '" + std::string(name) + "' (scenarios: " + list + ")"};
  }
  if (x < -kWorldReach || x > kWorldReach || z < -kWorldReach || z > kWorldReach)
    return Error{"the scenario's site (" + std::to_string(x) + ", " + std::to_string(z) +
                 ") is outside the world's reach (|x|, |z| <= 2^62)"};
  if (!world.find(ColumnPos{column_of(x), column_of(z)}))
    return Error{"the scenario's site (" + std::to_string(x) + ", " + std::to_string(z) + ") is not in a loaded column"};
  int64_t ground = kMinY;
  for (int64_t y = kMaxY; y >= kMinY; --y)
    if (world.get({x, y, z}).id != kAirId) {
      ground = y;
      break;
    }
  if (ground + kHeadroom > kMaxY)
    return Error{"the ground at (" + std::to_string(x) + ", " + std::to_string(z) + ") is at y " + std::to_string(ground) +
                 ": the scenario needs " + std::to_string(kHeadroom) + " blocks above it below y " + std::to_string(kMaxY)};
  const int64_t f = ground + 1;  // the platform's top
  ScenarioPlan plan;
  plan.name = std::string(name);
  plan.ground_y = ground;
  plan.site = BlockPos{x, f, z};
  const Cell stone = named(reg, "stone"), water = named(reg, "water"), lava = named(reg, "lava");
  Builder b;
  if (name == "dam-break") {
    b.box({x - 7, f + 1, z - 7}, {x + 7, f + kHeadroom - 2, z + 7}, kAir);  // room to flow: trees and hills cleared
    b.box({x - 7, f, z - 7}, {x + 7, f, z + 7}, stone);
    b.box({x - 6, f + 1, z - 6}, {x + 6, f + 4, z + 6}, stone);
    b.box({x - 5, f + 1, z - 5}, {x + 5, f + 4, z + 5}, water);
    b.box({x + 6, f + 1, z - 2}, {x + 6, f + 4, z + 2}, kAir);  // the wall gives way
  } else if (name == "sand-tower") {
    b.box({x - 4, f + 1, z - 4}, {x + 4, f + kHeadroom - 2, z + 4}, kAir);
    b.box({x - 4, f, z - 4}, {x + 4, f, z + 4}, stone);
    b.box({x - 2, f + 1, z - 2}, {x + 2, f + 1, z + 2}, stone);  // a basin's rim ...
    b.box({x - 1, f + 1, z - 1}, {x + 1, f + 1, z + 1}, water);  // ... holding water under the tower
    const Cell sand = named(reg, "sand"), gravel = named(reg, "gravel");
    b.box({x - 1, f + 10, z - 1}, {x + 1, f + 25, z + 1}, sand);
    b.box({x - 1, f + 16, z - 1}, {x + 1, f + 17, z + 1}, gravel);
    b.box({x - 1, f + 9, z - 1}, {x + 1, f + 9, z + 1}, stone);  // the slab it stood on ...
    b.box({x - 1, f + 9, z - 1}, {x + 1, f + 9, z + 1}, kAir);   // ... removed
  } else if (name == "lava-meets-water") {
    b.box({x - 8, f + 1, z - 8}, {x + 8, f + kHeadroom - 2, z + 8}, kAir);
    b.box({x - 8, f, z - 8}, {x + 8, f, z + 8}, stone);
    b.box({x - 8, f + 1, z - 8}, {x + 8, f + 1, z + 8}, stone);
    b.box({x - 7, f + 1, z - 7}, {x + 7, f + 1, z + 7}, kAir);  // a rim one block high
    b.cells.push_back({{x - 4, f + 1, z}, lava});
    b.cells.push_back({{x + 4, f + 1, z}, water});
    b.box({x + 2, f + 1, z + 5}, {x + 2, f + 5, z + 5}, stone);  // a pillar with lava on top, over the water's path
    b.cells.push_back({{x + 2, f + 6, z + 5}, lava});
  } else if (name == "smoke-room") {
    b.box({x - 6, f, z - 6}, {x + 6, f + 7, z + 6}, stone);
    b.box({x - 5, f + 1, z - 5}, {x + 5, f + 6, z + 5}, kAir);
    const Cell smoke = named(reg, "smoke");
    b.box({x - 2, f + 1, z - 2}, {x + 2, f + 2, z + 2}, smoke);
  } else {  // border
    const int64_t bx = (column_of(x) + 1) * 16;  // the site column's east border
    plan.held_back = scenario_held_back(name, x, z);
    b.box({bx - 14, f + 1, z - 4}, {bx - 1, f + kHeadroom - 2, z + 4}, kAir);
    b.box({bx - 14, f, z - 4}, {bx - 1, f, z + 4}, stone);
    b.cells.push_back({{bx - 7, f + 1, z}, water});
  }
  // Each position once, with the last cell the structure gives it, in the order positions first appear; cells the
  // world already holds are left out (no edit). The headroom check keeps every cell inside y -128..255.
  std::map<BlockPos, size_t> last;
  for (size_t i = 0; i < b.cells.size(); ++i) last[b.cells[i].pos] = i;
  std::set<BlockPos> done;
  for (const CellChange& c : b.cells) {
    if (!done.insert(c.pos).second) continue;
    const CellChange& final_cell = b.cells[last[c.pos]];
    if (world.get(c.pos) != final_cell.after) plan.cells.push_back(final_cell);
  }
  return plan;
}

}  // namespace voxen::sim
