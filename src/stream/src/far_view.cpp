// The far view's scheduler: selection by projected size, throttled requests, integration and eviction
// (far_view.h; docs/ARCHITECTURE.md, "Far view (LOD)").
#include "voxen/stream/far_view.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>

#include "voxen/core/clock.h"
#include "voxen/core/error.h"
#include "voxen/gen/generator.h"
#include "voxen/store/codec.h"
#include "voxen/stream/lod_record.h"

namespace voxen::stream {


// A finished job: a node's meshes, or (mips set) a real column's mips.
struct FarView::Result {
  NodeKey key;
  uint64_t seq = 0;
  double cpu_ms = 0;
  uint32_t changes = 0;  // the node's `changes` at submission
  std::vector<std::pair<lod::LodSectionPos, std::vector<mesh::LodQuad>>> meshes;
  bool column = false;  // a real column's job
  std::shared_ptr<const lod::ColumnMips> mips;
  bool keep = false;
  bool loaded = false;                // the meshes came from the stored record
  std::optional<std::string> record;  // the sealed record to write (a node built with a store)
  std::string bad;                    // why the stored record could not be used (damaged, unreadable)
};

uint32_t far_request_quota(uint64_t queued) {
  if (queued >= 4000) return 0;
  const double f = (4000.0 - static_cast<double>(queued)) / 4000.0;
  const double q = std::ceil(f * f * 50.0);
  return static_cast<uint32_t>(std::clamp(q, 0.0, 50.0));
}


FarView::FarView(const gen::Generator& generator, const BlockRegistry& registry, JobPool& pool,
                 render::Renderer& renderer, FarConfig config)
    : FarView(generator, registry, pool, std::make_unique<RendererLodSink>(renderer), nullptr, config) {}

FarView::FarView(const gen::Generator& generator, const BlockRegistry& registry, JobPool& pool, LodSink& sink,
                 FarConfig config)
    : FarView(generator, registry, pool, nullptr, &sink, config) {}

FarView::FarView(const gen::Generator& generator, const BlockRegistry& registry, JobPool& pool,
                 std::unique_ptr<RendererLodSink> own, LodSink* sink, FarConfig config)
    : m_generator(generator),
      m_pool(pool),
      m_own_sink(std::move(own)),
      m_sink(sink != nullptr ? sink : m_own_sink.get()),
      m_config(config),
      m_mipper(registry),
      m_tables(registry) {
  m_config.levels = std::clamp(m_config.levels, lod::kMinLevels, lod::kMaxLevels);
  m_coarse = std::make_unique<lod::CoarseTerrain>(generator, registry, m_mipper);
  m_signature = lod_sources_signature(generator.name(), generator.seed(), m_config.levels, m_tables);
  m_near_sat.assign(static_cast<size_t>(kMask + 1) * (kMask + 1), 0);
}

FarView::~FarView() {
  m_cancel.store(true, std::memory_order_relaxed);  // queued jobs that have not started return at once
  std::unique_lock lock(m_mutex);
  m_cv.wait(lock, [&] { return m_running == 0; });
  m_done.clear();
}

size_t FarView::built_nodes() const {
  size_t n = 0;
  for (const auto& [k, node] : m_nodes) n += node.built ? 1 : 0;
  return n;
}

size_t FarView::memory_bytes() const {
  size_t b = sizeof(*this) + m_draw.capacity() * sizeof(lod::LodSectionPos) + m_near_sat.capacity() * sizeof(uint32_t);
  for (const auto& [k, node] : m_nodes)
    b += sizeof(NodeKey) + sizeof(Node) + 48 + node.sections.capacity() * sizeof(lod::LodSectionPos);
  for (const auto& [seq, bytes] : m_pending) b += bytes;
  return b + m_real_bytes + m_real.size() * (sizeof(ColumnPos) + sizeof(Real) + 32);
}

double FarView::node_distance(const NodeKey& key, const render::Camera& camera) const {
  const int64_t s = int64_t{32} << key.level;
  const glm::dvec3 lo = camera.relative(BlockPos{key.x * s, kMinY, key.z * s});
  const glm::dvec3 hi = lo + glm::dvec3(static_cast<double>(s), kMaxY + 1 - kMinY, static_cast<double>(s));
  const glm::dvec3 c = glm::clamp(glm::dvec3(0.0), lo, hi);
  return glm::length(c);
}

bool FarView::near_covers(const NodeKey& key) const {
  const int64_t n = int64_t{2} << key.level;  // columns per side
  const int64_t x0 = (key.x << (key.level + 1)) - m_mask_origin.x;
  const int64_t z0 = (key.z << (key.level + 1)) - m_mask_origin.z;
  if (x0 < 0 || z0 < 0 || x0 + n > kMask || z0 + n > kMask) return false;
  const auto at = [&](int64_t x, int64_t z) { return m_near_sat[static_cast<size_t>(z * (kMask + 1) + x)]; };
  const uint64_t sum = at(x0 + n, z0 + n) - at(x0, z0 + n) - at(x0 + n, z0) + at(x0, z0);
  return sum == static_cast<uint64_t>(n * n);
}

bool FarView::select(const NodeKey& key, const render::Camera& camera, const render::Frustum* frustum, bool batch,
                     std::vector<NodeKey>& out, std::vector<Want>& wants, FarFrameStats& st) {
  const int64_t s = int64_t{32} << key.level;
  // The far disc: the horizontal distance from the eye to the node's footprint.
  const glm::dvec3 lo = camera.relative(BlockPos{key.x * s, kMinY, key.z * s});
  const double dx = std::max({0.0, lo.x, -(lo.x + static_cast<double>(s))});
  const double dz = std::max({0.0, lo.z, -(lo.z + static_cast<double>(s))});
  if (dx * dx + dz * dz > m_config.far_distance * m_config.far_distance) return true;
  if (near_covers(key)) return true;
  const bool visible = frustum == nullptr ||
      frustum->intersects_box(lo, glm::dvec3(static_cast<double>(s), kMaxY + 1 - kMinY, static_cast<double>(s)));
  if (batch && !visible) return true;
  const double d = node_distance(key, camera);
  const double cell_px = static_cast<double>(int64_t{1} << key.level) / std::max(d, 1e-3) * m_proj_scale;
  auto it = m_nodes.find(key);
  Node* node = it == m_nodes.end() ? nullptr : &it->second;
  const double prio = static_cast<double>(m_config.levels - 1 - key.level) * 1e7 + d + (visible ? 0.0 : 5e6);
  // A built node draws itself (when in view) and counts as used (not evicted).
  auto draw_self = [&] {
    node->last_used = m_frame;
    if (visible) out.push_back(key);
    if (node->stale() && !node->in_flight) wants.push_back({key, prio});  // real columns changed under it
    return true;
  };
  if (key.level > 0 && cell_px > m_config.cell_pixels) {
    std::vector<NodeKey> sub;
    bool all = true;
    for (int i = 0; i < 4; ++i) {
      const NodeKey child{key.level - 1, key.x * 2 + (i & 1), key.z * 2 + (i >> 1)};
      all = select(child, camera, frustum, batch, sub, wants, st) && all;
    }
    if (all) {
      // The children draw; a built node here stays (not evicted): it covers them again if the view turns coarser.
      if (node != nullptr && node->built) node->last_used = m_frame;
      out.insert(out.end(), sub.begin(), sub.end());
      return true;
    }
    if (node != nullptr && node->built) return draw_self();
    if (!batch && (node == nullptr || !node->in_flight)) wants.push_back({key, prio});
    out.insert(out.end(), sub.begin(), sub.end());
    return false;
  }
  if (node != nullptr && node->built) return draw_self();
  ++st.nodes_missing;
  if (node == nullptr || !node->in_flight) wants.push_back({key, prio});
  return false;
}

void FarView::run_selection(const render::Camera& camera, int viewport_height, std::span<const ColumnPos> near,
                            bool batch, bool use_frustum, std::vector<Want>& wants, FarFrameStats& st) {
  const double t0 = wall_ms();
  m_proj_scale = static_cast<double>(viewport_height) / (2.0 * std::tan(glm::radians(camera.fov_y_deg) * 0.5));
  // Near-field summed-area table around the camera's column, rebuilt only when that column or the near set changed
  // (most frames neither does).
  const ColumnPos cam_col = column_pos_of(camera.block);
  const ColumnPos origin{cam_col.x - kMask / 2, cam_col.z - kMask / 2};
  if (!m_sat_valid || origin != m_mask_origin || !std::equal(near.begin(), near.end(), m_sat_near.begin(), m_sat_near.end())) {
    m_mask_origin = origin;
    m_sat_near.assign(near.begin(), near.end());
    m_sat_valid = true;
    std::vector<uint8_t> mask(static_cast<size_t>(kMask) * kMask, 0);
    for (const ColumnPos& c : near) {
      const int64_t x = c.x - m_mask_origin.x, z = c.z - m_mask_origin.z;
      if (x >= 0 && z >= 0 && x < kMask && z < kMask) mask[static_cast<size_t>(z * kMask + x)] = 1;
    }
    for (int z = 0; z < kMask; ++z) {
      uint32_t row = 0;
      for (int x = 0; x < kMask; ++x) {
        row += mask[static_cast<size_t>(z * kMask + x)];
        m_near_sat[static_cast<size_t>((z + 1) * (kMask + 1) + x + 1)] =
            m_near_sat[static_cast<size_t>(z * (kMask + 1) + x + 1)] + row;
      }
    }
  }
  // The frustum of the far view: the camera's, reaching past the far distance.
  render::Camera fcam = camera;
  fcam.near_plane = 1.0;
  fcam.far_plane = std::sqrt(m_config.far_distance * m_config.far_distance + 512.0 * 512.0) + 64.0;
  const render::Frustum frustum = render::Frustum::from_matrix(fcam.view_projection());

  const int top = m_config.levels - 1;
  const int64_t s = int64_t{32} << top;
  const int64_t ex = camera.block.x, ez = camera.block.z;
  const auto reach = static_cast<int64_t>(std::ceil(m_config.far_distance)) + 1;
  // The disc's blocks, clipped to [-kWorldReach, kWorldReach) without overflowing near int64's ends (the eye may be
  // anywhere; reach is at most 65,537).
  auto lo = [&](int64_t e) { return e < -kWorldReach + reach ? -kWorldReach : e - reach; };
  auto hi = [&](int64_t e) { return e > kWorldReach - 1 - reach ? kWorldReach - 1 : e + reach; };
  std::vector<NodeKey> keys;
  if (lo(ex) <= hi(ex) && lo(ez) <= hi(ez))
    for (int64_t z = floor_div(lo(ez), s); z <= floor_div(hi(ez), s); ++z)
      for (int64_t x = floor_div(lo(ex), s); x <= floor_div(hi(ex), s); ++x)
        select(NodeKey{top, x, z}, camera, use_frustum ? &frustum : nullptr, batch, keys, wants, st);

  m_draw.clear();
  st.sections_per_level.fill(0);
  for (const NodeKey& k : keys) {
    const Node& n = m_nodes.at(k);
    for (const lod::LodSectionPos& p : n.sections) {
      m_draw.push_back(p);
      ++st.sections_per_level[static_cast<size_t>(p.level)];
    }
  }
  st.nodes_drawn = static_cast<uint32_t>(keys.size());
  st.sections_drawn = static_cast<uint32_t>(m_draw.size());
  std::sort(wants.begin(), wants.end(), [](const Want& a, const Want& b) {
    return a.priority != b.priority ? a.priority < b.priority : a.key < b.key;
  });
  st.select_ms += wall_ms() - t0;
}

FarView::RealMap FarView::real_under(const NodeKey& key) const {
  RealMap out;
  if (m_real.empty()) return out;
  const int64_t s = int64_t{32} << key.level, cell = int64_t{1} << key.level;
  const int64_t x0 = floor_div(key.x * s - cell, 16), x1 = floor_div((key.x + 1) * s + cell - 1, 16);
  const int64_t z0 = floor_div(key.z * s - cell, 16), z1 = floor_div((key.z + 1) * s + cell - 1, 16);
  const auto add = [&](ColumnPos p, const Real& r) {
    if (p.x >= x0 && p.x <= x1 && p.z >= z0 && p.z <= z1) out.emplace(p, r.mips);
  };
  if (static_cast<int64_t>(m_real.size()) < (x1 - x0 + 1) * (z1 - z0 + 1)) {
    for (const auto& [p, r] : m_real) add(p, r);
  } else {
    for (int64_t z = z0; z <= z1; ++z)
      for (int64_t x = x0; x <= x1; ++x)
        if (auto it = m_real.find(ColumnPos{x, z}); it != m_real.end()) add(it->first, it->second);
  }
  return out;
}

std::vector<FarView::NodeKey> FarView::nodes_over(ColumnPos pos) const {
  std::vector<NodeKey> out;
  for (int level = 0; level < m_config.levels; ++level) {
    const int64_t s = int64_t{32} << level, cell = int64_t{1} << level;
    for (int64_t z = floor_div(pos.z * 16 - cell, s); z <= floor_div(pos.z * 16 + 15 + cell, s); ++z)
      for (int64_t x = floor_div(pos.x * 16 - cell, s); x <= floor_div(pos.x * 16 + 15 + cell, s); ++x)
        out.push_back(NodeKey{level, x, z});
  }
  return out;
}

void FarView::touch_nodes(ColumnPos pos) {
  for (const NodeKey& k : nodes_over(pos))
    if (auto it = m_nodes.find(k); it != m_nodes.end()) ++it->second.changes;
}

void FarView::drop_far_real(const render::Camera& camera, std::span<const ColumnPos> near) {
  const double r = m_config.real_distance;
  std::vector<ColumnPos> dropped;
  for (auto it = m_real.begin(); it != m_real.end();) {
    const double dx = static_cast<double>(it->first.x * 16 + 8 - camera.block.x);
    const double dz = static_cast<double>(it->first.z * 16 + 8 - camera.block.z);
    if (!it->second.keep && dx * dx + dz * dz > r * r && !std::binary_search(near.begin(), near.end(), it->first)) {
      m_real_bytes -= it->second.mips->memory_bytes();
      dropped.push_back(it->first);
      it = m_real.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(dropped.begin(), dropped.end());  // a fixed order (the map's is not)
  for (const ColumnPos& p : dropped) touch_nodes(p);
}

void FarView::add_real_column(std::shared_ptr<const Column> column, bool keep) {
  VOXEN_ASSERT(column != nullptr);
  const uint64_t seq = m_next_seq++;
  ++m_in_flight;
  m_pending.emplace(seq, sizeof(Column) + column->cell_bytes() + column->light_bytes());
  {
    std::lock_guard lock(m_mutex);
    ++m_running;
  }
  m_pool.submit(kFarJobPriority + static_cast<double>(seq), [this, column = std::move(column), keep, seq] {
    auto r = std::make_unique<Result>();
    r->seq = seq;
    r->column = true;
    r->keep = keep;
    const double t0 = thread_cpu_ms();
    if (!m_cancel.load(std::memory_order_relaxed))
      r->mips = std::make_shared<const lod::ColumnMips>(lod::build_column_mips(*column, m_mipper));
    r->cpu_ms = thread_cpu_ms() - t0;
    std::lock_guard lock(m_mutex);
    m_done.emplace(seq, std::move(r));
    --m_running;
    m_cv.notify_all();
  });
}

void FarView::build_node(const NodeKey& key, const RealMap& real,
                         std::vector<std::pair<lod::LodSectionPos, std::vector<mesh::LodQuad>>>& meshes) const {
  mesh::LodMesh m;
  lod::PaddedLodSection scratch;
  const auto find = [&real](ColumnPos p) -> const lod::ColumnMips* {
    const auto it = real.find(p);
    return it == real.end() ? nullptr : it->second.get();
  };
  // Over real columns every section is built (a skipped one may hold what they add) and their cells win; where
  // real and coarse columns meet, the seam gets its faces (mesh_lod_section_seams: the hand-over to the near field,
  // whose columns are real, shows the far ground's side wherever the near ground is lower).
  // The stack's sections are meshed from the top down, so that a section's skirts know the air above it in the
  // sections above (mesh::LodSkirtColumns: a cliff beside the node reaches down past a section's top).
  constexpr size_t kColumns = static_cast<size_t>(lod::PaddedLodSection::kSide) * lod::PaddedLodSection::kSide - 4;
  struct Built {
    lod::PaddedLodSection cells;
    std::vector<uint8_t> real_xz;
    size_t real_columns = 0;
  };
  std::vector<Built> stack;
  m_coarse->build_stack(key.level, key.x, key.z, [&](const lod::PaddedLodSection& padded) {
    Built& b = stack.emplace_back();
    b.cells.pos = padded.pos;
    b.cells.cells = padded.cells;
    if (!real.empty()) {
      lod::overlay_columns(b.cells, find, m_mipper, &b.real_xz);
      b.real_columns = static_cast<size_t>(std::count(b.real_xz.begin(), b.real_xz.end(), uint8_t{1}));
    }
  }, real.empty());
  mesh::LodSkirtColumns above;
  const size_t first = meshes.size();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    // Skirts close the steps to neighbours drawn at other levels (with seams, each source's own, from the section's
    // own air only).
    if (it->real_columns > 0 && it->real_columns < kColumns) {
      mesh::mesh_lod_section_seams(it->cells, it->real_xz, m_tables, m, scratch, /*skirts=*/true);
      above = {};
    } else {
      mesh::mesh_lod_section(it->cells, m_tables, m);
      mesh::append_lod_skirts(it->cells, m_tables, m, &above);
    }
    if (!m.quads.empty()) meshes.emplace_back(it->cells.pos, std::move(m.quads));
    m.quads = {};
  }
  std::reverse(meshes.begin() + static_cast<ptrdiff_t>(first), meshes.end());  // bottom to top, as built
}

std::optional<std::string> FarView::sealed_record(
    const NodeKey& key, const std::vector<std::pair<lod::LodSectionPos, std::vector<mesh::LodQuad>>>& meshes) const {
  LodNodeRecord rec{m_signature, key.level, key.x, key.z, {}};
  for (const auto& [pos, quads] : meshes) rec.sections.emplace_back(pos.y, quads);
  const std::string payload = encode_lod_payload(rec);
  if (payload.size() > store::kMaxPayloadSize) return std::nullopt;  // too big to read back: not kept
  return seal_lod_payload(payload);
}

void FarView::submit(const NodeKey& key) {
  Node& node = m_nodes[key];
  node.in_flight = true;
  node.last_used = m_frame;
  const uint32_t changes = node.changes;
  // A node's first build in this view may come from its stored record; a rebuild (real columns changed under it)
  // never does: the record may hold what changed.
  const bool use_record = m_store != nullptr && !node.built;
  RealMap real = real_under(key);
  const uint64_t seq = m_next_seq++;
  ++m_in_flight;
  {
    std::lock_guard lock(m_mutex);
    ++m_running;
  }
  // The pool runs the lowest value first. Far jobs run after every near job (the streamer's priorities are distances)
  // and among themselves in submission order, which already puts coarse levels and near nodes first (select's
  // priority sorts the requests): so they finish in about the order integration takes them, and one early request
  // can never wait behind later ones while the live view stalls.
  m_pool.submit(kFarJobPriority + static_cast<double>(seq), [this, key, seq, changes, use_record, real = std::move(real)] {
    auto r = std::make_unique<Result>();
    r->key = key;
    r->seq = seq;
    r->changes = changes;
    const double t0 = thread_cpu_ms();
    // The stored record, when nothing real lies under the node (real cells always win, so such a node is built).
    if (use_record && real.empty() && !m_cancel.load(std::memory_order_relaxed)) {
      auto value = m_store->get(lod_record_key(key.level, key.x, key.z));
      if (!value.ok()) {
        r->bad = describe_lod_node(key.level, key.x, key.z) + ": " + value.error().to_string();
      } else if (*value) {
        auto rec = decode_lod_record(**value, key.level, key.x, key.z);
        if (!rec.ok()) {
          r->bad = rec.error().to_string();
        } else if (rec->signature == m_signature) {  // another signature: built from other sources, rebuilt
          for (auto& [y, quads] : rec->sections) r->meshes.emplace_back(lod::LodSectionPos{key.level, key.x, y, key.z}, std::move(quads));
          r->loaded = true;
        }
      }
    }
    if (!r->loaded && !m_cancel.load(std::memory_order_relaxed)) {
      build_node(key, real, r->meshes);
      if (m_store != nullptr) r->record = sealed_record(key, r->meshes);
    }
    r->cpu_ms = thread_cpu_ms() - t0;
    std::lock_guard lock(m_mutex);
    m_done.emplace(seq, std::move(r));
    --m_running;
    m_cv.notify_all();
  });
}

void FarView::store_node(const NodeKey& key) {
  RealMap real = real_under(key);
  {
    std::lock_guard lock(m_mutex);
    ++m_running;
    ++m_store_running;
  }
  // Not in the integration order (nothing is drawn from it, so replays and recordings never see it): built and
  // written from the worker, after the far jobs queued so far.
  m_pool.submit(kFarJobPriority + static_cast<double>(m_next_seq) + 0.5, [this, key, real = std::move(real)] {
    if (!m_cancel.load(std::memory_order_relaxed)) {
      std::vector<std::pair<lod::LodSectionPos, std::vector<mesh::LodQuad>>> meshes;
      build_node(key, real, meshes);
      if (auto value = sealed_record(key, meshes)) {
        const store::WriteOp op{lod_record_key(key.level, key.x, key.z), std::move(value)};
        const Status s = m_store->write(std::span<const store::WriteOp>(&op, 1), false);
        if (!s.ok())
          std::fprintf(stderr, "voxen: warning: far view: storing %s: %s\n", describe_lod_node(key.level, key.x, key.z).c_str(),
                       s.error().to_string().c_str());
      }
    }
    std::lock_guard lock(m_mutex);
    --m_running;
    --m_store_running;
    m_cv.notify_all();
  });
}

void FarView::integrate(int64_t count, FarFrameStats& st) {
  // Results are integrated in submission order only: a frame takes the oldest `count` (waiting for them), or with
  // count < 0 the longest finished run from the oldest (live). So a frame's integration is one number, which a
  // recording keeps (FarFrameStats::integrated) and a replay hands back.
  std::vector<std::unique_ptr<Result>> take;
  {
    std::unique_lock lock(m_mutex);
    if (count > 0) {
      const double t0 = wall_ms();
      const uint64_t last = m_next_integrate + static_cast<uint64_t>(count);
      m_cv.wait(lock, [&] {
        for (uint64_t q = m_next_integrate; q < last; ++q)
          if (m_done.find(q) == m_done.end()) return false;
        return true;
      });
      st.wait_ms += wall_ms() - t0;
    }
    for (;;) {
      if (count >= 0 && static_cast<int64_t>(take.size()) >= count) break;
      auto it = m_done.find(m_next_integrate);
      if (it == m_done.end()) break;
      take.push_back(std::move(it->second));
      m_done.erase(it);
      ++m_next_integrate;
    }
  }
  const double t0 = wall_ms();
  std::vector<store::WriteOp> writes;
  for (auto& r : take) {
    --m_in_flight;
    st.build_cpu_ms += r->cpu_ms;
    ++st.integrated;
    if (!r->bad.empty()) {
      ++st.records_bad;
      m_record_warning = r->bad;
      std::fprintf(stderr, "voxen: warning: far view: %s; rebuilt, its record rewritten\n", r->bad.c_str());
    }
    if (r->loaded) ++st.records_loaded;
    if (r->column) {  // a real column: from now on it wins under the nodes it touches
      m_pending.erase(r->seq);
      if (!r->mips) continue;  // cancelled (only while the view is destroyed)
      const ColumnPos pos = r->mips->pos;
      Real& real = m_real[pos];
      real.keep = real.keep || r->keep;
      if (real.mips && real.mips->identical(*r->mips)) continue;  // nothing the nodes drew changes
      if (real.mips) m_real_bytes -= real.mips->memory_bytes();
      real.mips = std::move(r->mips);
      m_real_bytes += real.mips->memory_bytes();
      touch_nodes(pos);
      if (r->keep && m_store != nullptr) m_store_pending.insert(pos);
      continue;
    }
    Node& node = m_nodes[r->key];
    // A build from before real columns changed under it is drawn for now (stale) but not stored: the next build is.
    if (r->record && m_store != nullptr && r->changes == node.changes)
      writes.push_back(store::WriteOp{lod_record_key(r->key.level, r->key.x, r->key.z), std::move(r->record)});
    node.in_flight = false;
    node.built = true;
    node.built_changes = r->changes;
    for (const lod::LodSectionPos& p : node.sections) m_sink->remove_lod_section(p);
    node.sections.clear();
    for (auto& [pos, quads] : r->meshes) {
      m_sink->set_lod_section(pos, quads);
      node.sections.push_back(pos);
    }
  }
  st.upload_ms += wall_ms() - t0;
  if (!writes.empty() && m_store != nullptr) {
    // Not synced: a record lost in a crash is only built again.
    const Status s = m_store->write(writes, false);
    if (s.ok()) st.records_written += static_cast<uint32_t>(writes.size());
    if (!s.ok()) {
      m_record_warning = "writing " + std::to_string(writes.size()) + " far view records: " + s.error().to_string();
      std::fprintf(stderr, "voxen: warning: %s\n", m_record_warning.c_str());
    }
  }
}

void FarView::store_edited(std::span<const ColumnPos> near) {
  // An edit reaches the stored levels once its column has left the near field (while near, the player may edit it
  // again at once, and the far view over it is masked): every node over it is built again for its record (outside
  // the integration order: drawn nodes are rebuilt through selection, being stale), once per node. Only with a
  // store; nothing drawn depends on it.
  std::vector<NodeKey> again;
  for (auto it = m_store_pending.begin(); it != m_store_pending.end();) {
    if (std::binary_search(near.begin(), near.end(), *it)) {
      ++it;
      continue;
    }
    for (const NodeKey& k : nodes_over(*it)) again.push_back(k);
    it = m_store_pending.erase(it);
  }
  std::sort(again.begin(), again.end());
  again.erase(std::unique(again.begin(), again.end()), again.end());
  for (const NodeKey& k : again) store_node(k);
}

void FarView::evict(FarFrameStats& st) {
  for (auto it = m_nodes.begin(); it != m_nodes.end();) {
    Node& n = it->second;
    if (!n.in_flight && n.last_used + static_cast<uint64_t>(m_config.evict_frames) < m_frame) {
      for (const lod::LodSectionPos& p : n.sections) m_sink->remove_lod_section(p);
      if (n.built) ++st.evicted;
      it = m_nodes.erase(it);
    } else {
      ++it;
    }
  }
}

FarFrameStats FarView::update(const render::Camera& camera, int viewport_height, std::span<const ColumnPos> near,
                              std::optional<uint32_t> replay) {
  FarFrameStats st;
  ++m_frame;
  if (m_config.far_distance <= 0) {
    m_draw.clear();
    return st;
  }
  if (replay) {
    if (*replay > m_in_flight) {
      m_error = "the recording integrates " + std::to_string(*replay) + " far-view nodes at frame " + std::to_string(m_frame - 1) +
                " but only " + std::to_string(m_in_flight) + " are in flight";
      integrate(static_cast<int64_t>(m_in_flight), st);
    } else {
      integrate(*replay, st);
    }
  } else {
    integrate(m_config.deterministic ? static_cast<int64_t>(m_in_flight) : -1, st);
  }
  drop_far_real(camera, near);
  store_edited(near);
  std::vector<Want> wants;
  run_selection(camera, viewport_height, near, false, true, wants, st);
  st.quota = m_config.throttle ? far_request_quota(m_in_flight) : static_cast<uint32_t>(wants.size());
  for (const Want& w : wants) {
    if (st.requests >= st.quota) break;
    const auto it = m_nodes.find(w.key);
    if (it != m_nodes.end() && it->second.built) ++st.rebuilds;
    submit(w.key);
    ++st.requests;
  }
  evict(st);
  st.queued = static_cast<uint32_t>(m_in_flight);
  st.real_columns = static_cast<uint32_t>(m_real.size());
  return st;
}

FarFrameStats FarView::complete(const render::Camera& camera, int viewport_height, std::span<const ColumnPos> near,
                                bool frustum) {
  FarFrameStats st;
  ++m_frame;
  if (m_config.far_distance <= 0) {
    m_draw.clear();
    return st;
  }
  integrate(static_cast<int64_t>(m_in_flight), st);  // leaves an earlier update() asked for
  for (int round = 0; round < 8; ++round) {
    std::vector<Want> wants;
    FarFrameStats sel;
    store_edited(near);
    run_selection(camera, viewport_height, near, true, frustum, wants, sel);
    st.select_ms += sel.select_ms;
    if (wants.empty()) {
      st.nodes_drawn = sel.nodes_drawn;
      st.sections_drawn = sel.sections_drawn;
      st.sections_per_level = sel.sections_per_level;
      break;
    }
    for (const Want& w : wants) {
      const auto it = m_nodes.find(w.key);
      if (it != m_nodes.end() && it->second.built) ++st.rebuilds;
      submit(w.key);
      ++st.requests;
    }
    integrate(static_cast<int64_t>(m_in_flight), st);
  }
  // The store-only builds (store_edited) finish too: a shot's stored levels are complete when it returns.
  {
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [&] { return m_store_running == 0; });
  }
  st.queued = static_cast<uint32_t>(m_in_flight);
  st.real_columns = static_cast<uint32_t>(m_real.size());
  return st;
}

}  // namespace voxen::stream
