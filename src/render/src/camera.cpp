#include "voxen/render/camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

#include "voxen/core/error.h"

namespace voxen::render {
namespace {
constexpr double kPi = 3.14159265358979323846;
double radians(double deg) { return deg * kPi / 180.0; }
double clamped_pitch(double p) { return std::clamp(p, -89.9, 89.9); }
}  // namespace

Camera Camera::at(const BlockPos& block, glm::dvec3 frac) {
  VOXEN_ASSERT(frac.x >= 0.0 && frac.x < 1.0 && frac.y >= 0.0 && frac.y < 1.0 && frac.z >= 0.0 && frac.z < 1.0);
  Camera c;
  c.block = block;
  c.frac = frac;
  return c;
}

double Camera::pixel_angle(int height) const {
  return 2.0 * std::tan(fov_y_deg * 3.14159265358979323846 / 360.0) / std::max(height, 1);
}

glm::dvec3 Camera::forward() const {
  const double yaw = radians(yaw_deg), pitch = radians(clamped_pitch(pitch_deg));
  return {std::sin(yaw) * std::cos(pitch), std::sin(pitch), -std::cos(yaw) * std::cos(pitch)};
}

glm::dmat4 Camera::view_rotation() const {
  return glm::lookAt(glm::dvec3(0.0), forward(), glm::dvec3(0.0, 1.0, 0.0));
}

glm::dmat4 Camera::projection() const {
  return glm::perspective(radians(fov_y_deg), aspect, near_plane, far_plane);
}

Frustum Frustum::from_matrix(const glm::dmat4& m) {
  // Rows of the matrix (glm is column-major: m[col][row]).
  auto row = [&](int r) { return glm::dvec4(m[0][r], m[1][r], m[2][r], m[3][r]); };
  const glm::dvec4 r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
  Frustum f;
  f.planes = {r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 + r2, r3 - r2};
  for (auto& p : f.planes) p /= glm::length(glm::dvec3(p));
  return f;
}

bool Frustum::intersects_box(const glm::dvec3& min, const glm::dvec3& size) const {
  for (const auto& p : planes) {
    const double ox = p.x >= 0 ? size.x : 0.0, oy = p.y >= 0 ? size.y : 0.0, oz = p.z >= 0 ? size.z : 0.0;
    const double d = p.w + p.x * ox + p.y * oy + p.z * oz;
    if (p.x * min.x + p.y * min.y + p.z * min.z + d < 0.0) return false;
  }
  return true;
}

void cull_boxes(const Frustum& frustum, const double* min_x, const double* min_y, const double* min_z, size_t count,
                glm::dvec3 size, uint8_t* visible) {
  for (size_t i = 0; i < count; ++i) visible[i] = 1;
  for (const auto& p : frustum.planes) {
    // The box corner furthest along the plane normal is min + size where the normal is positive.
    const double ox = p.x >= 0 ? size.x : 0.0, oy = p.y >= 0 ? size.y : 0.0, oz = p.z >= 0 ? size.z : 0.0;
    const double nx = p.x, ny = p.y, nz = p.z, d = p.w + nx * ox + ny * oy + nz * oz;
    for (size_t i = 0; i < count; ++i) {
      const double s = nx * min_x[i] + ny * min_y[i] + nz * min_z[i] + d;
      visible[i] = static_cast<uint8_t>(visible[i] & (s >= 0.0 ? 1 : 0));
    }
  }
}

}  // namespace voxen::render
