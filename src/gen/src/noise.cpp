#include "noise.h"

#include <array>
#include <algorithm>
#include <cmath>
#include <vector>

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

namespace {

// One octave of 2D gradient noise from its cell's four corner hashes (corner (0, 0), (1, 0), (0, 1), (1, 1)) and the
// point's fractions in the cell: the one formula both gradient_noise2 and the grid use, so they agree to the bit.
inline double noise2_from(uint64_t h00, uint64_t h10, uint64_t h01, uint64_t h11, double fx, double fz) {
  const double n00 = dot2(h00, fx, fz);
  const double n10 = dot2(h10, fx - 1, fz);
  const double n01 = dot2(h01, fx, fz - 1);
  const double n11 = dot2(h11, fx - 1, fz - 1);
  const double u = fade(fx), v = fade(fz);
  return lerp(lerp(n00, n10, u), lerp(n01, n11, u), v);
}

}  // namespace

double gradient_noise2(uint64_t seed, int shift, int64_t x, int64_t z) {
  double fx, fz;
  const int64_t cx = cell_and_fraction(x, shift, fx);
  const int64_t cz = cell_and_fraction(z, shift, fz);
  const int64_t cx1 = wrap_add(cx, 1), cz1 = wrap_add(cz, 1);
  return noise2_from(hash2(seed, cx, cz), hash2(seed, cx1, cz), hash2(seed, cx, cz1), hash2(seed, cx1, cz1), fx, fz);
}

void gradient_noise2_grid(uint64_t seed, int shift, int64_t x0, int64_t z0, int64_t step, int w, int d, double* out) {
  VOXEN_ASSERT(w >= 1 && d >= 1 && step >= 1);
  // Per grid column its lattice cell, as an offset from the first column's (the cells of a row never go back:
  // x only grows along it; wrapping past int64's end would, and then every point is computed alone), and fraction;
  // likewise per row.
  thread_local std::vector<int64_t> dcx, dcz;
  thread_local std::vector<double> fxs, fzs;
  thread_local std::vector<uint64_t> corner;
  const auto at = [step](int64_t base, int k) {
    return static_cast<int64_t>(static_cast<uint64_t>(base) + static_cast<uint64_t>(k) * static_cast<uint64_t>(step));
  };
  // One axis: n points from `base`: their cells as offsets from the first one's (c0) and fractions; false where a
  // cell goes back (the axis wrapped past int64's end).
  const auto axis = [&](int64_t base, int n, std::vector<int64_t>& dc, std::vector<double>& fs, int64_t& c0) {
    dc.resize(static_cast<size_t>(n));
    fs.resize(static_cast<size_t>(n));
    bool monotone = true;
    for (int k = 0; k < n; ++k) {
      const int64_t c = cell_and_fraction(at(base, k), shift, fs[static_cast<size_t>(k)]);
      if (k == 0) c0 = c;
      dc[static_cast<size_t>(k)] = static_cast<int64_t>(static_cast<uint64_t>(c) - static_cast<uint64_t>(c0));
      monotone = monotone && dc[static_cast<size_t>(k)] >= (k > 0 ? dc[static_cast<size_t>(k - 1)] : 0);
    }
    return monotone;
  };
  int64_t cx0 = 0, cz0 = 0;
  const bool mx = axis(x0, w, dcx, fxs, cx0);
  const bool monotone = axis(z0, d, dcz, fzs, cz0) && mx;
  // The lattice points of the grid's area: (nx x nz) corner hashes. Where the grid is sparser than its lattice (a
  // step of several cells) that would be more than the 4 a point costs alone: then every point alone.
  const int64_t nx = monotone ? dcx.back() + 2 : 0, nz = monotone ? dcz.back() + 2 : 0;
  const int64_t budget = 4 * int64_t{w} * d;
  if (!monotone || nx > budget || nz > budget || nx * nz > budget) {
    for (int j = 0; j < d; ++j)
      for (int i = 0; i < w; ++i)
        out[static_cast<size_t>(j) * static_cast<size_t>(w) + static_cast<size_t>(i)] =
            gradient_noise2(seed, shift, at(x0, i), at(z0, j));
    return;
  }
  corner.resize(static_cast<size_t>(nx * nz));
  for (int64_t l = 0; l < nz; ++l)
    for (int64_t k = 0; k < nx; ++k)
      corner[static_cast<size_t>(l * nx + k)] = hash2(seed, wrap_add(cx0, k), wrap_add(cz0, l));
  for (int j = 0; j < d; ++j) {
    const uint64_t* row = corner.data() + dcz[static_cast<size_t>(j)] * nx;
    const double fz = fzs[static_cast<size_t>(j)];
    for (int i = 0; i < w; ++i) {
      const uint64_t* c = row + dcx[static_cast<size_t>(i)];
      out[static_cast<size_t>(j) * static_cast<size_t>(w) + static_cast<size_t>(i)] =
          noise2_from(c[0], c[1], c[nx], c[nx + 1], fxs[static_cast<size_t>(i)], fz);
    }
  }
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

void Fbm2::grid(int64_t x0, int64_t z0, int64_t step, int w, int d, double* out) const {
  const size_t n = static_cast<size_t>(w) * static_cast<size_t>(d);
  thread_local std::vector<double> octave;
  octave.resize(n);
  std::fill(out, out + n, 0.0);
  for (int i = 0; i < m_count; ++i) {
    const Octave& o = m_oct[static_cast<size_t>(i)];
    gradient_noise2_grid(o.seed, o.shift, wrap_add(x0, o.ox), wrap_add(z0, o.oz), step, w, d, octave.data());
    for (size_t p = 0; p < n; ++p) out[p] += o.amplitude * octave[p];  // operator()'s sum, in its order
  }
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
