#include "voxen/mesh/faces.h"

#include <algorithm>
#include <cstdio>

#include "voxen/mesh/shapes.h"

namespace voxen::mesh {

std::array<int, 23> FaceRecord::key() const {
  return {static_cast<int>(list), f.x, f.y, f.z, f.w, f.h, f.face, static_cast<int>(f.kind), f.texture, f.flow,
          f.flip ? 1 : 0, f.ao[0], f.ao[1], f.ao[2], f.ao[3], f.light[0], f.light[1], f.light[2], f.light[3],
          f.height[0], f.height[1], f.height[2], f.height[3]};
}

std::string FaceRecord::to_string() const {
  static const char* kLists[] = {"opaque", "cutout", "translucent"};
  static const char* kFaces[] = {"+X", "-X", "+Y", "-Y", "+Z", "-Z", "?", "?"};
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "%s origin(%d,%d,%d) %dx%d face %s kind %d tex %d flow %d%s ao %d %d %d %d light %04x %04x %04x %04x "
                "height %d %d %d %d",
                kLists[list % 3], f.x, f.y, f.z, f.w, f.h, kFaces[f.face & 7], static_cast<int>(f.kind), f.texture,
                f.flow, f.flip ? " flip" : "", f.ao[0], f.ao[1], f.ao[2], f.ao[3], f.light[0], f.light[1], f.light[2],
                f.light[3], f.height[0], f.height[1], f.height[2], f.height[3]);
  return buf;
}

std::vector<FaceRecord> records(const SectionMesh& mesh) {
  std::vector<FaceRecord> out;
  out.reserve(mesh.quad_count());
  for (const Quad& q : mesh.opaque) out.push_back({kListOpaque, unpack_quad(q.w, false)});
  for (const Quad& q : mesh.cutout) out.push_back({kListCutout, unpack_quad(q.w, false)});
  for (const FluidQuad& q : mesh.translucent) out.push_back({kListTranslucent, unpack_quad(q.w, true)});
  return out;
}

namespace {

bool splits(const QuadFields& f) {
  return f.kind == QuadKind::kAxis && f.w % 2 == 0 && f.h % 2 == 0 && (f.w > 2 || f.h > 2);
}

}  // namespace

std::vector<FaceRecord> unit_faces(const SectionMesh& mesh) {
  std::vector<FaceRecord> out;
  for (const FaceRecord& r : records(mesh)) {
    if (!splits(r.f)) {
      out.push_back(r);
      continue;
    }
    const FaceAxes& fa = kFaceAxes[r.f.face];
    const int origin[3] = {r.f.x, r.f.y, r.f.z};
    for (int j = 0; j < r.f.h; j += 2)
      for (int i = 0; i < r.f.w; i += 2) {
        FaceRecord u = r;
        int p[3] = {origin[0], origin[1], origin[2]};
        p[fa.u] += i;
        p[fa.v] += j;
        u.f.x = p[0];
        u.f.y = p[1];
        u.f.z = p[2];
        u.f.w = 2;
        u.f.h = 2;
        out.push_back(u);
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t unit_face_count(const SectionMesh& mesh) {
  size_t n = 0;
  const auto count = [&](const uint32_t* w, bool fluid) {
    const QuadFields f = unpack_quad(w, fluid);
    n += splits(f) ? static_cast<size_t>((f.w / 2) * (f.h / 2)) : 1;
  };
  for (const Quad& q : mesh.opaque) count(q.w, false);
  for (const Quad& q : mesh.cutout) count(q.w, false);
  for (const FluidQuad& q : mesh.translucent) count(q.w, true);
  return n;
}

}  // namespace voxen::mesh
