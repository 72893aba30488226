#include "voxen/render/hit_oracle.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace voxen::render {
namespace {

constexpr std::array<glm::dvec3, 6> kFaceNormals{glm::dvec3(1, 0, 0), glm::dvec3(-1, 0, 0), glm::dvec3(0, 1, 0),
                                                 glm::dvec3(0, -1, 0), glm::dvec3(0, 0, 1),
                                                 glm::dvec3(0, 0, -1)};  // HitId::face order (id_frag.glsl)

// The surface point of a probe: its origin less the bias along face `face`'s normal.
glm::dvec3 surface_point(const ShadowProbe& p, int face) {
  return glm::dvec3(p.x, p.y, p.z) - kFaceNormals[static_cast<size_t>(face)] * kShadowProbeBias;
}

// Whether v lies within tol of a multiple of 1/2.
bool on_half_lattice(double v, double tol) { return std::abs(v * 2.0 - std::round(v * 2.0)) <= tol * 2.0; }

// Whether p lies within tol of an edge of the half-block lattice (two of its coordinates on multiples of 1/2).
bool on_lattice_edge(const glm::dvec3& p, double tol) {
  return on_half_lattice(p.x, tol) + on_half_lattice(p.y, tol) + on_half_lattice(p.z, tol) >= 2;
}

// Float rounding in either path at distance `dist` (blocks).
double rounding(double dist) { return 1.0 / 1024.0 + dist * (1.0 / 65536.0); }

// Whether point p lies within tol of the closed unit box of cell h.
bool near_cell(const glm::dvec3& p, const HitId& h, double tol) {
  const glm::dvec3 lo(h.x, h.y, h.z);
  for (int a = 0; a < 3; ++a)
    if (p[a] < lo[a] - tol || p[a] > lo[a] + 1.0 + tol) return false;
  return true;
}

// The smallest angle (radians), seen from `eye`, between the ray through p and the edges of the half-block lattice
// next to p: for each axis k, the line along k through p's other two coordinates rounded to halves, from one block
// before p's block to one after (sampled every 1/256 block: an edge the ray grazes lies beside the hit).
double angle_to_nearby_edge(const glm::dvec3& p, const glm::dvec3& eye) {
  const glm::dvec3 d = glm::normalize(p - eye);
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 3; ++k) {
    glm::dvec3 q = glm::round(p * 2.0) * 0.5;
    const double from = std::floor(p[k]) - 1.0;
    for (int s = 0; s <= 3 * 256; ++s) {
      q[k] = from + s / 256.0;
      const glm::dvec3 u = q - eye;
      const double len = glm::length(u);
      if (len <= 0.0) continue;
      best = std::min(best, std::asin(std::min(1.0, glm::length(glm::cross(d, u)) / len)));
    }
  }
  return best;
}

}  // namespace

HitMatch match_hits(const HitId& raster, const ShadowProbe& raster_probe, const HitId& march,
                    const ShadowProbe& march_probe, const glm::dvec3& eye, double pixel_angle) {
  if (raster == march) return HitMatch::kSame;
  const bool raster_hit = raster.face >= 0 && raster.face <= 5, march_hit = march.face >= 0 && march.face <= 5;
  if (!raster_hit && !march_hit) return HitMatch::kDiffer;  // equal ids aside, "nothing" has no other form
  // The nearer hit (the only one where the other path hit nothing) beside an edge the ray passes within the
  // rasteriser's precision: a silhouette.
  auto silhouette = [&](const glm::dvec3& near) {
    return angle_to_nearby_edge(near, eye) <= pixel_angle / 64.0 ? HitMatch::kSilhouette : HitMatch::kDiffer;
  };
  if (!march_hit) return silhouette(surface_point(raster_probe, raster.face));
  if (!raster_hit) return silhouette(surface_point(march_probe, march.face));
  const glm::dvec3 a = surface_point(raster_probe, raster.face), b = surface_point(march_probe, march.face);
  const double da = glm::length(a - eye), db = glm::length(b - eye);
  const double tol = rounding(std::min(da, db));
  if (da + tol < db) return silhouette(a);
  if (db + tol < da) return silhouette(b);
  for (int i = 0; i < 3; ++i)
    if (std::abs(a[i] - b[i]) > tol) return HitMatch::kDiffer;
  const glm::dvec3 p = (a + b) * 0.5;
  if (!on_lattice_edge(p, tol) || !near_cell(p, raster, tol) || !near_cell(p, march, tol)) return HitMatch::kDiffer;
  return HitMatch::kEdgeTie;
}

HitAgreement match_frames(const std::vector<HitId>& raster, const std::vector<ShadowProbe>& raster_probes,
                          const std::vector<HitId>& march, const std::vector<ShadowProbe>& march_probes,
                          const glm::dvec3& eye, double pixel_angle) {
  HitAgreement out;
  const size_t n = std::min(raster.size(), march.size());
  out.per_pixel.resize(n);
  for (size_t i = 0; i < n; ++i) {
    HitMatch m = HitMatch::kDiffer;
    if (raster[i] == march[i])
      m = HitMatch::kSame;
    else if (i < raster_probes.size() && i < march_probes.size())
      m = match_hits(raster[i], raster_probes[i], march[i], march_probes[i], eye, pixel_angle);
    out.per_pixel[i] = m;
    ++out.pixels;
    out.surface += raster[i].face >= 0;
    out.same += m == HitMatch::kSame;
    out.edge_ties += m == HitMatch::kEdgeTie;
    out.silhouettes += m == HitMatch::kSilhouette;
    out.differ += m == HitMatch::kDiffer;
  }
  return out;
}

}  // namespace voxen::render
