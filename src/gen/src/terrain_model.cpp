#include "voxen/gen/terrain_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "noise.h"
#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/core/hash.h"

namespace voxen::gen {
namespace {

// Lattice spacing of the climate nodes: 2^2 = 4 blocks.
constexpr int kNodeShift = 2;
constexpr int kNodeSpacing = 1 << kNodeShift;

// Land biomes blended by weight (mountains last: their weight comes from mountainousness).
enum LandBiome { kLandPlains = 0, kLandForest, kLandDesert, kLandTundra, kLandMountains, kLandCount };
constexpr Biome kLandToBiome[kLandCount] = {Biome::kPlains, Biome::kForest, Biome::kDesert, Biome::kSnowyTundra,
                                           Biome::kMountains};

// Per land biome: climate centre and spread (temperature, humidity), and height parameters: base height (world
// y) and hill amplitude (blocks per unit of the detail field, whose standard deviation is about 0.75).
struct LandParams {
  double t, m, st, sm;
  double base, amp;
};
constexpr LandParams kLand[kLandCount] = {
    /* plains    */ {0.10, -0.15, 0.35, 0.30, 66.0, 3.5},
    /* forest    */ {0.05, 0.35, 0.35, 0.25, 68.0, 6.0},
    /* desert    */ {0.45, -0.30, 0.25, 0.35, 66.0, 4.5},
    /* tundra    */ {-0.50, 0.00, 0.25, 1.50, 68.0, 5.0},
    /* mountains */ {0, 0, 1, 1, 78.0, 10.0},
};

// Continentalness thresholds: below kOceanEdge the sea floor, from kOceanEdge to kCoast the coast (beach
// heights), from kCoast to kInland a ramp to the land heights.
constexpr double kOceanEdge = -0.22;
constexpr double kCoast = -0.04;
constexpr double kInland = 0.08;
// Beaches: shore blocks at most 2 above sea level with continentalness below this.
constexpr double kBeachEdge = 0.02;
// Mountainousness range over which the mountain weight ramps from 0 to 1.
constexpr double kMountainLo = 0.18, kMountainHi = 0.42;
// Height of the tallest peaks above the mountain base.
constexpr double kPeakLift = 125.0;
// Weight sharpening for the dithered biome pick: higher is a narrower dithered border.
constexpr int kSharpen = 24;
// Scale of the detail field into height units.
constexpr double kDetailScale = 2.5;

constexpr int kMinHeight = kMinY + 16;
constexpr int kMaxHeight = 240;

struct Node {
  double c, t, m;
  std::array<double, kLandCount> w;
  double base, amp, lift;
};

inline double bilerp(double a00, double a10, double a01, double a11, double tx, double tz) {
  return lerp(lerp(a00, a10, tx), lerp(a01, a11, tx), tz);
}

}  // namespace

std::string_view biome_name(Biome b) {
  switch (b) {
    case Biome::kOcean: return "ocean";
    case Biome::kBeach: return "beach";
    case Biome::kPlains: return "plains";
    case Biome::kForest: return "forest";
    case Biome::kDesert: return "desert";
    case Biome::kSnowyTundra: return "snowy_tundra";
    case Biome::kMountains: return "mountains";
  }
  return "unknown";
}

struct TerrainModel::Impl {
  Fbm2 continent, temperature, humidity, mountain, detail;
  std::array<uint64_t, 3> ridge_seeds{};
  uint64_t dither_seed = 0;

  explicit Impl(uint64_t seed)
      : continent(derive_seed(seed, 0x11), 11, 4),    // periods 2048 .. 256
        temperature(derive_seed(seed, 0x12), 11, 3),  // 2048 .. 512
        humidity(derive_seed(seed, 0x13), 11, 3),     // 2048 .. 512
        mountain(derive_seed(seed, 0x14), 11, 3),     // 2048 .. 512
        detail(derive_seed(seed, 0x15), 7, 4) {       // 128 .. 16
    for (size_t i = 0; i < ridge_seeds.size(); ++i) ridge_seeds[i] = derive_seed(seed, 0x20 + i);
    dither_seed = derive_seed(seed, 0x30);
  }

  // Ridged noise in [0, 1]: 1 on the ridge lines where the gradient noise crosses zero (periods 256, 128, 64).
  static constexpr double kRidgeNorm = 0.55 + 0.275 + 0.1375;
  static double ridge_term(double n, double amp) {
    const double r = 1.0 - std::min(1.0, std::fabs(n) * 1.6);
    return amp * r * r;
  }
  double ridge(int64_t x, int64_t z) const {
    double sum = 0, amp = 0.55;
    for (size_t i = 0; i < ridge_seeds.size(); ++i) {
      sum += ridge_term(gradient_noise2(ridge_seeds[i], 8 - static_cast<int>(i), x, z), amp);
      amp *= 0.5;
    }
    return sum / kRidgeNorm;
  }

  // Climate node at lattice (i, j), world (4i, 4j).
  Node node(int64_t i, int64_t j) const {
    const int64_t x = static_cast<int64_t>(static_cast<uint64_t>(i) << kNodeShift);
    const int64_t z = static_cast<int64_t>(static_cast<uint64_t>(j) << kNodeShift);
    return node_from(continent(x, z), temperature(x, z), humidity(x, z), mountain(x, z), ridge(x, z));
  }

  // The nodes (i0 + i, j0 + j), i < ni, j < nj, into out[j * ni + i], each node(i0 + i, j0 + j)'s bits, with the
  // fields' noise evaluated over the grid at once (gradient_noise2_grid: the corners hashed once, not per node).
  void node_grid(int64_t i0, int64_t j0, int64_t node_step, int ni, int nj, Node* out) const {
    const int64_t x0 = static_cast<int64_t>(static_cast<uint64_t>(i0) << kNodeShift);
    const int64_t z0 = static_cast<int64_t>(static_cast<uint64_t>(j0) << kNodeShift);
    const int64_t step = node_step << kNodeShift;
    const size_t n = static_cast<size_t>(ni) * static_cast<size_t>(nj);
    thread_local std::vector<double> c, t, m, r, rg, oct;
    c.resize(n), t.resize(n), m.resize(n), r.resize(n), rg.assign(n, 0.0), oct.resize(n);
    continent.grid(x0, z0, step, ni, nj, c.data());
    temperature.grid(x0, z0, step, ni, nj, t.data());
    humidity.grid(x0, z0, step, ni, nj, m.data());
    mountain.grid(x0, z0, step, ni, nj, r.data());
    double amp = 0.55;
    for (size_t o = 0; o < ridge_seeds.size(); ++o) {
      gradient_noise2_grid(ridge_seeds[o], 8 - static_cast<int>(o), x0, z0, step, ni, nj, oct.data());
      for (size_t p = 0; p < n; ++p) rg[p] += ridge_term(oct[p], amp);  // ridge()'s sum, in its order
      amp *= 0.5;
    }
    for (size_t p = 0; p < n; ++p) out[p] = node_from(c[p], t[p], m[p], r[p], rg[p] / kRidgeNorm);
  }

  // A node from its fields' values at its point (continent, temperature, humidity, mountain fBm; ridge()).
  Node node_from(double cont, double temp, double hum, double r, double ridge_value) const {
    Node n;
    n.c = cont + 0.15;
    n.t = temp;
    n.m = hum;
    const double wm = smoothstep(kMountainLo, kMountainHi, r);
    double sum = 0;
    for (int b = 0; b < kLandMountains; ++b) {
      const LandParams& p = kLand[b];
      const double dt = (n.t - p.t) / p.st, dm = (n.m - p.m) / p.sm;
      n.w[static_cast<size_t>(b)] = std::exp(-(dt * dt + dm * dm)) + 1e-9;
      sum += n.w[static_cast<size_t>(b)];
    }
    for (int b = 0; b < kLandMountains; ++b) n.w[static_cast<size_t>(b)] *= (1.0 - wm) / sum;
    n.w[kLandMountains] = wm;
    n.base = 0;
    n.amp = 0;
    for (int b = 0; b < kLandCount; ++b) {
      n.base += n.w[static_cast<size_t>(b)] * kLand[b].base;
      n.amp += n.w[static_cast<size_t>(b)] * kLand[b].amp;
    }
    n.lift = wm * kPeakLift * ridge_value * smoothstep(kMountainLo, 0.7, r);
    return n;
  }

  // The sample at world (x, z) inside the lattice cell whose corner nodes are given; fx, fz = x & 3, z & 3.
  TerrainSample combine(const Node& a, const Node& b, const Node& c, const Node& d, int fx, int fz, int64_t x,
                        int64_t z) const {
    return combine(a, b, c, d, fx, fz, x, z, detail(x, z));
  }
  // The same with the detail fBm's value at (x, z) given.
  TerrainSample combine(const Node& a, const Node& b, const Node& c, const Node& d, int fx, int fz, int64_t x,
                        int64_t z, double detail_value) const {
    const double tx = fx * (1.0 / kNodeSpacing), tz = fz * (1.0 / kNodeSpacing);
    const double cont = bilerp(a.c, b.c, c.c, d.c, tx, tz);
    const double temp = bilerp(a.t, b.t, c.t, d.t, tx, tz);
    const double hum = bilerp(a.m, b.m, c.m, d.m, tx, tz);
    const double base = bilerp(a.base, b.base, c.base, d.base, tx, tz);
    const double amp = bilerp(a.amp, b.amp, c.amp, d.amp, tx, tz);
    const double lift = bilerp(a.lift, b.lift, c.lift, d.lift, tx, tz);
    const double det = detail_value * kDetailScale;

    const double land_h = base + amp * det + lift;
    const double coast_h = kSeaLevel + 1.0 + 1.5 * det;
    const double ocean_h = 57.0 - 27.0 * smoothstep(kOceanEdge, -0.6, cont) + 3.0 * det;
    const double shore = lerp(coast_h, land_h, smoothstep(kCoast, kInland, cont));
    const double h = lerp(ocean_h, shore, smoothstep(kOceanEdge, kCoast, cont));

    TerrainSample s;
    s.height = static_cast<int>(std::clamp(std::floor(h), double{kMinHeight}, double{kMaxHeight}));
    s.temperature = static_cast<float>(temp);
    s.humidity = static_cast<float>(hum);
    s.continentalness = static_cast<float>(cont);

    std::array<double, kLandCount> w;
    for (size_t i = 0; i < w.size(); ++i) w[i] = bilerp(a.w[i], b.w[i], c.w[i], d.w[i], tx, tz);
    if (s.height < kSeaLevel && cont < kCoast) {
      s.biome = Biome::kOcean;
    } else if (cont < kBeachEdge && s.height <= kSeaLevel + 2 && w[kLandMountains] < 0.5) {
      s.biome = Biome::kBeach;
    } else {
      // Dithered pick from the sharpened weights: a block near a border takes either side's biome with a
      // probability that moves smoothly across it.
      double sum = 0;
      for (double& v : w) {
        double p = v;
        for (int k = 1; k < kSharpen; ++k) p *= v;
        v = p;
        sum += p;
      }
      double u = hash_to_unit(hash2(dither_seed, x, z)) * sum;
      size_t pick = 0;
      for (; pick + 1 < w.size(); ++pick) {
        if (u < w[pick]) break;
        u -= w[pick];
      }
      s.biome = kLandToBiome[pick];
    }
    return s;
  }
};

TerrainModel::TerrainModel(uint64_t seed) : m_impl(std::make_unique<Impl>(seed)) {}
TerrainModel::~TerrainModel() = default;
TerrainModel::TerrainModel(TerrainModel&&) noexcept = default;
TerrainModel& TerrainModel::operator=(TerrainModel&&) noexcept = default;

TerrainSample TerrainModel::sample(int64_t x, int64_t z) const {
  const int64_t i = x >> kNodeShift, j = z >> kNodeShift;
  const int64_t i1 = static_cast<int64_t>(static_cast<uint64_t>(i) + 1);
  const int64_t j1 = static_cast<int64_t>(static_cast<uint64_t>(j) + 1);
  const Node a = m_impl->node(i, j), b = m_impl->node(i1, j), c = m_impl->node(i, j1), d = m_impl->node(i1, j1);
  return m_impl->combine(a, b, c, d, static_cast<int>(x & (kNodeSpacing - 1)), static_cast<int>(z & (kNodeSpacing - 1)),
                         x, z);
}

void TerrainModel::sample_area(int64_t x0, int64_t z0, int w, int d, TerrainSample* out) const {
  VOXEN_ASSERT(w >= 1 && w <= 64 && d >= 1 && d <= 64);
  const int64_t i0 = x0 >> kNodeShift, j0 = z0 >> kNodeShift;
  const int64_t x_last = static_cast<int64_t>(static_cast<uint64_t>(x0) + static_cast<uint64_t>(w - 1));
  const int64_t z_last = static_cast<int64_t>(static_cast<uint64_t>(z0) + static_cast<uint64_t>(d - 1));
  const int ni = static_cast<int>((x_last >> kNodeShift) - i0) + 2;
  const int nj = static_cast<int>((z_last >> kNodeShift) - j0) + 2;
  thread_local std::vector<Node> nodes;
  thread_local std::vector<double> det;
  nodes.resize(static_cast<size_t>(ni * nj));
  det.resize(static_cast<size_t>(w * d));
  m_impl->node_grid(i0, j0, 1, ni, nj, nodes.data());
  m_impl->detail.grid(x0, z0, 1, w, d, det.data());
  for (int dz = 0; dz < d; ++dz) {
    const int64_t z = static_cast<int64_t>(static_cast<uint64_t>(z0) + static_cast<uint64_t>(dz));
    const int j = static_cast<int>((z >> kNodeShift) - j0);
    for (int dx = 0; dx < w; ++dx) {
      const int64_t x = static_cast<int64_t>(static_cast<uint64_t>(x0) + static_cast<uint64_t>(dx));
      const int i = static_cast<int>((x >> kNodeShift) - i0);
      const Node* n = &nodes[static_cast<size_t>(j * ni + i)];
      out[dz * w + dx] = m_impl->combine(n[0], n[1], n[ni], n[ni + 1], static_cast<int>(x & (kNodeSpacing - 1)),
                                         static_cast<int>(z & (kNodeSpacing - 1)), x, z, det[static_cast<size_t>(dz * w + dx)]);
    }
  }
}

void TerrainModel::sample_grid(int64_t x0, int64_t z0, int stride, int w, int d, TerrainSample* out) const {
  VOXEN_ASSERT(stride >= 1 && w >= 1 && d >= 1 && int64_t{w} * stride <= (int64_t{1} << 20) &&
               int64_t{d} * stride <= (int64_t{1} << 20));
  auto at = [](int64_t base, int64_t k, int step) {
    return static_cast<int64_t>(static_cast<uint64_t>(base) + static_cast<uint64_t>(k) * static_cast<uint64_t>(step));
  };
  if (stride % kNodeSpacing == 0 && (x0 & (kNodeSpacing - 1)) == 0 && (z0 & (kNodeSpacing - 1)) == 0) {
    // Every point is a node: the interpolation weights are 0, and lerp(a, b, 0) = a + 0 * (b - a) = a exactly
    // for finite values, so passing the one node for all four corners gives sample()'s bits.
    const size_t n = static_cast<size_t>(w) * static_cast<size_t>(d);
    thread_local std::vector<Node> grid_nodes;
    thread_local std::vector<double> grid_det;
    grid_nodes.resize(n);
    grid_det.resize(n);
    m_impl->node_grid(x0 >> kNodeShift, z0 >> kNodeShift, stride >> kNodeShift, w, d, grid_nodes.data());
    m_impl->detail.grid(x0, z0, stride, w, d, grid_det.data());
    for (int j = 0; j < d; ++j) {
      const int64_t z = at(z0, j, stride);
      for (int i = 0; i < w; ++i) {
        const int64_t x = at(x0, i, stride);
        const size_t k = static_cast<size_t>(j) * static_cast<size_t>(w) + static_cast<size_t>(i);
        const Node& nd = grid_nodes[k];
        out[k] = m_impl->combine(nd, nd, nd, nd, 0, 0, x, z, grid_det[k]);
      }
    }
    return;
  }
  const int64_t i0 = x0 >> kNodeShift, j0 = z0 >> kNodeShift;
  const int ni = static_cast<int>((at(x0, w - 1, stride) >> kNodeShift) - i0) + 2;
  const int nj = static_cast<int>((at(z0, d - 1, stride) >> kNodeShift) - j0) + 2;
  thread_local std::vector<Node> nodes;
  thread_local std::vector<uint8_t> have;
  thread_local std::vector<double> det;
  nodes.resize(static_cast<size_t>(ni) * static_cast<size_t>(nj));
  // Up to a step of 8 blocks every node of the area is some sample's corner: all at once (the corners of their
  // noise hashed once); sparser grids compute the nodes they meet, each alone.
  const bool dense = stride <= 2 * kNodeSpacing;
  have.assign(nodes.size(), dense ? 1 : 0);
  if (dense) m_impl->node_grid(i0, j0, 1, ni, nj, nodes.data());
  det.resize(static_cast<size_t>(w) * static_cast<size_t>(d));
  m_impl->detail.grid(x0, z0, stride, w, d, det.data());
  auto node = [&](int i, int j) -> const Node& {
    const size_t k = static_cast<size_t>(j) * static_cast<size_t>(ni) + static_cast<size_t>(i);
    if (!have[k]) {
      nodes[k] = m_impl->node(at(i0, i, 1), at(j0, j, 1));
      have[k] = 1;
    }
    return nodes[k];
  };
  for (int jj = 0; jj < d; ++jj) {
    const int64_t z = at(z0, jj, stride);
    const int j = static_cast<int>((z >> kNodeShift) - j0);
    for (int ii = 0; ii < w; ++ii) {
      const int64_t x = at(x0, ii, stride);
      const int i = static_cast<int>((x >> kNodeShift) - i0);
      out[jj * w + ii] = m_impl->combine(node(i, j), node(i + 1, j), node(i, j + 1), node(i + 1, j + 1),
                                         static_cast<int>(x & (kNodeSpacing - 1)), static_cast<int>(z & (kNodeSpacing - 1)), x, z,
                                         det[static_cast<size_t>(jj) * static_cast<size_t>(w) + static_cast<size_t>(ii)]);
    }
  }
}

}  // namespace voxen::gen
