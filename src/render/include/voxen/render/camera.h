// The camera and the floating origin.
//
// The eye's world position is an int64 block coordinate plus a fraction in [0, 1) per axis, so it is exact
// anywhere in the int64 world. Everything the GPU sees is camera-relative: a section's offset from the eye is
// computed as double(int64 section origin - int64 eye block) - eye fraction (exact: the int64 difference is small),
// then rounded once to float; the view matrix is rotation only. So float32 never sees a large coordinate and a
// scene 2^40 blocks out renders the same pixels as at the origin (VoxelBlox's rule, made exact).
//
// Angles: yaw in degrees, 0 looks toward -Z (north), 90 toward +X (east); pitch in degrees, positive looks up
// (clamped to +-89.9). fov_y is the vertical field of view in degrees. Y up, right-handed (OpenGL clip space).
// Threads: plain values.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include <glm/glm.hpp>

#include "voxen/core/coords.h"

namespace voxen::render {

using voxen::coord_delta;  // core/coords.h

struct Camera {
  BlockPos block;                      // integer part of the eye position (world blocks)
  glm::dvec3 frac{0.5, 0.5, 0.5};      // fractional part, each in [0, 1)
  double yaw_deg = 0.0;
  double pitch_deg = 0.0;
  double fov_y_deg = 70.0;
  double aspect = 16.0 / 9.0;          // width / height
  double near_plane = 0.1;             // blocks
  double far_plane = 1000.0;           // blocks

  /// A camera whose eye is at integer block coordinates `block` plus `frac` (each in [0, 1); VOXEN_ASSERT).
  static Camera at(const BlockPos& block, glm::dvec3 frac = {0.0, 0.0, 0.0});

  /// Unit view direction (world space).
  glm::dvec3 forward() const;
  /// A pixel's size in radians at the picture's centre, vertically, for a picture `height` pixels tall (at least
  /// 1): 2 tan(fov_y / 2) / height. Blocks per pixel at distance d are d times this.
  double pixel_angle(int height) const;
  /// The eye-relative position of a world point given as int64 block + fraction: exact to double precision.
  glm::dvec3 relative(const BlockPos& p, glm::dvec3 p_frac = {0.0, 0.0, 0.0}) const {
    return glm::dvec3(static_cast<double>(coord_delta(p.x, block.x)), static_cast<double>(coord_delta(p.y, block.y)),
                      static_cast<double>(coord_delta(p.z, block.z))) +
           p_frac - frac;
  }
  /// Rotation-only view matrix (the eye at the origin of camera-relative space).
  glm::dmat4 view_rotation() const;
  /// Perspective projection (OpenGL clip space, depth -1..1).
  glm::dmat4 projection() const;
  /// projection() * view_rotation(): maps camera-relative positions to clip space.
  glm::dmat4 view_projection() const { return projection() * view_rotation(); }
};

/// Horizontal distance in blocks from the eye to the nearest point of a 16 x 16-block footprint (a column's, or a
/// section's) whose min corner is at camera-relative (rel_x, rel_z) (Camera::relative); 0 when the eye is above or
/// below it. The one eye-to-column rule: a column is within the render distance when this is <= the render radius
/// (render_radius_blocks), for the draw set (stream::columns_for_view, the column streamer) and for the fog, whose
/// end (FrameParams::fog_end) culls the sections beyond it, so the fog ends exactly where the draw set does.
inline double footprint_distance(double rel_x, double rel_z) {
  const double nx = std::max({rel_x, 0.0, -(rel_x + kColumnWidth)});
  const double nz = std::max({rel_z, 0.0, -(rel_z + kColumnWidth)});
  return std::sqrt(nx * nx + nz * nz);
}

/// The render radius in blocks of a render distance of `columns` columns: the draw set's radius and the fog's end.
constexpr double render_radius_blocks(int columns) { return columns * static_cast<double>(kColumnWidth); }

/// The six planes of a view frustum in camera-relative space, each (n, d) with n pointing inside and normalised:
/// a point p is inside a plane when dot(n, p) + d >= 0. Planes: left, right, bottom, top, near, far.
/// Extracted from a view-projection matrix (Gribb and Hartmann, "Fast Extraction of Viewing Frustum Planes from
/// the World-View-Projection Matrix", 2001).
struct Frustum {
  std::array<glm::dvec4, 6> planes;
  static Frustum from_matrix(const glm::dmat4& view_projection);
  /// Conservative box test (the "positive vertex" test) of the box [min, min + size]: false only if the box lies
  /// wholly outside one plane. The same arithmetic as cull_boxes, so both agree bit for bit.
  bool intersects_box(const glm::dvec3& min, const glm::dvec3& size) const;
};

/// Batch frustum culling over boxes in structure-of-arrays form (after filament's Culler): box i spans
/// [min_x[i], min_x[i] + size_x] x [min_y[i], min_y[i] + size_y] x [min_z[i], min_z[i] + size_z], camera-relative.
/// Writes visible[i] = 1 if the box may intersect the frustum, 0 if it is surely outside. The loops run plane by
/// plane over all boxes so the compiler vectorises them; the result equals Frustum::intersects_box(min, size) per box.
void cull_boxes(const Frustum& frustum, const double* min_x, const double* min_y, const double* min_z, size_t count,
                glm::dvec3 size, uint8_t* visible);

}  // namespace voxen::render
