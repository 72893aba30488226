// voxen structures: lists the structures (villages, towers, ruins, ziggurats) the default generator places near a
// world block: kind, origin, base y, the region that holds it and its bounding box (docs/ARCHITECTURE.md,
// "Structures"). A pure function of (seed, --near, --radius): the same list on every run, sorted by distance from
// --near (Chebyshev, to the origin), then kind, x and z.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "seed_option.h"
#include "voxen/gen/structures.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct StructuresOptions {
  uint64_t seed = 1;
  std::array<int64_t, 2> near{0, 0};
  int64_t radius = 2048;
  bool json = false;
};

int run_structures(const StructuresOptions& o) {
  if (o.radius < 0 || o.radius > 65536)
    throw UsageError("--radius", "must be 0..65536 blocks (got " + std::to_string(o.radius) + ")");
  const BlockRegistry reg = load_registry();
  const gen::StructurePlanner planner(o.seed, reg);
  std::vector<gen::Structure> found;
  const int64_t x = o.near[0], z = o.near[1];
  planner.find(x - o.radius, z - o.radius, x + o.radius, z + o.radius, found);
  auto dist = [&](const gen::Structure& s) { return std::max(std::llabs(s.x - x), std::llabs(s.z - z)); };
  std::stable_sort(found.begin(), found.end(), [&](const gen::Structure& a, const gen::Structure& b) {
    if (dist(a) != dist(b)) return dist(a) < dist(b);
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.x != b.x ? a.x < b.x : a.z < b.z;
  });
  if (o.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const gen::Structure& s : found) {
      nlohmann::json j;
      j["kind"] = std::string(gen::structure_kind_name(s.kind));
      j["origin"] = {s.x, s.base, s.z};
      j["region"] = {s.region_x, s.region_z};
      j["box"] = {{"min", {s.box.x0, s.box.y0, s.box.z0}}, {"max", {s.box.x1, s.box.y1, s.box.z1}}};
      j["distance"] = dist(s);
      if (s.kind == gen::StructureKind::kVillage) {
        j["houses"] = s.houses.size();
        j["lamps"] = s.lamps.size();
      } else {
        j["radius"] = s.radius;
        j["height"] = s.height;
      }
      list.push_back(j);
    }
    nlohmann::json out;
    out["seed"] = o.seed;
    out["near"] = {x, z};
    out["radius"] = o.radius;
    out["structures"] = list;
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("seed %llu, structures within %lld blocks of %lld,%lld: %zu\n", static_cast<unsigned long long>(o.seed),
                static_cast<long long>(o.radius), static_cast<long long>(x), static_cast<long long>(z), found.size());
    for (const gen::Structure& s : found)
      std::printf("  %-8s origin %lld,%lld,%lld  box %lld,%lld,%lld .. %lld,%lld,%lld  distance %lld\n",
                  std::string(gen::structure_kind_name(s.kind)).c_str(), static_cast<long long>(s.x), static_cast<long long>(s.base),
                  static_cast<long long>(s.z), static_cast<long long>(s.box.x0), static_cast<long long>(s.box.y0),
                  static_cast<long long>(s.box.z0), static_cast<long long>(s.box.x1), static_cast<long long>(s.box.y1),
                  static_cast<long long>(s.box.z1), static_cast<long long>(dist(s)));
  }
  return 0;
}

}  // namespace

void add_structures_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<StructuresOptions>();
  CLI::App* cmd = app.add_subcommand("structures", "list the structures the default generator places near a point");
  add_seed_option(*cmd, o->seed, "world seed (default 1)");
  add_int_pair_option(*cmd, "--near", o->near, "world block X,Z to search around (default 0,0)");
  cmd->add_option("--radius", o->radius, "blocks out from --near, per axis (default 2048, 0..65536)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_structures(*o); }; });
}

}  // namespace voxen::app
