// The reference mesher: the oracle for the fast mesher, written for clarity, not speed. It loops over every cell
// of the section and every face direction, reads block properties straight from the BlockRegistry (not the baked
// table), finds each face by scanning the half-block sub-cells of the cell's shape, and computes every corner's
// ambient occlusion and smooth light with plain per-channel integer arithmetic. It shares with the fast mesher
// only the definitions of shapes.h (what a slab, stair, slope is) and the quad format.
//
// Output: unit faces (faces.h), sorted: one record per visible cell face or shape part face, never merged. The
// tests require unit_faces(fast mesh) to equal it exactly, on generated terrain, noise volumes and hand-made cases.
// Threads: a pure function.
#pragma once

#include <vector>

#include "voxen/mesh/faces.h"
#include "voxen/mesh/input.h"
#include "voxen/world/block_registry.h"

namespace voxen::mesh {

/// Every unit face of the section held by `input` (input.h), by the rules of docs/ARCHITECTURE.md (Meshing).
std::vector<FaceRecord> reference_mesh(const BlockRegistry& registry, const SectionInput& input);

}  // namespace voxen::mesh
