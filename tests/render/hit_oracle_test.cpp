// render::match_hits, the primary-hit oracle's verdict on one pixel (issue 21): which differences between the
// raster path's id and the ray march's are the same surface named by the other face at an edge, which are a
// silhouette grazed within the rasteriser's precision, and which are faults. Points are built as the GPU writes its
// probes: the surface point plus kShadowProbeBias along the named face's normal, in blocks from the eye's block.
#include <gtest/gtest.h>

#include "voxen/render/hit_oracle.h"

using namespace voxen::render;

namespace {

// HitId::face order: 0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z.
ShadowProbe probe(double x, double y, double z, int face) {
  const double n[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  const double b = kShadowProbeBias;
  return {static_cast<float>(x + n[face][0] * b), static_cast<float>(y + n[face][1] * b),
          static_cast<float>(z + n[face][2] * b), 1.0f};
}
constexpr HitId kNothing{0, 0, 0, -1};
constexpr ShadowProbe kNoProbe{0, 0, 0, -1};
constexpr double kAngle = 0.0078;  // 70 degrees over 180 pixels
const glm::dvec3 kEye(0.0, 0.0, 0.0);  // the eye on its block's corner

}  // namespace

TEST(HitOracle, EqualIdsAreTheSame) {
  EXPECT_EQ(match_hits({3, -2, 5, 2}, probe(3.3, -1, 5.7, 2), {3, -2, 5, 2}, probe(3.3, -1, 5.7, 2), kEye, kAngle), HitMatch::kSame);
  EXPECT_EQ(match_hits(kNothing, kNoProbe, kNothing, kNoProbe, kEye, kAngle), HitMatch::kSame);
}

TEST(HitOracle, TwoFacesMeetingWhereBothHitAreAnEdgeTie) {
  // A step: the top of cell (118,-18,-133) and the -x side of cell (119,-17,-133) meet on the line x = 119, y = -17.
  EXPECT_EQ(match_hits({119, -17, -133, 1}, probe(119, -17, -132.43, 1), {118, -18, -133, 2}, probe(119, -17, -132.43, 2), kEye, kAngle),
            HitMatch::kEdgeTie);
  // A block's corner: its top and its +x side.
  EXPECT_EQ(match_hits({120, -25, -109, 1}, probe(120, -24, -108.24, 1), {120, -25, -109, 2}, probe(120, -24, -108.24, 2), kEye, kAngle),
            HitMatch::kEdgeTie);
  // Two coplanar tops side by side, at a whole and at a half block (slabs).
  EXPECT_EQ(match_hits({110, -35, -172, 2}, probe(110, -34, -171.38, 2), {109, -35, -172, 2}, probe(110, -34, -171.38, 2), kEye, kAngle),
            HitMatch::kEdgeTie);
  EXPECT_EQ(match_hits({4, 0, 7, 2}, probe(5, 0.5, 7.3, 2), {5, 0, 7, 2}, probe(5, 0.5, 7.3, 2), kEye, kAngle), HitMatch::kEdgeTie);
  // Float rounding in the two points, at 130 blocks (what llvmpipe writes: about 1e-4 apart).
  EXPECT_EQ(match_hits({115, -23, -126, 1}, probe(114.99999, -23.0, -125.79856, 1), {115, -24, -126, 1},
                       probe(115.00001, -23.00005, -125.79860, 1), kEye, kAngle),
            HitMatch::kEdgeTie);
}

TEST(HitOracle, DifferentSurfacesOrPointsAwayFromEdgesDiffer) {
  // The same point in the middle of a face named by another cell: no edge there, a fault.
  EXPECT_EQ(match_hits({3, -2, 5, 2}, probe(3.3, -1, 5.7, 2), {4, -2, 5, 2}, probe(3.3, -1, 5.7, 2), kEye, kAngle), HitMatch::kDiffer);
  // An edge point, but one of the named cells does not touch it.
  EXPECT_EQ(match_hits({3, -2, 5, 2}, probe(4, -1, 5.3, 2), {5, -2, 5, 2}, probe(4, -1, 5.3, 2), kEye, kAngle), HitMatch::kDiffer);
  // Points a hundredth of a block apart on a face, away from its edges: not one point.
  EXPECT_EQ(match_hits({3, -2, 5, 2}, probe(3.3, -1, 5.3, 2), {3, -2, 6, 2}, probe(3.3, -1, 5.31, 2), kEye, kAngle), HitMatch::kDiffer);
  // The ray march hitting nothing where the raster path hit a face's middle.
  EXPECT_EQ(match_hits({3, -2, 5, 2}, probe(3.3, -1, 5.7, 2), kNothing, kNoProbe, kEye, kAngle), HitMatch::kDiffer);
  // A farther hit where the nearer one lies well inside its face.
  EXPECT_EQ(match_hits({3, -2, 5, 2}, probe(3.3, -1, 5.7, 2), {3, -3, 9, 2}, probe(3.3, -2, 9.7, 2), kEye, kAngle), HitMatch::kDiffer);
}

TEST(HitOracle, AGrazedSilhouetteWithinTheRasterisersPrecisionIsASilhouette) {
  // 75 blocks away a pixel is 0.58 blocks; 1/64 of it is 0.009. The raster path hit a top 0.0009 past its edge
  // z = 34, the ray march passed the edge and hit the ground below.
  const HitId top{-22, -67, 34, 2}, below{-23, -68, 34, 2};
  EXPECT_EQ(match_hits(top, probe(-21.80, -66, 34.0009, 2), below, probe(-22.13, -67, 34.52, 2), kEye, kAngle), HitMatch::kSilhouette);
  // Either way round, and against nothing (the sky).
  EXPECT_EQ(match_hits(below, probe(-22.13, -67, 34.52, 2), top, probe(-21.80, -66, 34.0009, 2), kEye, kAngle), HitMatch::kSilhouette);
  EXPECT_EQ(match_hits(kNothing, kNoProbe, top, probe(-21.80, -66, 34.0009, 2), kEye, kAngle), HitMatch::kSilhouette);
  // A tenth of a block past the edge is ten times the precision: a fault.
  EXPECT_EQ(match_hits(top, probe(-21.80, -66, 34.1, 2), below, probe(-22.13, -67, 34.52, 2), kEye, kAngle), HitMatch::kDiffer);
}

TEST(HitOracle, MatchFramesTalliesEachPixel) {
  const std::vector<HitId> raster{{1, 0, 1, 2}, {119, -17, -133, 1}, {3, -2, 5, 2}, kNothing};
  const std::vector<ShadowProbe> rp{probe(1.3, 1, 1.7, 2), probe(119, -17, -132.43, 1), probe(3.3, -1, 5.7, 2), kNoProbe};
  const std::vector<HitId> march{{1, 0, 1, 2}, {118, -18, -133, 2}, {4, -2, 5, 2}, kNothing};
  const std::vector<ShadowProbe> mp{probe(1.3, 1, 1.7, 2), probe(119, -17, -132.43, 2), probe(3.3, -1, 5.7, 2), kNoProbe};
  const HitAgreement a = match_frames(raster, rp, march, mp, kEye, kAngle);
  EXPECT_EQ(a.pixels, 4u);
  EXPECT_EQ(a.surface, 3u);
  EXPECT_EQ(a.same, 2u);
  EXPECT_EQ(a.edge_ties, 1u);
  EXPECT_EQ(a.differ, 1u);
  EXPECT_DOUBLE_EQ(a.agreement(), 0.75);
  EXPECT_EQ(a.per_pixel, (std::vector<HitMatch>{HitMatch::kSame, HitMatch::kEdgeTie, HitMatch::kDiffer, HitMatch::kSame}));
  // Without probes only equal ids agree.
  EXPECT_EQ(match_frames(raster, {}, march, {}, kEye, kAngle).edge_ties, 0u);
}
