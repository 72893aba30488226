// Lighting: coloured block light (red, green, blue) and sky light, flooded across column borders and updated
// incrementally on every edit. The rules are in voxen/light/rules.h; the design in docs/ARCHITECTURE.md (Lighting).
//
// Data: light lives in each Column's 24 LightSections (16 bits per cell, sky << 12 | r << 8 | g << 4 | b).
// Invariant kept by every function here: the light of every loaded column is the unique fixed point of the rules
// over the loaded columns (unloaded columns are dark and opaque). Because light travels at most 14 blocks
// sideways, a column whose 8 neighbours are loaded therefore has its final light, the same as if the whole world
// had been generated first, whatever order columns arrived in.
//
// Life of a column:
//   worker thread:   generate, then light_column_local(column, table)   (touches only that column)
//   main thread:     world.insert(column); stitch(world, table, pos)     (floods across its 4 borders)
//   main thread:     apply_edit(world, table, edit) for each placed/removed block
//   main thread:     unload_column(world, table, pos) to take it out again (darkens what only it lit)
// light_column() is the last two steps of the first two lines on one thread; light_columns() does a batch with the
// local part on a JobPool.
//
// Algorithms: flood fill with explicit FIFO queues of packed cell indices; edits use the two-queue removal +
// re-flood of Minecraft-style engines (Ben Arnold, "Fast Flood Fill Lighting in a Blocky Voxel Game", parts 1
// and 2, Seed of Andromeda blog, 2014): a removal flood clears every value that may have come from the changed
// cell, collecting the brighter boundary, then a re-flood from that boundary (and the new sources) restores the
// fixed point. Per-block opacity and the four channels are handled in one pass per queue.
// Threads: light_column_local may run on any thread (one column per call). All functions taking a World run on the
// thread that owns the World. Scratch buffers are thread_local, so nothing is shared between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/job_pool.h"
#include "voxen/light/rules.h"
#include "voxen/world/column.h"
#include "voxen/world/edit.h"
#include "voxen/world/world.h"

namespace voxen::light {

/// The cells of one section whose light changed: the section and the bounding box of the changed cells in
/// section-local coordinates (0..15, inclusive). Only cells whose value differs from before the call count (a
/// value cleared and restored to the same number does not).
struct SectionLightChange {
  SectionPos section;
  uint8_t min_x = 15, min_y = 15, min_z = 15;
  uint8_t max_x = 0, max_y = 0, max_z = 0;
  friend bool operator==(const SectionLightChange&, const SectionLightChange&) = default;
};

/// Every section with changed light, sorted by SectionPos, each with its box of changed cells.
struct LightChanges {
  std::vector<SectionLightChange> sections;
  /// Number of cells whose light changed.
  size_t cells = 0;

  /// The sections a mesher must rebuild because of these light changes: each changed box grown by one cell in
  /// every direction (smooth light and ambient occlusion sample the 26 neighbours of a face's cells), mapped to the
  /// sections it touches (up to 27 per box; section indices outside 0..23 are dropped, sections of columns that
  /// are not loaded are kept: the caller skips those). Sorted, no duplicates.
  /// The section of an edited cell is not added here unless its light changed: the mesher adds it for the cell.
  std::vector<SectionPos> dirty_sections() const;
};

/// The result of apply_edit.
struct EditResult {
  bool applied = false;  // false when the edit's column is not loaded or y is out of range (nothing changed)
  LightChanges light;    // light changes caused by the edit (empty when not applied)
};

/// Lights one column by itself, as if its neighbours were unloaded (dark and opaque): sky 15 above the height map
/// of each (x, z), sky and block light flooded inside the column. Overwrites all 24 LightSections, leaving uniform
/// sections compact. Pure function of the column's cells; safe on any thread for a column that thread owns.
void light_column_local(Column& column, const LightTable& table);

/// Floods light across the 4 borders of the loaded column at `pos` in both directions and on through every loaded
/// column it reaches, until nothing more changes. Precondition: every loaded column's light is the fixed point of
/// the columns it has already been stitched with (true after light_column_local for a newly inserted column).
/// Returns the light changes in every column, the one at `pos` included (relative to its light before the call).
/// A column at `pos` that is not loaded is a no-op.
LightChanges stitch(World& world, const LightTable& table, ColumnPos pos);

/// light_column_local then stitch, for a column already inserted in the world. Main thread.
LightChanges light_column(World& world, const LightTable& table, ColumnPos pos);

/// Lights a batch of columns that are already inserted in the world (and whose light is not yet computed): the
/// local part of each on `pool` (or the calling thread when pool is null), then stitch for each in the order given.
/// The result is byte-identical for every pool size and every order of `positions`. Unloaded positions are
/// ignored. Main thread (it waits for the pool).
void light_columns(World& world, const LightTable& table, std::span<const ColumnPos> positions, JobPool* pool);

/// Applies an edit through World::apply and updates light incrementally (removal flood, then re-flood from the
/// boundary and the new sources), so the light again equals a from-scratch recompute (relight_all) exactly.
/// Edits whose old and new blocks have the same opacity and emission change no light. Main thread.
EditResult apply_edit(World& world, const LightTable& table, const Edit& edit);

/// The result of apply_edits.
struct EditsResult {
  std::vector<uint8_t> applied;  // per edit, in order: 1 when applied (its column loaded and y in range), else 0
  size_t count = 0;              // edits applied
  LightChanges light;            // light changes caused by all of them together
};

/// Applies a batch of edits (an edit storm: a blast, a fill) in order through World::apply, then updates light once
/// for all of them: one removal flood seeded at every changed cell, then one re-flood, so the light equals a
/// from-scratch recompute (relight_all) exactly, as after applying them one at a time with apply_edit, at a
/// fraction of the cost when they are many and close together. Edits of unloaded columns or out-of-range y are
/// skipped (applied 0). An edit may repeat a cell; later ones win. Main thread.
EditsResult apply_edits(World& world, const LightTable& table, std::span<const Edit> edits);

/// The result of unload_column.
struct UnloadResult {
  std::unique_ptr<Column> column;  // the removed column (nullptr if it was not loaded)
  LightChanges light;              // light changes in the remaining columns
};

/// Removes a column from the world and clears, in its neighbours, the light that reached them only through it,
/// so the invariant (light = fixed point over the loaded columns) holds for what remains. Main thread.
UnloadResult unload_column(World& world, const LightTable& table, ColumnPos pos);

}  // namespace voxen::light
