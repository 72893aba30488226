// Every real .vox file in ../shared/data/vox imports: its model and voxel counts match SOURCES.md (the sum of
// its XYZI counts), and the placed cells equal an independent oracle that evaluates the scene graph with
// floating-point 4x4 matrices (vengi's `floor(M * (v + 0.5 - floor(size / 2)))` formulation) and a std::map.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include "voxen/import/vox_place.h"

namespace voxen::import {
namespace {

struct RealFile {
  const char* name;
  size_t models;
  uint64_t voxels;  // SOURCES.md: the sum of numVoxels over every XYZI chunk
};

constexpr RealFile kFiles[] = {
    {"mmmm_chr_mike.vox", 1, 291},
    {"mmmm_chr_beardo3.vox", 1, 299},
    {"mmmm_scene_store8.vox", 1, 441118},
    {"floooh_scene.vox", 1, 45220},
    {"ogt_test_multiple_model_scene.vox", 41, 6053},
    {"dotvox_axes.vox", 4, 4372},
    {"dotvox_placeholder-with-materials.vox", 1, 4},
    {"bevyvoxscene_study.vox", 16, 259281},
};

std::string vox_dir() { return std::string(VOXEN_SHARED_DATA_DIR) + "/vox"; }

using Mat = std::array<std::array<double, 4>, 4>;

Mat identity() {
  Mat m{};
  for (int i = 0; i < 4; ++i) m[i][i] = 1;
  return m;
}
Mat mul(const Mat& a, const Mat& b) {
  Mat r{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) r[i][j] += a[i][k] * b[k][j];
  return r;
}

using Key = std::tuple<int64_t, int64_t, int64_t>;

/// Keeps `color` at `key` unless the cell holds a colour of a stronger material: opaque beats glass and _blend,
/// which beat _media; among equals the later call (placed later in scene order) wins.
void keep(const VoxFile& f, std::map<Key, uint8_t>& out, const Key& key, uint8_t color) {
  auto strength = [&](uint8_t c) {
    const VoxMaterial& m = f.materials[c];
    if (!m.present) return 2;
    if (m.type == VoxMaterialType::kMedia) return 0;
    return m.type == VoxMaterialType::kGlass || m.type == VoxMaterialType::kBlend ? 1 : 2;
  };
  auto [it, fresh] = out.emplace(key, color);
  if (!fresh && strength(color) >= strength(it->second)) it->second = color;
}

/// The oracle: recursion over the node tree with matrices, hidden per node flag and layer flag, overlaps as keep().
void oracle_walk(const VoxFile& f, uint32_t id, const Mat& m, bool hidden, std::map<Key, uint8_t>& out, int depth) {
  ASSERT_LT(depth, 1000);
  const VoxNode* n = nullptr;
  for (const auto& node : f.nodes)
    if (node.id == id) n = &node;
  ASSERT_NE(n, nullptr);
  if (n->kind == VoxNodeKind::kTransform) {
    Mat local = identity();
    if (!n->frames.empty()) {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) local[i][j] = n->frames[0].rotation.m[i][j];
        local[i][3] = n->frames[0].translation[i];
      }
    }
    bool h = hidden || n->hidden;
    if (n->layer >= 0)
      for (const auto& l : f.layers)
        if (l.id == n->layer && l.hidden) h = true;
    oracle_walk(f, n->child, mul(m, local), h, out, depth + 1);
  } else if (n->kind == VoxNodeKind::kGroup) {
    for (uint32_t c : n->children) oracle_walk(f, c, m, hidden, out, depth + 1);
  } else if (!hidden) {
    const VoxModel& model = f.models[n->models[0].first];
    const double p[3] = {std::floor(model.size_x / 2.0), std::floor(model.size_y / 2.0), std::floor(model.size_z / 2.0)};
    for (const VoxVoxel& v : model.voxels) {
      if (v.color == 0) continue;
      const double local[4] = {v.x + 0.5 - p[0], v.y + 0.5 - p[1], v.z + 0.5 - p[2], 1.0};
      int64_t c[3];
      for (int i = 0; i < 3; ++i) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += m[i][k] * local[k];
        c[i] = static_cast<int64_t>(std::floor(s));
      }
      keep(f, out, Key{c[0], c[2], -c[1] - 1}, v.color);  // voxen axes
    }
  }
}

std::map<Key, uint8_t> oracle(const VoxFile& f) {
  std::map<Key, uint8_t> out;
  if (f.nodes.empty()) {
    for (const auto& model : f.models)
      for (const VoxVoxel& v : model.voxels) {
        if (v.color == 0) continue;
        const int64_t c[3] = {int64_t{v.x} - model.size_x / 2, int64_t{v.y} - model.size_y / 2,
                              int64_t{v.z} - model.size_z / 2};
        keep(f, out, Key{c[0], c[2], -c[1] - 1}, v.color);
      }
    return out;
  }
  oracle_walk(f, 0, identity(), false, out, 0);
  return out;
}

class RealVoxFiles : public ::testing::TestWithParam<RealFile> {};

TEST_P(RealVoxFiles, ImportsWithTheCountsAndCellsTheSceneGraphPlaces) {
  const RealFile rf = GetParam();
  const std::string path = vox_dir() + "/" + rf.name;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data file " << path << " is absent (../shared/data)";
  auto f = read_vox_file(path);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  for (const auto& w : f->warnings) std::printf("  warning: %s\n", w.to_string().c_str());
  EXPECT_EQ(f->models.size(), rf.models);
  EXPECT_EQ(f->voxel_count(), rf.voxels);

  const auto want = oracle(*f);
  auto scene = evaluate_scene(*f);
  ASSERT_TRUE(scene.ok()) << scene.error().to_string();
  ASSERT_EQ(scene->voxels.size(), want.size());
  size_t i = 0;
  for (const auto& [key, color] : want) {  // both sorted by (x, y, z)
    const SceneVoxel& v = scene->voxels[i++];
    ASSERT_EQ((Key{v.x, v.y, v.z}), key) << "cell " << i;
    ASSERT_EQ(v.color, color) << "cell " << i;
  }

  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg.ok());
  World world;
  VoxPlaceOptions o;
  o.anchor = VoxAnchor::kGroundCentre;
  auto stats = import_vox_file(world, *reg, path, o);
  ASSERT_TRUE(stats.ok()) << stats.error().to_string();
  EXPECT_EQ(stats->models, rf.models);
  EXPECT_EQ(stats->voxels, rf.voxels);
  EXPECT_EQ(stats->placed_voxels, want.size());
  EXPECT_EQ(stats->min.y, 0);
  // Every placed cell holds the block of its colour.
  const BlockPos off{stats->min.x - scene->min[0], stats->min.y - scene->min[1], stats->min.z - scene->min[2]};
  for (const SceneVoxel& v : scene->voxels) {
    const Cell c = world.get({off.x + v.x, off.y + v.y, off.z + v.z});
    ASSERT_EQ(c, stats->cells[v.color]);
    ASSERT_NE(c.id, kAirId);
  }
  std::printf("  %s: %zu models, %llu voxels, %llu placed, %u instances (%u hidden), %u blocks added, bounds "
              "(%lld,%lld,%lld)..(%lld,%lld,%lld)\n",
              rf.name, f->models.size(), static_cast<unsigned long long>(stats->voxels),
              static_cast<unsigned long long>(stats->placed_voxels), stats->instances, stats->hidden_instances,
              stats->blocks_added, static_cast<long long>(stats->min.x), static_cast<long long>(stats->min.y),
              static_cast<long long>(stats->min.z), static_cast<long long>(stats->max.x),
              static_cast<long long>(stats->max.y), static_cast<long long>(stats->max.z));
}

INSTANTIATE_TEST_SUITE_P(SharedData, RealVoxFiles, ::testing::ValuesIn(kFiles),
                         [](const ::testing::TestParamInfo<RealFile>& param_info) {
                           std::string n = param_info.param.name;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace voxen::import
