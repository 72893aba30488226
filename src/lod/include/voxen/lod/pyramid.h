// The LOD pyramid: LOD sections of levels 0..levels-1 built from the loaded columns and kept up to date as columns
// come and go and edits change cells and light (docs/ARCHITECTURE.md, "Far view (LOD)"; after Voxy's WorldEngine,
// VoxelIngestService and WorldUpdater).
//
// What it holds: for every level L, the LOD sections (section.h) that overlap a column added to it, in x and z, and
// the world's y range (level 0: y sections -4..7; level 5: -1..0). A cell of a held section whose blocks lie in no
// added column reads as background_cell() (air; dark, or sky 15 above the world), as do sections it does not hold;
// a section no added column overlaps any more is dropped. So the pyramid of a set of columns is a function of their
// cells and light: the oracle (oracle.h) rebuilds it from a World with every column loaded and the tests require the
// incremental pyramid to equal it exactly.
//
// How a column is built: each of its 24 sections' mip chains (mip_section) gives levels 0..4 directly (a level-4
// cell is one section, so levels 0..4 of a column depend only on that column: the part a worker can do,
// build_column_mips). Levels 5 and up mix neighbouring columns and are recomputed on the owning thread from the
// level below, cell by cell, for the cells the column's level-4 changes reach.
//
// Change propagation (Voxy's WorldUpdater): an edit's changed cells (the edited cell and every cell whose light
// changed, read back from the World) are written at level 0; each changed cell's parent is recomputed from its 8
// children, and only parents whose value changed go on to the next level. Propagation stops at the first level
// where no value changed. The presence of a parent (whether any child is non-air) needs no separate test: the rule
// makes a parent air exactly when its 8 children are, so a presence change is a value change.
//
// Threads: a Pyramid is owned by one thread (the one that owns the World); build_column_mips runs on any thread.
// add_columns spreads that part over a JobPool and inserts the results in the order given: byte-identical storage for
// any pool size.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/job_pool.h"
#include "voxen/light/light.h"
#include "voxen/lod/cell.h"
#include "voxen/lod/section.h"
#include "voxen/world/column.h"
#include "voxen/world/edit.h"
#include "voxen/world/world.h"

namespace voxen::lod {

/// One world section's share of levels 0..4, ready to move into LOD sections.
struct SectionBricks {
  std::array<LodBrick, 8> level0;  // its 16^3 cells as 8 bricks; octant (dx, dy, dz) at child_index(dx, dy, dz)
  LodBrick level1;                 // its 8^3 level-1 cells: exactly one brick
  std::array<LodCell, kMipCells - kMipOffset[2]> upper;  // levels 2, 3, 4 (64 + 8 + 1), SectionMips order
};

/// One column's share of levels 0..4: a pure function of its cells and light (build_column_mips).
struct ColumnMips {
  ColumnPos pos;
  std::vector<SectionBricks> sections;  // kSectionsPerColumn, bottom to top

  /// Level-`level` (0..4) cell (cx, cy, cz), in that level's cell coordinates (world block >> level per axis); x and
  /// z must lie in this column (VOXEN_ASSERT). A cell outside the world's y range reads background_cell(level, cy).
  LodCell get(int level, int64_t cx, int64_t cy, int64_t cz) const;
  /// Bytes held: the object, its sections and every brick's palette and indices.
  size_t memory_bytes() const;
  /// The same position and representation (every brick identical(), the upper levels equal): build_column_mips
  /// of the same cells and light gives identical mips.
  bool identical(const ColumnMips& other) const;
};

/// Builds a column's levels 0..4 from its 24 sections and their light (mip_section, then bricks packed). Pure
/// function of the column; safe on any thread for a column no one writes meanwhile.
ColumnMips build_column_mips(const Column& column, const Mipper& mipper);

/// What changed in one LOD section during one call.
struct LodSectionChange {
  LodSectionPos pos;
  uint32_t cells = 0;     // cells whose value changed
  uint8_t borders = 0;    // bit 1 << Face for each face of the section a changed cell lies on: the neighbour across
                          // it (same level) may have to redo the faces it shares with this section
  bool presence = false;  // the section went from empty (all air) to holding a non-air cell, or back
  friend bool operator==(const LodSectionChange&, const LodSectionChange&) = default;
};

/// What a call changed: the LOD sections touched and, per level, the cells changed.
struct LodUpdate {
  std::vector<LodSectionChange> sections;  // sections with a changed cell or a presence change, sorted by pos
  std::array<uint32_t, kMaxLevels> cells{};       // changed cells per level
  std::array<uint32_t, kMaxLevels> recomputed{};  // cells recomputed from their children per level (levels >= 1;
                                                  // also for a column's levels 5 and up): the propagation's work
  int levels = 0;                                 // 1 + the highest level with a changed cell (0: nothing changed)

  /// Sections listed at `level`.
  size_t sections_at(int level) const;
  /// The change of one section, or nullptr when it is not listed.
  const LodSectionChange* find(const LodSectionPos& pos) const;
};

class Pyramid {
 public:
  /// An empty pyramid of levels 0..levels-1 (kMinLevels..kMaxLevels; VOXEN_ASSERT otherwise) ranking blocks with
  /// `mipper`, which must outlive it.
  explicit Pyramid(const Mipper& mipper, int levels = kDefaultLevels);

  int levels() const { return m_levels; }

  /// Adds a column (or rebuilds one already added) from its cells and light as they are now. Main thread.
  LodUpdate add_column(const Column& column);
  /// The same from levels 0..4 built elsewhere (build_column_mips on a worker).
  LodUpdate insert(ColumnMips mips);
  /// Adds the World's columns at `positions` (those not loaded are skipped): their levels 0..4 on `pool` (or the
  /// calling thread when pool is null) while this thread waits, then inserted in the order given. Byte-identical
  /// storage for any pool size. Main thread.
  LodUpdate add_columns(const World& world, std::span<const ColumnPos> positions, JobPool* pool);
  /// Removes a column: its cells become background, the levels above are recomputed, and sections no added column
  /// overlaps any more are dropped. No-op for a column not added.
  LodUpdate remove_column(ColumnPos pos);
  bool has_column(ColumnPos pos) const { return m_columns.count(pos) != 0; }
  size_t column_count() const { return m_columns.size(); }

  /// Re-reads every block of the box lo..hi (inclusive, world blocks; y clipped to the world) that lies in an added
  /// column from `world` (cell and light) and propagates the changes. Columns added here but missing from the
  /// World are skipped.
  LodUpdate update_box(const World& world, const BlockPos& lo, const BlockPos& hi);
  /// Re-reads the cells whose light changed (each section's box of changed cells) and propagates.
  LodUpdate update_light(const World& world, const light::LightChanges& changes);
  /// After light::apply_edit(world, table, edit) returned `changes`: re-reads the edited cell and the cells whose
  /// light changed, and propagates, all as one update.
  LodUpdate apply_edit(const World& world, const Edit& edit, const light::LightChanges& changes);

  /// Level-`level` cell (x, y, z) (world block >> level per axis); background where no section is held.
  LodCell get(int level, int64_t x, int64_t y, int64_t z) const;
  /// A held section, or nullptr.
  const LodSection* find(const LodSectionPos& pos) const;
  /// Held sections, sorted.
  std::vector<LodSectionPos> positions() const;
  size_t section_count() const { return m_sections.size(); }
  /// Bytes held: every section (memory_bytes) plus its map entry, and the set of added columns.
  size_t memory_bytes() const;
  /// The same held sections, each identical() (same representation, not only the same cells).
  bool identical(const Pyramid& other) const;

 private:
  struct Entry {
    LodSection section;
    uint32_t columns = 0;  // added columns this section overlaps
  };
  struct CellKey {
    int64_t x, y, z;
    friend auto operator<=>(const CellKey&, const CellKey&) = default;
  };
  class ChangeLog;

  void claim_footprint(ColumnPos pos);
  void release_footprint(ColumnPos pos);
  void write_column(ColumnMips& mips, ChangeLog& log);
  void update_boxes(const World& world, std::span<const std::array<BlockPos, 2>> boxes, ChangeLog& log);
  void propagate(int level, std::vector<CellKey>& changed, ChangeLog& log);
  Entry& entry(const LodSectionPos& pos);

  const Mipper* m_mipper;
  int m_levels;
  std::unordered_map<LodSectionPos, Entry, LodSectionPosHash> m_sections;
  std::unordered_set<ColumnPos, ColumnPosHash> m_columns;
};

}  // namespace voxen::lod
