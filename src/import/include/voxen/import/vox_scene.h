// The MagicaVoxel scene graph evaluated: instances with composed transforms, and every voxel placed in scene
// space, then in voxen coordinates.
//
// Composition (as MagicaVoxel, ogt_vox and dot_vox do): walking from the root nTRN (node 0) down, each nTRN's
// frame-0 transform (R, t) is applied after its children's: a child point p lands at R p + t in the parent.
// nGRP passes its transform to every child; nSHP places its first model with the accumulated transform.
//
// Pivot (MagicaVoxel's centre convention): a model of size s is centred on the grid vertex floor(s / 2) of its
// own grid. Its voxel v (a unit cell) is rotated as a cell about that vertex and moved by t, so the scene cell is
//     c = t + floor(R (v + 1/2 - floor(s / 2)))        evaluated exactly in integers as
//     c = t + floor_div(R (2 v + 1 - 2 floor(s / 2)), 2)   (each component of R(...) is odd, so the halving is exact)
// Unrotated this is c = t + v - floor(s / 2) for odd and even sizes alike; a reflection of an even axis keeps the
// model's box in place, a reflection of an odd axis moves it by one cell, exactly as MagicaVoxel shows it (the
// same rule as vengi's `floor(M * (v + 0.5 - pivot))` and voxel-io's doubled-pivot arithmetic).
//
// Axes: MagicaVoxel is right-handed Z-up; voxen is right-handed Y-up (X east, Z south). A scene cell
// (x, y, z) of MagicaVoxel covers [x, x+1] x [y, y+1] x [z, z+1]; voxen takes points (x, y, z) -> (x, z, -y),
// a proper rotation (determinant +1), so the cell becomes voxen cell (x, z, -y - 1). vox_to_voxen and
// voxen_to_vox implement this and its inverse.
//
// Visibility: an instance is hidden if any nTRN on its path has _hidden = 1 or names a LAYR whose _hidden = 1;
// hidden instances are listed (flagged) but not placed.
// Files without nodes (pre-0.99) place every model once with the identity transform.
// Threads: pure functions of their inputs.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/import/vox_file.h"

namespace voxen::import {

/// An integer rigid transform of MagicaVoxel scene space: p -> rotation p + translation.
struct VoxTransform {
  VoxRotation rotation;
  std::array<int64_t, 3> translation{0, 0, 0};
  /// parent ∘ child: the transform of a node under `parent` whose own transform is `child`.
  static VoxTransform compose(const VoxTransform& parent, const VoxTransform& child);
  friend bool operator==(const VoxTransform&, const VoxTransform&) = default;
};

/// One placement of a model: the nSHP reached through the scene graph with its accumulated transform.
struct VoxInstance {
  uint32_t model = 0;        // index into VoxFile::models
  uint32_t shape_node = 0;   // id of the nSHP (or the model index for files without a scene graph)
  VoxTransform transform;
  int32_t layer = -1;        // layer of the nearest nTRN above that names one, -1 if none
  std::string name;          // _name of the nearest named nTRN above, if any
  bool hidden = false;
};

/// Most voxels a scene may place over all its visible instances (2^25 = 33554432): evaluate_scene's and
/// VoxPlaceOptions' default cap, and what write_vox refuses to exceed, so every file voxen writes reads back.
inline constexpr uint64_t kMaxSceneVoxels = uint64_t{1} << 25;

/// Most node visits the scene graph's unfolding may take (shared nodes count once per path).
inline constexpr uint64_t kMaxSceneVisits = uint64_t{1} << 24;

/// Every instance of the scene graph in depth-first order (group children in file order), hidden ones
/// included. A node may be shared (several nTRN pointing at one nSHP is how MagicaVoxel instances a model):
/// it yields one instance per path. The graph must have passed validate_scene_graph (references exist, no
/// cycle, bounded unfolding), which every VoxFile returned by read_vox has.
std::vector<VoxInstance> scene_instances(const VoxFile& file);

/// The instances of scene_instances, in the same order, handed to `visit` one at a time: memory is the current
/// path's (bounded by the file's size), not one VoxInstance per instance, so a small file whose shared nodes
/// unfold into millions of instances costs time (at most kMaxSceneVisits node visits), not memory.
void for_each_instance(const VoxFile& file, const std::function<void(const VoxInstance&)>& visit);

/// Scene cell (MagicaVoxel axes) of voxel `v` of a model of `size` placed by `t` (the pivot rule above).
std::array<int64_t, 3> place_model_voxel(const VoxTransform& t, const std::array<uint32_t, 3>& size,
                                         const std::array<int64_t, 3>& v);

/// MagicaVoxel scene cell -> voxen cell: (x, y, z) -> (x, z, -y - 1).
constexpr BlockPos vox_to_voxen(const std::array<int64_t, 3>& c) { return {c[0], c[2], -c[1] - 1}; }
/// voxen cell -> MagicaVoxel scene cell: (x, y, z) -> (x, -z - 1, y).
constexpr std::array<int64_t, 3> voxen_to_vox(const BlockPos& p) { return {p.x, -p.z - 1, p.y}; }

/// One cell of the evaluated scene: voxen axes, relative to the scene origin (the root's space), with the
/// colour index it takes.
struct SceneVoxel {
  int32_t x = 0, y = 0, z = 0;
  uint8_t color = 0;
};

/// Which voxel keeps a cell that several instances fill: the higher rank wins, and among equal ranks the voxel
/// placed last in scene order. Rank by the colour's material: 0 _media (fog, cloud), 1 _glass and _blend
/// (translucent), 2 everything else (opaque: diffuse, metal, emissive, ...). So a cloud or a window placed over
/// a building never replaces the building's cells, whichever comes last.
int overlap_rank(const VoxMaterial& material);

/// The whole scene in voxen axes: distinct cells sorted by (x, y, z); where instances overlap, the voxel of
/// the highest overlap_rank wins, the one placed last in scene order among equals.
struct EvaluatedScene {
  std::vector<SceneVoxel> voxels;
  std::array<int32_t, 3> min{0, 0, 0}, max{-1, -1, -1};  // inclusive cell bounds (min > max when empty)
  uint64_t instance_voxels = 0;   // voxels placed counting every visible instance (before overlaps merge)
  uint32_t instances = 0;         // visible instances
  uint32_t hidden_instances = 0;  // instances skipped as hidden
  uint64_t empty_color_voxels = 0;  // XYZI entries with colour index 0 (skipped)
};

/// Evaluates the scene graph and places every visible voxel. Errors (with the offending node's byte offset):
/// more than `max_voxels` voxels placed over all instances (protects memory from hostile files), or a scene
/// coordinate outside the int32 range.
Result<EvaluatedScene> evaluate_scene(const VoxFile& file, uint64_t max_voxels = kMaxSceneVoxels);

/// Checks the scene graph: node ids unique, root node 0 present when there are nodes, every child and model id
/// existing, no cycle reachable from the root, at most kMaxSceneVisits node visits when unfolded. read_vox calls
/// it; errors name the node's chunk and the byte offset of the bad reference.
Status validate_scene_graph(const VoxFile& file, const std::string& path_for_errors);

}  // namespace voxen::import
