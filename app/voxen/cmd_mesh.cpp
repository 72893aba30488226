// voxen mesh: generates the (2R+1)^2 columns around a point plus one ring more (so every meshed column has loaded
// neighbours and its border faces cull and shade against real cells), lights them, meshes every section of the
// inner (2R+1)^2 columns three ways (culled; greedy with the AO rule; greedy ignoring AO and light) and prints
// voxels (non-air cells), cube-per-voxel triangles (12 each), culled faces, greedy quads with and without the AO
// rule, bytes of quad data (greedy with the AO rule: 16 per opaque/cutout quad, 20 per translucent quad) and the
// seconds the greedy meshing took (input building included, on --threads workers, one job per column).
// Every count is summed in column order, so it is the same for every thread count.
// --world DIR meshes a saved world (its saved edits over generation) and --edit places blocks first, with probe's
// meaning (app/voxen/world_open.h): the edits are placed as the columns load, then everything is lit, so the counts
// and the light the AO rule reads include them. With --world the results are printed after the world is closed
// (the edits committed).
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/core/job_pool.h"
#include "voxen/light/light.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/faces.h"
#include "voxen/mesh/mesher.h"
#include "world_open.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct MeshCmdOptions {
  WorldFlags world;
  WorldDirFlag world_dir;
  EditFlag edits;
  std::array<int64_t, 2> center{0, 0};
  int64_t radius = 2;
  int threads = 0;
  bool json = false;
};

struct Totals {
  uint64_t quads = 0;
  uint64_t bytes = 0;
  uint64_t unit_faces = 0;
};

// Meshes every section of `columns` with `options`, one job per column; totals summed in column order.
Totals mesh_all(const mesh::BakedBlocks& baked, const World& world, const std::vector<ColumnPos>& columns,
                const mesh::MeshOptions& options, JobPool& pool) {
  std::vector<Totals> per(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    pool.submit(0.0, [&, i] {
      auto input = std::make_unique<mesh::SectionInput>();
      mesh::MeshScratch scratch;
      mesh::SectionMesh out;
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        mesh::mesh_world_section(baked, world, {columns[i].x, s, columns[i].z}, options, *input, scratch, out);
        per[i].quads += out.quad_count();
        per[i].bytes += out.bytes();
        per[i].unit_faces += mesh::unit_face_count(out);
      }
    });
  }
  pool.wait_idle();
  Totals t;
  for (const Totals& p : per) {
    t.quads += p.quads;
    t.bytes += p.bytes;
    t.unit_faces += p.unit_faces;
  }
  return t;
}

uint64_t count_voxels(const BlockRegistry& reg, const World& world, const std::vector<ColumnPos>& columns) {
  uint64_t n = 0;
  uint32_t buf[kSectionVolume];
  const auto solid = [&](uint32_t packed) {
    const BlockDef& d = reg[Cell::from_packed(packed).id];
    return d.defined && !d.is_air();
  };
  for (const ColumnPos& c : columns) {
    const Column* col = world.find(c);
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const Section& sec = col->section(s);
      if (sec.is_uniform()) {
        if (solid(sec.palette()[0])) n += kSectionVolume;
        continue;
      }
      sec.unpack(buf);
      for (uint32_t v : buf) n += solid(v) ? 1 : 0;
    }
  }
  return n;
}

int run_mesh(const MeshCmdOptions& o) {
  const auto& c = o.center;
  if (o.radius < 0) throw UsageError("--radius", "must be 0 or more (got " + std::to_string(o.radius) + ")");
  if (o.radius > 32) throw UsageError("--radius", "must be at most 32 (got " + std::to_string(o.radius) + ")");

  const BlockRegistry reg = load_registry();
  const std::vector<EditSpec> edits = o.edits.parse(reg);
  auto baked = mesh::BakedBlocks::bake(reg);
  if (!baked) throw RunError("block registry: " + baked.error().message);

  const ColumnPos mid{column_of(c[0]), column_of(c[1])};
  std::vector<ColumnPos> inner, all;
  for (int64_t dx = -o.radius - 1; dx <= o.radius + 1; ++dx)
    for (int64_t dz = -o.radius - 1; dz <= o.radius + 1; ++dz) {
      const ColumnPos p{mid.x + dx, mid.z + dz};
      all.push_back(p);
      if (std::abs(dx) <= o.radius && std::abs(dz) <= o.radius) inner.push_back(p);
    }

  CommandWorld cw(o.world_dir, o.world, reg);  // --world DIR: saved world (journal applied, edits saved)
  cw.add_edits(edits);
  JobPool pool(o.threads);
  Stopwatch gen_sw;
  cw.load(all, &pool, c[0], c[1]);  // generation (and saved edits), then the --edit edits
  const World& world = cw.world();
  const double gen_seconds = gen_sw.seconds();
  Stopwatch light_sw;
  const light::LightTable table(reg);
  light::light_columns(cw.world(), table, all, &pool);
  const double light_seconds = light_sw.seconds();

  const Totals culled = mesh_all(*baked, world, inner, mesh::MeshOptions{false, true}, pool);
  Stopwatch mesh_sw;
  const Totals greedy = mesh_all(*baked, world, inner, mesh::MeshOptions{true, true}, pool);
  const double seconds = mesh_sw.seconds();
  const Totals loose = mesh_all(*baked, world, inner, mesh::MeshOptions{true, false}, pool);
  const uint64_t voxels = count_voxels(reg, world, inner);
  // The culled and greedy meshes cover the same unit faces (a cheap self-check of the split-back rule).
  if (culled.unit_faces != greedy.unit_faces || culled.unit_faces != loose.unit_faces)
    throw RunError("internal error: greedy meshes cover " + std::to_string(greedy.unit_faces) + " unit faces, culled " +
                   std::to_string(culled.unit_faces));
  cw.close();  // with --world: the edits are committed before anything is reported

  if (o.json) {
    nlohmann::json j;
    j["voxels"] = voxels;
    j["cube_triangles"] = voxels * 12;
    j["culled_faces"] = culled.quads;
    j["greedy_quads"] = greedy.quads;
    j["greedy_quads_no_ao"] = loose.quads;
    j["bytes"] = greedy.bytes;
    j["seconds"] = seconds;
    j["columns"] = inner.size();
    j["sections"] = inner.size() * kSectionsPerColumn;
    j["threads"] = pool.thread_count();
    j["generator"] = cw.generator_name();
    j["seed"] = cw.seed();
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("generator %s, seed %llu, %zu columns meshed (%zu generated and lit), %d worker thread(s)\n",
                cw.generator_name().c_str(), static_cast<unsigned long long>(cw.seed()), inner.size(),
                all.size(), pool.thread_count());
    std::printf("voxels                 %llu\n", static_cast<unsigned long long>(voxels));
    std::printf("cube triangles         %llu\n", static_cast<unsigned long long>(voxels * 12));
    std::printf("culled faces           %llu\n", static_cast<unsigned long long>(culled.quads));
    std::printf("greedy quads           %llu\n", static_cast<unsigned long long>(greedy.quads));
    std::printf("greedy quads (no AO)   %llu\n", static_cast<unsigned long long>(loose.quads));
    std::printf("bytes                  %llu\n", static_cast<unsigned long long>(greedy.bytes));
    std::printf("seconds (greedy mesh)  %.4f\n", seconds);
    std::printf("seconds (gen, light)   %.3f, %.3f\n", gen_seconds, light_seconds);
  }
  return 0;
}

}  // namespace

void add_mesh_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<MeshCmdOptions>();
  CLI::App* cmd = app.add_subcommand("mesh", "generate, light and mesh the columns around a point and report face counts");
  o->world.add_to(*cmd);
  o->world_dir.add_to(*cmd);
  o->edits.add_to(*cmd);
  add_int_pair_option(*cmd, "--center", o->center, "world block X,Z at the centre (default 0,0)");
  cmd->add_option("--radius", o->radius, "columns out from the centre column: (2R+1)^2 columns meshed (default 2)");
  add_threads_option(*cmd, o->threads, "worker threads (default: cores - 1, at least 1)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_mesh(*o); }; });
}

}  // namespace voxen::app
