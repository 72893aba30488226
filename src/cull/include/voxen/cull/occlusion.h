// Software occlusion culling after the Block Game seed (003, Eniko Fox 2026): per section, boxes of opaque full cubes
// found when it is meshed (its occluder mip chain, merged); per frame, the occluders near the eye rasterised into a
// small CPU depth buffer, and every candidate box (a section's, a LOD node's) tested against it.
//
// Conservative by construction (docs/ARCHITECTURE.md, "Visibility"): a box is reported hidden only when at every
// frame sample (pixel centre) its projection can cover, an occluder face lies in front of it by more than the depth
// buffer's precision. The buffer does not sample: each of its pixels stands for a k x k block of frame pixels and
// keeps which of those k^2 sample positions occluders cover (a 64-bit mask) and the farthest depth at which they
// cover them, so a pixel counts as covered only when every sample in it is, and several occluders that each cover
// part of a pixel (neighbouring boxes, whose shared edge crosses it) cover it together. Coverage is exact per sample
// row (the box's silhouette, a convex polygon, crossed with the sample row, inset by 1/50 pixel for the GPU's
// rounding); depth is the box's entry depth at the corner samples of a run of up to 8 fully covered pixels (the
// front of a convex body seen in perspective is a convex function of the screen position, so its largest value over
// the run's samples is at one of those corners) or the box's farthest corner for a pixel it covers in part. Candidates are bounded by their
// projected rectangle, widened by the same 1/50 pixel, and their nearest corner's depth.
// What makes an occluder's faces drawn is the caller's part: see OcclusionBuffer::add_occluder.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace voxen::cull {

/// A box of opaque full cubes inside a section: section-local min corner (x, y, z: 0..15, y up) and size in blocks
/// along x, y, z (1..16), merged from aligned cubes of edge `cube` (1, 2, 4, 8 or 16) of the section's occluder mip
/// chain; `exposed`: its cubes have a cell with a face against one that is not opaque (the occluders drawn into the
/// depth buffer; the enclosed boxes tell only where the opaque cells are). 8 bytes.
struct OccluderBox {
  uint8_t x = 0, y = 0, z = 0;
  uint8_t sx = 0, sy = 0, sz = 0;
  uint8_t cube = 0;
  bool exposed = false;
  friend bool operator==(const OccluderBox&, const OccluderBox&) = default;
};

/// The section's occluders from its 16^3 opacity (section-local, index y * 256 + z * 16 + x, nonzero: an opaque
/// full cube) and `exposed` (same layout, nonzero: an opaque cell with a face against a cell that is not, across the
/// section's borders too). The mip chain (Block Game): a cube of edge 2, 4, 8 or 16 is solid when its 8 children are;
/// each cell belongs to exactly one largest solid aligned cube, exposed when one of its cells is (the seed draws only
/// those: one without is enclosed by them, which hide what it would). Cubes of one edge and kind are merged greedily
/// into boxes (runs along x, then rows along z, then layers along y). So the boxes cover every opaque cell exactly
/// once. Order: larger cubes first, then y, z, x of the min corner.
std::vector<OccluderBox> find_occluders(const uint8_t* opaque, const uint8_t* exposed);

/// What the eye sees of the frame: the camera's rotation and field of view, the frame's size in pixels, the near
/// plane. Positions are camera-relative (the eye at the origin, world axes, y up).
struct OcclusionView {
  glm::dmat3 rotation{1.0};  // camera-relative -> eye space (GL: the eye looks down -z, y up)
  double tan_half_x = 1.0, tan_half_y = 1.0;  // tangents of the half fields of view
  int width = 0, height = 0;                  // frame pixels
  double near_plane = 0.1;                    // blocks (the depth buffer's precision depends on it)
};

/// The depth buffer of one frame. Build with begin(), add_occluder() nearest first, then ask hidden() and covered().
/// Threads: begin() on one; then add_occluder() from several at once only on disjoint bands of tile rows; hidden(),
/// covered() and covered_depth() from any number once no add_occluder() runs; project_box() from any number.
class OcclusionBuffer {
 public:
  /// Frame pixels per buffer pixel along each axis: ceil(width / 160), at most 8 (64 samples per pixel, one 64-bit
  /// mask), then the buffer grows. 1,280 x 720: 8, a 160 x 90 buffer (the seed's is 256 x 128; 160 x 90 keeps the
  /// frame's shape and costs 2.5 times fewer pixels, for a culled share within half a percent on the named cameras).
  static int pixel_block(int width);

  /// Starts a frame: every pixel uncovered.
  void begin(const OcclusionView& view);
  /// Rasterises the box [min, min + size] (camera-relative blocks) as an occluder: after it, every sample the box
  /// covers is covered at no more than the box's depth there. The caller vouches that along every ray from the eye
  /// into the box the first opaque full cube has its face toward the eye drawn, unclipped, this frame (docs/
  /// ARCHITECTURE.md, "Visibility": the eye clear of opaque cells to the near plane's reach, the box inside the
  /// drawn columns and the fog). Returns the buffer pixels it touched (0: off screen or behind the eye).
  int add_occluder(const glm::dvec3& min, const glm::dvec3& size);

  /// A box's silhouette in frame pixels (clipped at the near plane; counter-clockwise convex hull), depth range and
  /// bounding rectangle.
  struct Projected {
    std::array<glm::dvec2, 20> pts{};  // projected vertices, then their convex hull
    int count = 0;
    double zmin = 0, zmax = 0;  // depth range of the (clipped) box, blocks along the view direction
    double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  };
  /// A box projected once for the bands that add it (project_box any number of threads at once, after begin()).
  struct ProjectedBox {
    glm::dvec3 min{}, hi{};  // camera-relative corners
    Projected pr;
    bool visible = false;  // false: off screen, behind the eye or degenerate (adds nothing)
  };
  ProjectedBox project_box(const glm::dvec3& min, const glm::dvec3& size) const;
  /// add_occluder(min, size) for a box projected by project_box, within the buffer rows of tile rows
  /// [tile_row_begin, tile_row_end) only (a band of kTile rows each, tile_rows() in all): the pixels of a band end
  /// up exactly as the whole box makes them, whatever happens in other bands, so threads may each fill a band of
  /// their own at once (all boxes in one order in every band).
  int add_occluder(const ProjectedBox& box, int tile_row_begin, int tile_row_end);
  /// Whether the box [min, min + size] can show nothing: every sample its projection may cover is covered by an
  /// occluder nearer than the box's nearest point by more than the depth precision (near plane, 24-bit depth), or
  /// it covers no sample at all. False for a box reaching behind the near plane.
  bool hidden(const glm::dvec3& min, const glm::dvec3& size) const;
  /// Whether every sample the box's projection may cover is covered by an occluder, at any depth (a LOD node of the
  /// far pass, which the near pass draws over wherever it draws). False for a box reaching behind the near plane.
  bool covered(const glm::dvec3& min, const glm::dvec3& size) const;

  /// The farthest depth at which the buffer's tile rows [tile_row_begin, tile_row_end) are covered (every sample);
  /// infinity while a sample is not. An occluder all of whose points are deeper adds nothing there (a band's early
  /// end). Cost: one pass over the band's tiles.
  float covered_depth(int tile_row_begin, int tile_row_end) const;

  /// Buffer pixels per side of a tile (tiles keep their farthest covered depth), and tile rows in the buffer.
  static constexpr int kTile = 8;
  int tile_rows() const { return m_th; }

  int width() const { return m_w; }   // buffer pixels
  int height() const { return m_h; }
  int block() const { return m_k; }
  /// Buffer pixels with some samples covered, and with every sample covered (a picture of the buffer).
  bool pixel_touched(int x, int y) const { return m_mask[idx(x, y)] != 0; }
  bool pixel_full(int x, int y) const { return m_mask[idx(x, y)] == m_full[idx(x, y)]; }
  /// The depth at which a full pixel is covered (blocks along the view direction); infinity when not full.
  float pixel_depth(int x, int y) const { return pixel_full(x, y) ? m_depth[idx(x, y)] : kFar; }

 private:
  static constexpr float kFar = 3.0e38f;
  size_t idx(int x, int y) const { return static_cast<size_t>(y) * static_cast<size_t>(m_w) + static_cast<size_t>(x); }
  // Clips the box to depth >= near plane and projects its vertices to frame pixels, with their bounding rectangle
  // and depth range; false when nothing is left. hull() then makes the points their convex hull.
  bool project(const glm::dvec3& min, const glm::dvec3& size, Projected& out) const;
  static void hull(Projected& out);
  // The largest entry depth into the box [lo, hi] (camera-relative) of the rays through the four frame positions
  // (x0 or x1, y0 or y1): over a rectangle of samples inside the box's silhouette, the front's deepest point.
  double max_entry_depth(double x0, double x1, double y0, double y1, const glm::dvec3& lo, const glm::dvec3& hi) const;
  template <bool kDepth>
  bool test(const glm::dvec3& min, const glm::dvec3& size) const;

  OcclusionView m_view;
  glm::dvec3 m_right{1, 0, 0}, m_up{0, 1, 0}, m_forward{0, 0, -1};  // camera-relative axes of eye space
  int m_k = 1, m_w = 0, m_h = 0;
  std::vector<uint64_t> m_mask;  // samples covered
  std::vector<uint64_t> m_full;  // the pixel's samples (fewer at the frame's right and top edges)
  int m_full_width = -1, m_full_height = -1;  // the frame size m_full was made for
  std::vector<float> m_depth;    // farthest depth of the covering occluders
  // Tiles of kTile x kTile buffer pixels: the farthest depth at which they are all covered (kFar while one is not),
  // so a box behind what is drawn already is skipped whole, and a test answers a tile at once.
  int m_tw = 0, m_th = 0;
  // Floats from one tile row to the next: a multiple of 16 with at least 16 unused between rows (64 bytes,
  // whatever the vector's alignment), so threads filling neighbouring bands never write one cache line.
  int m_tile_stride = 0;
  std::vector<float> m_tile_far;
  size_t tile(int ti, int tj) const { return static_cast<size_t>(tj) * static_cast<size_t>(m_tile_stride) + static_cast<size_t>(ti); }
};

}  // namespace voxen::cull
