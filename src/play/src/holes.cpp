#include <epoxy/gl.h>

#include "voxen/play/holes.h"

#include <cmath>
#include <limits>

namespace voxen::play {

int64_t HeightCache::top(int64_t x, int64_t z) {
  const ColumnPos c{column_of(x), column_of(z)};
  if (!(c == m_last_pos) || !m_last) {
    auto it = m_columns.find(c);
    if (it == m_columns.end()) {
      if (m_columns.size() >= m_max) m_columns.clear();
      std::array<int32_t, 256> h{};
      for (int lz = 0; lz < 16; ++lz)
        for (int lx = 0; lx < 16; ++lx)
          h[static_cast<size_t>(lz * 16 + lx)] = static_cast<int32_t>(m_gen.surface_y(c.min_x() + lx, c.min_z() + lz) + 1);
      it = m_columns.emplace(c, h).first;
    }
    m_last_pos = c;
    m_last = &it->second;
  }
  return (*m_last)[static_cast<size_t>(local_of(z) * 16 + local_of(x))];
}

std::vector<float> read_depth(uint32_t framebuffer, int width, int height) {
  std::vector<float> depth(static_cast<size_t>(width) * static_cast<size_t>(height));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, width, height, GL_DEPTH_COMPONENT, GL_FLOAT, depth.data());
  return depth;
}

namespace {

struct RayResult {
  bool ground = false;
  double distance = 0.0;  // horizontal, blocks
  BlockPos cell;          // the block column met: x, its top face's y, z
};

// Marches the ray from the eye (camera-relative origin; the eye's block is `eye`, its fraction `frac`) across the
// (x, z) block grid against the height map, up to `radius` horizontally (Amanatides and Woo in 2D).
RayResult march(const glm::dvec3& d, const BlockPos& eye, const glm::dvec3& frac, double radius, HeightCache& heights) {
  const double hlen = std::sqrt(d.x * d.x + d.z * d.z);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double top_of_world = static_cast<double>(kMaxY + 1 - eye.y) - frac.y;
  int64_t cell[2] = {0, 0};  // relative to the eye's block (x, z)
  const double o[2] = {frac.x, frac.z}, dd[2] = {d.x, d.z};
  int step[2];
  double t_max[2], t_delta[2];
  for (int a = 0; a < 2; ++a) {
    if (dd[a] > 0) {
      step[a] = 1;
      t_max[a] = (1.0 - o[a]) / dd[a];
      t_delta[a] = 1.0 / dd[a];
    } else if (dd[a] < 0) {
      step[a] = -1;
      t_max[a] = -o[a] / dd[a];
      t_delta[a] = -1.0 / dd[a];
    } else {
      step[a] = 0;
      t_max[a] = kInf;
      t_delta[a] = kInf;
    }
  }
  const double t_limit = hlen > 0 ? radius / hlen : kInf;
  double t0 = 0.0;
  for (int guard = 0; guard < 100000; ++guard) {
    const double t1 = std::min({t_max[0], t_max[1], t_limit});
    const double top = static_cast<double>(heights.top(eye.x + cell[0], eye.z + cell[1]) - eye.y) - frac.y;
    const double y0 = d.y * t0, y1 = d.y * t1;
    if (std::min(y0, y1) <= top) {
      // Where the ray meets the top face (or t0 if it enters the block column's side below the top).
      double th = t0;
      if (y0 > top && d.y < 0) th = top / d.y;
      return {true, th * hlen, {eye.x + cell[0], heights.top(eye.x + cell[0], eye.z + cell[1]), eye.z + cell[1]}};
    }
    if (t1 >= t_limit) return {};
    if (d.y >= 0 && y1 > top_of_world) return {};  // rising above every possible ground
    const int axis = t_max[0] <= t_max[1] ? 0 : 1;
    t0 = t_max[axis];
    cell[axis] += step[axis];
    t_max[axis] += t_delta[axis];
  }
  return {};
}

}  // namespace

HolesResult measure_holes(const std::vector<float>& depth, int width, int height, const render::Camera& camera,
                          double radius_blocks, HeightCache& heights, int stride, double near_blocks) {
  HolesResult r;
  if (width <= 0 || height <= 0 || depth.size() < static_cast<size_t>(width) * static_cast<size_t>(height)) return r;
  stride = std::max(1, stride);
  // Underground eye: the height map cannot say what is visible.
  const double eye_top = static_cast<double>(heights.top(camera.block.x, camera.block.z) - camera.block.y) - camera.frac.y;
  if (eye_top >= 0.0) return r;
  r.measured = true;
  render::Camera cam = camera;
  cam.aspect = static_cast<double>(width) / static_cast<double>(height);
  const glm::dmat4 inv = glm::inverse(cam.view_projection());
  auto terrain = [&](int x, int y) {
    return x >= 0 && y >= 0 && x < width && y < height &&
           depth[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)] < 1.0f;
  };
  // Candidates on the sampled grid: sky pixels (not cracks) whose ray meets ground within the radius.
  const int gw = (width - stride / 2 + stride - 1) / stride, gh = (height - stride / 2 + stride - 1) / stride;
  std::vector<RayResult> grid(static_cast<size_t>(gw) * static_cast<size_t>(gh));
  for (int gy = 0; gy < gh; ++gy)
    for (int gx = 0; gx < gw; ++gx) {
      const int px = stride / 2 + gx * stride, py = stride / 2 + gy * stride;
      ++r.pixels;
      if (terrain(px, py)) continue;
      ++r.sky_pixels;
      bool crack = true;
      for (int dy = -1; dy <= 1 && crack; ++dy)
        for (int dx = -1; dx <= 1 && crack; ++dx)
          if (dx || dy) crack = terrain(px + dx, py + dy);
      if (crack) {
        ++r.crack_pixels;
        continue;
      }
      const double nx = (px + 0.5) / width * 2.0 - 1.0, ny = (py + 0.5) / height * 2.0 - 1.0;
      const glm::dvec4 far_point = inv * glm::dvec4(nx, ny, 1.0, 1.0);
      const glm::dvec3 d = glm::dvec3(far_point) / far_point.w;
      grid[static_cast<size_t>(gy) * static_cast<size_t>(gw) + static_cast<size_t>(gx)] =
          march(d, cam.block, cam.frac, radius_blocks, heights);
    }
  auto candidate = [&](int gx, int gy) {
    return gx >= 0 && gy >= 0 && gx < gw && gy < gh && grid[static_cast<size_t>(gy) * static_cast<size_t>(gw) + static_cast<size_t>(gx)].ground;
  };
  for (int gy = 0; gy < gh; ++gy)
    for (int gx = 0; gx < gw; ++gx) {
      if (!candidate(gx, gy)) continue;
      if (!candidate(gx - 1, gy) && !candidate(gx + 1, gy) && !candidate(gx, gy - 1) && !candidate(gx, gy + 1)) {
        ++r.edge_pixels;
        continue;
      }
      const RayResult& hit = grid[static_cast<size_t>(gy) * static_cast<size_t>(gw) + static_cast<size_t>(gx)];
      if (r.hole_pixels == 0) r.first_hole = hit.cell;
      ++r.hole_pixels;
      if (hit.distance < near_blocks) ++r.near_hole_pixels;
    }
  return r;
}

}  // namespace voxen::play
