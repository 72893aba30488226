// Faces as polygons in their planes, for the rule "no two faces in one plane over the same area": every axis-aligned
// quad (kinds axis and triangle) of a mesh becomes a convex polygon on the two axes of its plane, at the corner
// positions quad_corners gives (fluid heights, a piece's end pulled in to a crossing, a triangle's removed corner),
// in world 1/64-block units once offset by its section's origin; overlap areas come from clipping one polygon by
// the other (Sutherland and Hodgman, "Reentrant polygon clipping", 1974).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "mesh_test_util.h"
#include "voxen/mesh/quad_geometry.h"
#include "voxen/mesh/shapes.h"

namespace voxen::mesh::testing {

using Point2 = std::array<double, 2>;

/// One face as a polygon in its plane.
struct PlaneFace {
  FaceRecord r;
  int axis = 0;             // the plane's normal axis: 0 x, 1 y, 2 z
  double level = 0;         // the plane's coordinate on that axis, 1/64 block
  std::vector<Point2> poly;  // corners on the plane's other axes (x, z for y planes; z, y for x planes; x, y for z
                            // planes), 1/64 block, counter-clockwise, no repeated corner
  bool fluid = false;       // a fluid's face (by its texture)
};

/// Texture layers of fluid blocks (every face of every fluid-shaped block of the registry).
inline std::set<int> fluid_textures() {
  std::set<int> out;
  const BlockRegistry& reg = registry();
  for (size_t id = 0; id < reg.size(); ++id) {
    const BlockDef& d = reg[static_cast<uint16_t>(id)];
    if (d.defined && d.shape == Shape::kFluid)
      for (uint16_t t : d.face_texture_index) out.insert(t);
  }
  return out;
}

inline double signed_area(const std::vector<Point2>& p) {
  double a = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const Point2& u = p[i];
    const Point2& v = p[(i + 1) % p.size()];
    a += u[0] * v[1] - v[0] * u[1];
  }
  return a / 2;
}

/// The axis-aligned faces of `mesh`, offset by `origin64` (the section's world origin in 1/64 block).
inline std::vector<PlaneFace> plane_faces(const SectionMesh& mesh, std::array<double, 3> origin64 = {0, 0, 0}) {
  static const std::set<int> fluid = fluid_textures();
  std::vector<PlaneFace> out;
  for (const FaceRecord& r : records(mesh)) {
    if (r.f.kind != QuadKind::kAxis && r.f.kind != QuadKind::kTriangle) continue;
    PlaneFace pf;
    pf.r = r;
    pf.axis = kFaceAxes[r.f.face].axis;
    pf.fluid = r.list == kListTranslucent && fluid.count(r.f.texture) > 0;
    const int a0 = pf.axis == 0 ? 2 : 0, a1 = pf.axis == 1 ? 2 : 1;
    for (const Corner64& c : quad_corners(r.f, r.list == kListTranslucent)) {
      const double w[3] = {c.x + origin64[0], c.y + origin64[1], c.z + origin64[2]};
      pf.level = w[pf.axis];
      const Point2 q{w[a0], w[a1]};
      if (pf.poly.empty() || (pf.poly.back() != q && pf.poly.front() != q)) pf.poly.push_back(q);
    }
    if (signed_area(pf.poly) < 0) std::reverse(pf.poly.begin(), pf.poly.end());
    out.push_back(std::move(pf));
  }
  return out;
}

/// Area (1/64 block squared) of the intersection of two convex counter-clockwise polygons.
inline double intersection_area(const std::vector<Point2>& subject, const std::vector<Point2>& clip) {
  if (subject.size() < 3 || clip.size() < 3) return 0;
  std::vector<Point2> out = subject;
  for (size_t i = 0; i < clip.size() && !out.empty(); ++i) {
    const Point2 a = clip[i], b = clip[(i + 1) % clip.size()];
    const auto side = [&](const Point2& p) { return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]); };
    std::vector<Point2> in = std::move(out);
    out.clear();
    for (size_t j = 0; j < in.size(); ++j) {
      const Point2 p = in[j], q = in[(j + 1) % in.size()];
      const double sp = side(p), sq = side(q);
      if (sp >= 0) out.push_back(p);
      if ((sp >= 0) != (sq >= 0)) {
        const double t = sp / (sp - sq);
        out.push_back({p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])});
      }
    }
  }
  return out.size() < 3 ? 0 : std::abs(signed_area(out));
}

/// Overlap area of two faces: 0 unless they lie in the same plane.
inline double overlap_area(const PlaneFace& a, const PlaneFace& b) {
  if (a.axis != b.axis || a.level != b.level) return 0;
  return intersection_area(a.poly, b.poly);
}

/// Whether issue 12's rule ("no two faces in one plane over the same area unless one of them is a cutout") is
/// kept for this pair of faces (docs/ARCHITECTURE.md, Faces and culling; Fluids): a fluid face against any other
/// face (another fluid's too; fluids yield to leaves as well, so no cutout exemption there), and two faces of the
/// translucent list (glass, ice, imported translucent colours). Opaque faces against translucent ones keep it too
/// except where a slope's triangle meets a half-block square (left out here: its faces are whole squares).
inline bool seam_rule_pair(const PlaneFace& a, const PlaneFace& b) {
  return a.fluid || b.fluid || (a.r.list == kListTranslucent && b.r.list == kListTranslucent);
}

/// Requires that no two faces for which seam_rule_pair holds share any area of their plane.
inline ::testing::AssertionResult no_shared_plane_area(const std::vector<PlaneFace>& faces) {
  std::map<std::pair<int, double>, std::vector<const PlaneFace*>> planes;  // (axis, level) -> faces
  for (const PlaneFace& f : faces) planes[{f.axis, f.level}].push_back(&f);
  for (const auto& [plane, list] : planes)
    for (size_t i = 0; i < list.size(); ++i)
      for (size_t j = i + 1; j < list.size(); ++j) {
        const PlaneFace* a = list[i];
        const PlaneFace* b = list[j];
        if (!seam_rule_pair(*a, *b)) continue;
        const double area = intersection_area(a->poly, b->poly);
        if (area > 1e-6)
          return ::testing::AssertionFailure() << "faces overlap by " << area << " / 4096 block^2:\n  "
                                               << a->r.to_string() << "\n  " << b->r.to_string();
      }
  return ::testing::AssertionSuccess();
}

}  // namespace voxen::mesh::testing
