// Scene-graph validation and evaluation (conventions in vox_scene.h).
#include "voxen/import/vox_scene.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

namespace voxen::import {
namespace {

constexpr int64_t floor_div2(int64_t a) { return a >= 0 ? a / 2 : -((-a + 1) / 2); }

std::string node_label(const VoxNode& n) {
  static constexpr const char* kKind[3] = {"nTRN", "nGRP", "nSHP"};
  return "chunk '" + std::string(kKind[static_cast<int>(n.kind)]) + "' at byte " + std::to_string(n.offset) +
         ": node " + std::to_string(n.id);
}

VoxTransform frame_transform(const VoxNode& n) {
  VoxTransform t;
  if (n.frames.empty()) return t;
  t.rotation = n.frames[0].rotation;
  for (size_t i = 0; i < 3; ++i) t.translation[i] = n.frames[0].translation[i];
  return t;
}

std::unordered_map<uint32_t, size_t> node_index(const VoxFile& file) {
  std::unordered_map<uint32_t, size_t> index;
  index.reserve(file.nodes.size());
  for (size_t i = 0; i < file.nodes.size(); ++i) index.emplace(file.nodes[i].id, i);
  return index;
}

}  // namespace

std::optional<VoxRotation> VoxRotation::decode(uint32_t bits) {
  if (bits > 127) return std::nullopt;
  const uint32_t r0 = bits & 3;
  const uint32_t r1 = (bits >> 2) & 3;
  if (r0 == 3 || r1 == 3 || r0 == r1) return std::nullopt;
  const uint32_t r2 = 3 - r0 - r1;  // the column left: {0, 1, 2} minus the other two
  VoxRotation r;
  r.m = {};
  r.m[0][r0] = static_cast<int8_t>((bits >> 4) & 1 ? -1 : 1);
  r.m[1][r1] = static_cast<int8_t>((bits >> 5) & 1 ? -1 : 1);
  r.m[2][r2] = static_cast<int8_t>((bits >> 6) & 1 ? -1 : 1);
  return r;
}

uint8_t VoxRotation::encode() const {
  uint32_t bits = 0;
  for (uint32_t row = 0; row < 3; ++row) {
    for (uint32_t col = 0; col < 3; ++col) {
      const int v = m[row][col];
      if (v == 0) continue;
      if (row == 0) bits |= col;
      if (row == 1) bits |= col << 2;
      if (v < 0) bits |= 1u << (4 + row);
    }
  }
  return static_cast<uint8_t>(bits);
}

int VoxRotation::determinant() const {
  int d = 0;
  for (int c = 0; c < 3; ++c) {
    const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    d += m[0][c] * (m[1][c1] * m[2][c2] - m[1][c2] * m[2][c1]);
  }
  return d;
}

VoxRotation VoxRotation::operator*(const VoxRotation& rhs) const {
  VoxRotation out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      int s = 0;
      for (int k = 0; k < 3; ++k) s += m[i][k] * rhs.m[k][j];
      out.m[i][j] = static_cast<int8_t>(s);
    }
  return out;
}

std::array<int64_t, 3> VoxRotation::apply(const std::array<int64_t, 3>& v) const {
  std::array<int64_t, 3> out{};
  for (int i = 0; i < 3; ++i) out[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
  return out;
}

VoxTransform VoxTransform::compose(const VoxTransform& parent, const VoxTransform& child) {
  VoxTransform out;
  out.rotation = parent.rotation * child.rotation;
  const auto moved = parent.rotation.apply(child.translation);
  for (int i = 0; i < 3; ++i) out.translation[i] = moved[i] + parent.translation[i];
  return out;
}

std::array<int64_t, 3> place_model_voxel(const VoxTransform& t, const std::array<uint32_t, 3>& size,
                                         const std::array<int64_t, 3>& v) {
  std::array<int64_t, 3> doubled{};
  for (int i = 0; i < 3; ++i) doubled[i] = 2 * v[i] + 1 - 2 * static_cast<int64_t>(size[i] / 2);
  const auto r = t.rotation.apply(doubled);
  return {t.translation[0] + floor_div2(r[0]), t.translation[1] + floor_div2(r[1]), t.translation[2] + floor_div2(r[2])};
}

Status validate_scene_graph(const VoxFile& file, const std::string& path) {
  if (file.nodes.empty()) return Ok{};
  auto fail = [&](int64_t offset, const std::string& msg) -> Status { return Error{msg, path, -1, offset}; };
  std::unordered_map<uint32_t, size_t> index;
  index.reserve(file.nodes.size());
  for (size_t i = 0; i < file.nodes.size(); ++i) {
    auto [it, inserted] = index.emplace(file.nodes[i].id, i);
    if (!inserted)
      return fail(file.nodes[i].offset, node_label(file.nodes[i]) + ": the id is already used by the node at byte " +
                                            std::to_string(file.nodes[it->second].offset));
  }
  auto root = index.find(0);
  if (root == index.end())
    return fail(file.nodes[0].offset, "the scene graph has " + std::to_string(file.nodes.size()) +
                                          " nodes but no node 0 (the root transform)");
  // Every reference resolved: edges[i] = (child index, byte offset of the reference).
  std::vector<std::vector<std::pair<size_t, int64_t>>> edges(file.nodes.size());
  for (size_t i = 0; i < file.nodes.size(); ++i) {
    const VoxNode& n = file.nodes[i];
    auto link = [&](uint32_t child, int64_t at) -> Status {
      auto it = index.find(child);
      if (it == index.end())
        return fail(at, node_label(n) + ": child node id " + std::to_string(child) + " at byte " + std::to_string(at) +
                            " does not exist");
      edges[i].emplace_back(it->second, at);
      return Ok{};
    };
    if (n.kind == VoxNodeKind::kTransform) {
      if (Status s = link(n.child, n.child_offset); !s) return s;
    } else if (n.kind == VoxNodeKind::kGroup) {
      for (size_t k = 0; k < n.children.size(); ++k)
        if (Status s = link(n.children[k], n.children_offset + static_cast<int64_t>(4 * k)); !s) return s;
    } else {
      for (size_t k = 0; k < n.models.size(); ++k)
        if (n.models[k].first >= file.models.size())
          return fail(n.model_offsets[k], node_label(n) + ": model id " + std::to_string(n.models[k].first) +
                                              " at byte " + std::to_string(n.model_offsets[k]) +
                                              " does not exist (the file has " + std::to_string(file.models.size()) +
                                              " models)");
    }
  }
  // Depth-first from the root: a reference to a node still on the path closes a cycle. Nodes may be shared
  // (MagicaVoxel instances a model by pointing several nTRN at one nSHP), so the graph is a DAG; `visits`
  // counts the nodes of its unfolding (saturating), which bounds the work of scene_instances.
  enum : uint8_t { kNew, kOnPath, kDone };
  std::vector<uint8_t> state(file.nodes.size(), kNew);
  std::vector<uint64_t> visits(file.nodes.size(), 0);
  std::vector<std::pair<size_t, size_t>> stack;  // (node, next edge)
  stack.emplace_back(root->second, 0);
  state[root->second] = kOnPath;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < edges[node].size()) {
      const auto [child, at] = edges[node][next++];
      if (state[child] == kOnPath)
        return fail(at, node_label(file.nodes[node]) + ": child node " + std::to_string(file.nodes[child].id) +
                            " at byte " + std::to_string(at) + " closes a cycle in the scene graph");
      if (state[child] == kNew) {
        state[child] = kOnPath;
        stack.emplace_back(child, 0);
      }
      continue;
    }
    uint64_t v = 1;
    for (const auto& e : edges[node]) v = std::min(v + visits[e.first], kMaxSceneVisits + 1);
    visits[node] = v;
    state[node] = kDone;
    stack.pop_back();
  }
  if (visits[root->second] > kMaxSceneVisits)
    return fail(file.nodes[root->second].offset,
                "the scene graph unfolds into more than " + std::to_string(kMaxSceneVisits) +
                    " node visits (shared nodes nested too deep)");
  return Ok{};
}

std::vector<VoxInstance> scene_instances(const VoxFile& file) {
  std::vector<VoxInstance> out;
  for_each_instance(file, [&](const VoxInstance& inst) { out.push_back(inst); });
  return out;
}

void for_each_instance(const VoxFile& file, const std::function<void(const VoxInstance&)>& visit) {
  if (file.nodes.empty()) {
    for (uint32_t m = 0; m < file.models.size(); ++m) {
      VoxInstance inst;
      inst.model = m;
      inst.shape_node = m;
      visit(inst);
    }
    return;
  }
  const auto index = node_index(file);
  struct Item {
    size_t node;
    VoxTransform transform;
    int32_t layer;
    std::string name;
    bool hidden;
  };
  auto root = index.find(0);
  if (root == index.end()) return;
  std::vector<Item> stack;  // the pending siblings along the current path: at most the file's references
  stack.push_back(Item{root->second, VoxTransform{}, -1, {}, false});
  // The graph is acyclic and its unfolding bounded (validate_scene_graph); shared nodes are visited once per
  // path, which is how MagicaVoxel instances a model.
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    const VoxNode& n = file.nodes[item.node];
    switch (n.kind) {
      case VoxNodeKind::kTransform: {
        auto child = index.find(n.child);
        if (child == index.end()) break;
        Item next{child->second, VoxTransform::compose(item.transform, frame_transform(n)), item.layer,
                  item.name, item.hidden};
        if (n.layer >= 0) {
          next.layer = n.layer;
          if (const VoxLayer* layer = file.find_layer(n.layer); layer && layer->hidden) next.hidden = true;
        }
        if (n.hidden) next.hidden = true;
        if (!n.name.empty()) next.name = n.name;
        stack.push_back(std::move(next));
        break;
      }
      case VoxNodeKind::kGroup:
        for (size_t k = n.children.size(); k-- > 0;) {
          auto child = index.find(n.children[k]);
          if (child == index.end()) continue;
          stack.push_back(Item{child->second, item.transform, item.layer, item.name, item.hidden});
        }
        break;
      case VoxNodeKind::kShape:
        if (n.models.empty() || n.models[0].first >= file.models.size()) break;
        visit(VoxInstance{n.models[0].first, n.id, item.transform, item.layer, item.name, item.hidden});
        break;
    }
  }
}

int overlap_rank(const VoxMaterial& material) {
  if (!material.present) return 2;
  switch (material.type) {
    case VoxMaterialType::kMedia: return 0;
    case VoxMaterialType::kGlass:
    case VoxMaterialType::kBlend: return 1;
    default: return 2;
  }
}

Result<EvaluatedScene> evaluate_scene(const VoxFile& file, uint64_t max_voxels) {
  EvaluatedScene scene;
  struct Placed {
    SceneVoxel v;
    uint64_t priority;  // overlap_rank of its colour << 56 | order placed (< 2^56: at most max_voxels voxels)
  };
  std::array<uint64_t, 256> rank{};  // overlap_rank per colour index, shifted into place
  for (size_t i = 0; i < 256; ++i) rank[i] = static_cast<uint64_t>(overlap_rank(file.materials[i])) << 56;
  // Pass 1: the voxel count, checked against the cap before anything is placed.
  uint64_t total = 0;
  std::optional<Error> too_many;
  for_each_instance(file, [&](const VoxInstance& inst) {
    if (inst.hidden || too_many) return;
    total += file.models[inst.model].voxels.size();
    if (total > max_voxels) {
      const int64_t at = file.find_node(inst.shape_node) >= 0
                             ? file.nodes[static_cast<size_t>(file.find_node(inst.shape_node))].offset
                             : file.models[inst.model].offset;
      too_many = Error{"the scene places more than " + std::to_string(max_voxels) +
                           " voxels over all its instances (reached at the shape node " +
                           std::to_string(inst.shape_node) + ")",
                       "", -1, at};
    }
  });
  if (too_many) return *too_many;
  // Pass 2: place them.
  std::vector<Placed> placed;
  placed.reserve(static_cast<size_t>(total));
  uint64_t order = 0;
  constexpr int64_t kLo = std::numeric_limits<int32_t>::min(), kHi = std::numeric_limits<int32_t>::max();
  std::optional<Error> outside;
  for_each_instance(file, [&](const VoxInstance& inst) {
    if (outside) return;
    if (inst.hidden) {
      ++scene.hidden_instances;
      return;
    }
    ++scene.instances;
    const VoxModel& model = file.models[inst.model];
    const std::array<uint32_t, 3> size{model.size_x, model.size_y, model.size_z};
    for (const VoxVoxel& v : model.voxels) {
      if (v.color == 0) {
        ++scene.empty_color_voxels;
        continue;
      }
      const BlockPos p = vox_to_voxen(place_model_voxel(inst.transform, size, {v.x, v.y, v.z}));
      if (p.x < kLo || p.x > kHi || p.y < kLo || p.y > kHi || p.z < kLo || p.z > kHi) {
        outside = Error{"a voxel of model " + std::to_string(inst.model) + " lands outside the int32 coordinate range",
                        "", -1, model.offset};
        return;
      }
      placed.push_back(Placed{SceneVoxel{static_cast<int32_t>(p.x), static_cast<int32_t>(p.y),
                                         static_cast<int32_t>(p.z), v.color},
                              rank[v.color] | order++});
      ++scene.instance_voxels;
    }
  });
  if (outside) return *outside;
  std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    if (a.v.x != b.v.x) return a.v.x < b.v.x;
    if (a.v.y != b.v.y) return a.v.y < b.v.y;
    if (a.v.z != b.v.z) return a.v.z < b.v.z;
    return a.priority < b.priority;
  });
  scene.voxels.reserve(placed.size());
  for (size_t i = 0; i < placed.size(); ++i) {
    const bool last_of_run = i + 1 == placed.size() || placed[i + 1].v.x != placed[i].v.x ||
                             placed[i + 1].v.y != placed[i].v.y || placed[i + 1].v.z != placed[i].v.z;
    if (last_of_run) scene.voxels.push_back(placed[i].v);  // the highest rank, then the last placed, wins
  }
  if (!scene.voxels.empty()) {
    scene.min = {static_cast<int32_t>(kHi), static_cast<int32_t>(kHi), static_cast<int32_t>(kHi)};
    scene.max = {static_cast<int32_t>(kLo), static_cast<int32_t>(kLo), static_cast<int32_t>(kLo)};
    for (const auto& v : scene.voxels) {
      scene.min = {std::min(scene.min[0], v.x), std::min(scene.min[1], v.y), std::min(scene.min[2], v.z)};
      scene.max = {std::max(scene.max[0], v.x), std::max(scene.max[1], v.y), std::max(scene.max[2], v.z)};
    }
  }
  return scene;
}

}  // namespace voxen::import
