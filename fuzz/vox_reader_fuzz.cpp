// libFuzzer target for the .vox reader (build with -DVOXEN_FUZZ=ON and clang; see docs/FUZZING.md).
// Every input must give a VoxFile or an Error whose byte offset lies inside the input, never a crash, a
// sanitizer report or an unbounded allocation. Inputs that read also go through scene evaluation and, when
// small, through placement into a fresh World (the whole import path).
#include <cstddef>
#include <cstdint>
#include <span>

#include "voxen/import/vox_file.h"
#include "voxen/import/vox_place.h"
#include "voxen/import/vox_scene.h"

namespace {

const voxen::BlockRegistry& base_registry() {
  static const voxen::BlockRegistry reg = [] {
    auto r = voxen::BlockRegistry::load_default();
    VOXEN_ASSERT(r.ok());
    return std::move(r).value();
  }();
  return reg;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace voxen::import;
  auto file = read_vox(std::span<const uint8_t>(data, size), "fuzz.vox");
  if (!file) {
    VOXEN_ASSERT(!file.error().message.empty());
    VOXEN_ASSERT(file.error().offset >= 0 && file.error().offset <= static_cast<int64_t>(size));
    return 0;
  }
  for (const auto& w : file->warnings)
    VOXEN_ASSERT(!w.message.empty() && w.offset >= 0 && w.offset <= static_cast<int64_t>(size));
  VOXEN_ASSERT(validate_scene_graph(*file, "fuzz.vox").ok());
  for_each_instance(*file, [&](const VoxInstance& inst) { VOXEN_ASSERT(inst.model < file->models.size()); });
  VoxPlaceOptions options;
  options.max_voxels = 1u << 16;
  auto plan = plan_vox_placement(*file, options);
  if (!plan || plan->scene.voxels.size() > 4096) return 0;
  voxen::BlockRegistry reg = base_registry();
  voxen::World world;
  auto stats = apply_vox_placement(world, reg, *file, *plan, true);
  VOXEN_ASSERT(stats.ok());
  VOXEN_ASSERT(stats->placed_voxels == plan->scene.voxels.size());
  return 0;
}
