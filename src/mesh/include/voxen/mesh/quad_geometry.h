// The geometry a packed quad stands for: the positions of its four corners, exactly as the renderer's vertex
// shader must compute them (this is the CPU statement of quad.h's rules; docs/formats/quad_format.md). Used by the
// tests (fluid surfaces meet, shapes have the right corners) and as the model for the shader.
//
// Units: 1/64 block, section-local (a section spans 0..1024 on each axis), Y up.
// Threads: pure functions.
#pragma once

#include <array>

#include "voxen/mesh/quad.h"

namespace voxen::mesh {

/// A corner position in 1/64 block, section-local.
struct Corner64 {
  int x = 0, y = 0, z = 0;
  friend bool operator==(const Corner64&, const Corner64&) = default;
};

/// The four corners of a quad (quad.h corner order 0..3). `fluid_record` says the fields came from a 20-byte record:
/// then non-zero heights set each corner's Y to origin Y + height (fluid tops and the sides of open fluid cells).
/// A triangle's removed corner sits on the corner it collapses onto (so corners repeat).
std::array<Corner64, 4> quad_corners(const QuadFields& f, bool fluid_record);

}  // namespace voxen::mesh
