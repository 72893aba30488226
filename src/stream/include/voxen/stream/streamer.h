// The column scheduler: one owner of the column lifecycle (absent -> generating -> loaded -> meshing -> drawn, and
// back through undraw and unload) for a World and a MeshSink (mesh_sink.h: a Renderer's arenas through a
// RendererSink, or any other upload target), in two modes that share the column states, the mesh job, integration,
// the unload path and apply_edit:
//   - batch mode, load_view(): run until a view is complete (`voxen shot`, `voxen view`, `voxen mem`, the render
//     tests and benchmarks). The missing columns of the load set (the draw set and its ring, or a set the caller
//     gives) come from the ColumnSource in one batch spread over the pool (a saved world reads them in one pass),
//     are lit (light::light_columns: local pass on the pool, one stitch), then the sections of each draw column
//     (those intersecting a frustum when given) are meshed, one job per column, and uploaded in the draw set's
//     order (nearest first). Output is byte-identical for any pool size. release() hands columns a caller is done
//     with back to the source (a window sliding over an area: `voxen mem`).
//   - incremental mode, update(): once a frame around a moving eye (`voxen play`), within a budget per frame.
//     Workers load a column from the ColumnSource and light it locally (light::light_column_local), and mesh a
//     column's sections from padded snapshots; the main thread integrates (World::insert + light::stitch), uploads
//     meshes (MeshSink::set_section: the renderer, mesh_sink.h) and unloads.
// Columns already in the World when a mode first needs them are taken as loaded and lit by the caller (a command
// that loads and lights with --edit edits, or a second renderer over the same World).
//
// Incremental sets, for an eye at horizontal position e and render distance R columns (distances are from e to the
// nearest point of a column, horizontally, in blocks; columns_for_view's rule, view.h):
//   draw      columns within R * 16: meshed and drawn once their 8 neighbours are loaded;
//   load      the draw columns and their 8-neighbour ring: generated and lit (light travels at most 14 blocks
//             sideways, so a column whose 8 neighbours are loaded has its final light, light.h; its mesh, a pure
//             function of its padded input, is then final too and is never redone for streaming);
//   undraw    a drawn column farther than R * 16 + 16 loses its meshes (GPU spans freed);
//   unload    a loaded column farther than R * 16 + 48 and not a neighbour of a drawn or meshing column is removed
//             (light::unload_column) and handed back to the source (a saved world queues its changes); so is a
//             loaded column whose job is integrated after it stopped being wanted.
// Priority (lower first; VoxelBlox: "ground where the player is comes first"): a column never drawn yet
// within `near_columns` (4) of the eye and in front of it (within 70 degrees of the horizontal view direction, or
// within 24 blocks) gets its distance; the rest within `near_columns` 1000 + distance; everything else 2000 +
// distance. Ties by position. A column a draw column needs as a neighbour (to be meshed, it needs all 8) is
// generated at that draw column's priority if it is better than its own. Generation and meshing candidates are
// ranked every frame, and only a few jobs are queued at a time, so a far ring never holds the workers while near
// ground waits (the seed's jet failure).
//
// Determinism (replay, headless, tour, fuzz: StreamConfig::deterministic): the jobs submitted at frame N are
// integrated at frame N + lag_frames (default 1) in submission order, waiting for them if they are not done, and
// each frame submits at most gen_jobs_per_frame generation and mesh_jobs_per_frame mesh jobs. So what the world and
// the renderer hold after every frame is a pure function of the eye's path, whatever the pool size or the machine's
// speed. Live play instead follows what the workers and the main thread can do, from moving averages of the
// frame time F (wall, between updates) and of a job's worker CPU time J: it keeps up to
// ceil(W x F / J) + W jobs submitted and not yet integrated for W workers (enough for every worker to stay busy
// until the next frame refills it; at least 2W + 2, at most 64W; max_in_flight, when set, instead), integrates
// whatever has finished, oldest first, and submits mesh jobs (whose padded snapshots the main thread builds) until
// the frame's main-thread streaming time reaches max(integrate_budget_ms, F / 4) (one job at least each).
// Deterministic mode ignores all of this.
// Replaying live play (schedule.h): given the frame's recorded FrameSchedule, update() integrates exactly the
// recorded jobs (waiting for them) and submits exactly the recorded counts, whatever the configured mode; a
// recording that asks for a job not in flight or more candidates than there are has diverged from this world
// (error()).
//
// The deep is meshed only round the player (VoxelBlox): a column is meshed from its floor up: one section
// below the lowest section holding any sky light (> 0) in the column or its 4 face neighbours, or, when lower, the
// lowest section where one of their 256 verticals first meets an opaque full cube coming down from the top of the
// world (the sight floor). Every surface that can be seen from the open air has in front of it either sky-lit air
// (ground, cliff faces, ravines and cave mouths the sky reaches) or see-through blocks open to the sky above (a sea
// bed under deep water: water takes 3 levels of sky light a block, so a bed more than 5 blocks down is unlit, yet
// it shows through the surface), so it lies at or above the floor; the dark caves below are not meshed or drawn.
// (With the sky light alone, sea beds more than about 20 blocks down were left out: sky showed through the sea,
// near holes in drawn columns in the tour's jet.) Within the deep zone
// (deep_columns, 4, columns round the eye's column, Chebyshev) the floor also follows the eye down: sections from
// two below the eye's section up are meshed too ("deepening" a drawn column when the eye comes near or goes
// down), so a shaft being dug or a cave the player stands in is drawn, while the caves under the view are not
// drawn for nothing (the software rasteriser pays for every vertex sent, visible or not).
//
// Edits (apply_edit, and apply_edits for a batch with one light update): light::apply_edit(s), then every section the edit dirtied (mesh::sections_dirtied_by: the cell's
// padded box and the light changes) that is drawn is remeshed and uploaded at once; a mesh job in flight for a
// dirtied column is dropped and redone; then the source is told (ColumnSource::record: a saved world journals it).
// Threads: the main thread calls everything; jobs run on the JobPool and touch only their own job record (batch
// mode's mesh jobs also read the World, which nothing writes while load_view waits for them).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/core/coords.h"
#include "voxen/core/job_pool.h"
#include "voxen/cull/store.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/input.h"
#include "voxen/mesh/mesher.h"
#include "voxen/render/camera.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/mesh_sink.h"
#include "voxen/stream/schedule.h"
#include "voxen/stream/source.h"
#include "voxen/world/column.h"
#include "voxen/world/edit.h"
#include "voxen/world/world.h"

namespace voxen::stream {

struct StreamConfig {
  int render_distance = 6;          // R, columns
  bool deterministic = false;       // count-based integration (see the file comment)
  int lag_frames = 1;               // deterministic: frames between a job's submission and its integration
  int gen_jobs_per_frame = 6;       // deterministic: generation jobs submitted per frame at most
  int mesh_jobs_per_frame = 6;      // deterministic: mesh jobs submitted per frame at most
  int max_in_flight = 0;            // live: jobs submitted and not yet integrated at most (0: adaptive, see above)
  double integrate_budget_ms = 4.0; // live: the least main-thread ms per frame for integrating and mesh snapshots
  int near_columns = 4;             // "near the player" for the priority
  int deep_columns = 4;             // the deep zone: columns (Chebyshev) round the eye meshed from the world's bottom
  bool mesh_floor = true;           // false: mesh every section of every drawn column (no floor, no deep zone)
};

/// What one frame's streaming did and cost. Worker figures are the thread CPU time of the jobs integrated this
/// frame; main-thread figures are wall-clock.
struct StreamFrameStats {
  double generate_cpu_ms = 0;   // workers: generation
  double light_cpu_ms = 0;      // workers: local light pass
  double mesh_cpu_ms = 0;       // workers: meshing
  double stitch_ms = 0;         // main: World::insert + light::stitch of new columns
  double unload_ms = 0;         // main: light::unload_column and freeing meshes
  double snapshot_ms = 0;       // main: padded inputs for mesh jobs
  double upload_ms = 0;         // main: MeshSink::set_section of finished meshes
  double wait_ms = 0;           // main: deterministic mode waiting for workers
  double schedule_ms = 0;       // main: sets, priorities, submission
  int columns_integrated = 0;
  int columns_meshed = 0;
  int columns_unloaded = 0;
  int sections_uploaded = 0;
  int remeshed_after_light = 0; // drawn sections remeshed because stitching or unloading changed their light
  FrameSchedule schedule;       // the jobs this frame integrated and submitted (live play records it)
};

/// Per-phase wall-clock milliseconds and counts of one load_view.
struct StreamStats {
  double generate_ms = 0, light_ms = 0, mesh_ms = 0, upload_ms = 0;
  size_t columns_generated = 0;  // draw columns + ring newly loaded from the source
  size_t columns_drawn = 0;      // draw columns
  size_t sections_meshed = 0;    // sections given to the mesher
  size_t sections_uploaded = 0;  // sections with a non-empty mesh
  uint64_t quads = 0;            // quads uploaded
};

/// What an edit did.
struct EditReport {
  bool applied = false;       // at least one edit applied
  int edits_applied = 0;      // how many
  std::vector<uint8_t> applied_each;  // per edit given, in order: 1 applied, 0 skipped (column not loaded, y out of range)
  int sections_remeshed = 0;
  double light_ms = 0;   // light::apply_edit
  double remesh_ms = 0;  // meshing the dirtied sections
  double upload_ms = 0;  // uploading them
  std::vector<SectionPos> remeshed;
};

/// A column's streaming state.
enum class ColumnState : uint8_t { kAbsent, kGenerating, kLoaded, kMeshing, kDrawn };
/// "absent", "generating", "loaded", "meshing", "drawn" (messages and reports).
std::string_view column_state_name(ColumnState s);

class ColumnStreamer {
 public:
  /// All references must outlive the streamer. Missing columns come from `source`; `pool` runs their loading,
  /// local light and meshing; meshes go to `sink`. `config` matters to the incremental mode only.
  ColumnStreamer(World& world, MeshSink& sink, ColumnSource& source, const light::LightTable& light_table,
                 const mesh::BakedBlocks& blocks, JobPool& pool, StreamConfig config = {});
  /// The same, uploading to `renderer` through a RendererSink of its own.
  ColumnStreamer(World& world, render::Renderer& renderer, ColumnSource& source, const light::LightTable& light_table,
                 const mesh::BakedBlocks& blocks, JobPool& pool, StreamConfig config = {});
  /// Waits for the jobs in flight (the columns they loaded are handed back to the source).
  ~ColumnStreamer();
  ColumnStreamer(const ColumnStreamer&) = delete;
  ColumnStreamer& operator=(const ColumnStreamer&) = delete;

  /// Batch mode: loads what `draw` needs (its columns and their ring; columns already loaded are kept, not
  /// reloaded), lights the new ones, meshes the sections of `draw` (those intersecting `frustum` when it and
  /// `camera` are given, else all) and uploads them; the columns of `draw` are drawn after it. Jobs of the
  /// incremental mode in flight are finished first. The load is spread nearest `camera`'s eye first (else the
  /// first draw column). Errors: the source's (I/O of a saved world; nothing is loaded).
  Result<StreamStats> load_view(const std::vector<ColumnPos>& draw, const render::Frustum* frustum = nullptr,
                                const render::Camera* camera = nullptr);
  /// Batch mode with the load set given: the columns of `load` (and of `draw`, which it should hold) are loaded
  /// and lit instead of `draw` and its ring; the rest is as above. For a caller whose world ends at an edge
  /// (`voxen mem`'s area: the columns past it stay absent, and the mesher reads them as dark air) or that loads
  /// ahead of what it draws. A draw column whose 8 neighbours are not all loaded is meshed as it is: its light and
  /// its mesh are final only for a world that ends there.
  Result<StreamStats> load_view(const std::vector<ColumnPos>& draw, const std::vector<ColumnPos>& load,
                                const render::Frustum* frustum = nullptr, const render::Camera* camera = nullptr);
  /// Batch mode: the columns a caller is done with leave. Each loaded one loses its meshes (MeshSink::
  /// remove_section), is taken out of the World as it is and handed back to the source (ColumnSource::unload: a
  /// saved world queues its changes); columns not loaded are skipped. Unlike the incremental unload
  /// (light::unload_column, then drawn neighbours remeshed), the neighbours keep the light that came from the
  /// released columns, and their meshes: that light was final (the released columns were loaded), so a window
  /// sliding over an area meshes every column with the light of the whole area, as a viewer of the area sees it,
  /// and nothing is lit or meshed twice. The price: until a released column is loaded again (load_view lights it
  /// and stitches it back), its neighbours hold light that no loaded cell justifies, so an edit beside it
  /// (apply_edit) may leave that light too bright or remove it for good. Jobs in flight are finished first.
  /// Errors: the source's first (every column is released still).
  Status release(const std::vector<ColumnPos>& columns);

  /// Incremental mode: one frame of streaming for an eye at `eye_block` + `eye_frac` looking along `forward` (world
  /// space). With `replay`, the frame integrates and submits exactly what it says (a recorded live frame, see the
  /// file comment) instead of what the mode would decide.
  StreamFrameStats update(uint64_t frame, const BlockPos& eye_block, const glm::dvec3& eye_frac, const glm::dvec3& forward,
                          const FrameSchedule* replay = nullptr);

  /// Applies an edit with light and remeshes what it dirtied (see the file comment). Not applied (and nothing
  /// changes) when its column is not loaded.
  EditReport apply_edit(const Edit& edit);
  /// Applies a batch of edits in order (an edit storm: Game's blast) with one light update for all of them
  /// (light::apply_edits), then remeshes each section they dirtied once and tells the source every applied edit.
  /// The result equals applying them one at a time. Edits whose column is not loaded are skipped (applied_each).
  /// `record` false: edits that came from the source itself (a server's, play/remote.h) are not told back to it.
  EditReport apply_edits(std::span<const Edit> edits, bool record = true);

  ColumnState state(ColumnPos pos) const;
  /// Integrated and lit (loaded, meshing or drawn).
  bool loaded(ColumnPos pos) const;
  bool drawn(ColumnPos pos) const { return state(pos) == ColumnState::kDrawn; }
  /// True when every column of the last update's draw set is drawn.
  bool view_complete() const { return m_view_complete; }
  size_t loaded_count() const { return m_loaded; }
  size_t drawn_count() const { return m_drawn; }
  /// The columns in the drawn state, sorted by position (the far view's near field: FarView, Renderer's far pass).
  std::vector<ColumnPos> drawn_columns() const;
  /// The columns integrated and lit (loaded, meshing or drawn), sorted by position (handed to the far view a ring
  /// ahead of drawing: FarView::add_real_column).
  std::vector<ColumnPos> loaded_columns() const;
  size_t draw_set_size() const { return m_draw_set.size(); }
  /// Jobs submitted and not yet integrated.
  size_t gen_in_flight() const { return m_gen_in_flight; }
  size_t mesh_in_flight() const { return m_mesh_in_flight; }
  /// Candidates waiting for a job after the last update.
  size_t gen_waiting() const { return m_gen_waiting; }
  size_t mesh_waiting() const { return m_mesh_waiting; }
  const StreamConfig& config() const { return m_config; }
  /// Blocks until every job in flight has finished and been integrated (tests, shutdown).
  void finish_jobs();
  /// The culling data of every section meshed and not dropped since (cull/store.h): set with each mesh given to the
  /// sink (the empty ones too, and the sections of a meshed range left out as uniform air or buried), its column's
  /// entries erased when its meshes are dropped. So a renderer culls with exactly the meshes it holds
  /// (render::CullingParams::store).
  const cull::VisibilityStore& visibility() const { return m_visibility; }
  /// The first source error (loading or saving columns), if any; streaming stops loading after one.
  const std::optional<Error>& error() const { return m_error; }

 private:
  struct Entry {
    ColumnState state = ColumnState::kAbsent;
    uint32_t uploaded = 0;    // bit s: section s has a mesh in the sink
    uint32_t token = 0;       // bumped when a job in flight for this column goes stale
    int8_t meshed_from = kSectionsPerColumn;  // lowest section meshed (drawn columns)
    int8_t sky_floor = 0;     // the column's floor (sky light and sight), found when it was first meshed
    bool job_in_flight = false;
    bool ever_drawn = false;
  };
  struct Job;

  double priority(ColumnPos c, const Entry* e) const;
  void integrate(uint64_t frame, StreamFrameStats& st, const FrameSchedule* replay);
  /// Waits for a job in flight to finish.
  void wait_done(const Job& job, StreamFrameStats& st);
  /// Records that a replay has diverged from its recording (error()).
  void diverged(uint64_t frame, const std::string& what);
  void integrate_job(Job& job, StreamFrameStats& st);
  void remesh_light_changes(const std::vector<SectionPos>& dirty, StreamFrameStats* st);
  void remesh_now(const SectionPos& sp, Entry& e);
  void unload_far(StreamFrameStats& st);
  void schedule(uint64_t frame, StreamFrameStats& st, const FrameSchedule* replay);
  void submit_gen(uint64_t frame, ColumnPos pos, double prio);
  /// Submits a mesh job for sections [from, to) of a column (from < 0: from its mesh floor).
  void submit_mesh(uint64_t frame, ColumnPos pos, double prio, int from, int to, StreamFrameStats& st);
  int mesh_floor(ColumnPos pos) const;
  bool in_deep_zone(ColumnPos pos) const;
  /// The lowest section a column should be meshed from now (its sky floor, lowered in the deep zone).
  int wanted_from(ColumnPos pos, const Entry& e) const;
  bool neighbours_loaded(ColumnPos pos) const;
  /// Live: the frame time, the main-thread budget and the job depth for this update (see the file comment).
  void adapt_live_budget();
  double horizontal_distance(ColumnPos c) const;
  void drop_meshes(ColumnPos pos, Entry& e);
  /// Marks a column integrated (loaded) if it is not known yet.
  Entry& adopt_loaded(ColumnPos pos);
  /// Uploads a finished mesh job's sections (non-empty meshes, or every one with `all`), handing the sink the
  /// meshes to take (MeshSink::take_section: the job is done with them); returns the count uploaded.
  int upload_meshes(Job& job, Entry& e, bool all, uint64_t* quads);
  /// The mesh job (on a worker): meshes job.sections from their snapshots, or from `world` (batch mode) when none.
  // Hands the sink the section's current cells before its mesh, when it wants them (MeshSink::wants_cells).
  void send_cells(const SectionPos& sp);
  static void run_mesh_job(Job& job, const mesh::BakedBlocks& blocks, const cull::SightTable& sight, const World* world);

  /// The one constructor: `owned` (a RendererSink made for a Renderer) or `sink` is the upload target.
  ColumnStreamer(World& world, std::unique_ptr<MeshSink> owned, MeshSink* sink, ColumnSource& source,
                 const light::LightTable& light_table, const mesh::BakedBlocks& blocks, JobPool& pool, StreamConfig config);

  World& m_world;
  std::unique_ptr<MeshSink> m_owned_sink;  // a RendererSink when constructed with a Renderer
  MeshSink& m_sink;                        // where meshes go
  ColumnSource& m_source;
  const light::LightTable& m_light;
  const mesh::BakedBlocks& m_blocks;
  JobPool& m_pool;
  StreamConfig m_config;
  cull::SightTable m_sight;            // the mesher's occluders: what blocks sight
  cull::VisibilityStore m_visibility;  // beside every mesh the sink holds (see visibility())
  std::optional<Error> m_error;

  std::map<ColumnPos, Entry> m_cols;  // every column with a state other than absent (sorted: fixed order)
  std::deque<std::unique_ptr<Job>> m_jobs;  // submission order
  std::mutex m_done_mutex;
  std::condition_variable m_done_cv;

  // The eye of the last update (floating origin) and the sets derived from it.
  BlockPos m_eye_block;
  glm::dvec3 m_eye_frac{0.0};
  glm::dvec3 m_forward{0.0, 0.0, -1.0};
  std::vector<ColumnPos> m_draw_set;  // sorted by position
  size_t m_loaded = 0, m_drawn = 0;
  size_t m_gen_in_flight = 0, m_mesh_in_flight = 0, m_gen_waiting = 0, m_mesh_waiting = 0;
  bool m_view_complete = false;
  // Live mode's measurements and budgets (adapt_live_budget).
  double m_last_update_ms = -1.0;  // wall clock of the last update
  double m_frame_ms = 1000.0 / 60.0;  // moving average of the wall time between updates
  double m_job_cpu_ms = 1.0;       // moving average of a job's worker CPU time
  double m_budget_ms = 4.0;        // main-thread ms for integration and mesh snapshots this frame
  double m_integrate_ms = 0.0;     // main-thread ms integration took this frame
  int m_target = 0;                // jobs submitted and not yet integrated, at most, this frame
  mesh::MeshScratch m_scratch;                      // main-thread remeshing (edits)
  std::unique_ptr<mesh::SectionInput> m_input;      // main-thread remeshing (edits)
  mesh::SectionMesh m_mesh_out;
};

}  // namespace voxen::stream
