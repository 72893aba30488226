#include "voxen/render/hit_oracle.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace voxen::render {
namespace {

constexpr std::array<std::array<double, 3>, 6> kFaceNormals{
    {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}};  // HitId::face order (id_frag.glsl)

// The surface point of a probe: its origin less the bias along face `face`'s normal.
std::array<double, 3> surface_point(const ShadowProbe& p, int face) {
  const auto& n = kFaceNormals[static_cast<size_t>(face)];
  return {p.x - n[0] * kShadowProbeBias, p.y - n[1] * kShadowProbeBias, p.z - n[2] * kShadowProbeBias};
}

// Whether v lies within tol of a multiple of 1/2.
bool on_half_lattice(double v, double tol) { return std::abs(v * 2.0 - std::round(v * 2.0)) <= tol * 2.0; }

// Whether p lies within tol of an edge of the half-block lattice (two of its coordinates on multiples of 1/2).
bool on_lattice_edge(const std::array<double, 3>& p, double tol) {
  return on_half_lattice(p[0], tol) + on_half_lattice(p[1], tol) + on_half_lattice(p[2], tol) >= 2;
}

double length(const std::array<double, 3>& p) { return std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]); }

// Float rounding in either path at distance `dist` (blocks).
double rounding(double dist) { return 1.0 / 1024.0 + dist * (1.0 / 65536.0); }

// Whether point p lies within tol of the closed unit box of cell h.
bool near_cell(const std::array<double, 3>& p, const HitId& h, double tol) {
  const double lo[3] = {double(h.x), double(h.y), double(h.z)};
  for (int a = 0; a < 3; ++a)
    if (p[a] < lo[a] - tol || p[a] > lo[a] + 1.0 + tol) return false;
  return true;
}

}  // namespace

HitMatch match_hits(const HitId& raster, const ShadowProbe& raster_probe, const HitId& march,
                    const ShadowProbe& march_probe, double pixel_angle) {
  if (raster == march) return HitMatch::kSame;
  const bool raster_hit = raster.face >= 0 && raster.face <= 5, march_hit = march.face >= 0 && march.face <= 5;
  if (!raster_hit && !march_hit) return HitMatch::kDiffer;  // equal ids aside, "nothing" has no other form
  // The nearer hit (the only one where the other path hit nothing) grazing an edge within the rasteriser's
  // precision: a silhouette.
  auto silhouette = [&](const std::array<double, 3>& near) {
    return on_lattice_edge(near, pixel_angle * length(near) / 64.0) ? HitMatch::kSilhouette : HitMatch::kDiffer;
  };
  if (!march_hit) return silhouette(surface_point(raster_probe, raster.face));
  if (!raster_hit) return silhouette(surface_point(march_probe, march.face));
  const auto a = surface_point(raster_probe, raster.face), b = surface_point(march_probe, march.face);
  const double da = length(a), db = length(b);
  const double tol = rounding(std::min(da, db));
  if (da + tol < db) return silhouette(a);
  if (db + tol < da) return silhouette(b);
  for (int i = 0; i < 3; ++i)
    if (std::abs(a[i] - b[i]) > tol) return HitMatch::kDiffer;
  const std::array<double, 3> p{(a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5, (a[2] + b[2]) * 0.5};
  if (!on_lattice_edge(p, tol) || !near_cell(p, raster, tol) || !near_cell(p, march, tol)) return HitMatch::kDiffer;
  return HitMatch::kEdgeTie;
}

HitAgreement match_frames(const std::vector<HitId>& raster, const std::vector<ShadowProbe>& raster_probes,
                          const std::vector<HitId>& march, const std::vector<ShadowProbe>& march_probes,
                          double pixel_angle) {
  HitAgreement out;
  const size_t n = std::min(raster.size(), march.size());
  out.per_pixel.resize(n);
  for (size_t i = 0; i < n; ++i) {
    HitMatch m = HitMatch::kDiffer;
    if (raster[i] == march[i])
      m = HitMatch::kSame;
    else if (i < raster_probes.size() && i < march_probes.size())
      m = match_hits(raster[i], raster_probes[i], march[i], march_probes[i], pixel_angle);
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
