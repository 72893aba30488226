// Cave culling (voxen/cull/visibility.h): face links by flood fill, and the search over sections.
#include "voxen/cull/visibility.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

namespace voxen::cull {

SightTable::SightTable(const mesh::BakedBlocks& blocks) {
  m_blocks.assign(65536, 0);
  for (size_t id = 0; id < blocks.size(); ++id) m_blocks[id] = (blocks.cls(static_cast<uint16_t>(id)) & mesh::kClassOccluder) != 0;
}

SightTable::SightTable(const BlockRegistry& registry) {
  m_blocks.assign(65536, 0);
  for (size_t id = 0; id < registry.size(); ++id) {
    const BlockDef& d = registry[static_cast<uint16_t>(id)];
    m_blocks[id] = d.defined && d.transparency == Transparency::kOpaque && d.shape == Shape::kCube;
  }
}

namespace {

// The faces whose layer holds cell (x, y, z), as a bit set over world::Face.
inline uint8_t faces_of(int x, int y, int z) {
  return static_cast<uint8_t>((x == 15) << kFacePosX | (x == 0) << kFaceNegX | (y == 15) << kFacePosY |
                              (y == 0) << kFaceNegY | (z == 15) << kFacePosZ | (z == 0) << kFaceNegZ);
}

// Every pair among the faces of `faces`.
inline uint16_t pairs_of(uint8_t faces) {
  uint16_t bits = 0;
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b)
      if (((faces >> a) & 1) && ((faces >> b) & 1)) bits |= static_cast<uint16_t>(1u << FaceLinks::pair_index(a, b));
  return bits;
}

}  // namespace

FaceLinks face_links(const Section& section, const SightTable& sight) {
  if (section.is_uniform()) {
    const uint16_t id = static_cast<uint16_t>(section.palette()[0] & 0xFFFFu);
    return FaceLinks{sight.blocks(id) ? uint16_t{0} : FaceLinks::kAll};
  }
  std::array<uint32_t, kSectionVolume> cells;
  section.unpack(cells.data());
  std::array<uint8_t, kSectionVolume> opaque;
  for (int i = 0; i < kSectionVolume; ++i)
    opaque[static_cast<size_t>(i)] = sight.blocks(static_cast<uint16_t>(cells[static_cast<size_t>(i)] & 0xFFFFu));
  return face_links(opaque.data());
}

FaceLinks face_links(const uint8_t* opaque_cells) {
  // 1: open (see-through, not yet reached), 0: opaque or reached.
  std::array<uint8_t, kSectionVolume> open;
  int opaque = 0;
  for (int i = 0; i < kSectionVolume; ++i) {
    const bool blocks = opaque_cells[i] != 0;
    open[static_cast<size_t>(i)] = !blocks;
    opaque += blocks;
  }
  if (opaque < 256) return FaceLinks{FaceLinks::kAll};
  if (opaque == kSectionVolume) return FaceLinks{0};
  uint16_t bits = 0;
  std::array<uint16_t, kSectionVolume> stack;
  for (int start = 0; start < kSectionVolume && bits != FaceLinks::kAll; ++start) {
    if (!open[static_cast<size_t>(start)]) continue;
    open[static_cast<size_t>(start)] = 0;
    size_t top = 0;
    stack[top++] = static_cast<uint16_t>(start);
    uint8_t faces = 0;
    while (top > 0) {
      const int i = stack[--top];
      const int x = i & 15, z = (i >> 4) & 15, y = i >> 8;
      faces |= faces_of(x, y, z);
      const auto push = [&](bool inside, int j) {
        if (inside && open[static_cast<size_t>(j)]) {
          open[static_cast<size_t>(j)] = 0;
          stack[top++] = static_cast<uint16_t>(j);
        }
      };
      push(x < 15, i + 1);
      push(x > 0, i - 1);
      push(z < 15, i + 16);
      push(z > 0, i - 16);
      push(y < 15, i + 256);
      push(y > 0, i - 256);
    }
    bits |= pairs_of(faces);
  }
  return FaceLinks{bits};
}

void SectionGraph::reset(ColumnPos centre, int radius) {
  m_centre = centre;
  m_radius = std::max(radius, 0);
  m_side = 2 * m_radius + 1;
  m_cells.assign(static_cast<size_t>(m_side) * static_cast<size_t>(m_side) * kSectionsPerColumn, FaceLinks::kAll);
}

bool SectionGraph::contains(const SectionPos& pos) const {
  if (m_side == 0 || pos.y < 0 || pos.y >= kSectionsPerColumn) return false;
  const int64_t dx = coord_delta(pos.x, m_centre.x), dz = coord_delta(pos.z, m_centre.z);
  return dx >= -m_radius && dx <= m_radius && dz >= -m_radius && dz <= m_radius;
}

bool SectionGraph::set(const SectionPos& pos, FaceLinks links) {
  if (!contains(pos)) return false;
  m_cells[index(coord_delta(pos.x, m_centre.x), pos.y, coord_delta(pos.z, m_centre.z))] =
      static_cast<uint16_t>(links.bits & FaceLinks::kAll);
  return true;
}

size_t find_visible(const SectionGraph& graph, const BlockPos& eye, const std::function<bool(const SectionPos&)>& in_view,
                    std::vector<SectionPos>& out) {
  if (graph.m_side == 0) return 0;
  const int r = graph.m_radius;
  // The eye's section, relative to the graph's centre (y unclamped: -1 below the world, 24 above).
  const int64_t ex = coord_delta(column_of(eye.x), graph.m_centre.x), ez = coord_delta(column_of(eye.z), graph.m_centre.z);
  const int64_t ey = floor_div(eye.y - kMinY, kSectionSize);
  if (ex < -r || ex > r || ez < -r || ez > r) return 0;
  const size_t before = out.size();
  // Per section of the box: the faces it was entered by (bit per world::Face; 0x40: queued; 0x80: out of view).
  thread_local std::vector<uint8_t> entered;
  entered.assign(graph.m_cells.size(), 0);
  // Buckets by Manhattan distance from the eye's section, holding each queued section's place (kept, not found again
  // from its index: two 64-bit divisions a section were a tenth of the search).
  struct Queued {
    int32_t dx, y, dz;
  };
  thread_local std::vector<std::vector<Queued>> buckets;
  for (auto& b : buckets) b.clear();
  auto distance = [&](int64_t dx, int y, int64_t dz) {
    return static_cast<size_t>(std::llabs(dx - ex) + std::llabs(y - ey) + std::llabs(dz - ez));
  };
  auto push = [&](int64_t dx, int y, int64_t dz, uint8_t face) {
    const size_t i = graph.index(dx, y, dz);
    const bool queued = entered[i] & 0x40;
    entered[i] |= static_cast<uint8_t>(face | 0x40);
    if (queued) return;
    const size_t d = distance(dx, y, dz);
    if (buckets.size() <= d) buckets.resize(d + 1);
    buckets[d].push_back(Queued{static_cast<int32_t>(dx), y, static_cast<int32_t>(dz)});
  };
  auto pos_of = [&](int64_t dx, int y, int64_t dz) {
    return SectionPos{static_cast<int64_t>(static_cast<uint64_t>(graph.m_centre.x) + static_cast<uint64_t>(dx)), y,
                      static_cast<int64_t>(static_cast<uint64_t>(graph.m_centre.z) + static_cast<uint64_t>(dz))};
  };
  constexpr uint8_t kAnyFace = 0x3F;
  if (ey >= 0 && ey < kSectionsPerColumn) {
    push(ex, static_cast<int>(ey), ez, kAnyFace);
  } else {
    const int y = ey < 0 ? 0 : kSectionsPerColumn - 1;
    const uint8_t face = static_cast<uint8_t>(1u << (ey < 0 ? kFaceNegY : kFacePosY));
    for (int64_t dz = -r; dz <= r; ++dz)
      for (int64_t dx = -r; dx <= r; ++dx)
        if (in_view(pos_of(dx, y, dz))) push(dx, y, dz, face);
  }
  for (size_t d = 0; d < buckets.size(); ++d) {
    for (size_t k = 0; k < buckets[d].size(); ++k) {
      const Queued q = buckets[d][k];
      const int y = q.y;
      const int64_t dx = q.dx, dz = q.dz;
      const size_t i = graph.index(dx, y, dz);
      out.push_back(pos_of(dx, y, dz));
      const FaceLinks links{static_cast<uint16_t>(graph.m_cells[i] & FaceLinks::kAll)};
      const uint8_t in = entered[i] & kAnyFace;
      const int64_t at[3] = {dx, y, dz}, eye_at[3] = {ex, ey, ez};
      for (int f = 0; f < 6; ++f) {
        const int axis = f >> 1;
        const int step = (f & 1) ? -1 : 1;
        if (step > 0 ? at[axis] < eye_at[axis] : at[axis] > eye_at[axis]) continue;  // toward the eye
        // Linked to a face it was entered by (entry and exit through one face: never on a straight ray).
        bool through = in == kAnyFace;
        for (int g = 0; g < 6 && !through; ++g)
          if (g != f && ((in >> g) & 1) && links.linked(g, f)) through = true;
        if (!through) continue;
        const int64_t nx = dx + kFaceStep[f][0], nz = dz + kFaceStep[f][2];
        const int ny = y + kFaceStep[f][1];
        if (nx < -r || nx > r || nz < -r || nz > r || ny < 0 || ny >= kSectionsPerColumn) continue;
        const size_t j = graph.index(nx, ny, nz);
        if (!(entered[j] & 0x40)) {
          // Out of view: remembered (0x80), so the frustum is asked once per section.
          if (entered[j] & 0x80) continue;
          if (!in_view(pos_of(nx, ny, nz))) {
            entered[j] |= 0x80;
            continue;
          }
        }
        push(nx, ny, nz, static_cast<uint8_t>(1u << (f ^ 1)));
      }
    }
  }
  return out.size() - before;
}

}  // namespace voxen::cull
