#include "vox_overlay.h"

#include <algorithm>

#include "cli_util.h"

namespace voxen::app {

VoxOverlayGenerator::VoxOverlayGenerator(std::unique_ptr<gen::Generator> base, const import::VoxPlacement& placement,
                                         const std::array<Cell, 256>& cells)
    : m_base(std::move(base)), m_min(placement.min), m_max(placement.max) {
  m_name = m_base ? "vox+" + std::string(m_base->name()) : "vox";
  for (const import::SceneVoxel& v : placement.scene.voxels) {
    const BlockPos p{placement.offset.x + v.x, placement.offset.y + v.y, placement.offset.z + v.z};
    const ColumnPos c = column_pos_of(p);
    const auto lx = static_cast<uint8_t>(local_of(p.x)), lz = static_cast<uint8_t>(local_of(p.z));
    m_cells[c].push_back(Entry{lx, lz, static_cast<int16_t>(p.y), cells[v.color]});
    auto [it, fresh] = m_top.try_emplace(c);
    if (fresh) it->second.fill(static_cast<int16_t>(kMinY - 1));
    int16_t& top = it->second[static_cast<size_t>(lx + 16 * lz)];
    top = std::max(top, static_cast<int16_t>(p.y));
    ++m_placed;
  }
}

void VoxOverlayGenerator::generate(Column& out) const {
  if (m_base) m_base->generate(out);
  auto it = m_cells.find(out.pos());
  if (it == m_cells.end()) return;
  for (const Entry& e : it->second) out.set(e.x, e.y, e.z, e.cell);
}

int64_t VoxOverlayGenerator::surface_y(int64_t x, int64_t z) const {
  int64_t y = m_base ? m_base->surface_y(x, z) : kMinY - 1;
  auto it = m_top.find(ColumnPos{column_of(x), column_of(z)});
  if (it != m_top.end()) y = std::max<int64_t>(y, it->second[static_cast<size_t>(local_of(x) + 16 * local_of(z))]);
  return y;
}

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

std::unique_ptr<VoxOverlayGenerator> make_vox_overlay(BlockRegistry& registry, std::unique_ptr<gen::Generator> base,
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
  std::array<uint64_t, 256> counts{};
  for (const auto& v : plan->scene.voxels) ++counts[v.color];
  auto cells = import::register_vox_blocks(registry, *file, counts);
  if (!cells) throw RunError(options.path + ": " + cells.error().to_string());
  return std::make_unique<VoxOverlayGenerator>(std::move(base), *plan, *cells);
}

}  // namespace voxen::app
