#include "voxen/gen/surface_model.h"

#include <algorithm>

#include "caves.h"
#include "feature_placer.h"
#include "gen_blocks.h"
#include "surface.h"
#include "voxen/core/coords.h"
#include "voxen/core/hash.h"

namespace voxen::gen {

struct SurfaceModel::Impl {
  BlockIds ids;
  TerrainModel model;
  CaveModel caves;
  SurfaceRules surface;
  StructurePlanner structures;
  FeaturePlacer features;
  uint64_t bedrock_seed;
  Impl(uint64_t seed, const BlockRegistry& r)
      : ids(r),
        model(seed),
        caves(seed),
        surface(seed, ids),
        structures(seed, r),
        features(seed, ids, caves, surface, &structures),
        bedrock_seed(derive_seed(seed, 0x71)) {}
};

SurfaceModel::SurfaceModel(uint64_t seed, const BlockRegistry& registry)
    : m_impl(std::make_unique<Impl>(seed, registry)) {}
SurfaceModel::~SurfaceModel() = default;

const TerrainModel& SurfaceModel::terrain() const { return m_impl->model; }

const StructurePlanner& SurfaceModel::structures() const { return m_impl->structures; }

StripeSurface SurfaceModel::stripe(int64_t x, int64_t z, const TerrainSample& s, int slope) const {
  const SurfaceLayers L = m_impl->surface.layers(x, z, s, slope);
  StripeSurface st;
  st.height = s.height;
  st.top = L.top;
  st.under = L.under;
  st.deep = L.deep;
  st.under_depth = L.under_depth;
  st.deep_depth = L.deep_depth;
  st.frozen = s.temperature < kFreezing;
  return st;
}

// The same rules as terrain_generator.cpp's fill_stripe and rock() (kept in step by the gen tests, which compare
// this with generated columns).
uint16_t SurfaceModel::block(int64_t x, int64_t y, int64_t z, const StripeSurface& st) const {
  const BlockIds& b = m_impl->ids;
  if (y < kMinY || y > kMaxY) return kAirId;
  const int64_t h = st.height;
  if (y > h) {
    if (y > kSeaLevel) return kAirId;
    return (y == kSeaLevel && st.frozen) ? b.ice : b.water;
  }
  if (y == h) return st.top;
  if (y >= h - st.under_depth) return st.under;
  if (y >= h - st.under_depth - st.deep_depth) return st.deep;
  if (y <= kMinY + 4) {
    if (y == kMinY) return b.bedrock;
    const uint64_t hb = hash2(m_impl->bedrock_seed, x, z);
    const int i = static_cast<int>(y - kMinY);
    if (static_cast<int>((hb >> (8 * i)) & 0xFF) < (5 - i) * 51) return b.bedrock;
    return b.deepslate;
  }
  if (y < -8) return b.deepslate;
  if (y >= 0) return b.stone;
  const uint64_t hd = hash2(m_impl->bedrock_seed ^ 0xD5ull, x, z);
  const bool stone = static_cast<int>((hd >> (8 * (y + 8))) & 0xFF) < static_cast<int>(y + 9) * 28;
  return stone ? b.stone : b.deepslate;
}

SurfaceModel::Plant SurfaceModel::plant(int64_t x, int64_t z, const TerrainSample& s, const StripeSurface& st) const {
  Plant p;
  if (s.height < kSeaLevel || s.height + 4 > kMaxY) return p;
  m_impl->features.decide_plant(x, z, s, st.top, p.id, p.height);
  return p;
}

SurfaceModel::Cut SurfaceModel::ravine(int64_t x, int64_t z, int height, int lowest_nearby) const {
  // terrain_generator.cpp: carve_top and carve_ravines.
  const int carve_top = lowest_nearby < kSeaLevel ? lowest_nearby - kWaterSeal : height;
  const RavineSpan r = m_impl->caves.ravine(x, z, height);
  Cut c;
  c.bottom = std::max(r.bottom, kCarveFloor);
  c.top = std::min(r.top, carve_top);
  c.any = !r.empty();
  return c;
}

void SurfaceModel::tree_origin(int64_t gx, int64_t gz, int64_t& x, int64_t& z) const {
  m_impl->features.tree_origin(gx, gz, x, z);
}

bool SurfaceModel::plan_tree(int64_t gx, int64_t gz, const TerrainSample& origin, int slope, bool check_caves,
                             TreeSite& out) const {
  PlannedTree t;
  if (!m_impl->features.decide_tree(gx, gz, origin, slope, check_caves, t)) return false;
  const BlockIds& b = m_impl->ids;
  out.x = t.x;
  out.z = t.z;
  out.base = t.base;
  out.height = t.height;
  out.kind = t.kind;
  out.hash = t.hash;
  out.log = t.kind == 1 ? b.birch_log : t.kind == 2 ? b.spruce_log : b.oak_log;
  out.leaves = t.kind == 1 ? b.birch_leaves : t.kind == 2 ? b.spruce_leaves : b.oak_leaves;
  return true;
}

void SurfaceModel::tree_leaves(const TreeSite& t, void (*fn)(void*, int, int, int), void* ctx) const {
  PlannedTree p;
  p.x = t.x;
  p.z = t.z;
  p.base = t.base;
  p.height = t.height;
  p.kind = t.kind;
  p.hash = t.hash;
  FeaturePlacer::for_each_leaf(p, [&](int dx, int y, int dz) { fn(ctx, dx, y, dz); });
}

}  // namespace voxen::gen
