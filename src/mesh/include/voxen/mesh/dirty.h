// Which section meshes an edit can change. A section's mesh is a pure function of its padded input (input.h): the
// section's cells and light and the one-cell ring around it. So a change of a cell's block dirties exactly the
// sections whose padded box holds that cell (the section itself and, for a cell on a border, the neighbours across
// it: up to 8 at a corner, across section and column borders alike), and a change of a cell's light dirties the
// same set for that cell. The lighting module reports its changes per section with a box of changed cells and maps
// them the same way (voxen::light::LightChanges::dirty_sections(): each box grown by one cell).
// Threads: pure functions.
#pragma once

#include <span>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/world/edit.h"

namespace voxen::mesh {

/// The sections whose padded input holds world cell `pos` (y in kMinY..kMaxY; sections past the world's top or
/// bottom are left out): 1, 2, 4 or 8 of them. Sorted.
std::vector<SectionPos> sections_touching_cell(const BlockPos& pos);

/// The sections to remesh after `edit`: those touching the edited cell, plus `light_dirty` (sections to remesh for
/// the light changes the edit caused, e.g. light::apply_edit(...).light.dirty_sections()). Sorted, no duplicates.
/// An edit whose y is out of range contributes only `light_dirty`.
std::vector<SectionPos> sections_dirtied_by(const Edit& edit, std::span<const SectionPos> light_dirty);
/// The same for a batch of edits (light::apply_edits): the sections touching any of their cells, plus `light_dirty`.
/// Sorted, no duplicates.
std::vector<SectionPos> sections_dirtied_by(std::span<const Edit> edits, std::span<const SectionPos> light_dirty);

}  // namespace voxen::mesh
