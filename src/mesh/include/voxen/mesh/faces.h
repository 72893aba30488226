// Unit faces: the common currency in which the fast mesher's output and the reference mesher's output are compared.
// A FaceRecord is one quad's unpacked fields plus the list it was drawn into. Splitting a greedy mesh back into unit
// faces (unit_faces) turns every merged rectangle of whole cells into its 1 x 1 cell faces, each carrying the
// merged quad's corner values, which equal every merged face's own (merging requires four equal corners).
// Threads: pure functions.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "voxen/mesh/baked.h"
#include "voxen/mesh/mesher.h"
#include "voxen/mesh/quad.h"

namespace voxen::mesh {

/// One quad, unpacked, and its list.
struct FaceRecord {
  MeshList list = kListOpaque;
  QuadFields f;

  /// Every field as an ordered tuple (for sorting and equality): list, origin, extents, face, kind, texture, flow,
  /// flip, AO, light, heights.
  std::array<int, 23> key() const;
  friend bool operator==(const FaceRecord& a, const FaceRecord& b) { return a.key() == b.key(); }
  friend bool operator<(const FaceRecord& a, const FaceRecord& b) { return a.key() < b.key(); }
  /// One line naming every field, for test failure messages.
  std::string to_string() const;
};

/// Every quad of a mesh as a FaceRecord, as stored (merged quads stay whole).
std::vector<FaceRecord> records(const SectionMesh& mesh);

/// The mesh split back into unit faces: an axis quad whose extents are whole cells (even numbers of half-blocks)
/// becomes one record per cell it spans, with the quad's corner values, flow and heights; every other quad (a
/// shape's part face, a slope, a triangle, a cross) stays as it is. Sorted.
std::vector<FaceRecord> unit_faces(const SectionMesh& mesh);

/// Number of unit faces the mesh stands for (the size unit_faces would return), without building them.
size_t unit_face_count(const SectionMesh& mesh);

}  // namespace voxen::mesh
