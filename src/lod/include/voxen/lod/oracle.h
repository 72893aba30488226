// The pyramid's oracle: a from-scratch rebuild from the World, written to be obvious and kept independent of the
// fast path (it shares only the rule, Mipper::mip, and background_cell), plus a cell-by-cell comparison. Tests
// require the incremental Pyramid (built column by column, edited, columns removed) to equal it exactly.
//
// Method: the held sections are every LOD section of levels 0..levels-1 that overlaps a loaded column in x and z
// and the world's y range. Level 0 reads each block with World::get and World::light (which give air and dark
// light where no column is loaded); each level above applies the rule to the 8 children of every cell, read from
// the level below (background_cell where that level holds no section). Dense: 32^3 LodCells (256 KiB) per section.
// Cost: a few hundred ms for 16 columns; for tests. Threads: the thread that owns the World.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "voxen/lod/cell.h"
#include "voxen/lod/pyramid.h"
#include "voxen/lod/section.h"
#include "voxen/world/world.h"

namespace voxen::lod {

/// A rebuilt pyramid: every held section as 32^3 LodCells, index (y << 10) | (z << 5) | x.
struct DensePyramid {
  int levels = 0;
  std::map<LodSectionPos, std::vector<LodCell>> sections;
  /// Level-`level` cell (x, y, z); background_cell where no section is held.
  LodCell get(int level, int64_t x, int64_t y, int64_t z) const;
};

/// Rebuilds the pyramid of every column loaded in `world`, levels 0..levels-1.
DensePyramid rebuild_pyramid(const World& world, const Mipper& mipper, int levels);

/// The outcome of comparing a Pyramid with a rebuilt one.
struct PyramidDiff {
  size_t mismatches = 0;        // cells that differ in sections both hold
  size_t missing = 0;           // sections the rebuild holds and the pyramid does not
  size_t extra = 0;             // sections the pyramid holds and the rebuild does not
  LodSectionPos first_section;  // the first mismatching cell (sorted section order, then cell index) ...
  int first_index = -1;         // ... its index in that section
  LodCell pyramid, rebuilt;     // ... and its two values
  bool equal() const { return mismatches == 0 && missing == 0 && extra == 0; }
  /// One line: "equal", or the counts and the first mismatch (level, cell, id:state, sky and r,g,b of both).
  std::string to_string() const;
};

/// Compares every cell of every section either holds (and the two sets of held sections).
PyramidDiff compare_pyramid(const Pyramid& pyramid, const DensePyramid& rebuilt);

/// rebuild_pyramid(world, mipper, pyramid.levels()) compared with `pyramid`.
PyramidDiff verify_pyramid(const Pyramid& pyramid, const World& world, const Mipper& mipper);

}  // namespace voxen::lod
