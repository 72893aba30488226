// The analysis the sound tests rely on (audio/analysis.h) checked against what is known: the FFT against a plain
// DFT, the spectral centroid of pure tones, peak / RMS / DC / clipping of made-up signals; and the block -> material
// mapping of the registry (audio/material.h).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "voxen/audio/analysis.h"
#include "voxen/audio/material.h"
#include "voxen/core/hash.h"
#include "voxen/world/block_registry.h"

namespace voxen::audio {
namespace {

TEST(AudioAnalysis, FftIsTheDft) {
  for (size_t n : {1u, 2u, 8u, 64u, 256u}) {
    std::vector<std::complex<double>> a(n);
    for (size_t i = 0; i < n; ++i) a[i] = {hash_to_unit(hash2(5, static_cast<int64_t>(i), 0)) - 0.5, hash_to_unit(hash2(5, static_cast<int64_t>(i), 1)) - 0.5};
    std::vector<std::complex<double>> dft(n);
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < n; ++j)
        dft[k] += a[j] * std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>(k * j) / static_cast<double>(n));
    fft(a);
    for (size_t k = 0; k < n; ++k) EXPECT_LT(std::abs(a[k] - dft[k]), 1e-9) << "n " << n << ", bin " << k;
  }
}

TEST(AudioAnalysis, TheCentroidOfAToneIsItsFrequency) {
  // Tones on a bin of the 4096-point transform: all their energy in that bin.
  for (int bin : {10, 93, 1000}) {
    std::vector<float> x(4096);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(0.5 * std::sin(2 * std::numbers::pi * bin * static_cast<double>(i) / 4096.0));
    EXPECT_NEAR(spectral_centroid(x, 44100), bin * 44100.0 / 4096.0, 1.0) << bin;
  }
  // Two equal tones: halfway between them.
  std::vector<float> x(4096);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(0.4 * std::sin(2 * std::numbers::pi * 100 * static_cast<double>(i) / 4096.0) +
                              0.4 * std::sin(2 * std::numbers::pi * 300 * static_cast<double>(i) / 4096.0));
  EXPECT_NEAR(spectral_centroid(x, 44100), 200 * 44100.0 / 4096.0, 1.0);
  EXPECT_EQ(spectral_centroid(std::vector<float>(100, 0.0f), 44100), 0.0);
  EXPECT_EQ(spectral_centroid({}, 44100), 0.0);
}

TEST(AudioAnalysis, LevelsOfKnownSignals) {
  const std::vector<float> square{0.5f, -0.5f, 0.5f, -0.5f};
  EXPECT_DOUBLE_EQ(peak(square), 0.5);
  EXPECT_DOUBLE_EQ(rms(square), 0.5);
  EXPECT_DOUBLE_EQ(dc_offset(square), 0.0);
  EXPECT_DOUBLE_EQ(largest_step(square), 1.0);
  EXPECT_DOUBLE_EQ(seam_step(square), 1.0);
  EXPECT_DOUBLE_EQ(dc_offset(std::vector<float>{0.25f, 0.75f}), 0.5);
  EXPECT_EQ(clipped_count(std::vector<float>{1.0f, -1.0f, 0.999f, 0.5f, -2.0f}), 3u);
  EXPECT_EQ(clipped_count(std::vector<float>{0.99999f, -0.99999f}), 2u);  // both round to full scale in 16 bits
  EXPECT_EQ(peak({}), 0.0);
  EXPECT_EQ(rms({}), 0.0);
  // 16-bit conversion: full scale maps to +-32767, beyond it is clamped, and back.
  const auto pcm = to_pcm16(std::vector<float>{1.0f, -1.0f, 2.0f, 0.0f, 0.5f});
  EXPECT_EQ(pcm, (std::vector<int16_t>{32767, -32767, 32767, 0, 16384}));
  EXPECT_EQ(clipped_count(to_float(pcm)), 3u);
  EXPECT_EQ(clipped_count(to_float(std::vector<int16_t>{32766, -32766})), 0u);
}

TEST(AudioMaterial, BlocksSoundLikeTheirMaterial) {
  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg) << reg.error().to_string();
  auto of = [&](std::string_view name) { return material_of((*reg)[reg->id(name)]); };
  EXPECT_EQ(of("air"), std::nullopt);
  EXPECT_EQ(of("stone"), Material::kStone);
  EXPECT_EQ(of("cobblestone"), Material::kStone);
  EXPECT_EQ(of("sandstone"), Material::kStone);
  EXPECT_EQ(of("sand"), Material::kSand);
  EXPECT_EQ(of("gravel"), Material::kGravel);
  EXPECT_EQ(of("grass_block"), Material::kDirt);
  EXPECT_EQ(of("dirt"), Material::kDirt);
  EXPECT_EQ(of("planks"), Material::kWood);
  EXPECT_EQ(of("oak_log"), Material::kWood);
  EXPECT_EQ(of("snow"), Material::kSnow);
  EXPECT_EQ(of("glass"), Material::kGlass);
  EXPECT_EQ(of("ice"), Material::kGlass);
  EXPECT_EQ(of("oak_leaves"), Material::kLeaves);
  EXPECT_EQ(of("tall_grass"), Material::kLeaves);  // a plant
  EXPECT_EQ(of("water"), Material::kWater);
  EXPECT_EQ(of("lava"), Material::kWater);
  // Every defined block but air has one, and the names go both ways.
  for (size_t id = 1; id < reg->size(); ++id) {
    const BlockDef& d = (*reg)[static_cast<uint16_t>(id)];
    if (d.defined && !d.is_air()) {
      EXPECT_TRUE(material_of(d)) << d.name;
    }
  }
  for (Material m : kMaterials) EXPECT_EQ(material_from_name(material_name(m)), m);
  EXPECT_EQ(material_from_name("lava"), std::nullopt);
}

}  // namespace
}  // namespace voxen::audio
