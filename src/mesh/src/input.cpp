#include "voxen/mesh/input.h"

#include <cstring>

#include "voxen/core/error.h"

namespace voxen::mesh {
namespace {

// The range of padded coordinates (0..17) that neighbour offset d (-1, 0, 1) supplies, and the section-local
// coordinate of its first cell.
struct Span {
  int first_padded, count, first_local;
};
constexpr Span span_of(int d) {
  if (d < 0) return {0, 1, 15};
  if (d > 0) return {17, 1, 0};
  return {1, 16, 0};
}

void fill_region(SectionInput& out, const Span& sx, const Span& sy, const Span& sz, uint32_t cell, Light light) {
  for (int y = 0; y < sy.count; ++y)
    for (int z = 0; z < sz.count; ++z) {
      const int base = (sy.first_padded + y) * kPaddedArea + (sz.first_padded + z) * kPadded + sx.first_padded;
      for (int x = 0; x < sx.count; ++x) {
        out.cells[static_cast<size_t>(base + x)] = cell;
        out.light[static_cast<size_t>(base + x)] = light;
      }
    }
}

}  // namespace

void build_section_input(const World& world, SectionPos pos, SectionInput& out) {
  VOXEN_ASSERT(pos.y >= 0 && pos.y < kSectionsPerColumn);
  const Column* columns[3][3];
  for (int dz = -1; dz <= 1; ++dz)
    for (int dx = -1; dx <= 1; ++dx) columns[dz + 1][dx + 1] = world.find({pos.x + dx, pos.z + dz});

  for (int dy = -1; dy <= 1; ++dy)
    for (int dz = -1; dz <= 1; ++dz)
      for (int dx = -1; dx <= 1; ++dx) {
        const Span sx = span_of(dx), sy = span_of(dy), sz = span_of(dz);
        const Column* col = columns[dz + 1][dx + 1];
        const int s = pos.y + dy;
        if (!col || s < 0) {
          fill_region(out, sx, sy, sz, kAir.packed(), 0);
          continue;
        }
        if (s >= kSectionsPerColumn) {
          fill_region(out, sx, sy, sz, kAir.packed(), make_light(15, 0, 0, 0));
          continue;
        }
        const Section& sec = col->section(s);
        const LightSection& lsec = col->light_section(s);
        if (dx == 0 && dy == 0 && dz == 0) {
          // The section itself: unpack whole rows.
          uint32_t buf[kSectionVolume];
          sec.unpack(buf);
          const Light* dense = lsec.dense();
          for (int y = 0; y < 16; ++y)
            for (int z = 0; z < 16; ++z) {
              const int dst = padded_index(0, y, z);
              std::memcpy(&out.cells[static_cast<size_t>(dst)], &buf[section_index(0, y, z)], 16 * sizeof(uint32_t));
              if (dense) {
                std::memcpy(&out.light[static_cast<size_t>(dst)], &dense[section_index(0, y, z)], 16 * sizeof(Light));
              } else {
                for (int x = 0; x < 16; ++x) out.light[static_cast<size_t>(dst + x)] = lsec.uniform_value();
              }
            }
          continue;
        }
        if (sec.is_uniform() && lsec.is_uniform()) {
          fill_region(out, sx, sy, sz, sec.palette()[0], lsec.uniform_value());
          continue;
        }
        for (int y = 0; y < sy.count; ++y)
          for (int z = 0; z < sz.count; ++z) {
            const int base = (sy.first_padded + y) * kPaddedArea + (sz.first_padded + z) * kPadded + sx.first_padded;
            for (int x = 0; x < sx.count; ++x) {
              const int li = section_index(sx.first_local + x, sy.first_local + y, sz.first_local + z);
              out.cells[static_cast<size_t>(base + x)] = sec.get(li).packed();
              out.light[static_cast<size_t>(base + x)] = lsec.get(li);
            }
          }
      }
}

bool section_is_skippable(const World& world, SectionPos pos) {
  const Column* col = world.find(pos.column());
  if (!col || pos.y < 0 || pos.y >= kSectionsPerColumn) return true;
  return col->section(pos.y).is_empty();
}

}  // namespace voxen::mesh
