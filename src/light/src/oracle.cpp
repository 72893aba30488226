// The oracle: plain iterative relaxation of the light rules over every loaded cell. Deliberately simple and
// independent of the fast path: its own arrays, scalar per-channel arithmetic written from the rules in rules.h
// (not the SWAR helpers), no height map, no queues.
#include "voxen/light/oracle.h"

#include <algorithm>
#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

namespace voxen::light {
namespace {

constexpr int kCellsPerColumn = kColumnWidth * kColumnWidth * kColumnHeight;

/// One loaded column's cells as the oracle sees them. Index: ((y - kMinY) * 16 + z) * 16 + x.
struct OracleColumn {
  Column* column = nullptr;
  std::vector<uint8_t> opacity;
  std::vector<std::array<int, 4>> source;  // sky, red, green, blue
  std::vector<std::array<int, 4>> light;
  std::array<int, 4> side{-1, -1, -1, -1};  // index of the column at +x, -x, +z, -z (-1 = unloaded)
};

int cell_index(int x, int yi, int z) { return (yi * kColumnWidth + z) * kColumnWidth + x; }

std::array<int, 4> channels(Light l) { return {light_sky(l), light_r(l), light_g(l), light_b(l)}; }

/// What a cell of opacity `op` receives from a neighbour with light `n` (the rules, one channel at a time).
std::array<int, 4> receive(const std::array<int, 4>& n, int op, bool from_above) {
  std::array<int, 4> out{};
  for (int k = 0; k < 4; ++k) out[static_cast<size_t>(k)] = std::max(0, n[static_cast<size_t>(k)] - 1 - op);
  if (op >= 15) out = {0, 0, 0, 0};
  if (from_above && op == 0 && n[0] == 15) out[0] = 15;
  return out;
}

}  // namespace

int relight_all(World& world, const LightTable& table) {
  const std::vector<ColumnPos> positions = world.positions();
  std::unordered_map<ColumnPos, int, ColumnPosHash> index_of;
  for (size_t i = 0; i < positions.size(); ++i) index_of[positions[i]] = static_cast<int>(i);

  std::vector<OracleColumn> cols(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    OracleColumn& oc = cols[i];
    oc.column = world.find(positions[i]);
    oc.opacity.resize(kCellsPerColumn);
    oc.source.resize(kCellsPerColumn);
    const int64_t dx[4] = {1, -1, 0, 0}, dz[4] = {0, 0, 1, -1};
    for (int s = 0; s < 4; ++s) {
      auto it = index_of.find({positions[i].x + dx[s], positions[i].z + dz[s]});
      oc.side[static_cast<size_t>(s)] = it == index_of.end() ? -1 : it->second;
    }
    for (int yi = 0; yi < kColumnHeight; ++yi)
      for (int z = 0; z < kColumnWidth; ++z)
        for (int x = 0; x < kColumnWidth; ++x) {
          const Cell c = oc.column->get(x, kMinY + yi, z);
          const auto ci = static_cast<size_t>(cell_index(x, yi, z));
          oc.opacity[ci] = table.opacity(c.id);
          oc.source[ci] = channels(table.emission(c.id));  // sky comes from above the world
        }
    oc.light = oc.source;  // start from the sources alone: the values only grow, up to the least fixed point
  }

  // The light of the neighbour of (col, x, yi, z) in direction d; `above_world` for the cell above y = kMaxY.
  auto neighbour_light = [&](int col, int x, int yi, int z, int d) -> std::array<int, 4> {
    switch (d) {
      case 0:  // +y
        if (yi == kColumnHeight - 1) return {15, 0, 0, 0};  // above the world: full sky
        return cols[static_cast<size_t>(col)].light[static_cast<size_t>(cell_index(x, yi + 1, z))];
      case 1:  // -y
        if (yi == 0) return {0, 0, 0, 0};
        return cols[static_cast<size_t>(col)].light[static_cast<size_t>(cell_index(x, yi - 1, z))];
      default: {
        static constexpr int kDx[4] = {1, -1, 0, 0}, kDz[4] = {0, 0, 1, -1};
        const int s = d - 2;
        int nx = x + kDx[s], nz = z + kDz[s], nc = col;
        if (nx < 0 || nx > 15 || nz < 0 || nz > 15) {
          nc = cols[static_cast<size_t>(col)].side[static_cast<size_t>(s)];
          if (nc < 0) return {0, 0, 0, 0};  // unloaded: dark and opaque
          nx &= 15;
          nz &= 15;
        }
        return cols[static_cast<size_t>(nc)].light[static_cast<size_t>(cell_index(nx, yi, nz))];
      }
    }
  };

  int sweeps = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    const bool up = sweeps % 2 == 1;            // alternate the sweep direction so paths in any direction
    const bool back = (sweeps / 2) % 2 == 1;    // are followed within a few sweeps
    for (size_t ci = 0; ci < cols.size(); ++ci) {
      const int col = static_cast<int>(back ? cols.size() - 1 - ci : ci);
      OracleColumn& oc = cols[static_cast<size_t>(col)];
      for (int step = 0; step < kColumnHeight; ++step) {
        const int yi = up ? step : kColumnHeight - 1 - step;
        for (int zs = 0; zs < kColumnWidth; ++zs)
          for (int xs = 0; xs < kColumnWidth; ++xs) {
            const int x = back ? 15 - xs : xs, z = back ? 15 - zs : zs;
            const int i = cell_index(x, yi, z);
            const int op = oc.opacity[static_cast<size_t>(i)];
            if (op >= 15) continue;  // an opaque cell keeps its own emission and receives nothing
            std::array<int, 4> v = oc.source[static_cast<size_t>(i)];
            for (int d = 0; d < 6; ++d) {
              const std::array<int, 4> got = receive(neighbour_light(col, x, yi, z, d), op, d == 0);
              for (int k = 0; k < 4; ++k) v[static_cast<size_t>(k)] = std::max(v[static_cast<size_t>(k)], got[static_cast<size_t>(k)]);
            }
            if (v != oc.light[static_cast<size_t>(i)]) {
              oc.light[static_cast<size_t>(i)] = v;
              changed = true;
            }
          }
      }
    }
    ++sweeps;
  }

  for (OracleColumn& oc : cols) {
    for (int yi = 0; yi < kColumnHeight; ++yi)
      for (int z = 0; z < kColumnWidth; ++z)
        for (int x = 0; x < kColumnWidth; ++x) {
          const auto& v = oc.light[static_cast<size_t>(cell_index(x, yi, z))];
          oc.column->set_light(x, kMinY + yi, z, make_light(v[0], v[1], v[2], v[3]));
        }
    for (int s = 0; s < kSectionsPerColumn; ++s) oc.column->light_section(s).compact();
  }
  return sweeps;
}

std::string LightDiff::to_string() const {
  if (equal()) return "equal";
  auto fmt = [](Light l) {
    return "sky " + std::to_string(light_sky(l)) + " rgb (" + std::to_string(light_r(l)) + "," +
           std::to_string(light_g(l)) + "," + std::to_string(light_b(l)) + ")";
  };
  std::string s = std::to_string(mismatches) + " cell(s) differ, " + std::to_string(columns_missing) +
                  " column(s) missing";
  if (mismatches)
    s += "; first at " + std::to_string(first.x) + "," + std::to_string(first.y) + "," + std::to_string(first.z) +
         ": " + fmt(a) + " vs " + fmt(b);
  return s;
}

LightDiff compare_light(const World& a, const World& b) {
  LightDiff d;
  std::vector<ColumnPos> all = a.positions();
  const std::vector<ColumnPos> pb = b.positions();
  all.insert(all.end(), pb.begin(), pb.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  for (const ColumnPos& p : all) {
    const Column* ca = a.find(p);
    const Column* cb = b.find(p);
    if (!ca || !cb) {
      ++d.columns_missing;
      continue;
    }
    for (int s = 0; s < kSectionsPerColumn; ++s)
      for (int i = 0; i < kSectionVolume; ++i) {
        const Light la = ca->light_section(s).get(i), lb = cb->light_section(s).get(i);
        if (la == lb) continue;
        if (d.mismatches++ == 0) {
          d.first = {p.min_x() + (i & 15), section_base_y(s) + (i >> 8), p.min_z() + ((i >> 4) & 15)};
          d.a = la;
          d.b = lb;
        }
      }
  }
  return d;
}

LightDiff verify_light(const World& world, const LightTable& table) {
  World copy;
  for (const ColumnPos& p : world.positions()) copy.insert(std::make_unique<Column>(*world.find(p)));
  relight_all(copy, table);
  return compare_light(world, copy);
}

}  // namespace voxen::light
