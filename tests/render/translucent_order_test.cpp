// The back-to-front order of a section's translucent quads (translucent_order.h), on the CPU, against a brute-force
// occlusion oracle: for sections meshed by the real mesher from hash-random glass, ice and water (fluid levels give
// sloped tops, ponds give big merged surfaces cut by glass), and for eyes inside and around the section (some on
// its planes exactly), every point sampled on every quad is looked at from the eye, and every quad the sight line
// crosses first must come later in the order. Splitting keeps the faces (the same unit faces), equal keys give
// equal orders, and no set is left unseparated.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "voxen/core/hash.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/faces.h"
#include "voxen/mesh/input.h"
#include "voxen/mesh/mesher.h"
#include "voxen/mesh/quad_geometry.h"
#include "voxen/render/translucent_order.h"
#include "voxen/world/block_registry.h"

using namespace voxen;
using voxen::render::TranslucentOrder;

namespace {

const BlockRegistry& registry() {
  static const BlockRegistry reg = std::move(BlockRegistry::load_default()).value();
  return reg;
}
const mesh::BakedBlocks& baked() {
  static const mesh::BakedBlocks b = std::move(mesh::BakedBlocks::bake(registry())).value();
  return b;
}
Cell cell(const char* name, uint8_t state = 0) { return Cell{registry().id(name), state}; }

using Tri = std::array<glm::dvec3, 3>;

// The two triangles a quad is drawn as (the vertex shader's split: 0-2, or 1-3 with the flip bit).
std::array<Tri, 2> triangles(const mesh::FluidQuad& q) {
  const mesh::QuadFields f = mesh::unpack_quad(q.w, true);
  const auto c = mesh::quad_corners(f, true);
  glm::dvec3 p[4];
  for (int k = 0; k < 4; ++k) p[k] = glm::dvec3(c[static_cast<size_t>(k)].x, c[static_cast<size_t>(k)].y, c[static_cast<size_t>(k)].z);
  if (f.flip) return {Tri{p[1], p[2], p[3]}, Tri{p[1], p[3], p[0]}};
  return {Tri{p[0], p[1], p[2]}, Tri{p[0], p[2], p[3]}};
}

// Whether the open segment from `o` to `o + d` (t in (0, 1), away from both ends) passes through the interior of
// triangle t (Moller and Trumbore, "Fast, minimum storage ray-triangle intersection", 1997), edges excluded.
bool crosses(const glm::dvec3& o, const glm::dvec3& d, const Tri& t) {
  constexpr double kEps = 1e-6;
  const glm::dvec3 e1 = t[1] - t[0], e2 = t[2] - t[0];
  const glm::dvec3 p = glm::cross(d, e2);
  const double det = glm::dot(e1, p);
  if (std::abs(det) < 1e-12) return false;
  const double inv = 1.0 / det;
  const glm::dvec3 s = o - t[0];
  const double u = glm::dot(s, p) * inv;
  if (u <= kEps || u >= 1.0 - kEps) return false;
  const glm::dvec3 qv = glm::cross(s, e1);
  const double v = glm::dot(d, qv) * inv;
  if (v <= kEps || u + v >= 1.0 - kEps) return false;
  const double tt = glm::dot(e2, qv) * inv;
  return tt > kEps && tt < 1.0 - kEps;
}

// Pairs (front, behind) of the quads seen from `eye` where `front` covers a sampled point of `behind`, and the
// order draws `front` first. Empty when the order is a painter's order for this eye.
std::vector<std::string> violations(const std::vector<mesh::FluidQuad>& quads, const std::vector<uint32_t>& order,
                                    const glm::dvec3& eye) {
  std::vector<size_t> rank(quads.size());
  for (size_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  std::vector<std::array<Tri, 2>> tris;
  for (const auto& q : quads) tris.push_back(triangles(q));
  static const double kBary[][2] = {{1.0 / 3, 1.0 / 3}, {0.6, 0.2}, {0.2, 0.6}, {0.2, 0.2}, {0.45, 0.45}, {0.1, 0.45}};
  std::vector<std::string> out;
  // Faces in one plane that overlap (glass touching water): the face of the farther block first.
  for (size_t a = 0; a < quads.size(); ++a)
    for (size_t f = 0; f < quads.size(); ++f) {
      const mesh::QuadFields fa = mesh::unpack_quad(quads[a].w, true), ff = mesh::unpack_quad(quads[f].w, true);
      if (fa.face != (ff.face ^ 1) || rank[f] > rank[a]) continue;
      const auto ca = mesh::quad_corners(fa, true), cf = mesh::quad_corners(ff, true);
      double lo_a[3], hi_a[3], lo_f[3], hi_f[3];
      for (int k = 0; k < 3; ++k) {
        auto get = [k](const mesh::Corner64& c) { return k == 0 ? c.x : k == 1 ? c.y : c.z; };
        lo_a[k] = hi_a[k] = get(ca[0]);
        lo_f[k] = hi_f[k] = get(cf[0]);
        for (int i = 1; i < 4; ++i) {
          lo_a[k] = std::min(lo_a[k], get(ca[static_cast<size_t>(i)])), hi_a[k] = std::max(hi_a[k], get(ca[static_cast<size_t>(i)]));
          lo_f[k] = std::min(lo_f[k], get(cf[static_cast<size_t>(i)])), hi_f[k] = std::max(hi_f[k], get(cf[static_cast<size_t>(i)]));
        }
      }
      const int axis = fa.face / 2;
      bool overlap = lo_a[axis] == hi_a[axis] && lo_f[axis] == hi_f[axis] && lo_a[axis] == lo_f[axis];
      for (int k = 0; k < 3; ++k)
        if (k != axis) overlap = overlap && lo_a[k] < hi_f[k] && lo_f[k] < hi_a[k];
      if (!overlap || eye[axis] == lo_a[axis]) continue;
      // f (drawn first) must be the farther block's face and a the nearer one's. a's block lies behind a's
      // normal, so it is the farther block when a's normal points to the eye.
      const bool eye_in_front_of_a = (eye[axis] > lo_a[axis]) == (fa.face % 2 == 0);
      if (eye_in_front_of_a && out.size() < 5)
        out.push_back("coincident quad " + std::to_string(f) + " (drawn " + std::to_string(rank[f]) +
                      ") is the nearer block's face, drawn before quad " + std::to_string(a));
    }
  for (size_t a = 0; a < quads.size(); ++a)
    for (const Tri& t : tris[a])
      for (const auto& b : kBary) {
        const glm::dvec3 p = t[0] + b[0] * (t[1] - t[0]) + b[1] * (t[2] - t[0]);
        const glm::dvec3 d = p - eye;
        for (size_t f = 0; f < quads.size(); ++f) {
          if (f == a || rank[f] > rank[a]) continue;
          if (crosses(eye, d, tris[f][0]) || crosses(eye, d, tris[f][1]))
            if (out.size() < 5)
              out.push_back("quad " + std::to_string(f) + " (drawn " + std::to_string(rank[f]) + ") covers quad " +
                            std::to_string(a) + " (drawn " + std::to_string(rank[a]) + ")");
        }
      }
  return out;
}

// Eyes: around and inside the section (1/64 block), some exactly on block planes.
std::vector<glm::dvec3> eyes(uint64_t seed) {
  std::vector<glm::dvec3> e;
  for (int k = 0; k < 12; ++k) {
    const uint64_t h = hash1(seed, k);
    glm::dvec3 p;
    for (int a = 0; a < 3; ++a) {
      const uint64_t r = hash1(h, a);
      p[a] = -320.0 + static_cast<double>(r % 16640) / 10.0;  // -320 .. 1344
      if (k % 4 == 0 && a == static_cast<int>(k / 4 % 3)) p[a] = 64.0 * static_cast<double>(r % 17);  // on a plane
    }
    e.push_back(p);
  }
  return e;
}

struct Built {
  mesh::SectionMesh mesh;
  TranslucentOrder order;
};

// Meshes a padded input (sky light 15 everywhere unless `lit` sets some block light) and builds the order.
Built build(const mesh::SectionInput& in) {
  Built b;
  mesh::MeshScratch scratch;
  mesh::mesh_section(baked(), in, mesh::MeshOptions{}, scratch, b.mesh);
  b.order.build(b.mesh.translucent);
  return b;
}

mesh::SectionInput empty_input() {
  mesh::SectionInput in;
  for (int y = -1; y <= 16; ++y)
    for (int z = -1; z <= 16; ++z)
      for (int x = -1; x <= 16; ++x) {
        in.set(x, y, z, kAir);
        in.set_light(x, y, z, make_light(15, 0, 0, 0));
      }
  return in;
}

// Checks everything this file promises for one section.
void check(const Built& b, uint64_t seed, const std::string& what) {
  ASSERT_FALSE(b.mesh.translucent.empty()) << what;
  EXPECT_EQ(b.order.unseparated_quads(), 0u) << what;
  // Splitting kept the faces: the same unit faces, only cut differently.
  mesh::SectionMesh split;
  split.translucent = b.order.quads();
  auto before = mesh::unit_faces(b.mesh), after = mesh::unit_faces(split);
  before.erase(std::remove_if(before.begin(), before.end(), [](const mesh::FaceRecord& r) { return r.list != mesh::kListTranslucent; }),
               before.end());
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  EXPECT_TRUE(before == after) << what << ": " << before.size() << " unit faces before the split, " << after.size() << " after";
  std::vector<uint32_t> order, again;
  for (const glm::dvec3& eye : eyes(seed)) {
    b.order.order(eye, order);
    ASSERT_EQ(order.size(), b.order.quads().size());
    const auto bad = violations(b.order.quads(), order, eye);
    EXPECT_TRUE(bad.empty()) << what << ", eye " << eye.x << "," << eye.y << "," << eye.z << ": " << bad.front();
    // An eye nudged without crossing a plane (same key) gets the same order.
    for (const glm::dvec3& nudge : {glm::dvec3(0.25, 0, 0), glm::dvec3(0, -0.25, 0), glm::dvec3(0, 0, 0.25)}) {
      if (!(b.order.key(eye + nudge) == b.order.key(eye))) continue;
      b.order.order(eye + nudge, again);
      EXPECT_EQ(again, order) << what;
    }
  }
}

TEST(TranslucentOrder, RandomGlassIceAndWaterArePaintedBackToFront) {
  const char* kinds[] = {"glass", "ice", "water", "stone"};
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    mesh::SectionInput in = empty_input();
    for (int y = 0; y < 16; ++y)
      for (int z = 0; z < 16; ++z)
        for (int x = 0; x < 16; ++x) {
          const uint64_t h = hash3(seed, x, y, z);
          if (h % 100 >= 4) continue;  // sparse: about 160 blocks, most faces visible
          const char* k = kinds[(h >> 8) % 4];
          in.set(x, y, z, cell(k, std::string(k) == "water" ? state::make_fluid(static_cast<int>((h >> 16) % 8), false) : 0));
        }
    const Built b = build(in);
    check(b, seed, "random section " + std::to_string(seed));
  }
}

TEST(TranslucentOrder, APondWithGlassInAndAboveItIsPaintedBackToFront) {
  // A 12 x 12 pond at y 4 on a stone floor (its surface merges into a few big quads), a glass pillar standing in
  // it, glass and ice floating above, a waterfall of falling water and a glass wall along one shore.
  mesh::SectionInput in = empty_input();
  for (int z = 1; z < 15; ++z)
    for (int x = 1; x < 15; ++x) in.set(x, 3, z, cell("stone"));
  for (int z = 2; z < 14; ++z)
    for (int x = 2; x < 14; ++x) in.set(x, 4, z, cell("water"));
  for (int y = 4; y < 8; ++y) in.set(6, y, 6, cell("glass"));
  in.set(9, 6, 9, cell("glass"));
  in.set(10, 7, 4, cell("ice"));
  for (int y = 5; y < 10; ++y) in.set(12, y, 12, cell("water", state::make_fluid(0, true)));
  for (int x = 2; x < 14; ++x) in.set(x, 5, 2, cell("glass"));
  check(build(in), 77, "pond");
}

TEST(TranslucentOrder, APinwheelOfMergedWallsIsSplitAndPaintedBackToFront) {
  // Four 3-block glass faces round a square seen from above, each one's plane crossing the next (x, z in blocks):
  // z = 1 for x 0..3, x = 3 for z 0..3, z = 3 for x 1..4, x = 1 for z 1..4, all 2 blocks high. No plane divides
  // them without a cut, so one is split (they are merged, uniform quads: the split draws the same pixels).
  auto wall = [](int face, int x, int z, int length) {
    mesh::QuadFields f;
    f.face = face;
    f.x = 2 * x, f.y = 8, f.z = 2 * z;  // half-blocks; y from block 4
    f.w = 2 * length, f.h = 4;
    f.texture = 3;
    for (auto& l : f.light) l = make_light(15, 0, 0, 0);
    return mesh::pack_fluid_quad(f);
  };
  Built b;
  b.mesh.translucent = {wall(kFacePosZ, 0, 1, 3), wall(kFaceNegX, 3, 0, 3), wall(kFaceNegZ, 1, 3, 3),
                        wall(kFacePosX, 1, 1, 3)};
  b.order.build(b.mesh.translucent);
  EXPECT_GT(b.order.split_count(), 0u);
  check(b, 5, "pinwheel");
}

}  // namespace
