#include "voxen/stream/batch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "voxen/core/error.h"
#include "voxen/light/light.h"
#include "voxen/mesh/dirty.h"
#include "voxen/mesh/input.h"
#include "voxen/mesh/mesher.h"

namespace voxen::stream {
using render::Camera;
using render::Frustum;
using render::Renderer;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Camera-relative min corner of a column's full-height box.
glm::dvec3 column_min(const Camera& cam, const ColumnPos& c) {
  return cam.relative({c.min_x(), kMinY, c.min_z()});
}

constexpr glm::dvec3 kColumnSize{kColumnWidth, kColumnHeight, kColumnWidth};
constexpr glm::dvec3 kSectionBox{kSectionSize, kSectionSize, kSectionSize};

}  // namespace

std::vector<ColumnPos> columns_for_view(const Camera& camera, double radius_blocks, bool frustum) {
  const Frustum f = Frustum::from_matrix(camera.view_projection());
  const ColumnPos eye = column_pos_of(camera.block);
  const int64_t reach = static_cast<int64_t>(std::ceil(radius_blocks / kColumnWidth)) + 1;
  struct Entry {
    double d2;
    ColumnPos pos;
  };
  std::vector<Entry> found;
  for (int64_t dx = -reach; dx <= reach; ++dx)
    for (int64_t dz = -reach; dz <= reach; ++dz) {
      const ColumnPos c{eye.x + dx, eye.z + dz};
      const glm::dvec3 mn = column_min(camera, c);
      // Horizontal distance from the eye to the nearest point of the column.
      const double nx = std::max({mn.x, 0.0, -(mn.x + kColumnWidth)});
      const double nz = std::max({mn.z, 0.0, -(mn.z + kColumnWidth)});
      if (nx * nx + nz * nz > radius_blocks * radius_blocks) continue;
      if (frustum && !f.intersects_box(mn, kColumnSize)) continue;
      const double cx = mn.x + kColumnWidth / 2.0, cz = mn.z + kColumnWidth / 2.0;
      found.push_back({cx * cx + cz * cz, c});
    }
  std::sort(found.begin(), found.end(), [](const Entry& a, const Entry& b) {
    return a.d2 != b.d2 ? a.d2 < b.d2 : a.pos < b.pos;
  });
  std::vector<ColumnPos> out;
  out.reserve(found.size());
  for (const auto& e : found) out.push_back(e.pos);
  return out;
}

std::vector<ColumnPos> with_neighbour_ring(const std::vector<ColumnPos>& draw) {
  std::vector<ColumnPos> out;
  out.reserve(draw.size() * 2 + 8);
  for (const ColumnPos& c : draw)
    for (int64_t dx = -1; dx <= 1; ++dx)
      for (int64_t dz = -1; dz <= 1; ++dz) out.push_back({c.x + dx, c.z + dz});
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

WorldStreamer::WorldStreamer(ColumnSource& source, const light::LightTable& light_table,
                             const mesh::BakedBlocks& blocks, JobPool& pool)
    : m_source(&source), m_light(light_table), m_blocks(blocks), m_pool(pool) {}

WorldStreamer::WorldStreamer(const light::LightTable& light_table, const mesh::BakedBlocks& blocks, JobPool& pool)
    : m_light(light_table), m_blocks(blocks), m_pool(pool) {}

Result<StreamStats> WorldStreamer::load(World& world, Renderer& renderer, const std::vector<ColumnPos>& draw,
                                const Frustum* frustum, const Camera* camera) {
  StreamStats st;
  st.columns_drawn = draw.size();
  const int64_t cx = camera ? camera->block.x : (draw.empty() ? 0 : draw.front().min_x());
  const int64_t cz = camera ? camera->block.z : (draw.empty() ? 0 : draw.front().min_z());

  // Generate the draw columns and their ring (what is not loaded yet), nearest first on the pool.
  double t = now_ms();
  std::vector<ColumnPos> missing;
  for (const ColumnPos& c : with_neighbour_ring(draw))
    if (!world.find(c)) missing.push_back(c);
  VOXEN_ASSERT(m_source || missing.empty());  // without a source the caller has loaded every column
  if (!missing.empty()) {
    auto columns = m_source->load(missing, &m_pool, cx, cz);
    if (!columns) return columns.error();
    VOXEN_ASSERT(columns->size() == missing.size());  // a scheduler's source gives every column it does not hold
    for (auto& col : *columns) world.insert(std::move(col));
  }
  st.columns_generated = missing.size();
  st.generate_ms = now_ms() - t;

  // Light: the local pass of each new column on the pool, then the stitch across borders here.
  t = now_ms();
  light::light_columns(world, m_light, missing, &m_pool);
  st.light_ms = now_ms() - t;

  // Mesh: one job per draw column with its sections (in the frustum when given), nearest first.
  t = now_ms();
  struct ColumnJob {
    ColumnPos pos;
    std::vector<SectionPos> sections;
    std::vector<mesh::SectionMesh> meshes;
  };
  std::vector<ColumnJob> jobs(draw.size());
  for (size_t i = 0; i < draw.size(); ++i) {
    jobs[i].pos = draw[i];
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const SectionPos sp{draw[i].x, s, draw[i].z};
      if (frustum && camera) {
        const glm::dvec3 mn = camera->relative({sp.x * kSectionSize, section_base_y(s), sp.z * kSectionSize});
        if (!frustum->intersects_box(mn, kSectionBox)) continue;
      }
      if (mesh::section_is_skippable(world, sp)) continue;
      jobs[i].sections.push_back(sp);
    }
    jobs[i].meshes.resize(jobs[i].sections.size());
    st.sections_meshed += jobs[i].sections.size();
  }
  const World& read_only = world;
  for (size_t i = 0; i < jobs.size(); ++i) {
    ColumnJob* job = &jobs[i];
    const mesh::BakedBlocks* blocks = &m_blocks;
    m_pool.submit(static_cast<double>(i), [job, blocks, &read_only] {
      thread_local mesh::MeshScratch scratch;
      thread_local std::unique_ptr<mesh::SectionInput> input = std::make_unique<mesh::SectionInput>();
      for (size_t k = 0; k < job->sections.size(); ++k)
        mesh::mesh_world_section(*blocks, read_only, job->sections[k], mesh::MeshOptions{}, *input, scratch, job->meshes[k]);
    });
  }
  m_pool.wait_idle();
  st.mesh_ms = now_ms() - t;

  // Upload in the draw order (nearest first): each mesh writes only its own spans.
  t = now_ms();
  for (const ColumnJob& job : jobs)
    for (size_t k = 0; k < job.sections.size(); ++k) {
      const mesh::SectionMesh& m = job.meshes[k];
      renderer.set_section(job.sections[k], m);
      if (!m.empty()) {
        ++st.sections_uploaded;
        st.quads += m.quad_count();
      }
    }
  st.upload_ms = now_ms() - t;

  m_drawn.insert(m_drawn.end(), draw.begin(), draw.end());
  std::sort(m_drawn.begin(), m_drawn.end());
  m_drawn.erase(std::unique(m_drawn.begin(), m_drawn.end()), m_drawn.end());
  return st;
}

bool WorldStreamer::apply_edit(World& world, Renderer& renderer, const Edit& edit, std::vector<SectionPos>* remeshed) {
  const light::EditResult r = light::apply_edit(world, m_light, edit);
  if (!r.applied) return false;
  const std::vector<SectionPos> light_dirty = r.light.dirty_sections();
  const std::vector<SectionPos> dirty = mesh::sections_dirtied_by(edit, light_dirty);
  mesh::MeshScratch scratch;
  auto input = std::make_unique<mesh::SectionInput>();
  mesh::SectionMesh out;
  for (const SectionPos& sp : dirty) {
    if (!std::binary_search(m_drawn.begin(), m_drawn.end(), sp.column())) continue;
    mesh::mesh_world_section(m_blocks, world, sp, mesh::MeshOptions{}, *input, scratch, out);
    renderer.set_section(sp, out);
    if (remeshed) remeshed->push_back(sp);
  }
  if (m_source) m_source->record(edit, *world.find(column_pos_of(edit.pos)));
  return true;
}

}  // namespace voxen::stream
