// The reference mesher (see reference.h). Every rule is spelled out here once, plainly; the comments name the rule
// as docs/ARCHITECTURE.md (Meshing) states it.
#include "voxen/mesh/reference.h"

#include <algorithm>
#include <array>

#include "voxen/mesh/shapes.h"

namespace voxen::mesh {
namespace {

struct P3 {
  int x, y, z;
};
P3 operator+(P3 a, P3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
P3 scale(P3 a, int s) { return {a.x * s, a.y * s, a.z * s}; }
P3 unit(int axis) { return {axis == 0 ? 1 : 0, axis == 1 ? 1 : 0, axis == 2 ? 1 : 0}; }
int get(P3 p, int axis) { return axis == 0 ? p.x : axis == 1 ? p.y : p.z; }
void put(P3& p, int axis, int v) { (axis == 0 ? p.x : axis == 1 ? p.y : p.z) = v; }
P3 normal(int face) { return scale(unit(kFaceAxes[face].axis), kFaceAxes[face].sign); }

// A face's corner values.
struct CornerValues {
  std::array<int, 4> ao{};
  std::array<Light, 4> light{};
};

class Reference {
 public:
  Reference(const BlockRegistry& reg, const SectionInput& in) : m_reg(reg), m_in(in) {}

  std::vector<FaceRecord> run() {
    for (int y = 0; y < 16; ++y)
      for (int z = 0; z < 16; ++z)
        for (int x = 0; x < 16; ++x) mesh_cell({x, y, z});
    std::sort(m_out.begin(), m_out.end());
    return std::move(m_out);
  }

 private:
  // --- block properties, straight from the registry -----------------------------------------------------------------

  Cell cell(P3 p) const { return m_in.cell(p.x, p.y, p.z); }
  Light light(P3 p) const { return m_in.light_at(p.x, p.y, p.z); }
  const BlockDef& def(Cell c) const { return m_reg[c.id]; }
  Shape shape(Cell c) const { return def(c).defined ? def(c).shape : Shape::kNone; }
  uint8_t state(Cell c) const { return static_cast<uint8_t>(c.state & def(c).state_mask); }
  // An occluder is an opaque full cube: it hides every face against it, darkens AO and gives no light.
  bool occluder(P3 p) const {
    const Cell c = cell(p);
    return shape(c) == Shape::kCube && def(c).transparency == Transparency::kOpaque;
  }
  MeshList list_of(Cell c) const {
    if (shape(c) == Shape::kFluid || def(c).transparency == Transparency::kTranslucent) return kListTranslucent;
    if (def(c).transparency == Transparency::kCutout) return kListCutout;
    return kListOpaque;
  }
  // Texture of a face, with logs turned by their axis state: axis x turns +Y onto +X (a quarter turn about Z),
  // axis z turns +Y onto +Z (a quarter turn about X).
  int texture(Cell c, int face) const {
    int src = face;
    if (def(c).states & kStateAxis) {
      const int axis = state::axis(state(c)) % 3;
      if (axis == 1) {
        if (face == kFacePosX) src = kFacePosY;
        if (face == kFaceNegX) src = kFaceNegY;
        if (face == kFacePosY) src = kFaceNegX;
        if (face == kFaceNegY) src = kFacePosX;
      } else if (axis == 2) {
        if (face == kFacePosZ) src = kFacePosY;
        if (face == kFaceNegZ) src = kFaceNegY;
        if (face == kFacePosY) src = kFaceNegZ;
        if (face == kFaceNegY) src = kFacePosZ;
      }
    }
    return def(c).face_texture_index[static_cast<size_t>(src)];
  }

  // Squares of side `face` of cell p that its neighbour hides: an opaque neighbour hides what its geometry covers
  // of the touching side; a translucent block is also hidden where a translucent neighbour that ranks at least as
  // high (seam_rank: the same id, or a higher one) covers it, so of two translucent faces on one plane one stays.
  // Cutout and fluid neighbours hide nothing.
  int hidden(P3 p, int face) const {
    const Cell me = cell(p), n = cell(p + normal(face));
    const Shape ns = shape(n);
    const int cover = side_cover(ns, state(n), opposite_face(face));
    if (def(n).transparency == Transparency::kOpaque && ns != Shape::kFluid && ns != Shape::kNone) return cover;
    if (def(me).transparency == Transparency::kTranslucent && def(n).transparency == Transparency::kTranslucent &&
        seam_rank(def(n).transparency, n.id) >= seam_rank(def(me).transparency, me.id))
      return cover;
    return 0;
  }

  // --- corner values -----------------------------------------------------------------------------------------------

  // Corner k of the full face of cell p facing `face`: in the layer of cells in front of the face, the front cell,
  // the side cell along U, the side cell along V and the diagonal cell around that corner.
  // AO: 0 when both side cells are occluders, else 3 minus the number of occluders among sides and diagonal.
  // Light: per channel, the mean (rounded half up) of the cells that are not occluders among front, sides, and
  // the diagonal when at least one side is open; 0 when none is.
  CornerValues corners(P3 p, int face) const {
    CornerValues out;
    const FaceAxes& fa = kFaceAxes[face];
    const P3 front = p + normal(face);
    static constexpr int kSign[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; ++k) {
      const P3 side_u = front + scale(unit(fa.u), kSign[k][0]);
      const P3 side_v = front + scale(unit(fa.v), kSign[k][1]);
      const P3 diag = side_u + scale(unit(fa.v), kSign[k][1]);
      const bool ou = occluder(side_u), ov = occluder(side_v), od = occluder(diag);
      out.ao[static_cast<size_t>(k)] = (ou && ov) ? 0 : 3 - int(ou) - int(ov) - int(od);
      LightList lit;
      if (!occluder(front)) lit.add(light(front));
      if (!ou) lit.add(light(side_u));
      if (!ov) lit.add(light(side_v));
      if (!od && (!ou || !ov)) lit.add(light(diag));
      out.light[static_cast<size_t>(k)] = mean_light(lit);
    }
    return out;
  }

  // Up to four light values.
  struct LightList {
    Light v[4];
    int n = 0;
    void add(Light l) { v[n++] = l; }
  };

  static Light mean_light(const LightList& values) {
    if (values.n == 0) return 0;
    const int n = values.n;
    int sky = 0, r = 0, g = 0, b = 0;
    for (int i = 0; i < n; ++i) {
      const Light l = values.v[i];
      sky += light_sky(l);
      r += light_r(l);
      g += light_g(l);
      b += light_b(l);
    }
    return make_light((sky + n / 2) / n, (r + n / 2) / n, (g + n / 2) / n, (b + n / 2) / n);
  }

  // Values at point (pu, pv) (half-blocks, 0..2) of a full face: bilinear between the corners at the half-way
  // points, as integer means rounded half up (two corners at an edge's middle, four at the centre).
  static void value_at(const CornerValues& f, int pu, int pv, int& ao, Light& l) {
    const int at[4][2] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}};
    int a = 0, n = 0;
    LightList ls;
    for (int k = 0; k < 4; ++k)
      if ((pu == 1 || pu == at[k][0]) && (pv == 1 || pv == at[k][1])) {  // full-face corners that take part
        a += f.ao[static_cast<size_t>(k)];
        ls.add(f.light[static_cast<size_t>(k)]);
        ++n;
      }
    ao = (a + n / 2) / n;
    l = mean_light(ls);
  }

  // --- records -----------------------------------------------------------------------------------------------------

  // The quad's flip bit: split along corners 1-3 when ao0 + ao2 < ao1 + ao3, or when they tie and corners 0 and 2
  // are darker (sum of the four channels) than 1 and 3.
  static bool flip(const QuadFields& f) {
    const int a02 = f.ao[0] + f.ao[2], a13 = f.ao[1] + f.ao[3];
    if (a02 != a13) return a02 < a13;
    const auto br = [](Light l) { return light_sky(l) + light_r(l) + light_g(l) + light_b(l); };
    return br(f.light[0]) + br(f.light[2]) < br(f.light[1]) + br(f.light[3]);
  }

  void add(MeshList list, QuadFields f) {
    f.flip = flip(f);
    m_out.push_back({list, f});
  }

  // An axis rectangle on face `face` of cell p: on the cell's side (mid = false) or on the plane through the
  // cell's middle (mid = true); (a, b, w, h) in half-blocks on the face's U and V within the cell. Fluid pieces
  // carry their flow and corner heights (1/64 block above the origin; all 0: the plain rectangle).
  void axis_piece(P3 p, int face, bool mid, int a, int b, int w, int h, const CornerValues& full,
                  int flow = kFlowStill, std::array<int, 4> heights = {}) {
    const FaceAxes& fa = kFaceAxes[face];
    const Cell c = cell(p);
    QuadFields f;
    P3 o{2 * p.x, 2 * p.y, 2 * p.z};
    put(o, fa.axis, get(o, fa.axis) + (mid ? 1 : (fa.sign > 0 ? 2 : 0)));
    put(o, fa.u, get(o, fa.u) + a);
    put(o, fa.v, get(o, fa.v) + b);
    f.x = o.x;
    f.y = o.y;
    f.z = o.z;
    f.w = w;
    f.h = h;
    f.face = face;
    f.kind = QuadKind::kAxis;
    f.texture = texture(c, face);
    f.flow = flow;
    for (int k = 0; k < 4; ++k) f.height[k] = static_cast<uint8_t>(heights[static_cast<size_t>(k)]);
    const int pts[4][2] = {{a, b}, {a + w, b}, {a + w, b + h}, {a, b + h}};
    for (int k = 0; k < 4; ++k) {
      int ao;
      Light l;
      value_at(full, pts[k][0], pts[k][1], ao, l);
      f.ao[k] = static_cast<uint8_t>(ao);
      f.light[k] = l;
    }
    add(list_of(c), f);
  }

  // Splits a set of squares (bit a | b << 1) into rectangles: row by row (V), left to right (U), each square not yet
  // taken starts a rectangle that extends along U over the squares present, then along V if the whole run is
  // present in the next row.
  static std::vector<std::array<int, 4>> rectangles(int squares) {
    std::vector<std::array<int, 4>> out;
    bool taken[2][2] = {};
    const auto present = [&](int a, int b) { return a < 2 && b < 2 && ((squares >> (a | b << 1)) & 1) && !taken[a][b]; };
    for (int b = 0; b < 2; ++b)
      for (int a = 0; a < 2; ++a) {
        if (!present(a, b)) continue;
        int w = 1;
        while (present(a + w, b)) ++w;
        int h = 1;
        bool row = true;
        for (int i = 0; i < w; ++i) row = row && present(a + i, b + 1);
        if (row) h = 2;
        for (int j = 0; j < h; ++j)
          for (int i = 0; i < w; ++i) taken[a + i][b + j] = true;
        out.push_back({a, b, w, h});
      }
    return out;
  }

  // --- cells -------------------------------------------------------------------------------------------------------

  void mesh_cell(P3 p) {
    const Cell c = cell(p);
    switch (shape(c)) {
      case Shape::kNone: return;
      case Shape::kCube:
      case Shape::kSlab:
      case Shape::kStairs: box_cell(p, box_occupancy(shape(c), state(c))); return;
      case Shape::kSlope: slope_cell(p); return;
      case Shape::kCross: cross_cell(p); return;
      case Shape::kFluid: fluid_cell(p); return;
    }
  }

  // A shape built of half-block sub-cells: each face of an occupied sub-cell whose neighbour sub-cell is empty is a
  // square of a face, on the mid-cell plane when that neighbour is inside the cell, on the cell's side when it is
  // outside (there the neighbour cell may hide it).
  void box_cell(P3 p, int occupancy) {
    for (int face = 0; face < 6; ++face) {
      const FaceAxes& fa = kFaceAxes[face];
      int side = 0, mid = 0;
      for (int hz = 0; hz < 2; ++hz)
        for (int hy = 0; hy < 2; ++hy)
          for (int hx = 0; hx < 2; ++hx) {
            if (!((occupancy >> subcell_bit(hx, hy, hz)) & 1)) continue;
            P3 h{hx, hy, hz};
            const P3 n = h + normal(face);
            const int square = 1 << (get(h, fa.u) | get(h, fa.v) << 1);
            const int along = get(n, fa.axis);
            if (along < 0 || along > 1) side |= square;
            else if (!((occupancy >> subcell_bit(n.x, n.y, n.z)) & 1)) mid |= square;
          }
      side &= ~hidden(p, face);
      if (!side && !mid) continue;
      const CornerValues full = corners(p, face);
      for (const auto& r : rectangles(side)) axis_piece(p, face, false, r[0], r[1], r[2], r[3], full);
      for (const auto& r : rectangles(mid)) axis_piece(p, face, true, r[0], r[1], r[2], r[3], full);
    }
  }

  // A slope: full back side and bottom (top when upside-down), culled square by square; right-triangle sides,
  // hidden only when the neighbour covers every square the triangle touches; the sloped surface (kSlope), lit like
  // the top (bottom when upside-down) of a cube in the same cell.
  void slope_cell(P3 p) {
    const Cell c = cell(p);
    const SlopeInfo si = slope_info(state(c));
    for (int face = 0; face < 6; ++face) {
      switch (slope_side(si, face)) {
        case SlopeSide::kNone: break;
        case SlopeSide::kFull: {
          const int side = 0xF & ~hidden(p, face);
          if (!side) break;
          const CornerValues full = corners(p, face);
          for (const auto& r : rectangles(side)) axis_piece(p, face, false, r[0], r[1], r[2], r[3], full);
          break;
        }
        case SlopeSide::kTriangle: {
          const int touched = slope_triangle_touched(si);
          if ((hidden(p, face) & touched) == touched) break;
          const CornerValues full = corners(p, face);
          const FaceAxes& fa = kFaceAxes[face];
          QuadFields f;
          P3 o{2 * p.x, 2 * p.y, 2 * p.z};
          if (fa.sign > 0) put(o, fa.axis, get(o, fa.axis) + 2);
          f.x = o.x;
          f.y = o.y;
          f.z = o.z;
          f.face = face;
          f.kind = QuadKind::kTriangle;
          f.flow = slope_triangle_removed_corner(si);
          f.texture = texture(c, face);
          for (int k = 0; k < 4; ++k) {
            f.ao[k] = static_cast<uint8_t>(full.ao[static_cast<size_t>(k)]);
            f.light[k] = full.light[static_cast<size_t>(k)];
          }
          add(list_of(c), f);
          break;
        }
      }
    }
    const int lit = si.upside_down ? kFaceNegY : kFacePosY;
    const CornerValues full = corners(p, lit);
    QuadFields f;
    f.x = 2 * p.x;
    f.y = 2 * p.y;
    f.z = 2 * p.z;
    f.face = si.back_face;
    f.kind = QuadKind::kSlope;
    f.flow = si.upside_down ? 1 : 0;
    f.texture = texture(c, lit);
    for (int k = 0; k < 4; ++k) {
      f.ao[k] = static_cast<uint8_t>(full.ao[static_cast<size_t>(k)]);
      f.light[k] = full.light[static_cast<size_t>(k)];
    }
    add(list_of(c), f);
  }

  // A cross plant: two diagonal quads, never culled, lit by the cell's own light, no AO.
  void cross_cell(P3 p) {
    const Cell c = cell(p);
    for (QuadKind kind : {QuadKind::kCrossA, QuadKind::kCrossB}) {
      QuadFields f;
      f.x = 2 * p.x;
      f.y = 2 * p.y;
      f.z = 2 * p.z;
      f.face = kFacePosY;
      f.kind = kind;
      f.texture = texture(c, kFacePosX);
      for (int k = 0; k < 4; ++k) {
        f.ao[k] = 3;
        f.light[k] = light(p);
      }
      add(list_of(c), f);
    }
  }

  // Surface height of a fluid cell in 1/64 block: full when the same fluid lies above, else by its level.
  int surface(P3 p) const {
    const Cell c = cell(p);
    if (cell(p + P3{0, 1, 0}).id == c.id) return kFluidFull;
    return fluid_level_height(state::fluid_level(state(c)));
  }

  // (x, z) side of a cell's top corner k (quad.h +Y corner order).
  static constexpr int kTopSign[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};

  // Height (1/64 block) of fluid `id`'s surface at the vertical edge under top corner k of cell p: the mean, rounded
  // half up, of the surface heights of the cells of that fluid among the four around the edge. The fluid is p's
  // own or that of a neighbour sharing the edge, so at least one cell counts.
  int edge_height(P3 p, int k, uint16_t id) const {
    const P3 su{kTopSign[k][0], 0, 0}, sz{0, 0, kTopSign[k][1]};
    int sum = 0, n = 0;
    for (const P3 q : {p, p + su, p + sz, p + su + sz})
      if (cell(q).id == id) {
        sum += surface(q);
        ++n;
      }
    return (sum + n / 2) / n;
  }

  // The top edge of the side that fluid cell `owner` (p, or p's neighbour across side `face`) has on the plane of
  // side `face` of p: its heights at the side's U-low and U-high ends (the two vertical edges both cells share),
  // 1/64 block; full (64) when the owner has its own fluid above.
  std::array<int, 2> side_top(P3 p, int face, P3 owner) const {
    const uint16_t id = cell(owner).id;
    if (cell(owner + P3{0, 1, 0}).id == id) return {kFluidFull, kFluidFull};
    const FaceAxes& fa = kFaceAxes[face];
    std::array<int, 2> top{};
    for (int e = 0; e < 2; ++e) {
      P3 at{0, 0, 0};
      put(at, fa.axis, fa.sign);
      put(at, fa.u, e == 0 ? -1 : 1);
      for (int k = 0; k < 4; ++k)
        if (kTopSign[k][0] == at.x && kTopSign[k][1] == at.z) top[static_cast<size_t>(e)] = edge_height(p, k, id);
    }
    return top;
  }

  // A fluid cell: a top face unless the same fluid lies above (its corners at the mean surface height of the cells
  // of that fluid sharing each corner, its origin plane at the cell's bottom); no side or bottom face against the
  // same fluid; elsewhere the bottom and the sides are drawn only where the neighbour's own face on that plane does
  // not lie (fluid_bottom, fluid_side). Flow: falling cells (state bit) fall; others flow downhill along the
  // gradient of the corner heights, or are still.
  void fluid_cell(P3 p) {
    const Cell c = cell(p);
    const bool full = cell(p + P3{0, 1, 0}).id == c.id;
    std::array<int, 4> h{};
    for (int k = 0; k < 4; ++k) h[static_cast<size_t>(k)] = edge_height(p, k, c.id);
    const int flow = state::fluid_falling(state(c)) ? kFlowFalling : fluid_flow_from_heights(h.data());

    for (int face = 0; face < 6; ++face) {
      if (face == kFacePosY) {
        if (full) continue;
        const CornerValues values = corners(p, face);
        QuadFields f;
        f.x = 2 * p.x;  // the top's origin plane is the cell's bottom: its heights are the surface heights
        f.y = 2 * p.y;
        f.z = 2 * p.z;
        f.face = face;
        f.texture = texture(c, face);
        f.flow = flow;
        for (int k = 0; k < 4; ++k) {
          f.ao[k] = static_cast<uint8_t>(values.ao[static_cast<size_t>(k)]);
          f.light[k] = values.light[static_cast<size_t>(k)];
          f.height[k] = static_cast<uint8_t>(h[static_cast<size_t>(k)]);
        }
        add(kListTranslucent, f);
        continue;
      }
      if (cell(p + normal(face)).id == c.id) continue;
      if (face == kFaceNegY) {
        fluid_bottom(p, flow);
        continue;
      }
      fluid_side(p, face, side_top(p, face, p), flow);
    }
  }

  // A fluid's bottom: the half-block squares the neighbour below does not cover with its top side (the neighbour's
  // face there stays), split into rectangles like any side.
  void fluid_bottom(P3 p, int flow) {
    const Cell n = cell(p + normal(kFaceNegY));
    const int open = 0xF & ~side_cover(shape(n), state(n), kFacePosY);
    if (!open) return;
    const CornerValues values = corners(p, kFaceNegY);
    for (const auto& r : rectangles(open)) axis_piece(p, kFaceNegY, false, r[0], r[1], r[2], r[3], values, flow);
  }

  // A fluid's side: the part of its rectangle under the surface (`top`: surface heights at the side's U-low and
  // U-high ends, 1/64 block) that lies inside the band the neighbour's touching side leaves open, so a fluid face
  // never lies over the neighbour's face on that plane; the neighbour's face stays. The band: what the neighbour's
  // geometry leaves open (shapes.h side_band), or, for a different fluid that ranks higher (shapes.h seam_rank),
  // everything above that fluid's own side (whose top edge is its surface over the same two vertical edges).
  // Per half-block column, the piece runs from the band's floor up to the lower of the surface and the band's
  // ceiling, both taken at the column's two ends (the piece's corner heights). The two columns make one piece when
  // both lines continue straight across the side, else one piece each, the surface at the side's middle then
  // rounded down to 1/64. A piece whose floor rises above its top at one end ends where the two lines cross
  // (quad.h). Heights (0, 0, 64, 64), a full side, are written as a plain rectangle.
  void fluid_side(P3 p, int face, std::array<int, 2> top, int flow) {
    const Cell me = cell(p), n = cell(p + normal(face));
    // Twice the floor and top heights of each column at its two ends (a surface's middle is then exact).
    int floor2[2][2], top2[2][2];
    const int surface2[3] = {2 * top[0], top[0] + top[1], 2 * top[1]};  // at U = 0, 1 and 2 half-blocks
    const bool under_fluid =
        shape(n) == Shape::kFluid && seam_rank(def(n).transparency, n.id) > seam_rank(def(me).transparency, me.id);
    const std::array<int, 2> other = under_fluid ? side_top(p, face, p + normal(face)) : std::array<int, 2>{};
    const int other2[3] = {2 * other[0], other[0] + other[1], 2 * other[1]};
    for (int col = 0; col < 2; ++col) {
      const SideBand band = side_band(shape(n), state(n), opposite_face(face), col);
      for (int e = 0; e < 2; ++e) {
        floor2[col][e] = under_fluid ? other2[col + e] : 2 * band.floor[e];
        top2[col][e] = std::min(surface2[col + e], 2 * band.ceiling[e]);
      }
    }
    const bool straight = floor2[0][1] == floor2[1][0] && top2[0][1] == top2[1][0] &&
                          2 * floor2[0][1] == floor2[0][0] + floor2[1][1] && 2 * top2[0][1] == top2[0][0] + top2[1][1];
    const CornerValues values = corners(p, face);
    const auto piece = [&](int a, int w, int f_lo, int f_hi, int t_lo, int t_hi) {
      if (t_lo <= f_lo && t_hi <= f_hi) return;  // nothing between floor and top
      std::array<int, 4> heights = {f_lo, f_hi, t_hi, t_lo};
      if (heights == std::array<int, 4>{0, 0, kFluidFull, kFluidFull}) heights = {};
      axis_piece(p, face, false, a, 0, w, 2, values, flow, heights);
    };
    if (straight) {
      piece(0, 2, floor2[0][0] / 2, floor2[1][1] / 2, top2[0][0] / 2, top2[1][1] / 2);
      return;
    }
    for (int col = 0; col < 2; ++col)
      piece(col, 1, floor2[col][0] / 2, floor2[col][1] / 2, top2[col][0] / 2, top2[col][1] / 2);
  }

  const BlockRegistry& m_reg;
  const SectionInput& m_in;
  std::vector<FaceRecord> m_out;
};

}  // namespace

std::vector<FaceRecord> reference_mesh(const BlockRegistry& registry, const SectionInput& input) {
  return Reference(registry, input).run();
}

}  // namespace voxen::mesh
