// Streaming a view's world: which columns a camera needs, and generating, lighting and meshing them on the
// worker pool (nearest first) while the main thread integrates results and uploads meshes. `voxen shot` and the
// render tests use it; `voxen play` runs the same steps incrementally in its own streamer (voxen/play/streamer.h).
//
// What is loaded for a view (docs/ARCHITECTURE.md, Rendering):
//   - draw columns: every column whose nearest horizontal point lies within the render distance (R * 16 blocks)
//     of the eye and, for a single shot, whose full-height box (y -128..256) intersects the view frustum;
//   - plus a ring of one column around them, generated and lit but not drawn: light travels at most 14 blocks
//     sideways, so a column whose 8 neighbours are loaded has its final light (light.h), and the mesher's
//     one-cell padding reads the ring's cells and light;
//   - meshes for the sections of the draw columns whose 16^3 box intersects the frustum (all of them with
//     frustum culling off).
// So a shot taken after load() has no holes: everything in the frustum within the render distance is drawn.
//
// Phases (each timed; wall-clock milliseconds): generate (ColumnSource::load of the missing columns on the pool), light (the local
// pass per column on the pool, the stitch across borders on the calling thread: light::light_columns), mesh (one
// job per draw column on the pool, thread-local scratch), upload (Renderer::set_section on the calling thread, in
// a fixed order). Output is byte-identical for any pool size.
// Threads: the calling thread owns the World and the Renderer (GL context); the pool runs pure jobs.
#pragma once

#include <cstdint>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/job_pool.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/render/camera.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/source.h"
#include "voxen/world/edit.h"
#include "voxen/world/world.h"

namespace voxen::stream {

/// The columns to draw for a view: within `radius_blocks` horizontally (nearest point of the column) of the eye;
/// with `frustum` set, only those whose full-height box intersects the camera's frustum. Sorted nearest first
/// (ties by position).
std::vector<ColumnPos> columns_for_view(const render::Camera& camera, double radius_blocks, bool frustum);

/// `draw` plus every column within one column (8-neighbourhood) of it, sorted by (x, z), no duplicates.
std::vector<ColumnPos> with_neighbour_ring(const std::vector<ColumnPos>& draw);

/// Per-phase wall-clock milliseconds and counts of one load.
struct StreamStats {
  double generate_ms = 0, light_ms = 0, mesh_ms = 0, upload_ms = 0;
  size_t columns_generated = 0;  // draw columns + ring newly generated
  size_t columns_drawn = 0;      // draw columns
  size_t sections_meshed = 0;    // sections given to the mesher
  size_t sections_uploaded = 0;  // sections with a non-empty mesh
  uint64_t quads = 0;            // quads uploaded
};

/// Builds the world for views and keeps the renderer's meshes in step with it.
class WorldStreamer {
 public:
  /// All references must outlive the streamer. Missing columns come from `source`; `pool` runs their loading,
  /// local light and meshing.
  WorldStreamer(ColumnSource& source, const light::LightTable& light_table, const mesh::BakedBlocks& blocks,
                JobPool& pool);
  /// A streamer for a world whose columns the caller loads and lights itself (a saved world, or edits placed before
  /// meshing: `voxen shot --world/--edit`): load() then only meshes and uploads, and every column of `draw` and its
  /// ring must be in the world, lit, before it is called (a missing one is a programmer error: VOXEN_ASSERT).
  WorldStreamer(const light::LightTable& light_table, const mesh::BakedBlocks& blocks, JobPool& pool);

  /// Loads what `draw` needs into `world` (columns already loaded are kept, not regenerated), lights the new
  /// ones, meshes the sections of `draw` (those intersecting `frustum` when given, else all) and uploads them.
  /// Errors: the source's (I/O of a saved world; nothing is loaded).
  Result<StreamStats> load(World& world, render::Renderer& renderer, const std::vector<ColumnPos>& draw,
                   const render::Frustum* frustum = nullptr, const render::Camera* camera = nullptr);

  /// Applies an edit (with incremental light), remeshes every section it dirties (cells and light) that has
  /// been meshed before or lies in a drawn column, and uploads them; then tells the source
  /// (ColumnSource::record). Returns false if the edit's column is not loaded. The sections remeshed are returned
  /// in `remeshed` when given.
  bool apply_edit(World& world, render::Renderer& renderer, const Edit& edit, std::vector<SectionPos>* remeshed = nullptr);

 private:
  ColumnSource* m_source = nullptr;  // null: the caller loads the columns
  const light::LightTable& m_light;
  const mesh::BakedBlocks& m_blocks;
  JobPool& m_pool;
  std::vector<ColumnPos> m_drawn;  // sorted: columns whose sections may be drawn
};

}  // namespace voxen::stream
