// The view rules: which columns a camera needs (docs/ARCHITECTURE.md, Column lifecycle).
//   - draw columns: every column whose nearest horizontal point lies within the render distance (R * 16 blocks)
//     of the eye and, for a single shot, whose full-height box (y -128..256) intersects the view frustum;
//   - plus a ring of one column around them, loaded and lit but not drawn: light travels at most 14 blocks
//     sideways, so a column whose 8 neighbours are loaded has its final light (light.h), and the mesher's
//     one-cell padding reads the ring's cells and light.
// ColumnStreamer (streamer.h) loads, lights, meshes and uploads them.
#pragma once

#include <vector>

#include "voxen/core/coords.h"
#include "voxen/render/camera.h"

namespace voxen::stream {

/// The columns to draw for a view: within `radius_blocks` horizontally (nearest point of the column) of the eye;
/// with `frustum` set, only those whose full-height box intersects the camera's frustum. Sorted nearest first
/// (by the distance of the column's centre; ties by position).
std::vector<ColumnPos> columns_for_view(const render::Camera& camera, double radius_blocks, bool frustum);

/// `draw` plus every column within one column (8-neighbourhood) of it, sorted by (x, z), no duplicates.
std::vector<ColumnPos> with_neighbour_ring(const std::vector<ColumnPos>& draw);

}  // namespace voxen::stream
