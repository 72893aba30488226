// voxen mem: loads the (2R+1)^2 columns of render distance R around a point (generated, or from --world with its
// saved edits), lights and meshes them, keeps the columns in a ColumnStore (packed, except those within
// --unpacked-radius of the centre) and the meshes as quad data, and prints the resident bytes of cells, light and
// meshes separately. JSON keys: columns, cell_bytes, light_bytes, mesh_bytes (plus packed/unpacked counts, the raw
// unpacked sizes for comparison, quads, seconds).
//
// The area is processed as a sliding window of rows of columns (constant x): a row is meshed once the rows on both
// sides are lit and the rows beyond those are loaded (light is final in a column whose 8 neighbours are loaded, and
// the mesher reads one cell into each neighbour), then packed; the row behind it leaves the World. So at most four
// rows are unpacked at a time however large R is, and the resident figures are what a viewer at the centre keeps.
// The area is the whole loaded world: columns at its edge see unloaded (dark, empty) space beyond, as a viewer's
// outermost ring does.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/core/job_pool.h"
#include "voxen/light/light.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/mesher.h"
#include "voxen/store/column_store.h"
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
  auto row = [&](int64_t x) {
    std::vector<ColumnPos> out;
    for (int64_t z = mid.z - r; z <= mid.z + r; ++z) out.push_back({x, z});
    return out;
  };
  auto load_row = [&](int64_t x) {
    const auto positions = row(x);
    cw.load(positions, &pool, c[0], c[1]);
    light::light_columns(cw.world(), light_table, positions, &pool);
  };

  store::ColumnStore columns;
  columns.set_focus(mid, static_cast<int>(std::min(o.unpacked_radius, r)));
  std::unordered_map<ColumnPos, ColumnMeshes, ColumnPosHash> meshes;
  size_t raw_cells = 0, raw_light = 0;

  const int64_t x0 = mid.x - r, x1 = mid.x + r;
  load_row(x0);
  if (x0 + 1 <= x1) load_row(x0 + 1);
  for (int64_t x = x0; x <= x1; ++x) {
    if (x + 2 <= x1) load_row(x + 2);  // makes row x + 1's light final
    const auto positions = row(x);
    std::vector<ColumnMeshes> row_meshes(positions.size());
    std::vector<store::PackedColumn> packed(positions.size());
    const World& world = cw.world();
    for (size_t i = 0; i < positions.size(); ++i) {
      pool.submit(0.0, [&, i] {
        auto input = std::make_unique<mesh::SectionInput>();
        mesh::MeshScratch scratch;
        for (int s = 0; s < kSectionsPerColumn; ++s) {
          mesh::SectionMesh m;
          mesh::mesh_world_section(*baked, world, {positions[i].x, s, positions[i].z}, mesh::MeshOptions{}, *input, scratch, m);
          if (m.empty()) continue;
          m.opaque.shrink_to_fit();
          m.cutout.shrink_to_fit();
          m.translucent.shrink_to_fit();
          row_meshes[i].sections.push_back(std::move(m));
        }
        packed[i] = store::pack_column(*world.find(positions[i]));
      });
    }
    pool.wait_idle();
    for (size_t i = 0; i < positions.size(); ++i) {
      const Column& col = *world.find(positions[i]);
      raw_cells += col.cell_bytes();
      raw_light += col.light_bytes();
      meshes.emplace(positions[i], std::move(row_meshes[i]));
      columns.insert_packed(std::move(packed[i]));
    }
    if (x - 1 >= x0)
      for (const ColumnPos& p : row(x - 1)) cw.unload(p);
  }
  for (const ColumnPos& p : row(x1)) cw.unload(p);
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
    j["render_distance"] = r;
    j["seed"] = cw.seed();
    j["seconds"] = seconds;
    std::printf("%s\n", j.dump().c_str());
  } else {
    const double mb = 1.0 / (1024.0 * 1024.0);
    std::printf("columns           %zu (%zu packed, %zu unpacked within %lld of the centre)\n", columns.size(),
                columns.packed_count(), columns.unpacked_count(), static_cast<long long>(std::min(o.unpacked_radius, r)));
    std::printf("cells             %10zu bytes  %8.2f MB   (unpacked: %.2f MB)\n", bytes.cells, bytes.cells * mb, raw_cells * mb);
    std::printf("light             %10zu bytes  %8.2f MB   (unpacked: %.2f MB)\n", bytes.light, bytes.light * mb, raw_light * mb);
    std::printf("cells + light     %10zu bytes  %8.2f MB\n", bytes.cells + bytes.light, (bytes.cells + bytes.light) * mb);
    std::printf("meshes            %10zu bytes  %8.2f MB   (%zu quads)\n", mesh_bytes, mesh_bytes * mb, quads);
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
                  "columns within this many columns of the centre stay unpacked (default 2; -1 packs all)");
  add_threads_option(*cmd, o->threads, "worker threads (default: cores - 1, at least 1)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_mem(*o); }; });
}

}  // namespace voxen::app
