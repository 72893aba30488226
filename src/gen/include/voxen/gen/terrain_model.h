// The 2D part of the `default` generator: climate, biomes and terrain height at each world (x, z).
//
// Climate: four fBm fields of gradient noise (continentalness, temperature, humidity, mountainousness) plus a
// ridged field for mountain peaks are sampled on a lattice every 4 blocks (world-aligned: nodes at x, z multiples
// of 4) and bilinearly interpolated between nodes; a fine fBm "detail" field is sampled at every block.
// Biome blending: each land biome has a centre in (temperature, humidity) space; its weight is a Gaussian of the
// distance to that centre, normalised over the biomes (mountains take their weight from mountainousness instead).
// Height parameters (base height, hill amplitude, mountain lift) are the weight-averaged parameters of all
// biomes, so heights change smoothly across biome borders (no cliffs). The biome named at a block is picked from
// the sharpened weights with a per-block hash, which dithers borders over a few blocks. Oceans and beaches come
// from continentalness and the final height.
//
// Everything is a pure function of (seed, x, z): sample() and sample_area() give bit-identical results for the
// same point, and int64 coordinates are exact at any distance (see noise.h in the module's sources).
// Threads: const methods are safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

namespace voxen::gen {

/// Biomes of the default generator. Values are stable (tests and tools print them by name).
enum class Biome : uint8_t { kOcean = 0, kBeach, kPlains, kForest, kDesert, kSnowyTundra, kMountains };
inline constexpr int kBiomeCount = 7;

/// "ocean", "beach", "plains", "forest", "desert", "snowy_tundra", "mountains".
std::string_view biome_name(Biome b);

/// The terrain at one world (x, z) column of blocks, before caves, water and features.
struct TerrainSample {
  int height = 0;                // world y of the top terrain block (kMinY + 16 .. 240)
  Biome biome = Biome::kPlains;  // the biome named at this block (surface blocks and vegetation follow it)
  float temperature = 0;         // climate, about -1 (cold) .. 1 (hot); water freezes below kFreezing
  float humidity = 0;            // about -1 (dry) .. 1 (wet)
  float continentalness = 0;     // below about -0.04 ocean, above about 0.12 inland
};

/// Temperature below which surface water turns to ice.
inline constexpr float kFreezing = -0.3f;

/// Climate and height model of the default generator for one seed.
class TerrainModel {
 public:
  explicit TerrainModel(uint64_t seed);
  ~TerrainModel();
  TerrainModel(TerrainModel&&) noexcept;
  TerrainModel& operator=(TerrainModel&&) noexcept;

  /// The sample at world (x, z). Cost: about 4 lattice nodes of climate noise plus the detail noise (~2 us).
  TerrainSample sample(int64_t x, int64_t z) const;

  /// Samples of the rectangle x in [x0, x0 + w), z in [z0, z0 + d) into out[w * d], index (z - z0) * w + (x - x0);
  /// each equals sample(x, z) exactly, but lattice nodes are computed once for the whole rectangle.
  /// w and d are 1..64.
  void sample_area(int64_t x0, int64_t z0, int w, int d, TerrainSample* out) const;

  /// Samples of the strided grid x = x0 + i * stride, z = z0 + j * stride (0 <= i < w, 0 <= j < d) into
  /// out[w * d], index j * w + i; each equals sample(x, z) exactly (the far view's coarse terrain samples every
  /// few blocks). stride >= 1, w and d >= 1 (w * stride and d * stride at most 2^20). Cost: when stride and x0, z0
  /// are multiples of 4 each point lies on a climate node and costs one node (about a quarter of sample());
  /// otherwise the nodes covering the grid are computed once and shared.
  void sample_grid(int64_t x0, int64_t z0, int stride, int w, int d, TerrainSample* out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace voxen::gen
