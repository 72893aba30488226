// Gradient noise and fractal sums over int64 world coordinates, exact at any distance from the origin.
//
// Algorithm: Perlin's "improved noise" (Perlin, "Improving Noise", SIGGRAPH 2002): a gradient per lattice point,
// dotted with the offset to the sample and blended with the quintic fade 6t^5 - 15t^4 + 10t^3. Gradients are not
// taken from a permutation table but from a hash of (octave seed, lattice coordinates) (voxen/core/hash.h), so the
// lattice never repeats and there is no table to share between threads.
//
// Precision: every lattice spacing (period) is a power of two, 2^shift blocks. The lattice cell of world x is the
// arithmetic shift x >> shift (int64 floor division) and the fraction is the int64 remainder x & (2^shift - 1)
// scaled by 2^-shift, which is exact in double. No world coordinate is ever converted to floating point, so noise
// at x = 2^40 or -30,000,000 has exactly the same quality as at the origin.
//
// Octave offsets: each octave shifts its input by a hash-derived integer offset (wrapping int64 arithmetic), so the
// octaves' lattices do not share the points where gradient noise is zero (which would otherwise make the whole sum
// zero on a grid every largest period).
//
// Threads: all types here are immutable after construction and safe to share.
#pragma once

#include <array>
#include <cstdint>

namespace voxen::gen {

/// One lattice octave of 2D gradient noise: period 2^shift blocks; result roughly in [-1, 1].
/// x, z are world block coordinates (int64, any value).
double gradient_noise2(uint64_t seed, int shift, int64_t x, int64_t z);
/// gradient_noise2 at the w x d points (x0 + i * step, z0 + j * step) (wrapping int64), i < w, j < d, into
/// out[j * w + i], each bit-identical to gradient_noise2 there: the corners' hashes are made once per lattice point
/// of the grid's area instead of four times per point (the terrain model's far sampling). w, d >= 1, step >= 1.
void gradient_noise2_grid(uint64_t seed, int shift, int64_t x0, int64_t z0, int64_t step, int w, int d, double* out);

/// One lattice octave of 3D gradient noise with separate periods per axis (2^sx, 2^sy, 2^sz blocks);
/// result roughly in [-1, 1]. x, y, z are world block coordinates.
double gradient_noise3(uint64_t seed, int sx, int sy, int sz, int64_t x, int64_t y, int64_t z);

/// Fractal Brownian motion (a sum of octaves, each half the period and `persistence` times the amplitude of the
/// one before) of 2D gradient noise, scaled so its standard deviation is about 0.3 (values mostly in [-1, 1]).
class Fbm2 {
 public:
  static constexpr int kMaxOctaves = 8;
  Fbm2() = default;
  /// seed: the noise's own seed (derive it from the world seed with a distinct salt); largest_shift: log2 of the
  /// first (largest) period in blocks, 1..40; octaves: 1..8, each halving the period (the smallest period must
  /// stay >= 2 blocks).
  Fbm2(uint64_t seed, int largest_shift, int octaves, double persistence = 0.5);
  /// Value at world (x, z).
  double operator()(int64_t x, int64_t z) const;
  /// Values at the w x d points (x0 + i * step, z0 + j * step) into out[j * w + i], each bit-identical to
  /// operator() there (gradient_noise2_grid per octave, summed in the same order).
  void grid(int64_t x0, int64_t z0, int64_t step, int w, int d, double* out) const;

 private:
  struct Octave {
    uint64_t seed = 0;
    int shift = 0;
    int64_t ox = 0, oz = 0;  // integer input offsets
    double amplitude = 0;
  };
  std::array<Octave, kMaxOctaves> m_oct{};
  int m_count = 0;
};

/// fBm of 3D gradient noise; the period of the first octave is 2^sx x 2^sy x 2^sz blocks (x, y, z), each
/// further octave halves all three. Scaled like Fbm2.
class Fbm3 {
 public:
  static constexpr int kMaxOctaves = 6;
  Fbm3() = default;
  Fbm3(uint64_t seed, int sx, int sy, int sz, int octaves, double persistence = 0.5);
  double operator()(int64_t x, int64_t y, int64_t z) const;

 private:
  struct Octave {
    uint64_t seed = 0;
    int sx = 0, sy = 0, sz = 0;
    int64_t ox = 0, oy = 0, oz = 0;
    double amplitude = 0;
  };
  std::array<Octave, kMaxOctaves> m_oct{};
  int m_count = 0;
};

/// Hermite smoothstep: 0 below e0, 1 above e1, 3t^2 - 2t^3 between (e0 != e1; e0 > e1 gives a falling step).
inline double smoothstep(double e0, double e1, double v) {
  double t = (v - e0) / (e1 - e0);
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  return t * t * (3 - 2 * t);
}

/// Linear interpolation a + t (b - a).
inline double lerp(double a, double b, double t) { return a + t * (b - a); }

}  // namespace voxen::gen
