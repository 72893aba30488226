// The culling stages after the frustum (frame_culler.h).
#include "voxen/render/frame_culler.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "voxen/core/clock.h"
#include "voxen/core/job_pool.h"

namespace voxen::render {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr glm::dvec3 kSectionBox{kSectionSize, kSectionSize, kSectionSize};

// The least edge of an occluder cube worth rasterising at a distance from the eye (blocks): single blocks only
// within 24 blocks, as the seed's "level 4 within a 20-block radius"; coarser cubes farther, where a small one
// covers no whole pixel.
int least_cube(double distance) {
  if (distance < 24.0) return 1;
  if (distance < 48.0) return 2;
  if (distance < 96.0) return 4;
  return 8;
}

// Column slabs thinner than this many layers are left out (a thin slab hides little and costs a box).
constexpr int kMinSlabLayers = 2;
// The nearest boxes drawn into the depth buffer at most (the cost of the pass is about linear in them).
constexpr size_t kMaxOccluders = 512;

// Items (candidates, occluders) per task of the steps that split a list: up to this many chunks of at least 64 each.
constexpr size_t kMaxChunks = 4;
int chunks_for(size_t n) { return static_cast<int>(std::min<size_t>(kMaxChunks, (n + 63) / 64)); }
// Chunk c of `chunks` over n items: [first, second).
std::pair<size_t, size_t> chunk_range(size_t n, int c, int chunks) {
  return {n * static_cast<size_t>(c) / static_cast<size_t>(chunks), n * static_cast<size_t>(c + 1) / static_cast<size_t>(chunks)};
}

// Occluders nearest first: by the distance to their nearest point, then by position and size (a total order on
// distinct boxes, so the nearest kMaxOccluders and their order do not depend on how they were gathered).
template <typename T>
bool nearer(const T& a, const T& b) {
  if (a.distance != b.distance) return a.distance < b.distance;
  for (int i = 0; i < 3; ++i)
    if (a.min[i] != b.min[i]) return a.min[i] < b.min[i];
  for (int i = 0; i < 3; ++i)
    if (a.size[i] != b.size[i]) return a.size[i] < b.size[i];
  return false;
}
// Drops all but the nearest kMaxOccluders of `v` (unordered).
template <typename T>
void keep_nearest(std::vector<T>& v) {
  if (v.size() <= kMaxOccluders) return;
  std::nth_element(v.begin(), v.begin() + kMaxOccluders, v.end(), nearer<T>);
  v.resize(kMaxOccluders);
}

}  // namespace

void FrameCuller::add_occluder(std::vector<Occluder>& out, double limit, const glm::dvec3& bmin, const glm::dvec3& bsize) {
  const double fx = std::max(std::abs(bmin.x), std::abs(bmin.x + bsize.x));
  const double fz = std::max(std::abs(bmin.z), std::abs(bmin.z + bsize.z));
  if (std::sqrt(fx * fx + fz * fz) >= limit) return;
  const glm::dvec3 gap = glm::max(glm::max(bmin, -(bmin + bsize)), glm::dvec3(0.0));
  out.push_back({glm::length(gap), bmin, bsize});
}

std::string_view cull_mode_name(CullMode m) {
  switch (m) {
    case CullMode::kNone: return "none";
    case CullMode::kFrustum: return "frustum";
    case CullMode::kCaves: return "caves";
    case CullMode::kOcclusion: return "occlusion";
    case CullMode::kAll: return "all";
  }
  return "?";
}

std::optional<CullMode> parse_cull_mode(std::string_view s) {
  for (CullMode m : {CullMode::kNone, CullMode::kFrustum, CullMode::kCaves, CullMode::kOcclusion, CullMode::kAll})
    if (s == cull_mode_name(m)) return m;
  return std::nullopt;
}

double FrameCuller::complete_radius(const cull::VisibilityStore& store, const Camera& cam, const Frustum& frustum,
                                    double fog_end) const {
  const ColumnPos eye{column_of(cam.block.x), column_of(cam.block.z)};
  const int reach = static_cast<int>(std::ceil(fog_end / kColumnWidth)) + 2;
  constexpr glm::dvec3 kColumnBox{kColumnWidth, kColumnHeight, kColumnWidth};
  double radius = std::numeric_limits<double>::infinity();
  for (int dz = -reach; dz <= reach; ++dz)
    for (int dx = -reach; dx <= reach; ++dx) {
      const ColumnPos c{static_cast<int64_t>(static_cast<uint64_t>(eye.x) + static_cast<uint64_t>(dx)),
                        static_cast<int64_t>(static_cast<uint64_t>(eye.z) + static_cast<uint64_t>(dz))};
      const glm::dvec3 rel = cam.relative({c.x * kColumnWidth, kMinY, c.z * kColumnWidth});
      const double d = footprint_distance(rel.x, rel.z);
      if (d < radius && frustum.intersects_box(rel, kColumnBox) && store.sections_of(c) == 0) radius = d;
    }
  return radius;
}

void FrameCuller::cull(const CullingParams& params, const Camera& cam, int width, int height, const Frustum& frustum,
                       double fog_end, std::span<const Candidate> candidates, std::vector<uint8_t>& keep,
                       FrameStats& st) {
  m_occlusion_on = false;
  const bool caves = params.mode == CullMode::kCaves || params.mode == CullMode::kAll;
  const bool occlusion = params.mode == CullMode::kOcclusion || params.mode == CullMode::kAll;
  if (params.store == nullptr || (!caves && !occlusion)) return;
  const cull::VisibilityStore& store = *params.store;
  const double t_start = wall_ms();

  // The near-plane rule: a face nearer than the near plane is clipped, and through it the eye sees what lies behind
  // the rock. Within twice the distance to the near plane's corners every cell must let sight through.
  const double tan_y = std::tan(cam.fov_y_deg * kPi / 360.0), tan_x = tan_y * cam.aspect;
  const double near_reach = 2.0 * cam.near_plane * std::sqrt(1.0 + tan_x * tan_x + tan_y * tan_y);
  const auto in_view = [&](const SectionPos& p) {
    const glm::dvec3 mn = cam.relative({p.x * kColumnWidth, section_base_y(p.y), p.z * kColumnWidth});
    return frustum.intersects_box(mn, kSectionBox) && footprint_distance(mn.x, mn.z) <= fog_end;
  };
  if (!store.clear_around(cam.block, cam.frac, near_reach, in_view)) {
    st.culling_eye_near_opaque = true;
    return;
  }

  TaskTeam team(params.pool);
  // Stage 1, two tasks at once: the cave search; the occlusion pass's reach and column slabs (any box of the store
  // within the drawn columns is a valid occluder, so they need not wait for the search).
  double caves_ms = 0.0, slabs_ms = 0.0, limit = 0.0;
  m_occluders.clear();
  const auto search = [&] {
    const double t = wall_ms();
    const ColumnPos centre{column_of(cam.block.x), column_of(cam.block.z)};
    const int radius = static_cast<int>(std::ceil(fog_end / kColumnWidth)) + 1;
    if (m_graph_version != store.version() || m_graph.centre() != centre || m_graph.radius() != radius) {
      m_graph.reset(centre, radius);
      for (const auto& [c, entry] : store.columns()) {
        if (!m_graph.contains(SectionPos{c.x, 0, c.z})) continue;
        for (int y = 0; y < kSectionsPerColumn; ++y)
          if (entry.sections & (1u << y)) m_graph.set(SectionPos{c.x, y, c.z}, store.find(SectionPos{c.x, y, c.z})->links);
      }
      m_graph_version = store.version();
    }
    m_found.clear();
    cull::find_visible(m_graph, cam.block, in_view, m_found);
    m_seen.assign(m_graph.size(), 0);
    for (const SectionPos& p : m_found) m_seen[m_graph.slot(p)] = 1;
    caves_ms = wall_ms() - t;
  };
  const auto slabs = [&] {
    const double t = wall_ms();
    // The depth buffer cleared here, beside the search, off the later steps' path.
    cull::OcclusionView view;
    view.rotation = glm::dmat3(cam.view_rotation());
    view.tan_half_x = tan_x;
    view.tan_half_y = tan_y;
    view.width = width;
    view.height = height;
    view.near_plane = cam.near_plane;
    m_buffer.begin(view);
    // Occluders only where the first opaque cell on a ray into them surely has its face drawn this frame
    // (docs/ARCHITECTURE.md, "Visibility"): wholly nearer than the fog end and than every column in view that is not
    // meshed (a ray in view crosses only columns in view).
    limit = std::min(fog_end, complete_radius(store, cam, frustum, fog_end));
    // Column slabs: runs of whole opaque layers down a column (the ground under the surface, hills' cores) as one
    // box each, across sections, buried ones included.
    constexpr glm::dvec3 kColumnBox{kColumnWidth, kColumnHeight, kColumnWidth};
    for (const auto& [c, entry] : store.columns()) {
      const glm::dvec3 base = cam.relative({c.x * kColumnWidth, kMinY, c.z * kColumnWidth});
      if (footprint_distance(base.x, base.z) >= limit || !frustum.intersects_box(base, kColumnBox)) continue;
      int run = -1;  // first layer of the current run (column-local y)
      const auto end_run = [&](int layer) {
        if (run >= 0 && layer - run >= kMinSlabLayers)
          add_occluder(m_occluders, limit, base + glm::dvec3(0, run, 0), glm::dvec3(kColumnWidth, layer - run, kColumnWidth));
        run = -1;
      };
      for (int y = 0; y < kSectionsPerColumn; ++y) {
        const uint16_t layers = entry.full_layers[static_cast<size_t>(y)];
        if (layers == 0xFFFF) {  // all opaque: the run goes on through it
          if (run < 0) run = y * kSectionSize;
          continue;
        }
        if (layers == 0) {
          end_run(y * kSectionSize);
          continue;
        }
        for (int l = 0; l < kSectionSize; ++l) {
          const int layer = y * kSectionSize + l;
          if ((layers >> l) & 1u) {
            if (run < 0) run = layer;
          } else {
            end_run(layer);
          }
        }
      }
      end_run(kColumnHeight);
    }
    keep_nearest(m_occluders);
    slabs_ms = wall_ms() - t;
  };
  team.run((caves ? 1 : 0) + (occlusion ? 1 : 0), [&](int task) {
    if (task == 0 && caves) search();
    else slabs();
  });
  if (caves) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!keep[i]) continue;
      const size_t slot = m_graph.slot(candidates[i].pos);
      if (slot == cull::SectionGraph::kNoSlot || !m_seen[slot]) {
        keep[i] = 0;
        ++st.sections_hidden_by_caves;
      }
    }
    st.caves_ms = caves_ms;
  }
  if (!occlusion) {
    st.culling_ms = wall_ms() - t_start;
    return;
  }

  // Stage 2: the exposed boxes of the sections drawn, coarser with distance, in chunks of the candidates at once;
  // then the nearest kMaxOccluders of them and the slabs, nearest first (a pixel already covered nearer is skipped
  // by the boxes behind it).
  double t = wall_ms();
  const int chunks = chunks_for(candidates.size());
  m_chunk_occluders.resize(static_cast<size_t>(chunks));
  team.run(chunks, [&](int c) {
    std::vector<Occluder>& out = m_chunk_occluders[static_cast<size_t>(c)];
    out.clear();
    const auto [begin, end] = chunk_range(candidates.size(), c, chunks);
    for (size_t i = begin; i < end; ++i) {
      if (!keep[i]) continue;
      const cull::SectionVisibility* v = store.find(candidates[i].pos);
      if (v == nullptr) continue;
      const glm::dvec3& mn = candidates[i].min;
      const glm::dvec3 gap = glm::max(glm::max(mn, -(mn + kSectionBox)), glm::dvec3(0.0));
      const int least = least_cube(glm::length(gap));
      for (const cull::OccluderBox& b : v->occluders) {
        if (b.cube < least) break;  // larger cubes first
        if (b.exposed) add_occluder(out, limit, mn + glm::dvec3(b.x, b.y, b.z), glm::dvec3(b.sx, b.sy, b.sz));
      }
    }
    keep_nearest(out);  // the nearest of all are among the nearest of each chunk
  });
  for (const auto& part : m_chunk_occluders) m_occluders.insert(m_occluders.end(), part.begin(), part.end());
  keep_nearest(m_occluders);
  std::sort(m_occluders.begin(), m_occluders.end(), nearer<Occluder>);

  // Stage 3: the occluders into the depth buffer, a band of one tile row (8 buffer rows) per task, taken by the
  // threads as they come free (each band takes every box, in the same order, so the buffer is the same however the
  // bands are shared out; 1,280 x 720: 12 bands, which keeps the threads about even where the horizon's many small
  // boxes crowd into one or two of them).
  // Each box projected once (its silhouette's hull), in chunks at once, for every band.
  m_projected.resize(m_occluders.size());
  const int project_chunks = chunks_for(m_occluders.size());
  team.run(project_chunks, [&](int c) {
    const auto [begin, end] = chunk_range(m_occluders.size(), c, project_chunks);
    for (size_t k = begin; k < end; ++k) m_projected[k] = m_buffer.project_box(m_occluders[k].min, m_occluders[k].size);
  });
  const int tile_rows = m_buffer.tile_rows();
  const int bands = std::max(1, tile_rows);
  m_band_boxes.assign(static_cast<size_t>(bands), 0);
  // A point at distance d from the eye lies at least d / |ray| deep (the longest ray direction with depth 1 is a
  // frame corner's): once a band is covered nearer than that, the boxes left (farther) add nothing to it.
  const double corner_ray = std::sqrt(1.0 + tan_x * tan_x + tan_y * tan_y);
  team.run(bands, [&](int b) {
    const int tb = b, te = b + 1;
    uint32_t drawn = 0;
    for (size_t k = 0; k < m_occluders.size(); ++k) {
      if (k % 32 == 31 && m_occluders[k].distance / corner_ray >= m_buffer.covered_depth(tb, te)) break;
      m_buffer.add_occluder(m_projected[k], tb, te);
      ++drawn;
    }
    m_band_boxes[static_cast<size_t>(b)] = drawn;
  });
  st.occluder_boxes = *std::max_element(m_band_boxes.begin(), m_band_boxes.end());

  // Stage 4: the sections left, tested in chunks at once.
  m_chunk_hidden.assign(static_cast<size_t>(chunks), 0);
  team.run(chunks, [&](int c) {
    const auto [begin, end] = chunk_range(candidates.size(), c, chunks);
    uint32_t hidden = 0;
    for (size_t i = begin; i < end; ++i)
      if (keep[i] && m_buffer.hidden(candidates[i].min, kSectionBox)) {
        keep[i] = 0;
        ++hidden;
      }
    m_chunk_hidden[static_cast<size_t>(c)] = hidden;
  });
  for (const uint32_t h : m_chunk_hidden) st.sections_hidden_by_occlusion += h;
  m_occlusion_on = true;
  const double t_end = wall_ms();
  st.occlusion_ms = slabs_ms + (t_end - t);
  st.culling_ms = t_end - t_start;
}

}  // namespace voxen::render
