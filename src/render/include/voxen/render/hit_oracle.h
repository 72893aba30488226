#pragma once
// The primary-hit oracle of the ray-march path (issue 21): per pixel, does the ray march name the surface the
// raster path's id buffer names? Both frames come from Renderer::read_hit_ids and read_shadow_probes with
// FrameParams::hit_ids (rows bottom first, x fastest); the probes carry each pixel's surface point.
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/render/renderer.h"

namespace voxen::render {

/// How one pixel's ray-march hit relates to the raster path's.
enum class HitMatch : uint8_t {
  kSame,      // the same cell and face, or nothing in both
  kEdgeTie,     // different cells or faces meeting at the very point both paths hit (see match_hits)
  kSilhouette,  // one path hits within rounding of a silhouette edge the other passes (see match_hits)
  kDiffer,      // anything else: a fault
};

/// The distance (blocks) a shadow probe's origin lies off its surface along the surface's normal: the GPU's
/// kShadowBias (shaders/trace_common.glsl), which match_hits removes to recover the surface point.
inline constexpr double kShadowProbeBias = 1.0 / 256.0;

/// Compares one pixel. `eye`: the eye within its block (Camera::frac; the probes count from the block's corner);
/// `pixel_angle`: a pixel's size in radians (2 tan(fov_y / 2) / height), for the rasteriser's precision. kEdgeTie when the ids differ but both paths hit a surface and (1) their surface points (the
/// probes' origins less kShadowProbeBias along the named face's axis normal; blocks from the eye's block) lie within
/// a tolerance of each other, 1/1024 block plus 2^-16 of the distance (float rounding in either path), and (2) that
/// point lies on an edge of the half-block lattice where the mesher's axis faces meet (at least two of its
/// coordinates on a multiple of 1/2) and on or in both named cells. Such a ray passes exactly through the edge
/// between two faces (a block's corner, a step, two coplanar tops): the rasteriser's fill rule gives the pixel to one
/// face, the DDA's step order to the other, and both are right. It happens in whole rows of pixels when the eye sits
/// on whole blocks and looks along an axis. kSilhouette when one path hits nothing or a surface farther than the
/// other's (beyond that tolerance) and, seen from the eye, the ray passes within 1/64 of a pixel of an edge of the
/// half-block lattice beside the nearer hit (the lines along each axis through its other two coordinates rounded to
/// halves, a block either side): the ray grazes an edge closer than the rasteriser resolves (it snaps vertices to
/// 1/256 pixel; the ray march's rounding is far smaller), so either path may pass it. Rows of such pixels appear
/// where a long edge runs nearly along a pixel row. Surfaces off the axes (plants, slopes) never count as ties, nor
/// their hits as silhouettes unless a lattice edge lies there too.
HitMatch match_hits(const HitId& raster, const ShadowProbe& raster_probe, const HitId& march,
                    const ShadowProbe& march_probe, const glm::dvec3& eye, double pixel_angle);

/// A frame's tally of match_hits (inputs of equal length; a shorter probe vector counts its missing pixels as
/// kDiffer where the ids differ).
struct HitAgreement {
  uint64_t pixels = 0;    // compared
  uint64_t surface = 0;   // where the raster path hit a surface (face >= 0)
  uint64_t same = 0;      // HitMatch::kSame
  uint64_t edge_ties = 0; // HitMatch::kEdgeTie
  uint64_t silhouettes = 0;  // HitMatch::kSilhouette
  uint64_t differ = 0;    // HitMatch::kDiffer
  std::vector<HitMatch> per_pixel;  // the verdict of each pixel, in the inputs' order
  /// The oracle's measure: the share of pixels naming the same surface, kSame or kEdgeTie (1 with no pixels).
  double agreement() const { return pixels ? static_cast<double>(same + edge_ties) / static_cast<double>(pixels) : 1.0; }
};
HitAgreement match_frames(const std::vector<HitId>& raster, const std::vector<ShadowProbe>& raster_probes,
                          const std::vector<HitId>& march, const std::vector<ShadowProbe>& march_probes,
                          const glm::dvec3& eye, double pixel_angle);

}  // namespace voxen::render
