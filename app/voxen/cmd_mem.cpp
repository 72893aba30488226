// voxen mem: loads the (2R+1)^2 columns of render distance R around a point (generated, or from --world with its
// saved edits), lights and meshes them, keeps the columns in a ColumnStore (packed, except those within
// --unpacked-radius of the centre) and the meshes as quad data, and prints the resident bytes of cells, light and
// meshes separately. JSON keys: columns, cell_bytes, light_bytes, mesh_bytes (plus packed/unpacked counts, the raw
// unpacked sizes for comparison, quads, window_columns: the most columns unpacked in the World at once while
// loading, seconds).
//
// The area goes through the column lifecycle's batch mode (stream::ColumnStreamer, docs/ARCHITECTURE.md, Column
// lifecycle) as a sliding window of rows of columns (constant x): load_view draws row x with rows x - 1 .. x + 1
// as its load set (loaded from the world's ColumnSource and lit: light is final in a column whose 8 neighbours are
// loaded, and the mesher reads one cell into each neighbour), the meshes go to a MeshSink that keeps their quads
// (there is no renderer), row x is packed into the ColumnStore, and release() hands row x - 1 back to the source.
// So at most three rows are unpacked at a time however large R is, and the resident figures are what a viewer at
// the centre keeps. The area is the whole loaded world (the load sets stop at its edge): columns at its edge see
// unloaded (dark, empty) space beyond, as a viewer's outermost ring does.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <unordered_map>
#include <utility>

#include <map>
#include <span>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/core/job_pool.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/mesher.h"
#include "voxen/store/column_store.h"
#include "voxen/stream/far_view.h"
#include "voxen/stream/mesh_sink.h"
#include "voxen/stream/streamer.h"
#include "world_open.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct MemOptions {
  WorldFlags world;
  WorldDirFlag world_dir;
  std::array<int64_t, 2> center{0, 0};
  int64_t render_distance = 8;
  int64_t unpacked_radius = 2;
  int threads = 0;
  bool json = false;
  double far_distance = 0;  // --far-distance: the far view's LOD around the centre, every direction (0: none)
};

/// The far view's upload target here: keeps the byte count of every LOD section's quads.
class LodCounter final : public stream::LodSink {
 public:
  void set_lod_section(const lod::LodSectionPos& pos, std::span<const mesh::LodQuad> quads) override {
    remove_lod_section(pos);
    m_bytes[pos] = quads.size_bytes();
    m_total += quads.size_bytes();
    m_quads += quads.size();
  }
  void remove_lod_section(const lod::LodSectionPos& pos) override {
    auto it = m_bytes.find(pos);
    if (it == m_bytes.end()) return;
    m_total -= it->second;
    m_quads -= it->second / sizeof(mesh::LodQuad);
    m_bytes.erase(it);
  }
  size_t bytes() const { return m_total; }
  size_t quads() const { return m_quads; }
  size_t sections() const { return m_bytes.size(); }

 private:
  std::map<lod::LodSectionPos, size_t> m_bytes;
  size_t m_total = 0, m_quads = 0;
};

/// Meshes of one column: the non-empty sections' quad vectors, trimmed to size.
struct ColumnMeshes {
  std::vector<mesh::SectionMesh> sections;
  size_t bytes() const {
    size_t n = 0;
    for (const auto& m : sections) n += m.bytes();
    return n;
  }
  size_t quads() const {
    size_t n = 0;
    for (const auto& m : sections) n += m.quad_count();
    return n;
  }
};

/// The streamer's upload target here: keeps every non-empty mesh it is handed until take() moves them out.
class MeshKeeper final : public stream::MeshSink {
 public:
  void set_section(const SectionPos& pos, const mesh::SectionMesh& mesh) override {
    take_section(pos, mesh::SectionMesh(mesh));
  }
  /// Moved in, not copied: copying every mesh on the main thread cost a fifth more CPU time (malloc) at R = 24.
  /// Trimmed already (keeps_meshes).
  void take_section(const SectionPos& pos, mesh::SectionMesh&& mesh) override {
    if (mesh.empty()) m_meshes.erase(pos);
    else m_meshes.insert_or_assign(pos, std::move(mesh));
  }
  void remove_section(const SectionPos& pos) override { m_meshes.erase(pos); }
  /// So the streamer trims them on its workers: what stays resident is the quad data.
  bool keeps_meshes() const override { return true; }
  /// The meshes handed since the last take().
  std::unordered_map<SectionPos, mesh::SectionMesh, SectionPosHash> take() { return std::exchange(m_meshes, {}); }

 private:
  std::unordered_map<SectionPos, mesh::SectionMesh, SectionPosHash> m_meshes;
};

int run_mem(const MemOptions& o) {
  const auto& c = o.center;
  if (o.unpacked_radius < -1) throw UsageError("--unpacked-radius", "must be -1 (pack everything) or more");

  const BlockRegistry reg = load_registry();
  auto baked = mesh::BakedBlocks::bake(reg);
  if (!baked) throw RunError("block registry: " + baked.error().to_string());
  const light::LightTable light_table(reg);
  CommandWorld cw(o.world_dir, o.world, reg);
  JobPool pool(o.threads);
  Stopwatch sw;

  const ColumnPos mid{column_of(c[0]), column_of(c[1])};
  const int64_t r = o.render_distance;
  const int64_t x0 = mid.x - r, x1 = mid.x + r;
  // The columns of rows from..to (clipped to the area), by position.
  auto rows = [&](int64_t from, int64_t to) {
    std::vector<ColumnPos> out;
    for (int64_t x = std::max(from, x0); x <= std::min(to, x1); ++x)
      for (int64_t z = mid.z - r; z <= mid.z + r; ++z) out.push_back({x, z});
    return out;
  };

  store::ColumnStore columns;
  columns.set_focus(mid, static_cast<int>(std::min(o.unpacked_radius, r)));
  std::unordered_map<ColumnPos, ColumnMeshes, ColumnPosHash> meshes;
  size_t raw_cells = 0, raw_light = 0;

  size_t window = 0;  // most columns unpacked in the World at once
  MeshKeeper keeper;
  stream::ColumnStreamer streamer(cw.world(), keeper, cw.source(), light_table, *baked, pool);
  for (int64_t x = x0; x <= x1; ++x) {
    const auto positions = rows(x, x);
    if (auto st = streamer.load_view(positions, rows(x - 1, x + 1)); !st)
      throw RunError("loading columns: " + st.error().to_string());
    window = std::max(window, cw.world().column_count());
    for (auto& [sp, m] : keeper.take()) meshes[sp.column()].sections.push_back(std::move(m));
    // Row x's cells and light are final: pack them on the pool (nothing writes the World meanwhile).
    std::vector<store::PackedColumn> packed(positions.size());
    const World& world = cw.world();
    for (size_t i = 0; i < positions.size(); ++i)
      pool.submit(0.0, [&, i] { packed[i] = store::pack_column(*world.find(positions[i])); });
    pool.wait_idle();
    for (size_t i = 0; i < positions.size(); ++i) {
      const Column& col = *world.find(positions[i]);
      raw_cells += col.cell_bytes();
      raw_light += col.light_bytes();
      columns.insert_packed(std::move(packed[i]));
    }
    if (Status s = streamer.release(rows(x - 1, x - 1)); !s.ok()) throw RunError("saving the world: " + s.error().to_string());
  }
  if (Status s = streamer.release(rows(x1, x1)); !s.ok()) throw RunError("saving the world: " + s.error().to_string());
  // The far view beyond the render distance, in every direction from the centre at eye height 100 (a 1280x720
  // view, fov 70: the selection `voxen shot` makes): its LOD quads and the far view's own tables.
  LodCounter lod;
  size_t lod_cpu = 0;
  double far_seconds = 0;
  const double radius = static_cast<double>(r) * kColumnWidth;
  if (o.far_distance > radius && cw.generator() != nullptr) {
    Stopwatch far_sw;
    stream::FarConfig fc;
    fc.far_distance = o.far_distance;
    stream::FarView far(*cw.generator(), reg, pool, lod, fc);
    render::Camera cam = render::Camera::at(BlockPos{c[0], 100, c[1]}, {0.5, 0.5, 0.5});
    cam.aspect = 1280.0 / 720.0;
    std::vector<ColumnPos> near;
    for (int64_t x = x0; x <= x1; ++x)
      for (int64_t z = mid.z - r; z <= mid.z + r; ++z) near.push_back({x, z});
    far.complete(cam, 720, near, false);
    lod_cpu = far.memory_bytes();
    far_seconds = far_sw.seconds();
  }
  cw.close();
  const double seconds = sw.seconds();

  const auto bytes = columns.resident_bytes();
  size_t mesh_bytes = 0, quads = 0;
  for (const auto& [pos, m] : meshes) {
    mesh_bytes += m.bytes();
    quads += m.quads();
  }
  if (o.json) {
    nlohmann::json j;
    j["columns"] = columns.size();
    j["cell_bytes"] = bytes.cells;
    j["light_bytes"] = bytes.light;
    j["mesh_bytes"] = mesh_bytes;
    j["packed_columns"] = columns.packed_count();
    j["unpacked_columns"] = columns.unpacked_count();
    j["raw_cell_bytes"] = raw_cells;
    j["raw_light_bytes"] = raw_light;
    j["quads"] = quads;
    j["window_columns"] = window;
    j["render_distance"] = r;
    j["seed"] = cw.seed();
    j["seconds"] = seconds;
    j["far_distance"] = o.far_distance > radius ? o.far_distance : 0.0;
    j["lod_bytes"] = lod.bytes() + lod_cpu;  // quad data + the far view's tables
    j["lod_quad_bytes"] = lod.bytes();
    j["lod_cpu_bytes"] = lod_cpu;
    j["lod_quads"] = lod.quads();
    j["lod_sections"] = lod.sections();
    j["far_seconds"] = far_seconds;
    std::printf("%s\n", j.dump().c_str());
  } else {
    const double mb = 1.0 / (1024.0 * 1024.0);
    std::printf("columns           %zu (%zu packed, %zu unpacked within %lld of the centre)\n", columns.size(),
                columns.packed_count(), columns.unpacked_count(), static_cast<long long>(std::min(o.unpacked_radius, r)));
    std::printf("cells             %10zu bytes  %8.2f MB   (unpacked: %.2f MB)\n", bytes.cells, bytes.cells * mb, raw_cells * mb);
    std::printf("light             %10zu bytes  %8.2f MB   (unpacked: %.2f MB)\n", bytes.light, bytes.light * mb, raw_light * mb);
    std::printf("cells + light     %10zu bytes  %8.2f MB\n", bytes.cells + bytes.light, (bytes.cells + bytes.light) * mb);
    std::printf("meshes            %10zu bytes  %8.2f MB   (%zu quads)\n", mesh_bytes, mesh_bytes * mb, quads);
    if (lod.sections() > 0)
      std::printf("far view (LOD)    %10zu bytes  %8.2f MB   (%zu quads in %zu LOD sections to %.0f blocks; tables %zu bytes; %.2f s)\n",
                  lod.bytes() + lod_cpu, (lod.bytes() + lod_cpu) * mb, lod.quads(), lod.sections(), o.far_distance, lod_cpu, far_seconds);
    std::printf("window            %zu columns unpacked in the World at most while loading\n", window);
    std::printf("seconds           %.2f\n", seconds);
  }
  return 0;
}

}  // namespace

void add_mem_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<MemOptions>();
  CLI::App* cmd = app.add_subcommand("mem", "load, light and mesh the area of a render distance and print resident bytes of cells, light and meshes");
  o->world.add_to(*cmd);
  o->world_dir.add_to(*cmd);
  cmd->add_option("--render-distance", o->render_distance, "R: the (2R+1)^2 columns around the centre (default 8)")
      ->check(CLI::Range(0, 256));
  add_int_pair_option(*cmd, "--center", o->center, "X,Z world block at the centre (default 0,0)");
  cmd->add_option("--unpacked-radius", o->unpacked_radius,
                  "columns within this many columns of the centre stay unpacked, -1..256 (default 2; -1 packs all)")
      ->check(CLI::Range(int64_t{-1}, int64_t{256}));
  add_threads_option(*cmd, o->threads, "worker threads (default: cores - 1, at least 1)");
  cmd->add_option("--far-distance", o->far_distance,
                  "also build the far view (LOD) to this many blocks round the centre, every direction, and print its bytes "
                  "(0..65536; default 0: none)")
      ->check(finite_range(0.0, 65536.0));
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_mem(*o); }; });
}

}  // namespace voxen::app
