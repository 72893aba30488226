#include "voxen/light/rules.h"

#include <algorithm>

namespace voxen::light {
namespace {
Light emission_of(const BlockDef& d) {
  auto c = [](uint8_t v) { return std::min<int>(v, 15); };
  return make_light(0, c(d.emission[0]), c(d.emission[1]), c(d.emission[2]));
}
}  // namespace

LightTable::LightTable(const BlockRegistry& registry) {
  const size_t n = registry.size();
  m_opacity.resize(n);
  m_emission.resize(n);
  for (size_t id = 0; id < n; ++id) {
    const BlockDef& d = registry[static_cast<uint16_t>(id)];
    m_opacity[id] = static_cast<uint8_t>(std::min<int>(d.opacity, kOpaque));
    m_emission[id] = emission_of(d);
  }
  if (n < 65536) {  // every id past the table reads as the registry's undefined block
    const BlockDef& u = registry[static_cast<uint16_t>(n)];
    m_undefined_opacity = static_cast<uint8_t>(std::min<int>(u.opacity, kOpaque));
    m_undefined_emission = emission_of(u);
  }
}

}  // namespace voxen::light
