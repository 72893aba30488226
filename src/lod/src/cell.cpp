#include "voxen/lod/cell.h"

namespace voxen::lod {

Mipper::Mipper(const BlockRegistry& registry) {
  m_opacity.resize(registry.size());
  for (size_t id = 0; id < registry.size(); ++id) {
    const BlockDef& def = registry[static_cast<uint16_t>(id)];
    m_opacity[id] = def.transparency == Transparency::kCutout ? uint8_t{15} : static_cast<uint8_t>(def.opacity & 15);
  }
  const BlockDef& undefined = registry[static_cast<uint16_t>(registry.size())];
  m_undefined_opacity = static_cast<uint8_t>(undefined.opacity & 15);
}

LodCell Mipper::mip(const LodCell* children) const {
  int best = -1;
  int best_child = 0;
  for (int i = 0; i < 8; ++i) {
    const uint16_t id = children[i].id();
    if (id == kAirId) continue;
    const int priority = opacity(id) * 16 + i;
    if (priority > best) {
      best = priority;
      best_child = i;
    }
  }
  if (best >= 0) return children[best_child];
  int sky = 0, r = 0, g = 0, b = 0;
  for (int i = 0; i < 8; ++i) {
    const Light l = children[i].light();
    sky += light_sky(l);
    r += light_r(l);
    g += light_g(l);
    b += light_b(l);
  }
  return LodCell::make(kAir, make_light((sky + 7) / 8, r / 8, g / 8, b / 8));
}

}  // namespace voxen::lod
