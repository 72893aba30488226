// Back-to-front order of one section's translucent quads (glass, ice, fluids), for the blended pass: a BSP tree
// over axis-aligned planes (Fuchs, Kedem and Naylor, "On visible surface generation by a priori tree structures",
// SIGGRAPH 1980), built once per mesh, walked for an eye position whenever the eye crosses one of its planes.
//
// Space: section-local, in 1/64 block (a section spans 0..1024 on each axis, quad_geometry.h), Y up.
//
// Build (build()): each quad is seen as its corners' bounding box (mesh::quad_corners). A set of quads is divided
// by an axis-aligned plane taken from the boxes' own bounds: quads entirely below it go to the "negative" child,
// entirely above to the "positive" child, quads lying in it stay at the node. The plane chosen cuts no quad if
// any plane can (then the one that balances the two children best); otherwise it may cut merged quads whose four
// corners carry the same light, AO and fluid height (greedy merging makes only such quads bigger than one cell
// face; mesher.h): those are split in two along the plane, at half-block positions, into two records that draw
// the same pixels (texture coordinates come from section-local positions). A set that no plane divides without
// cutting another quad is a leaf ordered by the distance of the quads' box centres (never the case for cubes and
// fluid cells: an integer-block plane separates the faces of any two cells and cuts only merged quads).
//
// Order (order()): at each node the side of the plane away from the eye first, then the quads in the plane,
// then the eye's side. Of the quads in the plane, those whose cell (the cell the face belongs to, behind its
// normal) lies on the far side go first: where a glass face and a water face coincide (glass next to water), the
// face of the farther block is drawn first, the nearer block's face over it.
// Guarantee: for quads that do not intersect each other and no unseparated leaf, this is a painter's order
// from any eye position: wherever quad B covers quad A as seen from the eye (a ray meets B first), A comes before
// B. Sections are drawn far-first by the distance of their centres, which is an occlusion order for equal,
// grid-aligned boxes, so the two together order every translucent face of the view.
// Re-sorting (key()): the order depends only on which side of each node plane the eye is (plus, for a section
// with an unseparated leaf, the eye's cell). key() gives, per axis, the eye's slot among the section's plane
// coordinates; equal keys give equal orders, so a section is re-sorted exactly when its key changes.
// Threads: const methods are safe to call concurrently; build() mutates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/mesh/quad.h"

namespace voxen::render {

/// Where an eye stands relative to one section's planes: equal keys give equal orders.
struct TranslucentSortKey {
  int32_t slot[3] = {0, 0, 0};  // per axis: 2 * (planes below the eye) + 1 if the eye is on one
  int32_t cell[3] = {0, 0, 0};  // the eye's cell clamped to -1..16, only when the section has an unseparated leaf
  friend bool operator==(const TranslucentSortKey&, const TranslucentSortKey&) = default;
};

class TranslucentOrder {
 public:
  /// Builds the tree over a section's translucent quads (20-byte records, section-local). Replaces any earlier
  /// content. Cut merged quads are split, so quads() may hold more records than were given.
  void build(std::span<const mesh::FluidQuad> quads);
  /// Drops everything (quads, tree).
  void clear();

  /// The records the order indexes (the given quads, split where the tree cut them).
  const std::vector<mesh::FluidQuad>& quads() const { return m_quads; }
  /// The key of an eye at `eye` (section-local, 1/64 block; any distance).
  TranslucentSortKey key(const glm::dvec3& eye) const;
  /// The back-to-front order for an eye at `eye`: indices into quads(), each once. Replaces `out`'s contents.
  void order(const glm::dvec3& eye, std::vector<uint32_t>& out) const;
  /// quads() in back-to-front order for `eye`. Replaces `out`'s contents.
  void sorted(const glm::dvec3& eye, std::vector<mesh::FluidQuad>& out) const;

  size_t node_count() const { return m_nodes.size(); }
  /// Records added by splitting cut quads.
  size_t split_count() const { return m_splits; }
  /// Quads in leaves no plane divides (ordered by box-centre distance: not exact).
  size_t unseparated_quads() const { return m_unseparated; }

 private:
  struct Box {
    int32_t lo[3], hi[3];  // 1/64 block
  };
  struct Node {
    uint8_t axis = 0;       // 0 x, 1 y, 2 z; unused by a leaf
    bool leaf = false;      // a set no plane divides: m_list[begin, end) ordered by centre distance
    int32_t coord = 0;      // the plane's coordinate on `axis`, 1/64 block
    int32_t neg = -1, pos = -1;  // children (node indices), -1 when empty
    uint32_t begin = 0;     // m_list[begin, mid): quads in the plane whose cell is on the negative side
    uint32_t mid = 0;       // m_list[mid, end): in the plane, cell on the positive side
    uint32_t end = 0;
  };

  std::vector<mesh::FluidQuad> m_quads;
  std::vector<Box> m_boxes;     // per quad
  std::vector<Node> m_nodes;    // m_nodes[0] is the root when not empty
  std::vector<uint32_t> m_list; // quad indices held by nodes
  std::vector<int32_t> m_planes[3];  // sorted, unique plane coordinates per axis (the key's slots)
  size_t m_splits = 0;
  size_t m_unseparated = 0;
};

}  // namespace voxen::render
