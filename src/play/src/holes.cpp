#include "voxen/play/holes.h"

#include <cmath>
#include <memory>
#include <limits>

namespace voxen::play {

const HeightCache::Entry& HeightCache::entry(int64_t x, int64_t z) {
  const ColumnPos c{column_of(x), column_of(z)};
  if (m_last && c == m_last_pos) return *m_last;
  auto it = m_columns.find(c);
  if (it == m_columns.end()) {
    if (m_columns.size() >= m_max) m_columns.clear();
    auto e = std::make_unique<Entry>();
    e->column = std::make_unique<Column>(c);
    m_gen.generate(*e->column);
    const Column& col = *e->column;
    e->top.fill(kMinY);
    int top_section = kSectionsPerColumn - 1;
    while (top_section > 0 && col.section(top_section).is_empty()) --top_section;
    const int64_t y_start = section_base_y(top_section) + kSectionSize - 1;
    for (int lz = 0; lz < 16; ++lz)
      for (int lx = 0; lx < 16; ++lx)
        for (int64_t y = y_start; y >= kMinY; --y)
          if (m_registry[col.get(lx, y, lz).id].is_opaque_cube()) {
            e->top[static_cast<size_t>(lz * 16 + lx)] = static_cast<int32_t>(y + 1);
            break;
          }
    it = m_columns.emplace(c, std::move(e)).first;
  }
  m_last_pos = c;
  m_last = it->second.get();
  return *m_last;
}

int64_t HeightCache::top(int64_t x, int64_t z) { return entry(x, z).top[static_cast<size_t>(local_of(z) * 16 + local_of(x))]; }

bool HeightCache::ground(int64_t x, int64_t y, int64_t z) {
  if (!y_in_range(y)) return false;
  return m_registry[entry(x, z).column->get(local_of(x), y, local_of(z)).id].is_opaque_cube();
}

namespace {

struct RayResult {
  bool ground = false;
  double distance = 0.0;  // horizontal, blocks
  BlockPos cell;          // the opaque block met
};

// Marches the ray from the eye (camera-relative origin; the eye's block is `eye`, its fraction `frac`) across the
// (x, z) block grid against the height map, up to `radius` horizontally (Amanatides and Woo in 2D).
RayResult march(const glm::dvec3& d, const BlockPos& eye, const glm::dvec3& frac, double radius, HeightCache& heights) {
  const double hlen = std::sqrt(d.x * d.x + d.z * d.z);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double top_of_world = static_cast<double>(kMaxY + 1 - eye.y);
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
    const int64_t wx = eye.x + cell[0], wz = eye.z + cell[1];
    // Heights relative to the eye's block: the ray's y is frac.y + d.y * t.
    const double top = static_cast<double>(heights.top(wx, wz) - eye.y);
    const double y0 = frac.y + d.y * t0, y1 = frac.y + d.y * t1;
    if (std::min(y0, y1) < top) {
      // The ray dips under the top of the opaque ground here: walk the block levels it crosses in this column,
      // in the ray's order, for an opaque cube (overhangs and caves let it through).
      const double lo = std::min(y0, y1), hi = std::min(std::max(y0, y1), top - 1e-9);
      const int64_t first = static_cast<int64_t>(std::floor(d.y < 0 ? hi : lo));
      const int64_t last = static_cast<int64_t>(std::floor(d.y < 0 ? lo : hi));
      const int64_t step_y = d.y < 0 ? -1 : 1;
      for (int64_t yb = first;; yb += step_y) {
        if (eye.y + yb < kMinY) break;
        if (heights.ground(wx, eye.y + yb, wz)) {
          double th = t0;
          if (d.y < 0 && y0 > static_cast<double>(yb + 1)) th = (static_cast<double>(yb + 1) - frac.y) / d.y;
          if (d.y > 0 && y0 < static_cast<double>(yb)) th = (static_cast<double>(yb) - frac.y) / d.y;
          return {true, std::max(th, t0) * hlen, {wx, eye.y + yb, wz}};
        }
        if (yb == last) break;
      }
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
                          double radius_blocks, HeightCache& heights, int stride, double near_blocks,
                          const DrawnFn& drawn) {
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
  for (int py = stride / 2; py < height; py += stride)
    for (int px = stride / 2; px < width; px += stride) {
      ++r.pixels;
      if (terrain(px, py)) continue;
      ++r.sky_pixels;
      // A crack: every neighbour inside the frame shows terrain (on the border, what lies outside is unknown).
      bool crack = true;
      for (int dy = -1; dy <= 1 && crack; ++dy)
        for (int dx = -1; dx <= 1 && crack; ++dx) {
          const int nx = px + dx, ny = py + dy;
          if ((dx || dy) && nx >= 0 && ny >= 0 && nx < width && ny < height) crack = terrain(nx, ny);
        }
      if (crack) {
        ++r.crack_pixels;
        continue;
      }
      // The ray through the pixel centre, and the rays one pixel left, right, up and down of it: ground must be
      // met by all five, so a silhouette pixel the GPU rounded the other way is an edge, not a hole.
      auto ray = [&](double ox, double oy) {
        const double nx = (px + 0.5 + ox) / width * 2.0 - 1.0, ny = (py + 0.5 + oy) / height * 2.0 - 1.0;
        const glm::dvec4 far_point = inv * glm::dvec4(nx, ny, 1.0, 1.0);
        return march(glm::dvec3(far_point) / far_point.w, cam.block, cam.frac, radius_blocks, heights);
      };
      const RayResult hit = ray(0.0, 0.0);
      if (!hit.ground) continue;
      if (!ray(-1.0, 0.0).ground || !ray(1.0, 0.0).ground || !ray(0.0, 1.0).ground || !ray(0.0, -1.0).ground) {
        ++r.edge_pixels;
        continue;
      }
      if (r.hole_pixels == 0) r.first_hole = hit.cell;
      if (r.hole_at.size() < 4096) r.hole_at.push_back({px, py});
      ++r.hole_pixels;
      if (hit.distance < near_blocks) {
        ++r.near_hole_pixels;
        if (drawn && drawn(column_pos_of(hit.cell)) && r.drawn_hole_pixels++ == 0) r.first_drawn_hole = hit.cell;
      }
    }
  return r;
}

}  // namespace voxen::play
