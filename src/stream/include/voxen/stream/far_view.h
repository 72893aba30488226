// The far view's scheduler (docs/ARCHITECTURE.md, "Far view (LOD)"): which LOD sections to draw each frame, the
// requests that build them (the coarse terrain path, lod/coarse.h, then the LOD mesher, mesh/lod_mesher.h, on the
// JobPool) and their upload to the renderer's far arena. After Voxy's RenderService / NodeManager.
//
// Nodes: a node is the stack of LOD sections of one level L at one (x, z) in LOD-section units of that level: it
// covers world blocks [x * S, (x + 1) * S) x [z * S, (z + 1) * S), S = 32 << L, over the world's whole height
// (LOD sections y = floor(kMinY / S) .. floor(kMaxY / S)). Building a node builds and meshes each of its sections;
// the non-empty meshes go to the renderer (Renderer::set_lod_section). Never keyed by pointer.
//
// Selection (per frame, the main thread; Voxy's traversal by projected size): from the roots (nodes of the top level
// within the far distance) descend while a node's cells would look larger than `cell_pixels` on screen
// (cell size 2^L over the distance from the eye to the node's box, times viewport height / (2 tan(fov / 2))); a node
// not descended into is a leaf. A node whose footprint lies wholly in columns drawn at full detail (the near field)
// is skipped. A leaf is drawn when it is built; an inner node draws its children when all of them can draw (each
// built, or covered by its own children), else itself when it is built, so levels never overlap and a missing
// child never leaves sky: the level above covers it until the children are built (hand-over to the near field:
// the renderer's column mask, renderer.h). Draw lists hold only nodes whose box meets the frustum and the far disc.
// The far view covers blocks with x and z in [-kWorldReach, kWorldReach) (2^62, core/coords.h): its node
// arithmetic (a padded section's border, the disc around the eye) keeps headroom below int64's ends; past them
// nothing far is drawn.
//
// Requests: every leaf not built and, in live mode, every inner node on the way to it not built (its cover), in
// order of priority (coarse levels first, then nearest; out of the frustum last), submitted in that order and run
// by the pool after every near job, first in first out (kFarJobPriority), so they finish in about submission order. Throttled by the backlog (Voxy):
// at most quota = ceil(((4000 - queued) / 4000)^2 * 50) new requests a frame, 0..50, queued = requests in flight;
// without the throttle every missing node is requested at once. Batch mode (complete(): `voxen shot`) requests
// the leaves in view only and waits for them.
// Determinism (FarConfig::deterministic: the tour and replays): the requests of frame N are integrated at frame
// N + 1 in submission order (waiting for them), so what is drawn is a function of the eye's path alone.
// Eviction: a built node neither drawn nor standing over drawn children for `evict_frames` frames leaves the
// renderer (a parent over drawn children stays: it covers them again when the view turns coarser).
// Real columns win (add_real_column): a column handed over (drawn at full detail, or edited) has its mips built by a
// job in the same queue, integrated in the same order; from then on every node built over it takes its cells from
// the column (lod::overlay_columns) instead of the coarse terrain, and the built nodes whose cells or border cells
// it changes are stale: they keep drawing and are requested again when selected. So the far view shows edits after
// their columns leave the near field, and where the near field ends the far cells beside it know the real ground
// there (the side faces of carved or lowered near terrain close the hand-over). A column handed over again with
// identical mips changes nothing. Columns farther than `real_distance` from the eye, not in the near field and not
// kept (edited), are dropped, and the nodes over them become stale too (rebuilt coarse when selected, so two
// neighbours never disagree about a column).
//
// Storage (set_store, lod_record.h): with the world's database, a node's first build in the view first reads the
// node's record and, when it is sound and built from the same sources (signature), uploads its quads instead of
// building (a rebuild, real columns having changed under the node, never reads it); a node built is written back
// (one batch per integration, not synced: a lost record is only rebuilt), unless real columns changed under it
// while it was built (the next build is stored). A record that fails to decode
// (checksum, truncation, a field out of range) is reported on stderr and in FarFrameStats::records_bad, and the
// node is built and its record rewritten: never drawn half-decoded. Nodes over real columns are always built (the
// real cells win) and stored, so the stored levels follow what was loaded. An edited (kept) column's nodes, at
// every level, are built again and stored once the column has left the near field, even those not in view, by
// jobs outside the integration order that write from the worker (nothing drawn depends on them, so replays of
// recordings made with or without a store agree), so a reopened world's far view shows the edit without loading
// its column. A column with saved edits is kept too (ColumnSource::edited).
// Threads: the main thread calls everything (it owns the Renderer); jobs run on the pool and return their meshes
// (and read the store, which is thread-safe).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <span>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/job_pool.h"
#include "voxen/lod/cell.h"
#include "voxen/lod/coarse.h"
#include "voxen/lod/pyramid.h"
#include "voxen/mesh/lod_mesher.h"
#include "voxen/render/camera.h"
#include "voxen/render/renderer.h"
#include "voxen/store/world_store.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/column.h"

namespace voxen::gen {
class Generator;
}

namespace voxen::stream {

struct FarConfig {
  double far_distance = 0;          // horizontal blocks from the eye; 0: the far view is off
  int levels = lod::kDefaultLevels; // levels 0..levels-1 (kMinLevels..kMaxLevels)
  double cell_pixels = 3.0;         // descend while a node's cells project larger than this (pixels, vertical)
  bool throttle = true;             // Voxy's quota on new requests per frame
  bool deterministic = false;       // frame N's requests integrated at frame N + 1 (see the file comment)
  int evict_frames = 240;           // frames a built node may go unused before it leaves the renderer
  double real_distance = 1024;      // horizontal blocks: real columns farther from the eye are dropped unless kept
};

/// What one frame of the far view did and cost.
struct FarFrameStats {
  uint32_t nodes_drawn = 0;         // nodes in the draw list
  uint32_t sections_drawn = 0;      // LOD sections in the draw list (non-empty meshes)
  std::array<uint32_t, lod::kMaxLevels> sections_per_level{};  // of those, per level
  uint32_t nodes_missing = 0;       // leaves wanted but not built (covered by a coarser node, or not at all)
  uint32_t requests = 0;            // new requests this frame
  uint32_t quota = 0;               // the throttle's quota this frame (the request cap)
  uint32_t queued = 0;              // requests in flight after this frame
  uint32_t integrated = 0;          // results integrated this frame: nodes built and uploaded, and real columns
  uint32_t evicted = 0;             // nodes that left the renderer this frame
  uint32_t rebuilds = 0;            // of the requests, built nodes asked for again because real columns changed
  uint32_t real_columns = 0;        // real columns held after this frame (add_real_column, integrated)
  uint32_t records_loaded = 0;      // nodes integrated from their stored records instead of built
  uint32_t records_written = 0;     // node records written (built nodes, with a store)
  uint32_t records_bad = 0;         // stored records that failed to decode (reported, rebuilt, rewritten)
  double select_ms = 0;             // main: selection and the draw list
  double upload_ms = 0;             // main: Renderer::set_lod_section of integrated nodes
  double wait_ms = 0;               // main: waiting for jobs (deterministic and batch modes)
  double build_cpu_ms = 0;          // workers: coarse terrain + LOD meshing of the nodes integrated and the real
                                    // columns' mips (thread CPU)
};

/// Where the far view's meshes go: the renderer's far arena (RendererLodSink) or anything else that keeps them
/// (`voxen mem` counts their bytes). Main thread.
class LodSink {
 public:
  virtual ~LodSink() = default;
  /// Sets (or replaces) a LOD section's quads (never empty).
  virtual void set_lod_section(const lod::LodSectionPos& pos, std::span<const mesh::LodQuad> quads) = 0;
  /// Drops a LOD section's quads (no-op if absent).
  virtual void remove_lod_section(const lod::LodSectionPos& pos) = 0;
};

/// A LodSink uploading to a Renderer (Renderer::set_lod_section).
class RendererLodSink final : public LodSink {
 public:
  explicit RendererLodSink(render::Renderer& renderer) : m_renderer(renderer) {}
  void set_lod_section(const lod::LodSectionPos& pos, std::span<const mesh::LodQuad> quads) override {
    m_renderer.set_lod_section(pos, quads);
  }
  void remove_lod_section(const lod::LodSectionPos& pos) override { m_renderer.remove_lod_section(pos); }

 private:
  render::Renderer& m_renderer;
};

/// The far-view quota: ceil(((4000 - queued) / 4000)^2 * 50), clamped to 0..50 (Voxy's request throttle).
uint32_t far_request_quota(uint64_t queued);

class FarView {
 public:
  /// The generator (its coarse terrain), registry, pool and renderer (or sink) must outlive the view.
  FarView(const gen::Generator& generator, const BlockRegistry& registry, JobPool& pool, render::Renderer& renderer,
          FarConfig config);
  FarView(const gen::Generator& generator, const BlockRegistry& registry, JobPool& pool, LodSink& sink,
          FarConfig config);
  /// Waits for the jobs running (those queued and not started build nothing); the renderer keeps what was uploaded
  /// (Renderer::clear_lod drops it).
  ~FarView();
  FarView(const FarView&) = delete;
  FarView& operator=(const FarView&) = delete;

  /// One frame (live or deterministic, see the file comment): integrates finished nodes, selects, requests.
  /// `near` lists the columns drawn at full detail, sorted (as ColumnStreamer::drawn_columns gives them); `viewport_height` is in pixels. Results are integrated in
  /// submission order: live, the longest finished run from the oldest; deterministic, all in flight; with `replay`
  /// exactly that many oldest (a recorded live frame's FarFrameStats::integrated), waiting for them; more than are in
  /// flight sets error() (the recording diverged) and integrates what there is.
  FarFrameStats update(const render::Camera& camera, int viewport_height, std::span<const ColumnPos> near,
                       std::optional<uint32_t> replay = std::nullopt);
  /// Batch mode (`voxen shot`): builds every leaf the view selects within the frustum (in every direction when
  /// `frustum` is false: `voxen mem`) and waits for them, then selects: the draw list is then complete (nothing
  /// covered by a coarser level).
  FarFrameStats complete(const render::Camera& camera, int viewport_height, std::span<const ColumnPos> near,
                         bool frustum = true);

  /// Hands the far view a real column (main thread; `column` is a copy no one writes): a job builds its mips
  /// (lod::build_column_mips) and from the frame that integrates it, LOD cells over the column come from it (see the
  /// file comment). Handing the same position again replaces it (integration order: the latest wins). `keep`: never
  /// dropped by distance (an edited column; kept once set). Counts as a far-view job (queued(), replays).
  void add_real_column(std::shared_ptr<const Column> column, bool keep);
  /// Real columns held (integrated).
  size_t real_columns() const { return m_real.size(); }
  /// Keeps built nodes in `store` (the world's database; null: none) and loads them from it (see the file comment).
  /// Call before the first update() or complete(); the store must outlive the view.
  void set_store(store::WorldStore* store) { m_store = store; }
  /// The last damaged record's error, or empty.
  const std::string& record_warning() const { return m_record_warning; }

  /// The LOD sections to draw this frame (render::FrameParams::far.draw), after update() or complete().
  std::span<const lod::LodSectionPos> draw() const { return m_draw; }
  /// The fog end for the frame (the far distance).
  double fog_end() const { return m_config.far_distance; }
  const FarConfig& config() const { return m_config; }
  /// Nodes built (uploaded or empty) and in flight.
  size_t built_nodes() const;
  size_t queued() const { return m_in_flight; }
  /// Set when a replayed frame asked for more results than were in flight (see update()).
  const std::string& error() const { return m_error; }
  /// CPU bytes the view holds (node table, real columns' mips, column copies not yet integrated); the renderer
  /// reports the GPU side (lod arena bytes).
  size_t memory_bytes() const;

 private:
  struct NodeKey {
    int level = 0;
    int64_t x = 0, z = 0;
    friend constexpr auto operator<=>(const NodeKey&, const NodeKey&) = default;
  };
  struct Node {
    bool built = false;
    bool in_flight = false;
    uint64_t last_used = 0;
    std::vector<lod::LodSectionPos> sections;  // uploaded (non-empty) sections
    uint32_t changes = 0;        // real-column changes under the node or its border (bumped on each)
    uint32_t built_changes = 0;  // `changes` when the build drawn now was submitted: stale when they differ
    bool stale() const { return built && built_changes != changes; }
  };
  struct Real {
    std::shared_ptr<const lod::ColumnMips> mips;
    bool keep = false;
  };
  using RealMap = std::unordered_map<ColumnPos, std::shared_ptr<const lod::ColumnMips>, ColumnPosHash>;
  struct Result;
  struct Want {
    NodeKey key;
    double priority;
  };

  FarView(const gen::Generator& generator, const BlockRegistry& registry, JobPool& pool,
          std::unique_ptr<RendererLodSink> own, LodSink* sink, FarConfig config);
  /// Selects below `key`; returns whether the subtree can draw (itself or its children).
  bool select(const NodeKey& key, const render::Camera& camera, const render::Frustum* frustum, bool batch,
              std::vector<NodeKey>& out, std::vector<Want>& wants, FarFrameStats& st);
  void run_selection(const render::Camera& camera, int viewport_height, std::span<const ColumnPos> near, bool batch,
                     bool use_frustum, std::vector<Want>& wants, FarFrameStats& st);
  /// Requests a node's build (or, on its first build with a store, its record), integrated in submission order.
  void submit(const NodeKey& key);
  /// Builds a node for its stored record only, written from the worker (store_edited): outside the integration
  /// order, so nothing drawn (and no recording) depends on it.
  void store_node(const NodeKey& key);
  /// Builds a node's LOD sections (coarse terrain, real columns over it, seams, skirts): their non-empty meshes.
  /// Any thread.
  void build_node(const NodeKey& key, const RealMap& real,
                  std::vector<std::pair<lod::LodSectionPos, std::vector<mesh::LodQuad>>>& meshes) const;
  /// The node's stored value (lod_record.h), or nullopt when too big to read back (not kept).
  std::optional<std::string> sealed_record(
      const NodeKey& key, const std::vector<std::pair<lod::LodSectionPos, std::vector<mesh::LodQuad>>>& meshes) const;
  /// The real columns under a node and its one-cell border (the build's snapshot).
  RealMap real_under(const NodeKey& key) const;
  /// The nodes (every level) whose cells or border cells lie over column `pos`.
  std::vector<NodeKey> nodes_over(ColumnPos pos) const;
  /// Bumps `changes` of nodes_over(pos) that exist.
  void touch_nodes(ColumnPos pos);
  void drop_far_real(const render::Camera& camera, std::span<const ColumnPos> near);
  /// Builds again, for the store, every node over the edited columns that have left `near` (m_store_pending).
  void store_edited(std::span<const ColumnPos> near);
  /// Integrates the oldest `count` results (waiting for them), or with count < 0 the finished run from the oldest.
  void integrate(int64_t count, FarFrameStats& st);
  void evict(FarFrameStats& st);
  bool near_covers(const NodeKey& key) const;
  double node_distance(const NodeKey& key, const render::Camera& camera) const;

  const gen::Generator& m_generator;
  JobPool& m_pool;
  std::unique_ptr<RendererLodSink> m_own_sink;  // the sink made for a Renderer, or null
  LodSink* m_sink;
  FarConfig m_config;
  lod::Mipper m_mipper;
  std::unique_ptr<lod::CoarseTerrain> m_coarse;
  mesh::LodMeshTables m_tables;

  std::map<NodeKey, Node> m_nodes;
  std::unordered_map<ColumnPos, Real, ColumnPosHash> m_real;  // real columns integrated
  store::WorldStore* m_store = nullptr;                        // where nodes are kept, or null
  std::set<ColumnPos> m_store_pending;                         // edited columns whose nodes are to be stored again
  uint64_t m_signature = 0;                                    // lod_sources_signature of this view
  std::string m_record_warning;
  size_t m_real_bytes = 0;                                    // their mips' memory_bytes
  std::map<uint64_t, size_t> m_pending;  // column copies handed over, not integrated: submission number -> bytes
  std::vector<lod::LodSectionPos> m_draw;
  uint64_t m_frame = 0;
  double m_proj_scale = 1;

  // Near field: a summed-area table of the near columns over 256 x 256 columns centred on the camera's column.
  static constexpr int kMask = 256;
  // JobPool priority of far jobs: past any near job's (a distance in blocks), plus the submission number.
  static constexpr double kFarJobPriority = 1e12;
  ColumnPos m_mask_origin{};  // column at mask texel (0, 0)
  std::vector<uint32_t> m_near_sat;  // (kMask + 1)^2
  std::vector<ColumnPos> m_sat_near;  // the near set the table was built from
  bool m_sat_valid = false;

  // Jobs: results land in m_done under m_mutex, numbered by submission (integrated in that order).
  std::mutex m_mutex;
  std::map<uint64_t, std::unique_ptr<Result>> m_done;  // finished, by submission number
  std::condition_variable m_cv;      // a job finished (m_done grew, m_running fell)
  size_t m_running = 0;              // jobs submitted and not finished (under m_mutex)
  size_t m_store_running = 0;        // of those, store_node's (under m_mutex)
  size_t m_in_flight = 0;            // jobs submitted and not integrated (main thread)
  uint64_t m_next_seq = 0;           // the next submission's number
  uint64_t m_next_integrate = 0;     // the oldest submission not integrated
  std::string m_error;
  std::atomic<bool> m_cancel{false};  // set by the destructor: jobs not yet started build nothing
};

}  // namespace voxen::stream
