#include "caves.h"

#include <algorithm>
#include <cmath>

#include "voxen/core/coords.h"
#include "voxen/core/hash.h"

namespace voxen::gen {
namespace {

// Tunnel radius in units of the spaghetti fields (standard deviation 0.3, about 0.025 per block): ~2.5 blocks.
constexpr double kTunnelRadius = 0.08;
constexpr double kTunnelRadius2 = kTunnelRadius * kTunnelRadius;

// Cheese threshold: rooms are rarer near the surface and more common deep down.
inline double cheese_threshold(int64_t y) { return lerp(0.42, 0.62, smoothstep(-96.0, 48.0, static_cast<double>(y))); }

// Ravines: mask level where they start, full half-width at the surface, blocks per unit of the path field.
constexpr double kRavineMaskLo = 0.42, kRavineMaskHi = 0.6;
constexpr double kRavineHalfWidth = 4.5;
constexpr double kRavinePathScale = 60.0;

inline int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

}  // namespace

CaveModel::CaveModel(uint64_t seed)
    : m_a(derive_seed(seed, 0x41), 6, 6, 6, 1),
      m_b(derive_seed(seed, 0x42), 6, 6, 6, 1),
      m_cheese(derive_seed(seed, 0x43), 7, 6, 7, 2),
      m_ravine_mask(derive_seed(seed, 0x44), 9, 1),
      m_ravine_path(derive_seed(seed, 0x45), 7, 2),
      m_ravine_floor(derive_seed(seed, 0x46), 6, 1) {}

CaveNode CaveModel::node(int64_t i, int64_t j, int64_t k) const {
  const int64_t x = static_cast<int64_t>(static_cast<uint64_t>(i) << kCaveShiftXZ);
  const int64_t y = static_cast<int64_t>(static_cast<uint64_t>(j) << kCaveShiftY);
  const int64_t z = static_cast<int64_t>(static_cast<uint64_t>(k) << kCaveShiftXZ);
  return CaveNode{m_a(x, y, z), m_b(x, y, z), m_cheese(x, y, z) - cheese_threshold(y)};
}

bool CaveModel::cell_is_solid(const CaveNode c[8]) {
  bool a_pos = true, a_neg = true, b_pos = true, b_neg = true, q_neg = true;
  for (int n = 0; n < 8; ++n) {
    a_pos &= c[n].a >= kTunnelRadius;
    a_neg &= c[n].a <= -kTunnelRadius;
    b_pos &= c[n].b >= kTunnelRadius;
    b_neg &= c[n].b <= -kTunnelRadius;
    q_neg &= c[n].q <= 0;
  }
  return (a_pos || a_neg || b_pos || b_neg) && q_neg;
}

CaveModel::Ends CaveModel::ends(const CaveNode c[8], int fx, int fz) {
  const double tx = fx * (1.0 / kCaveStepXZ), tz = fz * (1.0 / kCaveStepXZ);
  auto face = [&](double CaveNode::*f, int base) {
    return lerp(lerp(c[base].*f, c[base + 1].*f, tx), lerp(c[base + 2].*f, c[base + 3].*f, tx), tz);
  };
  return Ends{face(&CaveNode::a, 0), face(&CaveNode::a, 4), face(&CaveNode::b, 0),
              face(&CaveNode::b, 4), face(&CaveNode::q, 0), face(&CaveNode::q, 4)};
}

bool CaveModel::carves(const Ends& e, int fy, bool cavern) {
  const double ty = fy * (1.0 / kCaveStepY);
  if (cavern && lerp(e.q0, e.q1, ty) > 0) return true;
  const double a = lerp(e.a0, e.a1, ty), b = lerp(e.b0, e.b1, ty);
  return a * a + b * b < kTunnelRadius2;
}

bool CaveModel::carved_point(int64_t x, int64_t y, int64_t z, int surface) const {
  const int64_t i = x >> kCaveShiftXZ, j = y >> kCaveShiftY, k = z >> kCaveShiftXZ;
  CaveNode c[8];
  for (int dy = 0; dy < 2; ++dy)
    for (int dz = 0; dz < 2; ++dz)
      for (int dx = 0; dx < 2; ++dx) c[dx + 2 * dz + 4 * dy] = node(wrap_add(i, dx), wrap_add(j, dy), wrap_add(k, dz));
  if (cell_is_solid(c)) return false;
  return carves(ends(c, static_cast<int>(x & (kCaveStepXZ - 1)), static_cast<int>(z & (kCaveStepXZ - 1))),
                static_cast<int>(y & (kCaveStepY - 1)), y < surface - kCavernCover);
}

RavineSpan CaveModel::ravine(int64_t x, int64_t z, int surface) const {
  RavineSpan span;
  const double mask = m_ravine_mask(x, z);
  if (mask <= kRavineMaskLo) return span;
  const double half_width = kRavineHalfWidth * smoothstep(kRavineMaskLo, kRavineMaskHi, mask);
  const double dist = std::fabs(m_ravine_path(x, z)) * kRavinePathScale;
  if (dist >= half_width) return span;
  const double floor_y = 18.0 + 40.0 * m_ravine_floor(x, z);
  if (floor_y >= surface) return span;
  const double f = dist / half_width;
  span.bottom = static_cast<int>(std::floor(lerp(floor_y, static_cast<double>(surface), f * f)));
  span.top = surface;
  return span;
}

}  // namespace voxen::gen
