#include "surface.h"

#include "voxen/core/hash.h"

namespace voxen::gen {

SurfaceRules::SurfaceRules(uint64_t seed, const BlockIds& ids)
    : m_ids(ids), m_patch(derive_seed(seed, 0x51), 5, 2), m_depth_seed(derive_seed(seed, 0x52)) {}

SurfaceLayers SurfaceRules::layers(int64_t x, int64_t z, const TerrainSample& s, int slope) const {
  const BlockIds& b = m_ids;
  const double patch = m_patch(x, z);
  const int extra = static_cast<int>(hash2(m_depth_seed, x, z) & 1);  // soil depth varies by a block
  const int h = s.height;
  const bool underwater = h < kSeaLevel;
  SurfaceLayers L;
  switch (s.biome) {
    case Biome::kOcean: {
      const uint16_t floor = (patch > 0.3 && h < 58) ? b.clay : (h >= 52 ? b.sand : b.gravel);
      L = {floor, floor, floor == b.sand ? b.sandstone : b.stone, 3 + extra, floor == b.sand ? 2 : 0};
      break;
    }
    case Biome::kBeach:
      L = {b.sand, b.sand, b.sandstone, 3 + extra, 2};
      break;
    case Biome::kDesert:
      L = {b.sand, b.sand, b.sandstone, 3 + extra, 4};
      break;
    case Biome::kPlains:
    case Biome::kForest:
      if (underwater) {
        const uint16_t floor = patch > 0.25 ? b.clay : (h >= 58 ? b.sand : b.dirt);
        L = {floor, b.dirt, b.stone, 3, 0};
      } else {
        L = {b.grass, b.dirt, b.stone, 3 + extra, 0};
      }
      break;
    case Biome::kSnowyTundra:
      if (underwater)
        L = {b.gravel, b.dirt, b.stone, 2, 0};
      else
        L = {b.snow, b.dirt, b.stone, 3 + extra, 0};
      break;
    case Biome::kMountains:
      if (underwater) {
        L = {b.gravel, b.gravel, b.stone, 2, 0};
      } else if (h >= 165 + static_cast<int>(patch * 12)) {
        L = {b.snow, b.snow, b.stone, 1, 0};
      } else if (slope >= 3 || h >= 112 + static_cast<int>(patch * 12)) {
        if (patch > 0.2)
          L = {b.gravel, b.gravel, b.stone, 1 + extra, 0};
        else
          L = {b.stone, b.stone, b.stone, 0, 0};
      } else {
        L = {b.grass, b.dirt, b.stone, 2 + extra, 0};
      }
      break;
  }
  return L;
}

}  // namespace voxen::gen
