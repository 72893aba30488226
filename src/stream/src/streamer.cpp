#include "voxen/stream/streamer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "voxen/core/clock.h"
#include "voxen/light/light.h"
#include "voxen/mesh/dirty.h"
#include "voxen/stream/view.h"

namespace voxen::stream {
namespace {

constexpr double kUndrawMargin = 16.0;   // blocks past the render distance before a column loses its meshes
constexpr double kUnloadMargin = 48.0;   // blocks past the render distance before a column is unloaded
constexpr int kUnloadsPerFrame = 32;     // columns unloaded per frame at most (farthest first)
constexpr double kFrontCos = 0.3420201433256687;  // cos(70 degrees)
constexpr double kEma = 0.2;  // weight of the newest value in the live mode's moving averages

// The lowest section holding the first occluder (opaque full cube) met going down one of the column's 256
// verticals from the top of the world; 0 when a vertical meets none. Above it, every vertical is open to the sky
// through air and see-through blocks (water, ice, glass, leaves, plants), so everything down to it can be seen
// from above, however dark: water takes 3 levels of sky light a block, so a sea bed 5 blocks down is unlit.
int sight_floor(const Column& col, const mesh::BakedBlocks& blocks) {
  auto occluder = [&](Cell c) { return (blocks.cls(c.id) & mesh::kClassOccluder) != 0; };
  std::array<bool, kColumnWidth * kColumnWidth> open;
  open.fill(true);
  int left = kColumnWidth * kColumnWidth;
  for (int s = kSectionsPerColumn - 1; s >= 0; --s) {
    const Section& sec = col.section(s);
    if (std::none_of(sec.palette().begin(), sec.palette().end(), [&](uint32_t p) { return occluder(Cell::from_packed(p)); }))
      continue;  // see-through throughout
    if (sec.is_uniform()) return s;  // every vertical still open ends on its top layer
    for (int i = 0; i < kColumnWidth * kColumnWidth; ++i) {
      if (!open[static_cast<size_t>(i)]) continue;
      for (int y = kSectionSize - 1; y >= 0; --y)
        if (occluder(sec.get(i | (y << 8)))) {
          open[static_cast<size_t>(i)] = false;
          --left;
          break;
        }
    }
    if (left == 0) return s;
  }
  return 0;
}

}  // namespace

struct ColumnStreamer::Job {
  enum Kind : uint8_t { kGenerate, kMesh } kind = kGenerate;
  ColumnPos pos;
  uint64_t frame = 0;
  uint32_t token = 0;
  bool done = false;  // guarded by m_done_mutex
  // kGenerate
  std::unique_ptr<Column> column;   // null when the source failed (error) or another owner holds the column
  std::optional<Error> error;
  double generate_ms = 0, light_ms = 0;
  // kMesh: sections [from, to) were considered (those with nothing to draw are left out of `sections`)
  int from = 0, to = 0;
  bool deepen = false;
  bool trim = false;  // shrink the meshes to their contents (batch mode, for a sink that keeps them)
  std::vector<int> sections;
  std::vector<std::unique_ptr<mesh::SectionInput>> inputs;
  std::vector<mesh::SectionMesh> meshes;
  std::vector<cull::SectionVisibility> visibility;  // per entry of `sections`, from the same input as its mesh
  uint32_t air = 0, buried = 0;  // bit s: section s of [from, to) was left out as uniform air, as buried
  double mesh_ms = 0;
};

namespace {

// The culling data of section `sp` after mesh_world_section (which built `input` only for a section that is
// neither skippable nor buried): uniform air lets sight through and hides nothing; a buried section blocks sight
// and shows no face, so it has no occluders either.
cull::SectionVisibility world_section_visibility(const mesh::BakedBlocks& blocks, const cull::SightTable& sight,
                                                 const World& world, SectionPos sp, const mesh::SectionInput& input) {
  if (mesh::section_is_skippable(world, sp)) return {};
  if (mesh::section_is_buried(blocks, world, sp)) return cull::buried_section();
  return cull::section_visibility(input, sight);
}

}  // namespace

ColumnStreamer::ColumnStreamer(World& world, MeshSink& sink, ColumnSource& source, const light::LightTable& light_table,
                               const mesh::BakedBlocks& blocks, JobPool& pool, StreamConfig config)
    : ColumnStreamer(world, nullptr, &sink, source, light_table, blocks, pool, config) {}

ColumnStreamer::ColumnStreamer(World& world, render::Renderer& renderer, ColumnSource& source,
                               const light::LightTable& light_table, const mesh::BakedBlocks& blocks, JobPool& pool,
                               StreamConfig config)
    : ColumnStreamer(world, std::make_unique<RendererSink>(renderer), nullptr, source, light_table, blocks, pool,
                     config) {}

ColumnStreamer::ColumnStreamer(World& world, std::unique_ptr<MeshSink> owned, MeshSink* sink, ColumnSource& source,
                               const light::LightTable& light_table, const mesh::BakedBlocks& blocks, JobPool& pool,
                               StreamConfig config)
    : m_world(world),
      m_owned_sink(std::move(owned)),
      m_sink(sink ? *sink : *m_owned_sink),
      m_source(source),
      m_light(light_table),
      m_blocks(blocks),
      m_pool(pool),
      m_config(config),
      m_sight(blocks),
      m_input(std::make_unique<mesh::SectionInput>()) {
  m_config.lag_frames = std::max(0, m_config.lag_frames);
  m_config.gen_jobs_per_frame = std::max(1, m_config.gen_jobs_per_frame);
  m_config.mesh_jobs_per_frame = std::max(1, m_config.mesh_jobs_per_frame);
}

ColumnStreamer::~ColumnStreamer() {
  {
    std::unique_lock lock(m_done_mutex);
    for (const auto& j : m_jobs) m_done_cv.wait(lock, [&] { return j->done; });
  }
  for (const auto& j : m_jobs)
    if (j->column) (void)m_source.unload(std::move(j->column));  // loaded, never integrated: back to the source
}

ColumnState ColumnStreamer::state(ColumnPos pos) const {
  auto it = m_cols.find(pos);
  return it == m_cols.end() ? ColumnState::kAbsent : it->second.state;
}

std::vector<ColumnPos> ColumnStreamer::drawn_columns() const {
  std::vector<ColumnPos> out;
  out.reserve(m_drawn);
  for (const auto& [pos, e] : m_cols)
    if (e.state == ColumnState::kDrawn) out.push_back(pos);
  return out;
}

std::vector<ColumnPos> ColumnStreamer::loaded_columns() const {
  std::vector<ColumnPos> out;
  out.reserve(m_loaded);
  for (const auto& [pos, e] : m_cols)
    if (e.state == ColumnState::kLoaded || e.state == ColumnState::kMeshing || e.state == ColumnState::kDrawn)
      out.push_back(pos);
  return out;
}

bool ColumnStreamer::loaded(ColumnPos pos) const {
  const ColumnState s = state(pos);
  return s == ColumnState::kLoaded || s == ColumnState::kMeshing || s == ColumnState::kDrawn;
}

double ColumnStreamer::horizontal_distance(ColumnPos c) const {
  return render::footprint_distance(static_cast<double>(c.min_x() - m_eye_block.x) - m_eye_frac.x,
                                    static_cast<double>(c.min_z() - m_eye_block.z) - m_eye_frac.z);
}

double ColumnStreamer::priority(ColumnPos c, const Entry* e) const {
  const double d = horizontal_distance(c);
  const double near = m_config.near_columns * static_cast<double>(kColumnWidth);
  if (d > near) return 2000.0 + d;
  const bool never_drawn = !e || !e->ever_drawn;
  const double cx = static_cast<double>(c.min_x() - m_eye_block.x) - m_eye_frac.x + kColumnWidth / 2.0;
  const double cz = static_cast<double>(c.min_z() - m_eye_block.z) - m_eye_frac.z + kColumnWidth / 2.0;
  const double len = std::sqrt(cx * cx + cz * cz);
  const double fl = std::sqrt(m_forward.x * m_forward.x + m_forward.z * m_forward.z);
  const bool front = d <= 24.0 || fl == 0.0 || len == 0.0 || (cx * m_forward.x + cz * m_forward.z) / (len * fl) >= kFrontCos;
  return (never_drawn && front) ? d : 1000.0 + d;
}

bool ColumnStreamer::neighbours_loaded(ColumnPos pos) const {
  for (int64_t dx = -1; dx <= 1; ++dx)
    for (int64_t dz = -1; dz <= 1; ++dz)
      if ((dx || dz) && !loaded({pos.x + dx, pos.z + dz})) return false;
  return true;
}

void ColumnStreamer::send_cells(const SectionPos& sp) {
  if (!m_sink.wants_cells()) return;
  if (const Column* c = m_world.find(sp.column())) m_sink.set_cells(sp, c->section(sp.y));
}

void ColumnStreamer::drop_meshes(ColumnPos pos, Entry& e) {
  for (int s = 0; s < kSectionsPerColumn; ++s)
    if (e.uploaded & (1u << s)) m_sink.remove_section({pos.x, s, pos.z});
  m_visibility.erase_column(pos);
  e.uploaded = 0;
  e.meshed_from = kSectionsPerColumn;
}

void ColumnStreamer::remesh_now(const SectionPos& sp, Entry& e) {
  mesh::mesh_world_section(m_blocks, m_world, sp, mesh::MeshOptions{}, *m_input, m_scratch, m_mesh_out);
  send_cells(sp);
  m_sink.set_section(sp, m_mesh_out);
  m_visibility.set(sp, world_section_visibility(m_blocks, m_sight, m_world, sp, *m_input));
  if (m_mesh_out.empty()) e.uploaded &= ~(1u << sp.y);
  else e.uploaded |= 1u << sp.y;
}

void ColumnStreamer::remesh_light_changes(const std::vector<SectionPos>& dirty, StreamFrameStats* st) {
  for (const SectionPos& sp : dirty) {
    auto it = m_cols.find(sp.column());
    if (it == m_cols.end()) continue;
    Entry& e = it->second;
    if (e.job_in_flight) ++e.token;  // the job's snapshot is stale: drop its result and mesh again
    if (e.state == ColumnState::kMeshing) e.state = ColumnState::kLoaded;
    if (e.state == ColumnState::kDrawn && sp.y >= e.meshed_from) {
      remesh_now(sp, e);
      if (st) ++st->remeshed_after_light;
    }
  }
}

ColumnStreamer::Entry& ColumnStreamer::adopt_loaded(ColumnPos pos) {
  auto [it, fresh] = m_cols.try_emplace(pos);
  if (fresh) {
    it->second.state = ColumnState::kLoaded;
    ++m_loaded;
  }
  return it->second;
}

int ColumnStreamer::upload_meshes(Job& job, Entry& e, bool all, uint64_t* quads) {
  int uploaded = 0;
  for (int s = job.from; s < job.to; ++s) {
    if (job.air & (1u << s)) m_visibility.set({job.pos.x, s, job.pos.z}, cull::SectionVisibility{});
    if (job.buried & (1u << s)) m_visibility.set({job.pos.x, s, job.pos.z}, cull::buried_section());
  }
  for (size_t k = 0; k < job.sections.size(); ++k) {
    m_visibility.set({job.pos.x, job.sections[k], job.pos.z}, std::move(job.visibility[k]));
    mesh::SectionMesh& m = job.meshes[k];
    const bool empty = m.empty();
    if (!all && empty) continue;
    if (quads) *quads += m.quad_count();
    send_cells({job.pos.x, job.sections[k], job.pos.z});
    m_sink.take_section({job.pos.x, job.sections[k], job.pos.z}, std::move(m));
    if (empty) {
      e.uploaded &= ~(1u << job.sections[k]);
      continue;
    }
    e.uploaded |= 1u << job.sections[k];
    ++uploaded;
  }
  return uploaded;
}

void ColumnStreamer::run_mesh_job(Job& job, const mesh::BakedBlocks& blocks, const cull::SightTable& sight,
                                  const World* world) {
  thread_local mesh::MeshScratch scratch;
  thread_local std::unique_ptr<mesh::SectionInput> input = std::make_unique<mesh::SectionInput>();
  const double t0 = thread_cpu_ms();
  job.visibility.resize(job.sections.size());
  for (size_t k = 0; k < job.sections.size(); ++k) {
    if (k < job.inputs.size()) {
      mesh::mesh_section(blocks, *job.inputs[k], mesh::MeshOptions{}, scratch, job.meshes[k]);
      job.visibility[k] = cull::section_visibility(*job.inputs[k], sight);
      job.inputs[k].reset();
    } else {
      VOXEN_ASSERT(world);
      const SectionPos sp{job.pos.x, job.sections[k], job.pos.z};
      mesh::mesh_world_section(blocks, *world, sp, mesh::MeshOptions{}, *input, scratch, job.meshes[k]);
      job.visibility[k] = world_section_visibility(blocks, sight, *world, sp, *input);
    }
    if (job.trim) {
      job.meshes[k].opaque.shrink_to_fit();
      job.meshes[k].cutout.shrink_to_fit();
      job.meshes[k].translucent.shrink_to_fit();
    }
  }
  job.mesh_ms = thread_cpu_ms() - t0;
}

Result<StreamStats> ColumnStreamer::load_view(const std::vector<ColumnPos>& draw, const render::Frustum* frustum,
                                              const render::Camera* camera) {
  return load_view(draw, with_neighbour_ring(draw), frustum, camera);
}

Result<StreamStats> ColumnStreamer::load_view(const std::vector<ColumnPos>& draw, const std::vector<ColumnPos>& load,
                                              const render::Frustum* frustum, const render::Camera* camera) {
  finish_jobs();
  StreamStats st;
  st.columns_drawn = draw.size();
  const int64_t cx = camera ? camera->block.x : (draw.empty() ? 0 : draw.front().min_x());
  const int64_t cz = camera ? camera->block.z : (draw.empty() ? 0 : draw.front().min_z());

  // Load the load set (with the draw columns; what is not in the World yet) in one batch, nearest first on the pool.
  double t = wall_ms();
  std::vector<ColumnPos> wanted = load;
  wanted.insert(wanted.end(), draw.begin(), draw.end());
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::vector<ColumnPos> missing;
  for (const ColumnPos& c : wanted)
    if (!m_world.find(c)) missing.push_back(c);
  if (!missing.empty()) {
    auto columns = m_source.load(missing, &m_pool, cx, cz);
    if (!columns) return columns.error();
    VOXEN_ASSERT(columns->size() == missing.size());  // the scheduler asks only for columns nobody holds
    for (auto& col : *columns) m_world.insert(std::move(col));
  }
  st.columns_generated = missing.size();
  st.generate_ms = wall_ms() - t;

  // Light: the local pass of each new column on the pool, then the stitch across borders here.
  t = wall_ms();
  light::light_columns(m_world, m_light, missing, &m_pool);
  for (const ColumnPos& c : wanted) adopt_loaded(c);
  st.light_ms = wall_ms() - t;

  // Mesh: one job per draw column with its sections (in the frustum when given), nearest first.
  t = wall_ms();
  constexpr glm::dvec3 kSectionBox{kSectionSize, kSectionSize, kSectionSize};
  std::vector<Job> jobs(draw.size());
  for (size_t i = 0; i < draw.size(); ++i) {
    Job& job = jobs[i];
    job.kind = Job::kMesh;
    job.pos = draw[i];
    job.from = 0;
    job.to = kSectionsPerColumn;
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const SectionPos sp{draw[i].x, s, draw[i].z};
      if (frustum && camera) {
        const glm::dvec3 mn = camera->relative({sp.x * kSectionSize, section_base_y(s), sp.z * kSectionSize});
        if (!frustum->intersects_box(mn, kSectionBox)) continue;
      }
      if (mesh::section_is_skippable(m_world, sp)) {
        job.air |= 1u << s;
        continue;
      }
      job.sections.push_back(s);
    }
    job.meshes.resize(job.sections.size());
    job.trim = m_sink.keeps_meshes();
    st.sections_meshed += job.sections.size();
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    Job* job = &jobs[i];
    m_pool.submit(static_cast<double>(i), [this, job] { run_mesh_job(*job, m_blocks, m_sight, &m_world); });
  }
  m_pool.wait_idle();
  st.mesh_ms = wall_ms() - t;

  // Upload in the draw order (nearest first): each mesh writes only its own spans.
  t = wall_ms();
  for (Job& job : jobs) {
    Entry& e = m_cols.at(job.pos);
    st.sections_uploaded += static_cast<size_t>(upload_meshes(job, e, true, &st.quads));
    e.meshed_from = 0;  // an edit remeshes any section of a drawn column
    if (e.state != ColumnState::kDrawn) ++m_drawn;
    e.state = ColumnState::kDrawn;
    e.ever_drawn = true;
  }
  st.upload_ms = wall_ms() - t;
  return st;
}

Status ColumnStreamer::release(const std::vector<ColumnPos>& columns) {
  finish_jobs();
  Status first = Ok{};
  for (const ColumnPos& pos : columns) {
    auto it = m_cols.find(pos);
    if (it == m_cols.end() || !loaded(pos)) continue;
    Entry& e = it->second;
    if (e.state == ColumnState::kDrawn) --m_drawn;
    drop_meshes(pos, e);
    m_cols.erase(it);
    --m_loaded;
    // As it is: no light::unload_column, so the neighbours keep the light it gave them (see the header).
    std::unique_ptr<Column> column = m_world.remove(pos);
    if (!column) continue;
    if (Status s = m_source.unload(std::move(column)); !s.ok() && first.ok()) first = s;
  }
  return first;
}

void ColumnStreamer::integrate_job(Job& job, StreamFrameStats& st) {
  auto it = m_cols.find(job.pos);
  VOXEN_ASSERT(it != m_cols.end());
  Entry& e = it->second;
  e.job_in_flight = false;
  const double keep = render::render_radius_blocks(m_config.render_distance);
  if (job.kind == Job::kGenerate) {
    --m_gen_in_flight;
    st.generate_cpu_ms += job.generate_ms;
    st.light_cpu_ms += job.light_ms;
    if (job.error && !m_error) m_error = job.error;
    m_job_cpu_ms += kEma * (job.generate_ms + job.light_ms - m_job_cpu_ms);
    if (!job.column) {  // the source failed, or another owner holds the column
      m_cols.erase(it);
      return;
    }
    if (horizontal_distance(job.pos) > keep + kUnloadMargin) {  // no longer wanted: back to the source
      if (Status s = m_source.unload(std::move(job.column)); !s.ok() && !m_error) m_error = s.error();
      m_cols.erase(it);
      return;
    }
    const double t = wall_ms();
    m_world.insert(std::move(job.column));
    const light::LightChanges changes = light::stitch(m_world, m_light, job.pos);
    e.state = ColumnState::kLoaded;
    ++m_loaded;
    ++st.columns_integrated;
    remesh_light_changes(changes.dirty_sections(), &st);
    st.stitch_ms += wall_ms() - t;
    return;
  }
  --m_mesh_in_flight;
  st.mesh_cpu_ms += job.mesh_ms;
  m_job_cpu_ms += kEma * (job.mesh_ms - m_job_cpu_ms);
  const ColumnState expected = job.deepen ? ColumnState::kDrawn : ColumnState::kMeshing;
  if (job.token != e.token || e.state != expected) return;  // stale: redone by schedule()
  if (horizontal_distance(job.pos) > keep + kUndrawMargin) {
    if (!job.deepen) e.state = ColumnState::kLoaded;
    return;
  }
  const double t = wall_ms();
  st.sections_uploaded += upload_meshes(job, e, false, nullptr);
  e.meshed_from = static_cast<int8_t>(job.from);
  if (!job.deepen) {
    e.state = ColumnState::kDrawn;
    e.ever_drawn = true;
    ++m_drawn;
    ++st.columns_meshed;
  }
  st.upload_ms += wall_ms() - t;
}

void ColumnStreamer::wait_done(const Job& job, StreamFrameStats& st) {
  const double t = wall_ms();
  std::unique_lock lock(m_done_mutex);
  m_done_cv.wait(lock, [&] { return job.done; });
  st.wait_ms += wall_ms() - t;
}

void ColumnStreamer::diverged(uint64_t frame, const std::string& what) {
  if (!m_error)
    m_error = Error{"replay diverged from its recording at frame " + std::to_string(frame) + ": " + what +
                    " (recorded with another world, registry or voxen version?)"};
}

void ColumnStreamer::integrate(uint64_t frame, StreamFrameStats& st, const FrameSchedule* replay) {
  std::vector<uint32_t>& done_at = st.schedule.integrated;
  if (replay) {
    // Exactly the recorded jobs, by their positions in the queue as the frame began, waiting for each.
    uint32_t at = 0;
    auto it = m_jobs.begin();
    for (const uint32_t want : replay->integrated) {
      if (want < at) return diverged(frame, "job positions are not ascending");
      for (; at < want && it != m_jobs.end(); ++at) ++it;
      if (it == m_jobs.end())
        return diverged(frame, "it integrates job #" + std::to_string(want) + " but only " + std::to_string(at) +
                                   " jobs are in flight");
      wait_done(**it, st);
      integrate_job(**it, st);
      it = m_jobs.erase(it);
      done_at.push_back(at++);
    }
    return;
  }
  if (m_config.deterministic) {
    // Exactly the jobs submitted up to frame - lag, in submission order, waiting for any still running.
    while (!m_jobs.empty() && m_jobs.front()->frame + static_cast<uint64_t>(m_config.lag_frames) <= frame) {
      wait_done(*m_jobs.front(), st);
      integrate_job(*m_jobs.front(), st);
      m_jobs.pop_front();
      done_at.push_back(static_cast<uint32_t>(done_at.size()));
    }
    return;
  }
  // Live: whatever has finished, oldest first, within the frame's main-thread budget (one job at least).
  const double start = wall_ms();
  uint32_t at = 0;
  for (auto it = m_jobs.begin(); it != m_jobs.end(); ++at) {
    bool done;
    {
      std::lock_guard lock(m_done_mutex);
      done = (*it)->done;
    }
    if (!done) {
      ++it;
      continue;
    }
    integrate_job(**it, st);
    it = m_jobs.erase(it);
    done_at.push_back(at);
    if (wall_ms() - start > m_budget_ms) break;
  }
  m_integrate_ms = wall_ms() - start;
}

void ColumnStreamer::adapt_live_budget() {
  // The frame time (wall, between updates) and the budgets that follow it.
  const double now = wall_ms();
  if (m_last_update_ms >= 0.0) m_frame_ms += kEma * (std::min(now - m_last_update_ms, 1000.0) - m_frame_ms);
  m_last_update_ms = now;
  m_budget_ms = std::max(m_config.integrate_budget_ms, 0.25 * m_frame_ms);
  if (m_config.max_in_flight > 0) {
    m_target = std::min<int>(m_config.max_in_flight, kMaxJobsInFlight);
    return;
  }
  // Enough jobs for every worker to stay busy until the next frame integrates and refills them, with a job each
  // to spare; at least 2 x workers + 2 (the old constant), at most 64 per worker.
  const double w = static_cast<double>(m_pool.thread_count());
  const double busy = std::ceil(w * m_frame_ms / std::max(m_job_cpu_ms, 0.05)) + w;
  m_target = static_cast<int>(std::min(std::clamp(busy, 2.0 * w + 2.0, 64.0 * w), double{kMaxJobsInFlight}));
}

void ColumnStreamer::finish_jobs() {
  StreamFrameStats st;
  while (!m_jobs.empty()) {
    wait_done(*m_jobs.front(), st);
    integrate_job(*m_jobs.front(), st);
    m_jobs.pop_front();
  }
}

void ColumnStreamer::unload_far(StreamFrameStats& st) {
  const double t = wall_ms();
  const double r = render::render_radius_blocks(m_config.render_distance);
  std::vector<std::pair<double, ColumnPos>> unload;
  for (auto& [pos, e] : m_cols) {
    const double d = horizontal_distance(pos);
    if (d > r + kUndrawMargin) {
      if (e.state == ColumnState::kDrawn) {
        drop_meshes(pos, e);
        e.state = ColumnState::kLoaded;
        --m_drawn;
      } else if (e.state == ColumnState::kMeshing) {
        ++e.token;
        e.state = ColumnState::kLoaded;
      }
    }
    if (d > r + kUnloadMargin && e.state == ColumnState::kLoaded && !e.job_in_flight) unload.push_back({d, pos});
  }
  // Farthest first; never a neighbour of a drawn or meshing column (its mesh reads this column's border).
  std::sort(unload.begin(), unload.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  int done = 0;
  for (const auto& [d, pos] : unload) {
    if (done >= kUnloadsPerFrame) break;
    bool needed = false;
    for (int64_t dx = -1; dx <= 1 && !needed; ++dx)
      for (int64_t dz = -1; dz <= 1 && !needed; ++dz) {
        const ColumnState s = state({pos.x + dx, pos.z + dz});
        needed = s == ColumnState::kDrawn || s == ColumnState::kMeshing;
      }
    if (needed) continue;
    light::UnloadResult r2 = light::unload_column(m_world, m_light, pos);
    if (r2.column && !m_error) {
      if (Status s = m_source.unload(std::move(r2.column)); !s.ok()) m_error = s.error();
    }
    m_cols.erase(pos);
    --m_loaded;
    ++st.columns_unloaded;
    ++done;
    remesh_light_changes(r2.light.dirty_sections(), &st);
  }
  st.unload_ms += wall_ms() - t;
}

void ColumnStreamer::submit_gen(uint64_t frame, ColumnPos pos, double prio) {
  Entry& e = m_cols[pos];
  e.state = ColumnState::kGenerating;
  e.job_in_flight = true;
  auto job = std::make_unique<Job>();
  job->kind = Job::kGenerate;
  job->pos = pos;
  job->frame = frame;
  job->token = e.token;
  Job* j = job.get();
  m_jobs.push_back(std::move(job));
  ++m_gen_in_flight;
  m_pool.submit(prio, [this, j] {
    const double t0 = thread_cpu_ms();
    std::unique_ptr<Column> col;
    if (auto made = m_source.load({j->pos}); !made) j->error = made.error();
    else if (!made->empty()) col = std::move(made->front());
    const double t1 = thread_cpu_ms();
    if (col) light::light_column_local(*col, m_light);
    const double t2 = thread_cpu_ms();
    j->column = std::move(col);
    j->generate_ms = t1 - t0;
    j->light_ms = t2 - t1;
    std::lock_guard lock(m_done_mutex);
    j->done = true;
    m_done_cv.notify_all();
  });
}

int ColumnStreamer::mesh_floor(ColumnPos pos) const {
  if (!m_config.mesh_floor) return 0;
  // The lowest section with any sky light in the column or its 4 face neighbours, minus one, or the lowest of
  // their sight floors if that is lower (a sea bed under more than a few blocks of water).
  int lowest = kSectionsPerColumn, sight = kSectionsPerColumn;
  const ColumnPos around[5] = {pos, {pos.x + 1, pos.z}, {pos.x - 1, pos.z}, {pos.x, pos.z + 1}, {pos.x, pos.z - 1}};
  for (const ColumnPos& c : around) {
    const Column* col = m_world.find(c);
    if (!col) continue;
    sight = std::min(sight, sight_floor(*col, m_blocks));
    for (int s = 0; s < lowest; ++s) {
      const LightSection& ls = col->light_section(s);
      bool lit = false;
      if (const Light* d = ls.dense()) {
        for (int i = 0; i < kSectionVolume && !lit; ++i) lit = light_sky(d[i]) > 0;
      } else {
        lit = light_sky(ls.uniform_value()) > 0;
      }
      if (lit) {
        lowest = s;
        break;
      }
    }
  }
  return std::max(0, std::min(lowest - 1, sight));
}

bool ColumnStreamer::in_deep_zone(ColumnPos pos) const {
  const ColumnPos eye{column_of(m_eye_block.x), column_of(m_eye_block.z)};
  return std::max(std::abs(pos.x - eye.x), std::abs(pos.z - eye.z)) <= m_config.deep_columns;
}

int ColumnStreamer::wanted_from(ColumnPos pos, const Entry& e) const {
  if (!m_config.mesh_floor) return 0;
  if (!in_deep_zone(pos)) return e.sky_floor;
  const int64_t eye_y = std::clamp<int64_t>(m_eye_block.y, kMinY, kMaxY);
  return std::min<int>(e.sky_floor, std::max(0, section_of_y(eye_y) - 2));
}

void ColumnStreamer::submit_mesh(uint64_t frame, ColumnPos pos, double prio, int from, int to, StreamFrameStats& st) {
  Entry& e = m_cols[pos];
  const double t = wall_ms();
  auto job = std::make_unique<Job>();
  job->kind = Job::kMesh;
  job->pos = pos;
  job->frame = frame;
  job->token = e.token;
  job->deepen = e.state == ColumnState::kDrawn;
  if (from < 0) {
    e.sky_floor = static_cast<int8_t>(mesh_floor(pos));
    from = wanted_from(pos, e);
  }
  job->from = from;
  job->to = to;
  const Column* col = m_world.find(pos);
  VOXEN_ASSERT(col);
  for (int s = from; s < to; ++s) {
    const SectionPos sp{pos.x, s, pos.z};
    if (col->section(s).is_empty()) {
      job->air |= 1u << s;
      continue;
    }
    if (mesh::section_is_buried(m_blocks, m_world, sp)) {
      job->buried |= 1u << s;
      continue;
    }
    job->sections.push_back(s);
    job->inputs.push_back(std::make_unique<mesh::SectionInput>());
    mesh::build_section_input(m_world, sp, *job->inputs.back());
  }
  job->meshes.resize(job->sections.size());
  st.snapshot_ms += wall_ms() - t;
  if (!job->deepen) e.state = ColumnState::kMeshing;
  e.job_in_flight = true;
  Job* j = job.get();
  m_jobs.push_back(std::move(job));
  ++m_mesh_in_flight;
  m_pool.submit(prio, [this, j] {
    run_mesh_job(*j, m_blocks, m_sight, nullptr);
    std::lock_guard lock(m_done_mutex);
    j->done = true;
    m_done_cv.notify_all();
  });
}

void ColumnStreamer::schedule(uint64_t frame, StreamFrameStats& st, const FrameSchedule* replay) {
  const double t = wall_ms();
  const double r = render::render_radius_blocks(m_config.render_distance);
  const ColumnPos eye{column_of(m_eye_block.x), column_of(m_eye_block.z)};
  const int64_t reach = m_config.render_distance + 2;

  // The draw set, and the candidates for generation (draw set + ring, not present) and meshing.
  m_draw_set.clear();
  struct Candidate {
    double prio;
    ColumnPos pos;
    bool operator<(const Candidate& o) const { return prio != o.prio ? prio < o.prio : pos < o.pos; }
  };
  std::vector<Candidate> gen, mesh_c;
  bool complete = true;
  for (int64_t dx = -reach; dx <= reach; ++dx)
    for (int64_t dz = -reach; dz <= reach; ++dz) {
      const ColumnPos c{eye.x + dx, eye.z + dz};
      if (horizontal_distance(c) > r) continue;
      m_draw_set.push_back(c);
      auto it = m_cols.find(c);
      const Entry* e = it == m_cols.end() ? nullptr : &it->second;
      if (!e || e->state != ColumnState::kDrawn) complete = false;
      if (e && e->state == ColumnState::kLoaded && !e->job_in_flight && neighbours_loaded(c))
        mesh_c.push_back({priority(c, e), c});
      else if (e && e->state == ColumnState::kDrawn && !e->job_in_flight && e->meshed_from > wanted_from(c, *e))
        mesh_c.push_back({priority(c, e), c});  // deepen: mesh the sections now wanted under its floor
    }
  std::sort(m_draw_set.begin(), m_draw_set.end());
  m_view_complete = complete;
  {
    // A draw column is meshed only once its 8 neighbours are loaded, so each neighbour is generated at the draw
    // column's priority when that is better than its own (a ring column beside near ground is near ground).
    std::map<ColumnPos, double> want;
    for (const ColumnPos& c : m_draw_set) {
      auto it = m_cols.find(c);
      const Entry* e = it == m_cols.end() ? nullptr : &it->second;
      if (e && e->state == ColumnState::kDrawn) continue;
      const double p = priority(c, e);
      for (int64_t dx = -1; dx <= 1; ++dx)
        for (int64_t dz = -1; dz <= 1; ++dz) {
          const ColumnPos n{c.x + dx, c.z + dz};
          if (m_cols.count(n)) continue;
          const double pn = (dx || dz) ? std::min(priority(n, nullptr), p + 0.5) : p;
          auto [slot, fresh] = want.emplace(n, pn);
          if (!fresh) slot->second = std::min(slot->second, pn);
        }
    }
    for (const auto& [c, p] : want)
      if (m_source.ready(c)) gen.push_back({p, c});  // a remote world's column still on its way waits
  }
  std::sort(gen.begin(), gen.end());
  std::sort(mesh_c.begin(), mesh_c.end());

  auto submit_mesh_candidate = [&](const Candidate& c) {
    const Entry& e = m_cols[c.pos];
    if (e.state == ColumnState::kDrawn) submit_mesh(frame, c.pos, c.prio, wanted_from(c.pos, e), e.meshed_from, st);
    else submit_mesh(frame, c.pos, c.prio, -1, kSectionsPerColumn, st);
  };
  size_t gi = 0, mi = 0;
  if (m_error) gen.clear();  // the source failed: stop loading (what is loaded stays)
  if (replay) {
    // The recorded counts, interleaved by priority as live mode submits them (schedule.h).
    if (m_gen_in_flight + m_mesh_in_flight + replay->gen + replay->mesh > kMaxJobsInFlight)
      diverged(frame, "it would hold " + std::to_string(m_gen_in_flight + m_mesh_in_flight + replay->gen + replay->mesh) +
                          " jobs in flight, more than live streaming ever does (" + std::to_string(kMaxJobsInFlight) + ")");
    else if (replay->gen > gen.size() || replay->mesh > mesh_c.size())
      diverged(frame, "it submits " + std::to_string(replay->gen) + " generation and " + std::to_string(replay->mesh) +
                          " mesh jobs but there are " + std::to_string(gen.size()) + " and " +
                          std::to_string(mesh_c.size()) + " candidates");
    else
      while (gi < replay->gen || mi < replay->mesh) {
        if (mi < replay->mesh && (gi >= replay->gen || mesh_c[mi] < gen[gi])) submit_mesh_candidate(mesh_c[mi++]);
        else {
          submit_gen(frame, gen[gi].pos, gen[gi].prio);
          ++gi;
        }
      }
  } else if (m_config.deterministic) {
    for (; gi < gen.size() && gi < static_cast<size_t>(m_config.gen_jobs_per_frame); ++gi) submit_gen(frame, gen[gi].pos, gen[gi].prio);
    for (; mi < mesh_c.size() && mi < static_cast<size_t>(m_config.mesh_jobs_per_frame); ++mi)
      submit_mesh_candidate(mesh_c[mi]);
  } else {
    // Live: fill the free job slots (the adaptive depth) from both lists by priority; a mesh job's snapshot is
    // main-thread work, so mesh jobs stop (one at least) once the frame's integration and snapshots used the budget.
    int meshes = 0;
    bool meshes_closed = false;
    while (m_gen_in_flight + m_mesh_in_flight < static_cast<size_t>(m_target) &&
           (gi < gen.size() || (!meshes_closed && mi < mesh_c.size()))) {
      const bool take_mesh = !meshes_closed && mi < mesh_c.size() && (gi >= gen.size() || mesh_c[mi] < gen[gi]);
      if (take_mesh && meshes > 0 && m_integrate_ms + st.snapshot_ms > m_budget_ms) {
        meshes_closed = true;  // the rest wait for the next frame; generation goes on
        continue;
      }
      if (take_mesh) {
        submit_mesh_candidate(mesh_c[mi]);
        ++mi;
        ++meshes;
      } else {
        submit_gen(frame, gen[gi].pos, gen[gi].prio);
        ++gi;
      }
    }
  }
  st.schedule.gen = static_cast<uint32_t>(gi);
  st.schedule.mesh = static_cast<uint32_t>(mi);
  m_gen_waiting = gen.size() - gi;
  m_mesh_waiting = mesh_c.size() - mi;
  st.schedule_ms += wall_ms() - t - st.snapshot_ms;
}

std::string_view column_state_name(ColumnState s) {
  switch (s) {
    case ColumnState::kAbsent: return "absent";
    case ColumnState::kGenerating: return "generating";
    case ColumnState::kLoaded: return "loaded";
    case ColumnState::kMeshing: return "meshing";
    case ColumnState::kDrawn: return "drawn";
  }
  return "unknown";
}

StreamFrameStats ColumnStreamer::update(uint64_t frame, const BlockPos& eye_block, const glm::dvec3& eye_frac,
                                        const glm::dvec3& forward, const FrameSchedule* replay) {
  StreamFrameStats st;
  if (!m_config.deterministic && !replay) adapt_live_budget();
  m_eye_block = eye_block;
  m_eye_frac = eye_frac;
  m_forward = forward;
  integrate(frame, st, replay);
  unload_far(st);
  schedule(frame, st, replay);
  return st;
}

EditReport ColumnStreamer::apply_edit(const Edit& edit) { return apply_edits(std::span<const Edit>(&edit, 1)); }

EditReport ColumnStreamer::apply_edits(std::span<const Edit> edits, bool record) {
  EditReport rep;
  double t = wall_ms();
  light::EditsResult r = light::apply_edits(m_world, m_light, edits);
  rep.light_ms = wall_ms() - t;
  rep.applied_each = std::move(r.applied);
  rep.edits_applied = static_cast<int>(r.count);
  if (r.count == 0) return rep;
  rep.applied = true;
  std::vector<Edit> applied;
  applied.reserve(r.count);
  for (size_t i = 0; i < edits.size(); ++i)
    if (rep.applied_each[i]) applied.push_back(edits[i]);
  const std::vector<SectionPos> light_dirty = r.light.dirty_sections();
  const std::vector<SectionPos> dirty = mesh::sections_dirtied_by(applied, light_dirty);
  const auto remesh = [&](const SectionPos& sp, Entry& e) {
    t = wall_ms();
    mesh::mesh_world_section(m_blocks, m_world, sp, mesh::MeshOptions{}, *m_input, m_scratch, m_mesh_out);
    m_visibility.set(sp, world_section_visibility(m_blocks, m_sight, m_world, sp, *m_input));
    const double t1 = wall_ms();
    send_cells(sp);
    m_sink.set_section(sp, m_mesh_out);
    if (m_mesh_out.empty()) e.uploaded &= ~(1u << sp.y);
    else e.uploaded |= 1u << sp.y;
    rep.remesh_ms += t1 - t;
    rep.upload_ms += wall_ms() - t1;
    ++rep.sections_remeshed;
    rep.remeshed.push_back(sp);
  };
  std::set<ColumnPos> floor_columns;  // columns whose floor the edits may have lowered: the dirtied and beside them
  for (const SectionPos& sp : dirty) {
    const ColumnPos c = sp.column();
    for (const ColumnPos& n : {c, ColumnPos{c.x + 1, c.z}, ColumnPos{c.x - 1, c.z}, ColumnPos{c.x, c.z + 1}, ColumnPos{c.x, c.z - 1}})
      floor_columns.insert(n);
    auto it = m_cols.find(c);
    if (it == m_cols.end()) continue;
    Entry& e = it->second;
    if (e.job_in_flight) ++e.token;  // a snapshot taken before the edit: drop the result, mesh again
    if (e.state == ColumnState::kMeshing) e.state = ColumnState::kLoaded;
    if (e.state == ColumnState::kDrawn && sp.y >= e.meshed_from) remesh(sp, e);
  }
  // A drawn column whose floor (mesh_floor: sky light in it and its 4 neighbours, the sight floor) the edits
  // lowered under what it has meshed, e.g. a crater blasted open to the sky, is deepened at once, so the frame
  // shows the new ground, as a fresh load of the same world would. (A column with a job in flight is deepened by
  // update() once the job is in.)
  for (const ColumnPos& c : floor_columns) {
    auto it = m_cols.find(c);
    if (it == m_cols.end() || it->second.state != ColumnState::kDrawn || it->second.job_in_flight) continue;
    Entry& e = it->second;
    e.sky_floor = static_cast<int8_t>(mesh_floor(c));
    const int from = wanted_from(c, e);
    for (int s = from; s < e.meshed_from; ++s) remesh({c.x, s, c.z}, e);
    e.meshed_from = static_cast<int8_t>(std::min<int>(e.meshed_from, from));
  }
  if (record)
    for (const Edit& edit : applied) m_source.record(edit, *m_world.find(column_pos_of(edit.pos)));
  return rep;
}

}  // namespace voxen::stream
