#include "noise.h"

#include <array>
#include <cmath>

#include "voxen/core/error.h"
#include "voxen/core/hash.h"

namespace voxen::gen {
namespace {

// Standard deviation of one octave of each noise over many samples (measured with the generator's own sampling,
// 1M points), so that fBm sums can be scaled to a standard deviation of kTargetStd.
constexpr double kStd2 = 0.2155;
constexpr double kStd3 = 0.2715;
constexpr double kTargetStd = 0.3;

inline double fade(double t) { return t * t * t * (t * (t * 6 - 15) + 10); }

// Wrapping int64 addition (world coordinates near the int64 limits must not be undefined behaviour).
inline int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// 2D gradients: the 8 directions of the compass rose, unit length.
constexpr double kS = 0.70710678118654752;
constexpr double kGrad2[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {kS, kS}, {-kS, kS}, {kS, -kS}, {-kS, -kS}};

inline double dot2(uint64_t h, double dx, double dz) {
  const double* g = kGrad2[h >> 61];
  return g[0] * dx + g[1] * dz;
}

// 3D gradients: Perlin's 12 cube-edge directions, picked by an unbiased multiply-shift of the hash.
constexpr double kGrad3[12][3] = {{1, 1, 0}, {-1, 1, 0}, {1, -1, 0}, {-1, -1, 0}, {1, 0, 1}, {-1, 0, 1},
                                  {1, 0, -1}, {-1, 0, -1}, {0, 1, 1}, {0, -1, 1}, {0, 1, -1}, {0, -1, -1}};

inline double dot3(uint64_t h, double dx, double dy, double dz) {
  const double* g = kGrad3[((h >> 32) * 12) >> 32];
  return g[0] * dx + g[1] * dy + g[2] * dz;
}

// 2^-k for k = 0..62, exact in double.
constexpr auto kInvPow2 = [] {
  std::array<double, 63> t{};
  double v = 1.0;
  for (double& e : t) {
    e = v;
    v *= 0.5;
  }
  return t;
}();

// Splits a world coordinate into its lattice cell (floor(v / 2^shift), int64) and the fraction in [0, 1),
// exactly: the remainder is below 2^40 and so is a double without rounding, and the scale is a power of two.
inline int64_t cell_and_fraction(int64_t v, int shift, double& frac) {
  const int64_t cell = v >> shift;
  const int64_t rem = v & ((int64_t{1} << shift) - 1);
  frac = static_cast<double>(rem) * kInvPow2[shift];
  return cell;
}

}  // namespace

double gradient_noise2(uint64_t seed, int shift, int64_t x, int64_t z) {
  double fx, fz;
  const int64_t cx = cell_and_fraction(x, shift, fx);
  const int64_t cz = cell_and_fraction(z, shift, fz);
  const int64_t cx1 = wrap_add(cx, 1), cz1 = wrap_add(cz, 1);
  const double n00 = dot2(hash2(seed, cx, cz), fx, fz);
  const double n10 = dot2(hash2(seed, cx1, cz), fx - 1, fz);
  const double n01 = dot2(hash2(seed, cx, cz1), fx, fz - 1);
  const double n11 = dot2(hash2(seed, cx1, cz1), fx - 1, fz - 1);
  const double u = fade(fx), v = fade(fz);
  return lerp(lerp(n00, n10, u), lerp(n01, n11, u), v);
}

double gradient_noise3(uint64_t seed, int sx, int sy, int sz, int64_t x, int64_t y, int64_t z) {
  double fx, fy, fz;
  const int64_t cx = cell_and_fraction(x, sx, fx);
  const int64_t cy = cell_and_fraction(y, sy, fy);
  const int64_t cz = cell_and_fraction(z, sz, fz);
  const int64_t cx1 = wrap_add(cx, 1), cy1 = wrap_add(cy, 1), cz1 = wrap_add(cz, 1);
  const double n000 = dot3(hash3(seed, cx, cy, cz), fx, fy, fz);
  const double n100 = dot3(hash3(seed, cx1, cy, cz), fx - 1, fy, fz);
  const double n010 = dot3(hash3(seed, cx, cy1, cz), fx, fy - 1, fz);
  const double n110 = dot3(hash3(seed, cx1, cy1, cz), fx - 1, fy - 1, fz);
  const double n001 = dot3(hash3(seed, cx, cy, cz1), fx, fy, fz - 1);
  const double n101 = dot3(hash3(seed, cx1, cy, cz1), fx - 1, fy, fz - 1);
  const double n011 = dot3(hash3(seed, cx, cy1, cz1), fx, fy - 1, fz - 1);
  const double n111 = dot3(hash3(seed, cx1, cy1, cz1), fx - 1, fy - 1, fz - 1);
  const double u = fade(fx), v = fade(fy), w = fade(fz);
  const double a = lerp(lerp(n000, n100, u), lerp(n010, n110, u), v);
  const double b = lerp(lerp(n001, n101, u), lerp(n011, n111, u), v);
  return lerp(a, b, w);
}

Fbm2::Fbm2(uint64_t seed, int largest_shift, int octaves, double persistence) {
  VOXEN_ASSERT(octaves >= 1 && octaves <= kMaxOctaves);
  VOXEN_ASSERT(largest_shift <= 40 && largest_shift - (octaves - 1) >= 1);
  m_count = octaves;
  double amp = 1, sum_sq = 0;
  for (int i = 0; i < octaves; ++i) {
    Octave& o = m_oct[static_cast<size_t>(i)];
    o.seed = derive_seed(seed, static_cast<uint64_t>(i) + 1);
    o.shift = largest_shift - i;
    // Offsets below 2^24 keep any world coordinate within +-2^62 free of wrap-around in practice.
    o.ox = static_cast<int64_t>(hash1(o.seed, 1) >> 40);
    o.oz = static_cast<int64_t>(hash1(o.seed, 2) >> 40);
    o.amplitude = amp;
    sum_sq += amp * amp;
    amp *= persistence;
  }
  const double scale = kTargetStd / (kStd2 * std::sqrt(sum_sq));
  for (int i = 0; i < octaves; ++i) m_oct[static_cast<size_t>(i)].amplitude *= scale;
}

double Fbm2::operator()(int64_t x, int64_t z) const {
  double sum = 0;
  for (int i = 0; i < m_count; ++i) {
    const Octave& o = m_oct[static_cast<size_t>(i)];
    sum += o.amplitude * gradient_noise2(o.seed, o.shift, wrap_add(x, o.ox), wrap_add(z, o.oz));
  }
  return sum;
}

Fbm3::Fbm3(uint64_t seed, int sx, int sy, int sz, int octaves, double persistence) {
  VOXEN_ASSERT(octaves >= 1 && octaves <= kMaxOctaves);
  VOXEN_ASSERT(sx - (octaves - 1) >= 1 && sy - (octaves - 1) >= 1 && sz - (octaves - 1) >= 1);
  VOXEN_ASSERT(sx <= 40 && sy <= 40 && sz <= 40);
  m_count = octaves;
  double amp = 1, sum_sq = 0;
  for (int i = 0; i < octaves; ++i) {
    Octave& o = m_oct[static_cast<size_t>(i)];
    o.seed = derive_seed(seed, static_cast<uint64_t>(i) + 101);
    o.sx = sx - i;
    o.sy = sy - i;
    o.sz = sz - i;
    o.ox = static_cast<int64_t>(hash1(o.seed, 1) >> 40);
    o.oy = static_cast<int64_t>(hash1(o.seed, 2) >> 40);
    o.oz = static_cast<int64_t>(hash1(o.seed, 3) >> 40);
    o.amplitude = amp;
    sum_sq += amp * amp;
    amp *= persistence;
  }
  const double scale = kTargetStd / (kStd3 * std::sqrt(sum_sq));
  for (int i = 0; i < octaves; ++i) m_oct[static_cast<size_t>(i)].amplitude *= scale;
}

double Fbm3::operator()(int64_t x, int64_t y, int64_t z) const {
  double sum = 0;
  for (int i = 0; i < m_count; ++i) {
    const Octave& o = m_oct[static_cast<size_t>(i)];
    sum += o.amplitude *
           gradient_noise3(o.seed, o.sx, o.sy, o.sz, wrap_add(x, o.ox), wrap_add(y, o.oy), wrap_add(z, o.oz));
  }
  return sum;
}

}  // namespace voxen::gen
