// The mesher's input: one section's cells and light padded by one cell on every side, so faces on a section
// border cull against the neighbour, and ambient occlusion, smooth light and fluid corner heights see across the
// seam. Everything a section's mesh depends on lies in this 18^3 box (docs/ARCHITECTURE.md, Meshing), which is
// also why an edit dirties only the sections whose padded box holds the edited cell (dirty.h).
//
// Layout (plain arrays, so another mesher, a GPU one say, can read the same input): 18 x 18 x 18 entries in YZX
// order, x fastest: padded index = (y + 1) * 324 + (z + 1) * 18 + (x + 1) for section-local x, y, z in -1..16.
//   cells[i]  Cell::packed() = id | state << 16
//   light[i]  Light (cell.h): sky << 12 | r << 8 | g << 4 | b
// Outside the loaded world: cells of a column that is not loaded read as air with light 0 (World::get and
// World::light say the same), cells below y = -128 as air with light 0, cells above y = 255 as air with sky 15.
// So a section at the edge of the loaded area draws its border faces (dark), which is what the world shows there
// until the neighbour arrives and both are remeshed.
// Threads: build_section_input reads the World (the owner's thread, or any thread while nobody writes it).
#pragma once

#include <array>
#include <cstdint>

#include "voxen/core/coords.h"
#include "voxen/world/cell.h"
#include "voxen/world/world.h"

namespace voxen::mesh {

inline constexpr int kPadded = 18;                                // cells per padded edge
inline constexpr int kPaddedArea = kPadded * kPadded;             // 324
inline constexpr int kPaddedVolume = kPadded * kPadded * kPadded; // 5832

/// Padded index of section-local (x, y, z), each -1..16.
constexpr int padded_index(int x, int y, int z) { return (y + 1) * kPaddedArea + (z + 1) * kPadded + (x + 1); }

/// A section's padded snapshot: the mesher's whole input besides the baked block table. 34,992 bytes.
struct SectionInput {
  std::array<uint32_t, kPaddedVolume> cells{};  // Cell::packed(), padded YZX order
  std::array<Light, kPaddedVolume> light{};     // padded YZX order

  Cell cell(int x, int y, int z) const { return Cell::from_packed(cells[static_cast<size_t>(padded_index(x, y, z))]); }
  Light light_at(int x, int y, int z) const { return light[static_cast<size_t>(padded_index(x, y, z))]; }
  void set(int x, int y, int z, Cell c) { cells[static_cast<size_t>(padded_index(x, y, z))] = c.packed(); }
  void set_light(int x, int y, int z, Light l) { light[static_cast<size_t>(padded_index(x, y, z))] = l; }
};

/// Fills `out` with the cells and light of section `pos` and the one-cell ring around it, read from the section
/// itself and its up to 26 neighbours across section and column borders (the rules above for what is not loaded).
/// `pos.y` must be 0..23 (VOXEN_ASSERT). Cost: one unpack of the section plus 1,736 border reads.
void build_section_input(const World& world, SectionPos pos, SectionInput& out);

/// True when section `pos` cannot have any face: it is uniform air, or not loaded. (A uniform opaque section
/// buried in opaque neighbours also has none, but telling that needs the neighbours: the mesher's own early-out.)
bool section_is_skippable(const World& world, SectionPos pos);

}  // namespace voxen::mesh
