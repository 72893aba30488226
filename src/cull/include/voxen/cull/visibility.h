// Cave culling: which sections the eye may see through cells that let sight through, after Tommaso Checchi's
// "Advanced cave culling algorithm" (2014, Minecraft's VisGraph) and Sodium's graph search. Two parts:
//   1. Face links, per section, when it is built: which of its 6 faces (world::Face order) are joined by a path
//      of see-through cells (6-connected flood fill over the 16^3 cells); 15 pairs in 15 bits.
//   2. The search, per frame: breadth-first over sections from the eye's section, by Manhattan distance in
//      sections, entering a neighbour across face d only (a) away from the eye (never toward the eye's section
//      along d's axis; a straight ray from the eye moves away from it along every axis, so every move adds one to
//      the distance and a section's every predecessor comes before it), (b) where the section links d to a face it
//      was entered by (the eye's own section: any face), (c) into a section the caller's view test accepts
//      (frustum, render radius). A section's entry faces are the union over all its predecessors. Sections of
//      columns not loaded are open (all faces linked): nothing is drawn there and sight passes through.
// Why it hides nothing the eye can see: a ray from the eye passes sections in a path that moves away from the eye
// along every axis, entering and leaving each through faces its see-through cells join (the ray's own cells), so
// the path is one the search takes. (A ray through a cell edge exactly passes two cells that share only that edge:
// the 6-connected flood may not join them. Minecraft's VisGraph has the same limit.)
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/mesh/baked.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/section.h"
#include "voxen/world/world.h"

namespace voxen::cull {

/// Per block id, whether a cell of it blocks sight: an opaque full cube (BlockDef transparency kOpaque, shape
/// kCube). Everything else lets the eye through (air, fluids, glass, ice, leaves, plants, slabs, stairs, slopes),
/// and so does an id past the registry (a conservative answer). Immutable after construction; any thread.
class SightTable {
 public:
  explicit SightTable(const BlockRegistry& registry);
  /// The same from the mesher's table (the occluder class: the cells that hide the faces against them, so a face the
  /// mesher keeps is exactly one whose neighbour lets sight through).
  explicit SightTable(const mesh::BakedBlocks& blocks);
  bool blocks(uint16_t id) const { return m_blocks[id] != 0; }

 private:
  std::vector<uint8_t> m_blocks;  // all 65,536 ids (0 past the registry): no bounds check in the hot loops
};

/// Which pairs of a section's faces are joined through see-through cells. Bit pair_index(a, b) for faces a != b.
struct FaceLinks {
  static constexpr uint16_t kAll = 0x7FFF;
  uint16_t bits = 0;

  /// The bit of the unordered pair (a, b), a != b: 0..14, pairs in order (0,1), (0,2), ... (4,5).
  static constexpr int pair_index(int a, int b) {
    if (a > b) std::swap(a, b);
    return a * 5 - a * (a - 1) / 2 + (b - a - 1);
  }
  /// Whether faces a and b (a != b) are joined.
  bool linked(int a, int b) const { return (bits >> pair_index(a, b)) & 1u; }
  friend bool operator==(const FaceLinks&, const FaceLinks&) = default;
};

/// The face links of one section (section-local cells; faces world::Face: +X is the layer x = 15, -Y the layer
/// y = 0, ...). Uniform sections: all pairs when see-through, none when opaque; fewer than 256 opaque cells cannot
/// wall any face off from another (a wall across the section needs a cell in each of 256 lines), so all pairs too.
/// Otherwise a 6-connected flood fill over the see-through cells; each region joins every pair of the faces it
/// touches. Cost: one unpack and one pass over the 4,096 cells. Any thread.
FaceLinks face_links(const Section& section, const SightTable& sight);
/// The same from the section's opacity (4,096 cells, section-local index y * 256 + z * 16 + x, nonzero: blocks sight).
FaceLinks face_links(const uint8_t* opaque);

/// The sections around the eye one search reads: columns centre.x - radius .. centre.x + radius (z likewise), by
/// the 24 sections of a column (y 0..23), each with its FaceLinks: open (all linked) until set, as the sections of
/// a column not loaded are (sight passes through where nothing is drawn). Dense (one uint16_t per section), so a
/// search reads no hash map.
class SectionGraph {
 public:
  /// Makes every section of the box around `centre` (radius >= 0 columns) open.
  void reset(ColumnPos centre, int radius);
  /// Section `pos` has `links`; outside the box: ignored (returns false).
  bool set(const SectionPos& pos, FaceLinks links);
  /// Whether `pos` lies in the box.
  bool contains(const SectionPos& pos) const;
  ColumnPos centre() const { return m_centre; }
  int radius() const { return m_radius; }
  /// Sections in the box, and `pos`'s place among them (0 .. size() - 1; kNoSlot outside the box): a dense index
  /// for per-section flags.
  static constexpr size_t kNoSlot = ~size_t{0};
  size_t size() const { return m_cells.size(); }
  size_t slot(const SectionPos& pos) const {
    return contains(pos) ? index(coord_delta(pos.x, m_centre.x), pos.y, coord_delta(pos.z, m_centre.z)) : kNoSlot;
  }

 private:
  friend size_t find_visible(const SectionGraph&, const BlockPos&, const std::function<bool(const SectionPos&)>&,
                             std::vector<SectionPos>&);
  size_t index(int64_t dx, int y, int64_t dz) const {
    return (static_cast<size_t>(dz + m_radius) * static_cast<size_t>(m_side) + static_cast<size_t>(dx + m_radius)) *
               kSectionsPerColumn + static_cast<size_t>(y);
  }
  ColumnPos m_centre{};
  int m_radius = -1, m_side = 0;
  std::vector<uint16_t> m_cells;  // FaceLinks bits
};

/// The search (see the top of this file): appends to `out` every section the eye at `eye` (world block) may see
/// through see-through cells, in the order found (nearest first by Manhattan distance in sections), and returns
/// how many. The eye's own cell must let sight through (an eye inside an opaque cube sees past it: the caller then
/// draws without this search). `in_view(pos)` says whether a section may be entered (the caller's frustum and
/// radius test); the eye's own section is entered whatever it says. An eye above the world (y > kMaxY) starts at
/// every section of the top layer in view, entered by its top face; one below it (y < kMinY) at the bottom layer
/// by the bottom face. An eye whose column is outside the graph's box finds nothing. Coordinates are relative to
/// the graph's centre in int64, so any position within the world's reach works.
size_t find_visible(const SectionGraph& graph, const BlockPos& eye, const std::function<bool(const SectionPos&)>& in_view,
                    std::vector<SectionPos>& out);

}  // namespace voxen::cull
