// Camera, floating origin and frustum culling (CPU): yaw/pitch conventions, exact camera-relative offsets far
// from the origin, and the batch culler against a brute-force oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "voxen/core/hash.h"
#include "voxen/render/camera.h"

using namespace voxen;
using namespace voxen::render;

namespace {

TEST(Camera, YawAndPitchConventions) {
  Camera c;
  c.yaw_deg = 0;
  EXPECT_NEAR(c.forward().z, -1.0, 1e-12);  // north
  c.yaw_deg = 90;
  EXPECT_NEAR(c.forward().x, 1.0, 1e-12);  // east
  c.yaw_deg = 180;
  EXPECT_NEAR(c.forward().z, 1.0, 1e-12);  // south
  c.yaw_deg = 0;
  c.pitch_deg = 30;
  EXPECT_NEAR(c.forward().y, 0.5, 1e-12);  // positive looks up
}

TEST(Camera, ProjectsTheViewDirectionToTheScreenCentre) {
  Camera c;
  c.yaw_deg = 37;
  c.pitch_deg = -12;
  const glm::dvec4 clip = c.view_projection() * glm::dvec4(c.forward() * 10.0, 1.0);
  EXPECT_NEAR(clip.x / clip.w, 0.0, 1e-9);
  EXPECT_NEAR(clip.y / clip.w, 0.0, 1e-9);
  // A point up and to the east of a north-looking camera lands up and right.
  Camera n;
  const glm::dvec4 p = n.view_projection() * glm::dvec4(1.0, 1.0, -10.0, 1.0);
  EXPECT_GT(p.x / p.w, 0.0);
  EXPECT_GT(p.y / p.w, 0.0);
}

TEST(Camera, RelativeOffsetsAreExactFarFromTheOrigin) {
  // The same relative arrangement at the origin, at 30 million and at 2^40 blocks: identical doubles.
  const int64_t far_out[] = {0, 30'000'000, int64_t{1} << 40, -(int64_t{1} << 40)};
  const glm::dvec3 frac{0.25, 0.75, 0.125};
  for (int64_t o : far_out) {
    const Camera c = Camera::at({o + 5, 70, o - 3}, frac);
    const glm::dvec3 rel = c.relative({o + 16, 64, o - 32});
    EXPECT_EQ(rel, glm::dvec3(11.0 - 0.25, -6.0 - 0.75, -29.0 - 0.125)) << o;
  }
  EXPECT_EQ(coord_delta(INT64_MIN + 5, INT64_MIN), 5);
}

TEST(Frustum, BatchCullingMatchesThePerBoxTestAndABruteForceOracle) {
  Camera c;
  c.yaw_deg = 20;
  c.pitch_deg = -10;
  c.far_plane = 300;
  const glm::dmat4 vp = c.view_projection();
  const Frustum f = Frustum::from_matrix(vp);
  std::vector<double> mx, my, mz;
  for (int i = 0; i < 5000; ++i) {
    mx.push_back(static_cast<double>(hash1(1, i) % 640) - 320.0);
    my.push_back(static_cast<double>(hash1(2, i) % 384) - 192.0);
    mz.push_back(static_cast<double>(hash1(3, i) % 640) - 320.0);
  }
  std::vector<uint8_t> vis(mx.size());
  const glm::dvec3 size(16.0);
  cull_boxes(f, mx.data(), my.data(), mz.data(), mx.size(), size, vis.data());
  int kept = 0;
  for (size_t i = 0; i < mx.size(); ++i) {
    const glm::dvec3 mn(mx[i], my[i], mz[i]);
    ASSERT_EQ(vis[i] != 0, f.intersects_box(mn, size)) << i;
    kept += vis[i];
    // Oracle: any box with a corner or its centre strictly inside the clip volume must be kept.
    bool some_inside = false;
    for (int k = 0; k < 9; ++k) {
      const glm::dvec3 p = k < 8 ? mn + glm::dvec3(k & 1, (k >> 1) & 1, (k >> 2) & 1) * 16.0 : mn + 8.0;
      const glm::dvec4 q = vp * glm::dvec4(p, 1.0);
      if (q.w > 0 && std::abs(q.x) < q.w && std::abs(q.y) < q.w && std::abs(q.z) < q.w) some_inside = true;
    }
    if (some_inside) {
      EXPECT_TRUE(vis[i]) << i;
    }
    // And a box wholly behind the eye (all corners with negative view depth) must be culled.
    const glm::dvec3 fwd = c.forward();
    bool all_behind = true;
    for (int k = 0; k < 8; ++k)
      if (glm::dot(mn + glm::dvec3(k & 1, (k >> 1) & 1, (k >> 2) & 1) * 16.0, fwd) >= 0) all_behind = false;
    if (all_behind) {
      EXPECT_FALSE(vis[i]) << i;
    }
  }
  EXPECT_GT(kept, 100);
  EXPECT_LT(kept, 2500);
}

}  // namespace
