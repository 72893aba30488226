#include "voxen/lod/oracle.h"

#include <set>
#include <sstream>

namespace voxen::lod {
namespace {

constexpr int kSide = LodSection::kSize;

int dense_index(int x, int y, int z) { return (y << 10) | (z << 5) | x; }

std::string describe(LodCell c) {
  const Light l = c.light();
  std::ostringstream s;
  s << c.id() << ':' << static_cast<int>(c.state()) << " sky " << light_sky(l) << " rgb (" << light_r(l) << ','
    << light_g(l) << ',' << light_b(l) << ')';
  return s.str();
}

}  // namespace

LodCell DensePyramid::get(int level, int64_t x, int64_t y, int64_t z) const {
  const auto it = sections.find({level, x >> 5, y >> 5, z >> 5});
  if (it == sections.end()) return background_cell(level, y);
  return it->second[static_cast<size_t>(dense_index(static_cast<int>(x & 31), static_cast<int>(y & 31),
                                                    static_cast<int>(z & 31)))];
}

DensePyramid rebuild_pyramid(const World& world, const Mipper& mipper, int levels) {
  DensePyramid out;
  out.levels = levels;
  // Which sections: those over a loaded column's 16 x 16 blocks, for the y sections that meet kMinY..kMaxY.
  std::set<LodSectionPos> keys;
  for (const ColumnPos& c : world.positions())
    for (int level = 0; level < levels; ++level) {
      const int64_t side = int64_t{32} << level;
      for (int64_t sy = floor_div(kMinY, side); sy <= floor_div(kMaxY, side); ++sy)
        keys.insert({level, floor_div(c.min_x(), side), sy, floor_div(c.min_z(), side)});
    }
  for (int level = 0; level < levels; ++level)
    for (const LodSectionPos& key : keys) {
      if (key.level != level) continue;
      std::vector<LodCell> cells(static_cast<size_t>(LodSection::kVolume));
      const BlockPos origin = key.min_block();
      for (int y = 0; y < kSide; ++y)
        for (int z = 0; z < kSide; ++z)
          for (int x = 0; x < kSide; ++x) {
            LodCell v;
            if (level == 0) {
              const BlockPos p{origin.x + x, origin.y + y, origin.z + z};
              v = LodCell::make(world.get(p), world.light(p));
            } else {
              // Children of level-`level` cell c are the level-(level - 1) cells 2c + (dx, dy, dz).
              const int64_t cx = key.x * kSide + x, cy = key.y * kSide + y, cz = key.z * kSide + z;
              LodCell children[8];
              for (int dy = 0; dy < 2; ++dy)
                for (int dz = 0; dz < 2; ++dz)
                  for (int dx = 0; dx < 2; ++dx)
                    children[child_index(dx, dy, dz)] = out.get(level - 1, 2 * cx + dx, 2 * cy + dy, 2 * cz + dz);
              v = mipper.mip(children);
            }
            cells[static_cast<size_t>(dense_index(x, y, z))] = v;
          }
      out.sections.emplace(key, std::move(cells));
    }
  return out;
}

PyramidDiff compare_pyramid(const Pyramid& pyramid, const DensePyramid& rebuilt) {
  PyramidDiff d;
  for (const auto& [key, cells] : rebuilt.sections) {
    const LodSection* s = pyramid.find(key);
    if (!s) {
      ++d.missing;
      continue;
    }
    for (int y = 0; y < kSide; ++y)
      for (int z = 0; z < kSide; ++z)
        for (int x = 0; x < kSide; ++x) {
          const int i = dense_index(x, y, z);
          const LodCell a = s->get(x, y, z), b = cells[static_cast<size_t>(i)];
          if (a == b) continue;
          if (d.mismatches++ == 0) {
            d.first_section = key;
            d.first_index = i;
            d.pyramid = a;
            d.rebuilt = b;
          }
        }
  }
  for (const LodSectionPos& key : pyramid.positions())
    if (rebuilt.sections.count(key) == 0) ++d.extra;
  return d;
}

PyramidDiff verify_pyramid(const Pyramid& pyramid, const World& world, const Mipper& mipper) {
  return compare_pyramid(pyramid, rebuild_pyramid(world, mipper, pyramid.levels()));
}

std::string PyramidDiff::to_string() const {
  if (equal()) return "equal";
  std::ostringstream s;
  s << mismatches << " cells differ, " << missing << " sections missing, " << extra << " extra";
  if (mismatches > 0) {
    const int x = first_index & 31, y = (first_index >> 10) & 31, z = (first_index >> 5) & 31;
    s << "; first: level " << first_section.level << " cell " << first_section.x * kSide + x << ','
      << first_section.y * kSide + y << ',' << first_section.z * kSide + z << ": pyramid " << describe(pyramid)
      << " vs rebuilt " << describe(rebuilt);
  }
  return s.str();
}

}  // namespace voxen::lod
