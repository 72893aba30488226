// Software occlusion (voxen/cull/occlusion.h): occluder boxes from a section's mip chain, and the depth buffer.
#include "voxen/cull/occlusion.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace voxen::cull {

std::vector<OccluderBox> find_occluders(const uint8_t* opaque, const uint8_t* exposed) {
  // Level e: cubes of edge 1 << e on a grid of g = 16 >> e per axis, index (y * g + z) * g + x.
  std::array<std::vector<uint8_t>, 5> solid, shows;
  solid[0].assign(opaque, opaque + 4096);
  shows[0].assign(exposed, exposed + 4096);
  for (int e = 1; e <= 4; ++e) {
    const int g = 16 >> e, c = g * 2;
    solid[static_cast<size_t>(e)].assign(static_cast<size_t>(g * g * g), 0);
    shows[static_cast<size_t>(e)].assign(static_cast<size_t>(g * g * g), 0);
    for (int y = 0; y < g; ++y)
      for (int z = 0; z < g; ++z)
        for (int x = 0; x < g; ++x) {
          uint8_t all = 1, any = 0;
          for (int k = 0; k < 8; ++k) {
            const size_t child = static_cast<size_t>(((2 * y + (k >> 2)) * c + 2 * z + ((k >> 1) & 1)) * c + 2 * x + (k & 1));
            all &= solid[static_cast<size_t>(e - 1)][child] != 0;
            any |= shows[static_cast<size_t>(e - 1)][child] != 0;
          }
          const size_t i = static_cast<size_t>((y * g + z) * g + x);
          solid[static_cast<size_t>(e)][i] = all;
          shows[static_cast<size_t>(e)][i] = any;
        }
  }
  std::vector<OccluderBox> out;
  std::vector<uint8_t> keep;
  for (int e = 4; e >= 0; --e) {
    const int g = 16 >> e, s = 1 << e;
    const auto at = [g](int x, int y, int z) { return static_cast<size_t>((y * g + z) * g + x); };
    keep.assign(static_cast<size_t>(g * g * g), 0);
    bool any = false;
    for (int y = 0; y < g; ++y)
      for (int z = 0; z < g; ++z)
        for (int x = 0; x < g; ++x) {
          const size_t i = at(x, y, z);
          const bool parent_solid = e < 4 && solid[static_cast<size_t>(e + 1)][static_cast<size_t>(((y / 2) * (g / 2) + z / 2) * (g / 2) + x / 2)];
          // 2: a largest solid cube with an exposed cell, 1: one without (enclosed), 0: not a largest solid cube.
          keep[i] = solid[static_cast<size_t>(e)][i] && !parent_solid ? (shows[static_cast<size_t>(e)][i] ? 2 : 1) : 0;
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

// Depth (blocks along the view direction) by which an occluder must lie in front of a candidate: a 24-bit depth
// buffer resolves about z^2 / (near * 2^24) at depth z (far plane >> near); four times that, plus float rounding.
double depth_margin(double z, double near_plane) {
  return 1e-3 + 1e-5 * z + 4.0 * z * z / (near_plane * 16777216.0);
}

}  // namespace

struct OcclusionBuffer::Projected {
  std::array<glm::dvec2, 20> pts{};  // projected vertices, then their convex hull (counter-clockwise)
  int count = 0;
  double zmin = 0, zmax = 0;         // depth range of the (clipped) box
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
};

int OcclusionBuffer::pixel_block(int width) { return std::clamp((width + 255) / 256, 1, 8); }

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
  m_mask.assign(n, 0);
  m_depth.assign(n, kFar);
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
  out.xmin = out.ymin = std::numeric_limits<double>::infinity();
  out.xmax = out.ymax = -out.xmin;
  for (int i = 0; i < out.count; ++i) {
    out.pts[static_cast<size_t>(i)] = h[static_cast<size_t>(i)];
    out.xmin = std::min(out.xmin, h[static_cast<size_t>(i)].x);
    out.xmax = std::max(out.xmax, h[static_cast<size_t>(i)].x);
    out.ymin = std::min(out.ymin, h[static_cast<size_t>(i)].y);
    out.ymax = std::max(out.ymax, h[static_cast<size_t>(i)].y);
  }
  return true;
}

double OcclusionBuffer::entry_depth(double px, double py, const glm::dvec3& lo, const glm::dvec3& hi) const {
  const double a = (2.0 * px / m_view.width - 1.0) * m_view.tan_half_x, b = (2.0 * py / m_view.height - 1.0) * m_view.tan_half_y;
  const glm::dvec3 d = m_forward + a * m_right + b * m_up;  // dot(d, forward) = 1: the ray's parameter is its depth
  double t = 0.0;
  for (int i = 0; i < 3; ++i) {
    if (d[i] > 0.0) t = std::max(t, lo[i] / d[i]);
    else if (d[i] < 0.0) t = std::max(t, hi[i] / d[i]);
  }
  return t;
}

int OcclusionBuffer::add_occluder(const glm::dvec3& min, const glm::dvec3& size) {
  Projected pr;
  if (m_w == 0 || m_h == 0 || !project(min, size, pr)) return 0;
  const int W = m_view.width, H = m_view.height, k = m_k;
  const int r0 = std::max(0, static_cast<int>(std::ceil(pr.ymin - 0.5 + kEdgeInset)));
  const int r1 = std::min(H - 1, static_cast<int>(std::floor(pr.ymax - 0.5 - kEdgeInset)));
  if (r0 > r1 || pr.count < 3) return 0;
  const glm::dvec3 hi = min + size;
  // The silhouette's samples in one sample row: columns [c0, c1] (c0 > c1: none).
  const auto row_span = [&](int r, int& c0, int& c1) {
    const double yc = r + 0.5;
    double xl = std::numeric_limits<double>::infinity(), xr = -xl;
    for (int e = 0; e < pr.count; ++e) {
      const glm::dvec2& p = pr.pts[static_cast<size_t>(e)];
      const glm::dvec2& q = pr.pts[static_cast<size_t>((e + 1) % pr.count)];
      if (yc < std::min(p.y, q.y) || yc > std::max(p.y, q.y)) continue;
      const double x = p.y == q.y ? p.x : p.x + (yc - p.y) * (q.x - p.x) / (q.y - p.y);
      const double x2 = p.y == q.y ? q.x : x;
      xl = std::min({xl, x, x2});
      xr = std::max({xr, x, x2});
    }
    // Inset vertically too: a row within kEdgeInset of the silhouette's top or bottom counts as outside.
    if (yc < pr.ymin + kEdgeInset || yc > pr.ymax - kEdgeInset) xl = 1, xr = 0;
    c0 = std::max(0, static_cast<int>(std::ceil(xl - 0.5 + kEdgeInset)));
    c1 = std::min(W - 1, static_cast<int>(std::floor(xr - 0.5 - kEdgeInset)));
  };
  int touched = 0;
  std::array<int, 8> c0s, c1s;
  for (int j = r0 / k; j <= r1 / k; ++j) {
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
    const int i0 = lo / k, i1 = hi_col / k;
    m_row_masks.assign(static_cast<size_t>(i1 - i0 + 1), 0);
    for (int i = i0; i <= i1; ++i) {
      uint64_t mask = 0;
      for (int rr = 0; rr < k; ++rr) {
        const int a = std::max(c0s[static_cast<size_t>(rr)], i * k), b = std::min(c1s[static_cast<size_t>(rr)], i * k + k - 1);
        if (a > b) continue;
        mask |= ((1ull << (b - a + 1)) - 1) << (rr * k + (a - i * k));
      }
      const size_t p = idx(i, j);
      // Nothing to add where the box covers nothing, or where the pixel is covered nearer than the box's nearest point.
      if (mask != 0 && !(m_mask[p] == m_full[p] && m_depth[p] <= pr.zmin)) m_row_masks[static_cast<size_t>(i - i0)] = mask;
    }
    const auto merge = [&](size_t p, uint64_t mask, double d) {
      ++touched;
      float df = static_cast<float>(d);  // rounded up to float: never nearer than computed
      if (static_cast<double>(df) < d) df = std::nextafter(df, kFar);
      const bool cur_full = m_mask[p] == m_full[p], new_full = mask == m_full[p];
      if (cur_full && new_full) {
        m_depth[p] = std::min(m_depth[p], df);
      } else if (new_full) {
        m_mask[p] = mask;
        m_depth[p] = df;
      } else if (!cur_full) {
        m_depth[p] = m_mask[p] == 0 ? df : std::max(m_depth[p], df);
        m_mask[p] |= mask;
      }
    };
    for (int i = i0; i <= i1;) {
      const uint64_t mask = m_row_masks[static_cast<size_t>(i - i0)];
      const size_t p = idx(i, j);
      if (mask == 0) {
        ++i;
      } else if (mask != m_full[p]) {
        merge(p, mask, pr.zmax);  // in part: the box's farthest point
        ++i;
      } else {
        // A run of up to 8 wholly covered pixels: the box's front over the run's sample rectangle (inside the
        // silhouette, which is convex) is largest at one of its corners.
        int e = i;
        while (e + 1 <= i1 && e + 1 - i < 8 && m_row_masks[static_cast<size_t>(e + 1 - i0)] == m_full[idx(e + 1, j)]) ++e;
        const double x0 = i * k + 0.5, x1 = std::min(e * k + k, W) - 0.5;
        const double y0 = j * k + 0.5, y1 = std::min(j * k + k, H) - 0.5;
        const double d = std::max({entry_depth(x0, y0, min, hi), entry_depth(x1, y0, min, hi), entry_depth(x0, y1, min, hi),
                                   entry_depth(x1, y1, min, hi)});
        for (int q = i; q <= e; ++q) merge(idx(q, j), m_full[idx(q, j)], d);
        i = e + 1;
      }
    }
  }
  return touched;
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
  const int c0 = std::max(0, static_cast<int>(std::ceil(pr.xmin - 0.5 - kEdgeInset)));
  const int c1 = std::min(W - 1, static_cast<int>(std::floor(pr.xmax - 0.5 + kEdgeInset)));
  const int r0 = std::max(0, static_cast<int>(std::ceil(pr.ymin - 0.5 - kEdgeInset)));
  const int r1 = std::min(H - 1, static_cast<int>(std::floor(pr.ymax - 0.5 + kEdgeInset)));
  if (c0 > c1 || r0 > r1) return true;  // no sample inside: nothing can be drawn
  const float limit = static_cast<float>(zmin - depth_margin(zmin, m_view.near_plane));
  for (int j = r0 / k; j <= r1 / k; ++j) {
    const int ra = std::max(r0, j * k) - j * k, rb = std::min(r1, j * k + k - 1) - j * k;
    for (int i = c0 / k; i <= c1 / k; ++i) {
      const int ca = std::max(c0, i * k) - i * k, cb = std::min(c1, i * k + k - 1) - i * k;
      const uint64_t row = (((cb - ca + 1) == 64 ? ~0ull : (1ull << (cb - ca + 1)) - 1)) << ca;
      uint64_t need = 0;
      for (int r = ra; r <= rb; ++r) need |= row << (r * k);
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
