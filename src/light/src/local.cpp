// light_column_local: the light of one column by itself (neighbours dark and opaque), on flat arrays.
//
// Steps (column-local index i = (y - kMinY) << 8 | z << 4 | x, i.e. section s at [s * 4096, s * 4096 + 4096)):
//   1. decode: opacity per cell (uniform sections by memset), emitters listed;
//   2. height map: per (x, z) the highest cell with opacity > 0 (-1 when the whole (x, z) column is clear);
//   3. initial light: sky 15 above the height map (exactly the cells that get 15: a horizontal step loses 1, so no
//      other cell can hold sky 15), 0 below, except a top cell (y = kMaxY) that is not clear, which receives
//      14 - opacity from above the world; emitters hold their emission;
//   4. seeds: the sky-15 cells that touch a darker cell (the cell just above the height map, and those beside a
//      neighbour whose height map is higher) and the emitters;
//   5. flood fill (FIFO of packed indices) until no cell changes;
//   6. store: sections whose 4096 values are equal become uniform LightSections, others dense.
// Cost: a few hundred microseconds per column, dominated by touching the 98,304-cell arrays (PERFORMANCE.md).
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "voxen/light/light.h"

namespace voxen::light {
namespace {

constexpr int kLayer = kColumnWidth * kColumnWidth;          // 256 cells per y
constexpr int kColumnCells = kColumnHeight * kLayer;         // 98,304
constexpr int kTopIndex = kColumnHeight - 1;                 // y index of kMaxY

struct LocalScratch {
  std::vector<uint8_t> opacity = std::vector<uint8_t>(kColumnCells);
  std::vector<Light> light = std::vector<Light>(kColumnCells);
  std::vector<uint32_t> queue;
  std::vector<uint32_t> emitters;                            // column-local indices of emitting cells
  std::vector<uint32_t> unpacked = std::vector<uint32_t>(kSectionVolume);
  std::array<int, kLayer> height{};                          // y index of the height map, -1 = none
};

LocalScratch& scratch() {
  thread_local LocalScratch s;
  return s;
}

// Per-section summary of step 1: -1 mixed opacity, else the one opacity of every cell.
using SectionOpacity = std::array<int, kSectionsPerColumn>;

void decode(const Column& column, const LightTable& table, LocalScratch& S, SectionOpacity& uniform_opacity,
            std::array<Light, kSectionsPerColumn>& uniform_emission) {
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    const Section& sec = column.section(s);
    uint8_t* op = S.opacity.data() + s * kSectionVolume;
    uniform_emission[static_cast<size_t>(s)] = 0;
    if (sec.is_uniform()) {
      const uint16_t id = Cell::from_packed(sec.palette()[0]).id;
      const uint8_t o = table.opacity(id);
      std::memset(op, o, kSectionVolume);
      uniform_opacity[static_cast<size_t>(s)] = o;
      uniform_emission[static_cast<size_t>(s)] = table.emission(id);
      continue;
    }
    // Palette-level facts (the palette may still hold entries no cell uses: then a section is merely treated as
    // mixed, which is slower but exact).
    bool emits = false;
    int lo = kOpaque, hi = 0;
    for (uint32_t p : sec.palette()) {
      const uint16_t id = Cell::from_packed(p).id;
      emits |= table.emission(id) != 0;
      lo = std::min<int>(lo, table.opacity(id));
      hi = std::max<int>(hi, table.opacity(id));
    }
    uniform_opacity[static_cast<size_t>(s)] = lo == hi ? lo : -1;
    sec.unpack(S.unpacked.data());
    const uint32_t* cells = S.unpacked.data();
    for (int i = 0; i < kSectionVolume; ++i) op[i] = table.opacity(static_cast<uint16_t>(cells[i] & 0xFFFF));
    if (emits)
      for (int i = 0; i < kSectionVolume; ++i)
        if (table.emission(static_cast<uint16_t>(cells[i] & 0xFFFF)) != 0)
          S.emitters.push_back(static_cast<uint32_t>(s * kSectionVolume + i));
  }
}

void height_map(LocalScratch& S, const SectionOpacity& uniform_opacity) {
  S.height.fill(-1);
  int remaining = kLayer;
  for (int s = kSectionsPerColumn - 1; s >= 0 && remaining > 0; --s) {
    const int u = uniform_opacity[static_cast<size_t>(s)];
    if (u == 0) continue;
    for (int col = 0; col < kLayer; ++col) {
      if (S.height[static_cast<size_t>(col)] >= 0) continue;
      if (u > 0) {
        S.height[static_cast<size_t>(col)] = s * kSectionSize + kSectionSize - 1;
        --remaining;
        continue;
      }
      for (int y = kSectionSize - 1; y >= 0; --y) {
        const int yi = s * kSectionSize + y;
        if (S.opacity[static_cast<size_t>(yi * kLayer + col)] > 0) {
          S.height[static_cast<size_t>(col)] = yi;
          --remaining;
          break;
        }
      }
    }
  }
}

void initial_light(const Column& column, const LightTable& table, LocalScratch& S,
                   const std::array<Light, kSectionsPerColumn>& uniform_emission) {
  const int min_h = *std::min_element(S.height.begin(), S.height.end());
  const int max_h = *std::max_element(S.height.begin(), S.height.end());
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    Light* li = S.light.data() + s * kSectionVolume;
    const int base = s * kSectionSize;
    if (base > max_h) {
      std::fill(li, li + kSectionVolume, kSkyFull);
    } else if (base + kSectionSize - 1 <= min_h) {
      std::fill(li, li + kSectionVolume, Light{0});
    } else {
      for (int y = 0; y < kSectionSize; ++y)
        for (int col = 0; col < kLayer; ++col)
          li[y * kLayer + col] = base + y > S.height[static_cast<size_t>(col)] ? kSkyFull : Light{0};
    }
    // A uniform section of an emitting block emits from every cell.
    const Light ue = uniform_emission[static_cast<size_t>(s)];
    if (ue == 0) continue;
    for (int i = 0; i < kSectionVolume; ++i) {
      li[i] = light_max(li[i], ue);
      S.queue.push_back(static_cast<uint32_t>(s * kSectionVolume + i));
    }
  }
  // Emitters of mixed sections, listed by decode().
  for (uint32_t i : S.emitters) {
    const uint16_t id = column.section(static_cast<int>(i >> 12)).get(static_cast<int>(i & 4095u)).id;
    S.light[i] = light_max(S.light[i], table.emission(id));
    S.queue.push_back(i);
  }
}

void sky_seeds(LocalScratch& S) {
  for (int z = 0; z < kColumnWidth; ++z)
    for (int x = 0; x < kColumnWidth; ++x) {
      const int col = z * kColumnWidth + x;
      const int h = S.height[static_cast<size_t>(col)];
      if (h >= kTopIndex) {  // the top cell is not clear: it receives 14 - opacity from above the world
        const uint32_t top = static_cast<uint32_t>(kTopIndex * kLayer + col);
        const Light from_above = propagate(kSkyFull, S.opacity[top], true);
        if (from_above == 0) continue;
        S.light[top] = light_max(S.light[top], from_above);
        S.queue.push_back(top);
        continue;
      }
      int reach = h + 1;             // the cell just above the height map lights the one below it
      auto side = [&](int nx, int nz) {
        if (nx < 0 || nx >= kColumnWidth || nz < 0 || nz >= kColumnWidth) return;
        reach = std::max(reach, S.height[static_cast<size_t>(nz * kColumnWidth + nx)]);
      };
      side(x - 1, z);
      side(x + 1, z);
      side(x, z - 1);
      side(x, z + 1);
      for (int yi = h + 1; yi <= reach; ++yi) S.queue.push_back(static_cast<uint32_t>(yi * kLayer + col));
    }
}

void flood(LocalScratch& S) {
  Light* light = S.light.data();
  const uint8_t* op = S.opacity.data();
  std::vector<uint32_t>& q = S.queue;
  for (size_t head = 0; head < q.size(); ++head) {
    const uint32_t i = q[head];
    const Light l = light[i];
    // Nothing to give: every channel <= 1 and no sky 15 to carry straight down.
    if ((spread(l) & 0x0E0E0E0Eu) == 0) continue;
    auto visit = [&](uint32_t j, bool down) {
      const int o = op[j];
      if (o >= kOpaque) return;
      const Light cur = light[j];
      const Light next = light_max(cur, propagate(l, o, down));
      if (next != cur) {
        light[j] = next;
        q.push_back(j);
      }
    };
    const uint32_t x = i & 15u, z = (i >> 4) & 15u, yi = i >> 8;
    if (x > 0) visit(i - 1, false);
    if (x < 15) visit(i + 1, false);
    if (z > 0) visit(i - 16, false);
    if (z < 15) visit(i + 16, false);
    if (yi > 0) visit(i - kLayer, true);
    if (yi < static_cast<uint32_t>(kTopIndex)) visit(i + kLayer, false);
  }
  q.clear();
}

void store(Column& column, const LocalScratch& S) {
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    const Light* li = S.light.data() + s * kSectionVolume;
    LightSection& ls = column.light_section(s);
    if (std::all_of(li + 1, li + kSectionVolume, [v = li[0]](Light l) { return l == v; })) {
      ls.fill(li[0]);
    } else {
      std::memcpy(ls.dense_mut(), li, sizeof(Light) * kSectionVolume);
    }
  }
}

}  // namespace

void light_column_local(Column& column, const LightTable& table) {
  LocalScratch& S = scratch();
  S.queue.clear();
  S.emitters.clear();
  SectionOpacity uniform_opacity{};
  std::array<Light, kSectionsPerColumn> uniform_emission{};
  decode(column, table, S, uniform_opacity, uniform_emission);
  height_map(S, uniform_opacity);
  initial_light(column, table, S, uniform_emission);
  sky_seeds(S);
  flood(S);
  store(column, S);
}

}  // namespace voxen::light
