#include "vox_overlay.h"

#include "cli_util.h"
#include "voxen/import/vox_place.h"
#include "voxen/world/world.h"

namespace voxen::app {

VoxOverlayOptions parse_vox_overlay_options(const std::string& path, const std::string& at) {
  VoxOverlayOptions o;
  o.path = path;
  const size_t a = at.find(',');
  const size_t b = a == std::string::npos ? std::string::npos : at.find(',', a + 1);
  const std::string bad = "malformed '" + at + "' (expected X,Y,Z in world blocks; Y may be 'surface')";
  if (b == std::string::npos || at.find(',', b + 1) != std::string::npos) throw UsageError("--vox-at", bad);
  auto x = parse_int64(std::string_view(at).substr(0, a));
  auto z = parse_int64(std::string_view(at).substr(b + 1));
  const std::string y = at.substr(a + 1, b - a - 1);
  if (!x || !z) throw UsageError("--vox-at", bad);
  o.x = *x;
  o.z = *z;
  if (y != "surface") {
    auto yv = parse_int64(y);
    if (!yv) throw UsageError("--vox-at", bad);
    if (!y_in_range(*yv)) throw UsageError("--vox-at", "y " + y + " is outside the world (-128..255)");
    o.y = *yv;
  }
  return o;
}

std::vector<std::unique_ptr<Column>> make_vox_overlay(BlockRegistry& registry, const gen::Generator* base,
                                                      const VoxOverlayOptions& options) {
  auto file = import::read_vox_file(options.path);
  if (!file) throw RunError(file.error().to_string());
  import::VoxPlaceOptions po;
  po.anchor = import::VoxAnchor::kGroundCentre;
  po.origin = {options.x, options.y ? *options.y : (base ? base->surface_y(options.x, options.z) + 1 : 0), options.z};
  auto plan = import::plan_vox_placement(*file, po);
  if (!plan) {
    Error e = plan.error();
    if (e.file.empty()) e.file = options.path;
    throw RunError(e.to_string());
  }
  World scene;
  auto stats = import::apply_vox_placement(scene, registry, *file, *plan, true);
  if (!stats) throw RunError(options.path + ": " + stats.error().to_string());
  std::vector<std::unique_ptr<Column>> columns;
  for (const ColumnPos& c : import::placement_columns(*plan)) columns.push_back(scene.remove(c));
  return columns;
}

}  // namespace voxen::app
