// Software occlusion (voxen/cull/occlusion.h): occluder boxes from a section's mip chain, and the depth buffer.
#include "voxen/cull/occlusion.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

namespace voxen::cull {

std::vector<OccluderBox> find_occluders(const uint8_t* opaque, const uint8_t* exposed) {
  // Level e: cubes of edge 1 << e on a grid of g = 16 >> e per axis, index (y * g + z) * g + x, at offset[e] in one
  // array (4,096 + 512 + 64 + 8 + 1 entries: no allocation).
  constexpr std::array<size_t, 6> offset = {0, 4096, 4608, 4672, 4680, 4681};
  std::array<uint8_t, 4681> solid, shows;
  for (size_t i = 0; i < 4096; ++i) solid[i] = opaque[i] != 0, shows[i] = exposed[i] != 0;
  for (int e = 1; e <= 4; ++e) {
    const int g = 16 >> e, c = g * 2;
    const size_t up = offset[static_cast<size_t>(e)], down = offset[static_cast<size_t>(e - 1)];
    for (int y = 0; y < g; ++y)
      for (int z = 0; z < g; ++z)
        for (int x = 0; x < g; ++x) {
          uint8_t all = 1, any = 0;
          for (int k = 0; k < 8; ++k) {
            const size_t child = down + static_cast<size_t>(((2 * y + (k >> 2)) * c + 2 * z + ((k >> 1) & 1)) * c + 2 * x + (k & 1));
            all &= solid[child];
            any |= shows[child];
          }
          const size_t i = up + static_cast<size_t>((y * g + z) * g + x);
          solid[i] = all;
          shows[i] = any;
        }
  }
  std::vector<OccluderBox> out;
  std::array<uint8_t, 4096> keep;
  for (int e = 4; e >= 0; --e) {
    const int g = 16 >> e, s = 1 << e;
    const size_t base = offset[static_cast<size_t>(e)], parent_base = offset[static_cast<size_t>(std::min(e + 1, 4))];
    const auto at = [g](int x, int y, int z) { return static_cast<size_t>((y * g + z) * g + x); };
    std::fill(keep.begin(), keep.begin() + g * g * g, uint8_t{0});
    bool any = false;
    for (int y = 0; y < g; ++y)
      for (int z = 0; z < g; ++z)
        for (int x = 0; x < g; ++x) {
          const size_t i = at(x, y, z);
          const bool parent_solid = e < 4 && solid[parent_base + static_cast<size_t>(((y / 2) * (g / 2) + z / 2) * (g / 2) + x / 2)];
          // 2: a largest solid cube with an exposed cell, 1: one without (enclosed), 0: not a largest solid cube.
          keep[i] = solid[base + i] && !parent_solid ? (shows[base + i] ? 2 : 1) : 0;
          any |= keep[i] != 0;
        }
    if (!any) continue;
    // Greedy merge of cubes of one kind (exposed or enclosed): a run along x, grown along z while every cube of the
    // next row is of its kind, then along y while every cube of the next layer is. Merged cubes leave `keep`.
    for (int y = 0; y < g; ++y)
      for (int z = 0; z < g; ++z)
        for (int x = 0; x < g; ++x) {
          const uint8_t kind = keep[at(x, y, z)];
          if (!kind) continue;
          int x1 = x, z1 = z, y1 = y;
          while (x1 + 1 < g && keep[at(x1 + 1, y, z)] == kind) ++x1;
          const auto row_kept = [&](int yy, int zz) {
            for (int xx = x; xx <= x1; ++xx)
              if (keep[at(xx, yy, zz)] != kind) return false;
            return true;
          };
          while (z1 + 1 < g && row_kept(y, z1 + 1)) ++z1;
          const auto layer_kept = [&](int yy) {
            for (int zz = z; zz <= z1; ++zz)
              if (!row_kept(yy, zz)) return false;
            return true;
          };
          while (y1 + 1 < g && layer_kept(y1 + 1)) ++y1;
          for (int yy = y; yy <= y1; ++yy)
            for (int zz = z; zz <= z1; ++zz)
              for (int xx = x; xx <= x1; ++xx) keep[at(xx, yy, zz)] = 0;
          out.push_back(OccluderBox{static_cast<uint8_t>(x * s), static_cast<uint8_t>(y * s), static_cast<uint8_t>(z * s),
                                    static_cast<uint8_t>((x1 - x + 1) * s), static_cast<uint8_t>((y1 - y + 1) * s),
                                    static_cast<uint8_t>((z1 - z + 1) * s), static_cast<uint8_t>(s), kind == 2});
        }
  }
  return out;
}

namespace {

// A sample is inside a silhouette only when it is this far inside its edges (frame pixels): the GPU's vertices are
// float and snapped to 1/256 pixel, ours are double; a candidate's rectangle is widened by as much.
constexpr double kEdgeInset = 0.02;

// floor and ceil of x clamped to [lo, hi] (NaN: lo): a projected coordinate may lie far outside int's range, and
// std::floor and std::ceil are calls into libm on baseline x86-64 (a tenth of the pass when they were used here).
// Clamped first, without branches (the rows' spans call these eight times a buffer row, their branches unforeseeable).
inline int floor_in(double x, int lo, int hi) {
  x = x > lo ? x : static_cast<double>(lo);
  x = x < hi ? x : static_cast<double>(hi);
  const int i = static_cast<int>(x);  // toward zero
  return i - (static_cast<double>(i) > x ? 1 : 0);
}
inline int ceil_in(double x, int lo, int hi) {
  x = x > lo ? x : static_cast<double>(lo);
  x = x < hi ? x : static_cast<double>(hi);
  const int i = static_cast<int>(x);
  return i + (static_cast<double>(i) < x ? 1 : 0);
}

// Depth (blocks along the view direction) by which an occluder must lie in front of a candidate: a 24-bit depth
// buffer resolves about z^2 / (near * 2^24) at depth z (far plane >> near); four times that, plus float rounding.
double depth_margin(double z, double near_plane) {
  return 1e-3 + 1e-5 * z + 4.0 * z * z / (near_plane * 16777216.0);
}

}  // namespace

int OcclusionBuffer::pixel_block(int width) { return std::clamp((width + 159) / 160, 1, 8); }

void OcclusionBuffer::begin(const OcclusionView& view) {
  m_view = view;
  const glm::dmat3& r = view.rotation;
  m_right = glm::dvec3(r[0][0], r[1][0], r[2][0]);
  m_up = glm::dvec3(r[0][1], r[1][1], r[2][1]);
  m_forward = -glm::dvec3(r[0][2], r[1][2], r[2][2]);
  m_k = pixel_block(std::max(view.width, 1));
  m_w = (std::max(view.width, 0) + m_k - 1) / m_k;
  m_h = (std::max(view.height, 0) + m_k - 1) / m_k;
  const size_t n = static_cast<size_t>(m_w) * static_cast<size_t>(m_h);
  const bool same_size = m_full.size() == n && m_full_width == view.width && m_full_height == view.height;
  m_mask.assign(n, 0);
  m_depth.assign(n, kFar);
  m_tw = (m_w + kTile - 1) / kTile;
  m_th = (m_h + kTile - 1) / kTile;
  m_tile_stride = (m_tw + 15) / 16 * 16 + 16;
  m_tile_far.assign(static_cast<size_t>(m_tile_stride) * static_cast<size_t>(m_th), kFar);
  if (same_size) return;
  m_full_width = view.width;
  m_full_height = view.height;
  m_full.resize(n);
  for (int j = 0; j < m_h; ++j)
    for (int i = 0; i < m_w; ++i) {
      const int cols = std::min(m_k, view.width - i * m_k), rows = std::min(m_k, view.height - j * m_k);
      uint64_t full = 0;
      for (int row = 0; row < rows; ++row) full |= ((1ull << cols) - 1) << (row * m_k);
      m_full[idx(i, j)] = full;
    }
}

bool OcclusionBuffer::project(const glm::dvec3& min, const glm::dvec3& size, Projected& out) const {
  std::array<glm::dvec3, 8> c;
  std::array<double, 8> z;
  for (int k = 0; k < 8; ++k) {
    c[static_cast<size_t>(k)] = min + glm::dvec3((k & 1) ? size.x : 0.0, (k & 2) ? size.y : 0.0, (k & 4) ? size.z : 0.0);
    z[static_cast<size_t>(k)] = glm::dot(m_forward, c[static_cast<size_t>(k)]);
  }
  const double zc = m_view.near_plane;
  const double sx = 0.5 * m_view.width / m_view.tan_half_x, sy = 0.5 * m_view.height / m_view.tan_half_y;
  out.count = 0;
  out.zmin = std::numeric_limits<double>::infinity();
  out.zmax = -out.zmin;
  auto add = [&](const glm::dvec3& p, double pz) {
    out.pts[static_cast<size_t>(out.count++)] =
        glm::dvec2(0.5 * m_view.width + sx * glm::dot(m_right, p) / pz, 0.5 * m_view.height + sy * glm::dot(m_up, p) / pz);
    out.zmin = std::min(out.zmin, pz);
    out.zmax = std::max(out.zmax, pz);
  };
  for (int k = 0; k < 8; ++k)
    if (z[static_cast<size_t>(k)] >= zc) add(c[static_cast<size_t>(k)], z[static_cast<size_t>(k)]);
  if (out.count == 0) return false;
  if (out.count < 8)  // clipped: where the 12 edges cross the plane depth = zc
    for (int a = 0; a < 8; ++a)
      for (int bit = 1; bit < 8; bit <<= 1) {
        if (a & bit) continue;
        const int b = a | bit;
        const double za = z[static_cast<size_t>(a)], zb = z[static_cast<size_t>(b)];
        if ((za >= zc) == (zb >= zc)) continue;
        const double t = (zc - za) / (zb - za);
        add(c[static_cast<size_t>(a)] + t * (c[static_cast<size_t>(b)] - c[static_cast<size_t>(a)]), zc);
      }
  out.xmin = out.ymin = std::numeric_limits<double>::infinity();
  out.xmax = out.ymax = -out.xmin;
  for (int i = 0; i < out.count; ++i) {
    out.xmin = std::min(out.xmin, out.pts[static_cast<size_t>(i)].x);
    out.xmax = std::max(out.xmax, out.pts[static_cast<size_t>(i)].x);
    out.ymin = std::min(out.ymin, out.pts[static_cast<size_t>(i)].y);
    out.ymax = std::max(out.ymax, out.pts[static_cast<size_t>(i)].y);
  }
  return true;
}

void OcclusionBuffer::hull(Projected& out) {
  // Convex hull (Andrew's monotone chain), counter-clockwise, into pts[0..count).
  std::array<glm::dvec2, 20> p = out.pts;
  std::sort(p.begin(), p.begin() + out.count, [](const glm::dvec2& a, const glm::dvec2& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  const auto cross = [](const glm::dvec2& o, const glm::dvec2& a, const glm::dvec2& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  };
  std::array<glm::dvec2, 40> h;
  int n = 0;
  for (int i = 0; i < out.count; ++i) {
    while (n >= 2 && cross(h[static_cast<size_t>(n - 2)], h[static_cast<size_t>(n - 1)], p[static_cast<size_t>(i)]) <= 0) --n;
    h[static_cast<size_t>(n++)] = p[static_cast<size_t>(i)];
  }
  for (int i = out.count - 2, lower = n + 1; i >= 0; --i) {
    while (n >= lower && cross(h[static_cast<size_t>(n - 2)], h[static_cast<size_t>(n - 1)], p[static_cast<size_t>(i)]) <= 0) --n;
    h[static_cast<size_t>(n++)] = p[static_cast<size_t>(i)];
  }
  out.count = std::max(1, n - 1);
  for (int i = 0; i < out.count; ++i) out.pts[static_cast<size_t>(i)] = h[static_cast<size_t>(i)];
}

double OcclusionBuffer::max_entry_depth(double x0, double x1, double y0, double y1, const glm::dvec3& lo,
                                        const glm::dvec3& hi) const {
  // The ray through frame position (px, py) has direction forward + a right + b up (its parameter is its depth);
  // it enters the box at the largest of its three slabs' entry parameters (and not before the eye).
  const double ax[2] = {(2.0 * x0 / m_view.width - 1.0) * m_view.tan_half_x, (2.0 * x1 / m_view.width - 1.0) * m_view.tan_half_x};
  const double by[2] = {(2.0 * y0 / m_view.height - 1.0) * m_view.tan_half_y, (2.0 * y1 / m_view.height - 1.0) * m_view.tan_half_y};
  double deepest = 0.0;
  for (const double b : by)
    for (const double a : ax) {
      const glm::dvec3 d = m_forward + a * m_right + b * m_up;
      double t = 0.0;
      for (int i = 0; i < 3; ++i) {
        if (d[i] > 0.0) t = std::max(t, lo[i] / d[i]);
        else if (d[i] < 0.0) t = std::max(t, hi[i] / d[i]);
      }
      deepest = std::max(deepest, t);
    }
  return deepest;
}

int OcclusionBuffer::add_occluder(const glm::dvec3& min, const glm::dvec3& size) {
  return add_occluder(project_box(min, size), 0, m_th);
}

OcclusionBuffer::ProjectedBox OcclusionBuffer::project_box(const glm::dvec3& min, const glm::dvec3& size) const {
  ProjectedBox box;
  box.min = min;
  box.hi = min + size;
  if (m_w == 0 || m_h == 0 || !project(min, size, box.pr)) return box;
  hull(box.pr);
  box.visible = box.pr.count >= 3;
  return box;
}

int OcclusionBuffer::add_occluder(const ProjectedBox& box, int tile_row_begin, int tile_row_end) {
  if (!box.visible) return 0;
  const Projected& pr = box.pr;
  const glm::dvec3& min = box.min;
  const int W = m_view.width, H = m_view.height, k = m_k;
  // The band's sample rows, and the box's within them.
  const int band_j0 = std::max(0, tile_row_begin) * kTile, band_j1 = std::min(m_h, tile_row_end * kTile) - 1;
  if (band_j0 > band_j1) return 0;
  const int r0 = ceil_in(pr.ymin - 0.5 + kEdgeInset, band_j0 * k, H);
  const int r1 = floor_in(pr.ymax - 0.5 - kEdgeInset, -1, std::min(H - 1, band_j1 * k + k - 1));
  if (r0 > r1) return 0;
  // Nothing to add where every pixel the box's rectangle meets is covered nearer than the box's nearest point: the
  // tiles first, then the pixels.
  const int bi0 = floor_in(pr.xmin, 0, W - 1) / k, bi1 = floor_in(pr.xmax, 0, W - 1) / k;
  const int bj0 = r0 / k, bj1 = r1 / k;
  if (bi0 > bi1) return 0;
  {
    bool all_near = true;
    for (int tj = bj0 / kTile; tj <= bj1 / kTile && all_near; ++tj)
      for (int ti = bi0 / kTile; ti <= bi1 / kTile && all_near; ++ti) all_near = m_tile_far[tile(ti, tj)] <= pr.zmin;
    if (all_near) return 0;
  }
  const glm::dvec3& hi = box.hi;
  // The silhouette's two chains from its lowest vertex to its highest (y ascending along both: it is convex), so a
  // sample row's span is one step along each; rows are asked in ascending order.
  struct Edge {
    double y0, y1, x0, slope;
  };
  std::array<Edge, 20> chain[2];
  int chain_n[2] = {0, 0}, at[2] = {0, 0};
  {
    int lo = 0, top = 0;
    for (int i = 1; i < pr.count; ++i) {
      if (pr.pts[static_cast<size_t>(i)].y < pr.pts[static_cast<size_t>(lo)].y) lo = i;
      if (pr.pts[static_cast<size_t>(i)].y > pr.pts[static_cast<size_t>(top)].y) top = i;
    }
    for (int c = 0; c < 2; ++c)
      for (int i = lo; i != top;) {
        const int next = c == 0 ? (i + 1) % pr.count : (i + pr.count - 1) % pr.count;
        const glm::dvec2& p = pr.pts[static_cast<size_t>(i)];
        const glm::dvec2& q = pr.pts[static_cast<size_t>(next)];
        if (q.y > p.y) chain[c][static_cast<size_t>(chain_n[c]++)] = Edge{p.y, q.y, p.x, (q.x - p.x) / (q.y - p.y)};
        i = next;
      }
    if (chain_n[0] == 0 || chain_n[1] == 0) return 0;
  }
  // The silhouette's samples in sample row r: columns [c0, c1] (c0 > c1: none).
  const auto row_span = [&](int r, int& c0, int& c1) {
    const double yc = r + 0.5;
    c0 = 1, c1 = 0;
    // Inset vertically too: a row within kEdgeInset of the silhouette's top or bottom counts as outside.
    if (yc < pr.ymin + kEdgeInset || yc > pr.ymax - kEdgeInset) return;
    double x[2];
    for (int c = 0; c < 2; ++c) {
      while (at[c] + 1 < chain_n[c] && chain[c][static_cast<size_t>(at[c])].y1 < yc) ++at[c];
      const Edge& e = chain[c][static_cast<size_t>(at[c])];
      x[c] = e.x0 + (yc - e.y0) * e.slope;
    }
    c0 = ceil_in(std::min(x[0], x[1]) - 0.5 + kEdgeInset, 0, W);
    c1 = floor_in(std::max(x[0], x[1]) - 0.5 - kEdgeInset, -1, W - 1);
  };
  int touched = 0;
  // The tiles a pixel of which changed (their farthest covered depth is found again at the end): bit (ti - ti_first)
  // of word (tj - tj_first); a tile past the 8 x 64 the words hold shares the last bit of its row or column, which
  // is found again whatever it says.
  std::array<uint64_t, 8> dirty{};
  const int tj_first = bj0 / kTile, ti_first = bi0 / kTile;
  const auto mark_dirty = [&](int i, int j) {
    const int ti = i / kTile - ti_first, tj = j / kTile - tj_first;
    dirty[static_cast<size_t>(std::min(tj, 7))] |= 1ull << std::min(ti, 63);
  };
  std::array<int, 8> c0s, c1s;
  const float zmin_f = static_cast<float>(pr.zmin);
  // Depths as stored: rounded up to float, never nearer than computed (d > 0).
  const auto up_to_float = [](double d) {
    const float df = static_cast<float>(d);
    return static_cast<double>(df) < d ? std::bit_cast<float>(std::bit_cast<uint32_t>(df) + 1u) : df;
  };
  const float zmax_up = up_to_float(pr.zmax);
  for (int j = bj0; j <= bj1; ++j) {
    // A row whose pixels under the box's rectangle are all covered nearer than its nearest point: nothing to add.
    {
      bool near = true;
      for (int i = bi0; i <= bi1 && near; ++i) {
        const size_t p = idx(i, j);
        near = m_mask[p] == m_full[p] && m_depth[p] <= zmin_f;
      }
      if (near) continue;
    }
    int lo = W, hi_col = -1;
    for (int rr = 0; rr < k; ++rr) {
      const int r = j * k + rr;
      c0s[static_cast<size_t>(rr)] = 1, c1s[static_cast<size_t>(rr)] = 0;
      if (r < r0 || r > r1) continue;
      row_span(r, c0s[static_cast<size_t>(rr)], c1s[static_cast<size_t>(rr)]);
      if (c0s[static_cast<size_t>(rr)] <= c1s[static_cast<size_t>(rr)]) {
        lo = std::min(lo, c0s[static_cast<size_t>(rr)]);
        hi_col = std::max(hi_col, c1s[static_cast<size_t>(rr)]);
      }
    }
    if (hi_col < 0) continue;
    // The columns every sample row of this buffer row covers: a pixel whose columns lie within them is covered whole.
    int in_lo = 0, in_hi = W - 1;
    for (int rr = 0; rr < k && j * k + rr < H; ++rr) {
      in_lo = std::max(in_lo, c0s[static_cast<size_t>(rr)]);
      in_hi = std::min(in_hi, c1s[static_cast<size_t>(rr)]);
    }
    const int i0 = lo / k, i1 = hi_col / k;
    const int tj = j / kTile;
    const size_t row = idx(0, j);
    // Whether pixel i is covered whole nearer than the box's nearest point (nothing to add there); open: neither it
    // nor its tile is.
    const auto covered_nearer = [&](int i) {
      const size_t p = row + static_cast<size_t>(i);
      return m_mask[p] == m_full[p] && m_depth[p] <= pr.zmin;
    };
    const auto open = [&](int i) { return m_tile_far[tile(i / kTile, tj)] > pr.zmin && !covered_nearer(i); };
    const auto whole = [&](int i) { return i * k >= in_lo && std::min(i * k + k, W) - 1 <= in_hi; };
    // A pixel's samples `mask` at depth `df` (float, rounded up) merged into the buffer.
    const auto merge = [&](int i, uint64_t mask, float df) {
      const size_t p = row + static_cast<size_t>(i);
      ++touched;
      const bool cur_full = m_mask[p] == m_full[p], new_full = mask == m_full[p];
      if (cur_full && new_full) {
        if (df >= m_depth[p]) return;
        m_depth[p] = df;
      } else if (new_full) {
        m_mask[p] = mask;
        m_depth[p] = df;
      } else if (!cur_full) {
        m_depth[p] = m_mask[p] == 0 ? df : std::max(m_depth[p], df);
        m_mask[p] |= mask;
        if (m_mask[p] != m_full[p]) return;  // still in part: its tile is not all covered
      } else {
        return;
      }
      mark_dirty(i, j);
    };
    for (int i = i0; i <= i1;) {
      if (m_tile_far[tile(i / kTile, tj)] <= pr.zmin) {  // the tile is covered nearer: skip to its end
        i = (i / kTile) * kTile + kTile;
        continue;
      }
      if (covered_nearer(i)) {
        ++i;
        continue;
      }
      if (!whole(i)) {
        uint64_t mask = 0;
        for (int rr = 0; rr < k; ++rr) {
          const int a = std::max(c0s[static_cast<size_t>(rr)], i * k), b = std::min(c1s[static_cast<size_t>(rr)], i * k + k - 1);
          if (a > b) continue;
          mask |= ((1ull << (b - a + 1)) - 1) << (rr * k + (a - i * k));
        }
        if (mask != 0) merge(i, mask, zmax_up);  // in part: the box's farthest point
        ++i;
        continue;
      }
      // A run of up to 8 wholly covered pixels: the box's front over the run's sample rectangle (inside the
      // silhouette, which is convex) is largest at one of its corners.
      int e = i;
      while (e + 1 <= i1 && e + 1 - i < 8 && whole(e + 1) && open(e + 1)) ++e;
      const double x0 = i * k + 0.5, x1 = std::min(e * k + k, W) - 0.5;
      const double y0 = j * k + 0.5, y1 = std::min(j * k + k, H) - 0.5;
      const float df = up_to_float(max_entry_depth(x0, x1, y0, y1, min, hi));
      for (int q = i; q <= e; ++q) merge(q, m_full[row + static_cast<size_t>(q)], df);
      i = e + 1;
    }
  }
  // The tiles with a pixel newly covered whole or nearer: their farthest covered depth again (kFar while a pixel is
  // not covered whole).
  for (int tj = tj_first; tj <= bj1 / kTile; ++tj)
    for (int ti = ti_first; ti <= bi1 / kTile; ++ti) {
      const int dj = std::min(tj - tj_first, 7), di = std::min(ti - ti_first, 63);
      if (!((dirty[static_cast<size_t>(dj)] >> di) & 1u) && dj < 7 && di < 63) continue;
      float far = 0.0f;
      for (int j = tj * kTile; j < std::min(m_h, tj * kTile + kTile) && far < kFar; ++j)
        for (int i = ti * kTile; i < std::min(m_w, ti * kTile + kTile); ++i) {
          const size_t p = idx(i, j);
          far = std::max(far, m_mask[p] == m_full[p] ? m_depth[p] : kFar);
        }
      m_tile_far[tile(ti, tj)] = far;
    }
  return touched;
}

float OcclusionBuffer::covered_depth(int tile_row_begin, int tile_row_end) const {
  float far = 0.0f;
  bool any = false;
  for (int tj = std::max(0, tile_row_begin); tj < std::min(m_th, tile_row_end); ++tj)
    for (int ti = 0; ti < m_tw; ++ti) {
      far = std::max(far, m_tile_far[tile(ti, tj)]);
      any = true;
    }
  return any ? far : kFar;
}

template <bool kDepth>
bool OcclusionBuffer::test(const glm::dvec3& min, const glm::dvec3& size) const {
  if (m_w == 0 || m_h == 0) return false;
  double zmin = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 8; ++k) {
    const glm::dvec3 c = min + glm::dvec3((k & 1) ? size.x : 0.0, (k & 2) ? size.y : 0.0, (k & 4) ? size.z : 0.0);
    zmin = std::min(zmin, glm::dot(m_forward, c));
  }
  if (zmin <= m_view.near_plane) return false;
  Projected pr;
  if (!project(min, size, pr)) return false;
  const int W = m_view.width, H = m_view.height, k = m_k;
  const int c0 = ceil_in(pr.xmin - 0.5 - kEdgeInset, 0, W), c1 = floor_in(pr.xmax - 0.5 + kEdgeInset, -1, W - 1);
  const int r0 = ceil_in(pr.ymin - 0.5 - kEdgeInset, 0, H), r1 = floor_in(pr.ymax - 0.5 + kEdgeInset, -1, H - 1);
  if (c0 > c1 || r0 > r1) return true;  // no sample inside: nothing can be drawn
  const float limit = kDepth ? static_cast<float>(zmin - depth_margin(zmin, m_view.near_plane)) : kFar;
  // Buffer pixels all of whose samples lie in the rectangle: [fi0, fi1] x [fj0, fj1]; a tile within them answers for
  // its 64 pixels at once.
  const int fi0 = (c0 + k - 1) / k, fi1 = (c1 + 1) / k - 1, fj0 = (r0 + k - 1) / k, fj1 = (r1 + 1) / k - 1;
  const auto inner_tile = [&](int i, int j) {
    const int ti = i / kTile, tj = j / kTile;
    return ti * kTile >= fi0 && std::min(m_w, ti * kTile + kTile) - 1 <= fi1 && tj * kTile >= fj0 &&
           std::min(m_h, tj * kTile + kTile) - 1 <= fj1;
  };
  // The samples a pixel must have covered: those of its sample rows and columns within the rectangle. A mask's
  // sample (row r, column c) is bit r * k + c; `lanes` has bit 0 of every row, so lanes * bits repeats `bits`
  // (k wide) in every row.
  uint64_t lanes = 0;
  for (int r = 0; r < k; ++r) lanes |= 1ull << (r * k);
  const auto columns = [&](int i) {  // the rectangle's columns of pixel column i, in every row
    const int ca = std::max(c0, i * k) - i * k, cb = std::min(c1, i * k + k - 1) - i * k;
    return (((1ull << (cb - ca + 1)) - 1) << ca) * lanes;
  };
  const int ci0 = c0 / k, ci1 = c1 / k;
  const uint64_t first_cols = columns(ci0), last_cols = columns(ci1), all_cols = ci1 > ci0 + 1 ? columns(ci0 + 1) : 0;
  // Top row first: a box that shows is most often seen at its top (terrain against the sky, a section over a
  // hill's crest), so the answer comes after fewer pixels; any order gives the same answer.
  for (int j = r1 / k; j >= r0 / k; --j) {
    const int ra = std::max(r0, j * k) - j * k, rb = std::min(r1, j * k + k - 1) - j * k;
    const int nrows = rb - ra + 1;
    const uint64_t rows = (nrows * k >= 64 ? ~0ull : (1ull << (nrows * k)) - 1) << (ra * k);
    for (int i = ci0; i <= ci1; ++i) {
      if (inner_tile(i, j)) {
        if (!(m_tile_far[tile(i / kTile, j / kTile)] < limit)) return false;
        i = (i / kTile) * kTile + kTile - 1;  // the rest of the tile's row is answered
        continue;
      }
      const uint64_t need = rows & (i == ci0 ? first_cols : i == ci1 ? last_cols : all_cols);
      const size_t p = idx(i, j);
      if ((m_mask[p] & need) != need) return false;
      if (kDepth && !(m_depth[p] < limit)) return false;
    }
  }
  return true;
}

bool OcclusionBuffer::hidden(const glm::dvec3& min, const glm::dvec3& size) const { return test<true>(min, size); }
bool OcclusionBuffer::covered(const glm::dvec3& min, const glm::dvec3& size) const { return test<false>(min, size); }

}  // namespace voxen::cull
