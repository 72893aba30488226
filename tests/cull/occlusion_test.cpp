// Software occlusion (voxen/cull/occlusion.h, store.h). Checks: a section's occluder boxes cover its opaque cells
// exactly once and nothing else, marked exposed exactly when a cell of theirs shows a face; the depth buffer is
// conservative against a ray-casting oracle at every frame sample (a box it calls hidden has, along every sample
// ray through its rectangle, an occluder nearer by more than the margin); a box behind a wall is hidden, one in
// front of it, beside it or behind a one-block gap is not, and two walls meeting cover the seam between them
// together; the store's near-eye test sees opaque cells wherever they are.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "voxen/core/hash.h"
#include "voxen/cull/occlusion.h"
#include "voxen/cull/store.h"

using namespace voxen;
using namespace voxen::cull;

namespace {

// Exposed cells of a 16^3 opacity with everything outside the section see-through.
std::array<uint8_t, 4096> exposed_of(const std::array<uint8_t, 4096>& opaque) {
  std::array<uint8_t, 4096> e{};
  auto at = [&](int x, int y, int z) {
    if (x < 0 || y < 0 || z < 0 || x > 15 || y > 15 || z > 15) return false;
    return opaque[static_cast<size_t>(section_index(x, y, z))] != 0;
  };
  for (int y = 0; y < 16; ++y)
    for (int z = 0; z < 16; ++z)
      for (int x = 0; x < 16; ++x)
        e[static_cast<size_t>(section_index(x, y, z))] =
            at(x, y, z) && !(at(x + 1, y, z) && at(x - 1, y, z) && at(x, y + 1, z) && at(x, y - 1, z) && at(x, y, z + 1) && at(x, y, z - 1));
  return e;
}

TEST(Occluders, CoverTheOpaqueCellsOnceAndTellWhichShowAFace) {
  for (int trial = 0; trial < 60; ++trial) {
    std::array<uint8_t, 4096> opaque{};
    // Ground up to a hashed height with hashed holes (caves), a hashed share of single blocks, or uniform.
    const int height = static_cast<int>(hash3(7, trial, 0, 0) % 17);
    const uint64_t holes = hash3(8, trial, 0, 0) % 4;
    for (int i = 0; i < 4096; ++i) {
      const int y = i >> 8;
      bool o = y < height && hash3(9, trial, i, 0) % 16 >= holes;
      if (trial % 10 == 9) o = true;
      if (trial % 10 == 8) o = hash3(10, trial, i, 0) % 3 == 0;
      opaque[static_cast<size_t>(i)] = o;
    }
    const auto exposed = exposed_of(opaque);
    const std::vector<OccluderBox> boxes = find_occluders(opaque.data(), exposed.data());
    std::array<int, 4096> covered{};
    int last_cube = 16;
    for (const OccluderBox& b : boxes) {
      ASSERT_TRUE(b.cube == 1 || b.cube == 2 || b.cube == 4 || b.cube == 8 || b.cube == 16);
      EXPECT_LE(b.cube, last_cube) << "larger cubes first";
      last_cube = b.cube;
      EXPECT_EQ(b.x % b.cube, 0);
      EXPECT_EQ(b.sx % b.cube, 0);
      bool any_exposed = false;
      for (int y = b.y; y < b.y + b.sy; ++y)
        for (int z = b.z; z < b.z + b.sz; ++z)
          for (int x = b.x; x < b.x + b.sx; ++x) {
            ASSERT_TRUE(x < 16 && y < 16 && z < 16);
            const size_t i = static_cast<size_t>(section_index(x, y, z));
            EXPECT_TRUE(opaque[i]) << "a box holds a see-through cell";
            ++covered[i];
            any_exposed |= exposed[i] != 0;
          }
      EXPECT_EQ(b.exposed, any_exposed);
    }
    for (int i = 0; i < 4096; ++i) EXPECT_EQ(covered[static_cast<size_t>(i)], opaque[static_cast<size_t>(i)] ? 1 : 0) << "cell " << i;
    if (trial % 10 == 9) {
      ASSERT_EQ(boxes.size(), 1u) << "a solid section is one 16^3 box";
      EXPECT_EQ(boxes[0].cube, 16);
    }
  }
}

// A camera at the origin looking down -z (GL eye space = camera-relative space), 90 degrees wide, 160 x 90.
OcclusionView view() {
  OcclusionView v;
  v.tan_half_x = 1.0;
  v.tan_half_y = 90.0 / 160.0;
  v.width = 160;
  v.height = 90;
  v.near_plane = 0.1;
  return v;
}

// Entry depth of the ray through frame position (px, py) into [lo, hi]; infinity when it misses.
double ray_depth(const OcclusionView& v, double px, double py, glm::dvec3 lo, glm::dvec3 hi) {
  const glm::dvec3 d((2.0 * px / v.width - 1.0) * v.tan_half_x, (2.0 * py / v.height - 1.0) * v.tan_half_y, -1.0);
  double t0 = 0.0, t1 = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    if (d[i] == 0.0) {
      if (lo[i] > 0.0 || hi[i] < 0.0) return std::numeric_limits<double>::infinity();
      continue;
    }
    double a = lo[i] / d[i], b = hi[i] / d[i];
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
  }
  return t0 <= t1 ? t0 : std::numeric_limits<double>::infinity();
}

TEST(OcclusionBuffer, HidesOnlyWhatOccludersCoverAtEverySample) {
  const OcclusionView v = view();
  int hidden = 0, tested = 0;
  for (int trial = 0; trial < 40; ++trial) {
    OcclusionBuffer buf;
    buf.begin(v);
    std::vector<std::pair<glm::dvec3, glm::dvec3>> occ;
    for (int k = 0; k < 12; ++k) {
      const uint64_t h = hash3(21, trial, k, 0);
      const glm::dvec3 lo(static_cast<double>(h % 40) - 20.0, static_cast<double>((h >> 8) % 20) - 12.0,
                          -4.0 - static_cast<double>((h >> 16) % 30));
      const glm::dvec3 size(1.0 + static_cast<double>((h >> 24) % 16), 1.0 + static_cast<double>((h >> 32) % 10),
                            1.0 + static_cast<double>((h >> 40) % 6));
      occ.push_back({lo, lo + size});
      buf.add_occluder(lo, size);
    }
    for (int k = 0; k < 80; ++k) {
      const uint64_t h = hash3(22, trial, k, 0);
      const glm::dvec3 lo(static_cast<double>(h % 60) - 30.0, static_cast<double>((h >> 8) % 30) - 15.0,
                          -10.0 - static_cast<double>((h >> 16) % 60));
      const glm::dvec3 size(1.0 + static_cast<double>((h >> 24) % 8));
      ++tested;
      if (!buf.hidden(lo, size)) continue;
      ++hidden;
      // The oracle: every sample whose ray meets the candidate meets an occluder nearer than the candidate's
      // nearest depth.
      double zmin = std::numeric_limits<double>::infinity();
      for (int c = 0; c < 8; ++c) zmin = std::min(zmin, -(lo.z + ((c & 4) ? size.z : 0.0)));
      for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
          if (ray_depth(v, x + 0.5, y + 0.5, lo, lo + size) == std::numeric_limits<double>::infinity()) continue;
          double nearest = std::numeric_limits<double>::infinity();
          for (const auto& [a, b] : occ) nearest = std::min(nearest, ray_depth(v, x + 0.5, y + 0.5, a, b));
          ASSERT_LT(nearest, zmin) << "trial " << trial << " candidate " << k << " sample " << x << "," << y;
        }
    }
  }
  EXPECT_GT(hidden, tested / 20) << "the buffer hid almost nothing: the oracle checked nothing";
}

TEST(OcclusionBuffer, AWallHidesWhatIsBehindItAndNothingElse) {
  const OcclusionView v = view();
  OcclusionBuffer buf;
  buf.begin(v);
  EXPECT_EQ(OcclusionBuffer::pixel_block(160), 1);
  EXPECT_EQ(OcclusionBuffer::pixel_block(1280), 8);
  EXPECT_EQ(OcclusionBuffer::pixel_block(4000), 8);
  // Two walls meeting at x = 0, 10 blocks away, from x = -8 to 8 (the frame spans -10 to 10 there), y = -20 to 20:
  // together they cover the seam.
  ASSERT_GT(buf.add_occluder({-8, -20, -11}, {8, 40, 1}), 0);
  ASSERT_GT(buf.add_occluder({0, -20, -11}, {8, 40, 1}), 0);
  EXPECT_TRUE(buf.hidden({-1, -1, -30}, {2, 2, 2})) << "behind the seam";
  EXPECT_TRUE(buf.hidden({-5, -3, -20}, {4, 4, 4}));
  EXPECT_FALSE(buf.hidden({-1, -1, -8}, {2, 2, 2})) << "in front of the wall";
  EXPECT_FALSE(buf.hidden({-2, -2, -12}, {4, 4, 4})) << "reaching through the wall's plane to its front";
  EXPECT_FALSE(buf.hidden({20, -1, -30}, {20, 2, 2})) << "reaching past the wall's side";
  EXPECT_TRUE(buf.hidden({10, -1, -30}, {10, 2, 2})) << "up to the wall's side";
  EXPECT_FALSE(buf.hidden({-1, -1, 1}, {2, 2, 2})) << "behind the eye";
  EXPECT_TRUE(buf.covered({-1, -1, -300}, {2, 2, 2}));
  // A wall 400 blocks away with a gap of 0.6 blocks (an eighth of a pixel there) where the rays of the samples in
  // column 80 (x = 2.5 at that depth) pass: what lies behind the gap on those rays is not hidden.
  OcclusionBuffer gap;
  gap.begin(v);
  gap.add_occluder({-400, -200, -401}, {402.2, 400, 1});
  gap.add_occluder({2.8, -200, -401}, {400, 400, 1});
  EXPECT_FALSE(gap.hidden({5.4, -10, -901}, {0.5, 20, 1}));
  EXPECT_TRUE(gap.hidden({40, -10, -901}, {10, 20, 1}));
}

TEST(VisibilityStore, TheEyeIsClearOnlyFarFromOpaqueCells) {
  VisibilityStore store;
  const auto all = [](const SectionPos&) { return true; };
  const BlockPos eye{5, section_base_y(10) + 8, 5};
  EXPECT_FALSE(store.clear_around(eye, {0.5, 0.5, 0.5}, 0.5, all)) << "nothing known of the cells";
  for (int y = 9; y <= 11; ++y)
    for (int64_t dz = -1; dz <= 1; ++dz)
      for (int64_t dx = -1; dx <= 1; ++dx) store.set({dx, y, dz}, SectionVisibility{});
  EXPECT_TRUE(store.clear_around(eye, {0.5, 0.5, 0.5}, 0.5, all));
  // A block two cells east of the eye's cell: within 2 blocks, not within 1.
  SectionVisibility one;
  one.occluders.push_back(OccluderBox{7, 8, 5, 1, 1, 1, 1, true});
  store.set({0, 10, 0}, one);
  EXPECT_TRUE(store.clear_around(eye, {0.5, 0.5, 0.5}, 1.0, all));
  EXPECT_FALSE(store.clear_around(eye, {0.5, 0.5, 0.5}, 2.0, all));
  EXPECT_TRUE(store.clear_around(eye, {0.5, 0.5, 0.5}, 2.0, [](const SectionPos& p) { return p.y != 10; }))
      << "the eye's section left out by the view test";
  // A section of opaque cells only next door.
  store.set({0, 10, 0}, SectionVisibility{});
  store.set({1, 10, 0}, buried_section());
  EXPECT_FALSE(store.clear_around({15, eye.y, 5}, {0.9, 0.5, 0.5}, 0.5, all));
  EXPECT_TRUE(store.clear_around({14, eye.y, 5}, {0.5, 0.5, 0.5}, 0.5, all));
  store.erase_column({1, 0});
  EXPECT_EQ(store.sections_of({1, 0}), 0u);
  EXPECT_FALSE(store.clear_around({15, eye.y, 5}, {0.9, 0.5, 0.5}, 0.5, all)) << "unknown again";
}

}  // namespace
