#include "voxen/playtest/holes.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <limits>

#include "voxen/core/clock.h"

namespace voxen::playtest {

void HeightCache::fill_tops(const Column& col, Entry& e) const {
  e.top.fill(kMinY);
  e.max_top = kMinY;
  e.quad.fill(kMinY);
  // Down each block's vertical to its first opaque full cube; sections without one in their palette are skipped.
  std::array<bool, 256> open;
  open.fill(true);
  int left = 256;
  for (int s = kSectionsPerColumn - 1; s >= 0 && left > 0; --s) {
    const Section& sec = col.section(s);
    const auto& pal = sec.palette();
    if (std::none_of(pal.begin(), pal.end(), [&](uint32_t p) { return m_registry[Cell::from_packed(p).id].is_opaque_cube(); }))
      continue;
    for (int i = 0; i < 256; ++i) {
      if (!open[static_cast<size_t>(i)]) continue;
      for (int y = kSectionSize - 1; y >= 0; --y)
        if (m_registry[sec.get(i | (y << 8)).id].is_opaque_cube()) {
          const int32_t t = static_cast<int32_t>(section_base_y(s) + y + 1);
          e.top[static_cast<size_t>(i)] = t;
          e.max_top = std::max(e.max_top, t);
          int32_t& q = e.quad[static_cast<size_t>((i >> 6) * 4 + ((i & 15) >> 2))];
          q = std::max(q, t);
          open[static_cast<size_t>(i)] = false;
          --left;
          break;
        }
    }
  }
}

const HeightCache::Entry& HeightCache::entry(ColumnPos c) {
  if (m_last && c == m_last_pos) return *m_last;
  return entry(c, m_columns.find(c), m_world ? m_world->find(c) : nullptr);
}

const HeightCache::Entry& HeightCache::entry(ColumnPos c, Map::iterator it, const Column* loaded) {
  // An entry follows where the column is now: a generated one gives way to the World's column once it is loaded (a
  // saved world's edits differ), one read from the World is generated again once the World let it go.
  if (it != m_columns.end() && (it->second->column == nullptr) != (loaded != nullptr)) {
    m_columns.erase(it);
    it = m_columns.end();
  }
  if (it == m_columns.end()) {
    if (m_columns.size() >= m_max && !m_holding) m_columns.clear();
    auto e = std::make_unique<Entry>();
    if (loaded) {
      fill_tops(*loaded, *e);
    } else {
      e->column = std::make_unique<Column>(c);
      m_gen.generate(*e->column);
      ++m_generated;
      fill_tops(*e->column, *e);
    }
    it = m_columns.emplace(c, std::move(e)).first;
  }
  m_last_pos = c;
  m_last = it->second.get();
  return *m_last;
}

int64_t HeightCache::top(int64_t x, int64_t z) { return entry(x, z).top[static_cast<size_t>(local_of(z) * 16 + local_of(x))]; }

int64_t HeightCache::column_top(ColumnPos c) { return entry(c).max_top; }

bool HeightCache::ground(int64_t x, int64_t y, int64_t z) {
  if (!y_in_range(y)) return false;
  const ColumnPos c{column_of(x), column_of(z)};
  const Entry& e = entry(c);
  const Column* col = e.column ? e.column.get() : m_world->find(c);  // entry() found it in the World just now
  return m_registry[col->get(local_of(x), y, local_of(z)).id].is_opaque_cube();
}

HeightCache::View HeightCache::view(ColumnPos c, bool generate) {
  const auto it = m_columns.find(c);
  const Column* loaded = m_world ? m_world->find(c) : nullptr;
  if (!generate && it == m_columns.end() && !loaded) return {};
  const Entry& e = entry(c, it, loaded);
  return {e.top.data(), e.quad.data(), e.column ? e.column.get() : loaded, e.max_top};
}

void HeightCache::forget(ColumnPos c) {
  auto it = m_columns.find(c);
  if (it == m_columns.end() || it->second->column) return;
  m_columns.erase(it);
  m_last = nullptr;
}

void HeightCache::forget_unloaded() {
  if (!m_world) return;
  std::erase_if(m_columns, [&](const auto& kv) { return !kv.second->column && !m_world->find(kv.first); });
  m_last = nullptr;
}

namespace {

struct RayResult {
  bool ground = false;
  double distance = 0.0;  // horizontal, blocks
  BlockPos cell;          // the opaque block met
};

constexpr int64_t kCoarse = 4;  // columns per side of a coarse cell (64 blocks)
constexpr int32_t kNoBound = std::numeric_limits<int32_t>::max();

// The columns the frame's rays can reach, read from the cache once per measurement: within the radius round the
// eye and, horizontally, within the frame's view (the angle its corner rays span either side of the view direction,
// plus 2 degrees; every column when the frame sees straight up or down). Each column's height map and cells, and
// the highest top per column, per coarse cell of 4 x 4 columns and over all of them, so that a ray starts where it
// first goes under the highest top and passes over coarse cells and columns whose highest top stays under it without
// looking at their blocks. A column in view that is neither in the World nor cached is generated here; one out of
// view is left unknown (bound kNoBound) and generated only if a ray enters it after all.
class Reach {
 public:
  struct Col {
    const int32_t* top = nullptr;   // 256 tops, null while unknown or out of reach
    const int32_t* quad = nullptr;  // 16 highest tops of 4 x 4 blocks
    const Column* cells = nullptr;
    int32_t max_top = kNoBound;     // kMinY out of reach (beyond the radius: no ray gets there)
  };

  /// `corners`: the directions (camera-relative) of rays through the frame's four corners.
  Reach(HeightCache& heights, const BlockPos& eye, const glm::dvec3& frac, double radius, const glm::dvec3 (&corners)[4],
        const glm::dvec3& forward)
      : m_heights(heights), m_eye_col{column_of(eye.x), column_of(eye.z)},
        m_k(static_cast<int64_t>(std::ceil(radius / kColumnWidth)) + 1), m_side(2 * m_k + 1) {
    m_cols.resize(static_cast<size_t>(m_side * m_side));
    // The half-angle of the view, horizontally (-1: everything).
    constexpr double kPi = 3.14159265358979323846;
    const double fl = std::hypot(forward.x, forward.z);
    double half = fl > 1e-9 ? 0.0 : -1.0;
    for (const glm::dvec3& c : corners) {
      const double cl = std::hypot(c.x, c.z);
      if (half < 0.0 || cl < 1e-9 * glm::length(c)) {
        half = -1.0;
        break;
      }
      const double cosa = (c.x * forward.x + c.z * forward.z) / (cl * fl);
      half = std::max(half, std::acos(std::clamp(cosa, -1.0, 1.0)));
    }
    if (half >= 0.0) half += 2.0 * kPi / 180.0;
    if (half >= kPi / 2.0) half = -1.0;
    const double reach2 = (radius + 1.0) * (radius + 1.0);
    m_max = kMinY;
    for (int64_t rz = -m_k; rz <= m_k; ++rz)
      for (int64_t rx = -m_k; rx <= m_k; ++rx) {
        const ColumnPos c{m_eye_col.x + rx, m_eye_col.z + rz};
        Col& col = m_cols[index(rx, rz)];
        // Beyond the radius (the nearest point, a block's margin for rounding): no ray enters it.
        const double ox = static_cast<double>(c.min_x() - eye.x) - frac.x, oz = static_cast<double>(c.min_z() - eye.z) - frac.z;
        const double nx = std::max({ox, 0.0, -(ox + kColumnWidth)}), nz = std::max({oz, 0.0, -(oz + kColumnWidth)});
        if (nx * nx + nz * nz > reach2) {
          col.max_top = kMinY;
          continue;
        }
        if (half >= 0.0) {
          // Out of view: the angle to its centre less the angle its half-diagonal subtends exceeds the half-angle.
          const double cx = ox + kColumnWidth / 2.0, cz = oz + kColumnWidth / 2.0, cl = std::hypot(cx, cz);
          constexpr double kHalfDiagonal = 11.3137084989847604;  // 8 sqrt 2
          if (cl > kHalfDiagonal) {
            const double a = std::acos(std::clamp((cx * forward.x + cz * forward.z) / (cl * fl), -1.0, 1.0));
            if (a - std::asin(kHalfDiagonal / cl) > half) continue;  // unknown
          }
        }
        const HeightCache::View v = heights.view(c, /*generate=*/true);
        col = {v.top, v.quad, v.cells, v.max_top};
        m_max = std::max(m_max, v.max_top);
      }
    m_eye = eye;
    m_frac = frac;
    m_bins = static_cast<int>(std::ceil((radius + 2.0 * kColumnWidth) / kColumnWidth)) + 1;
    m_sector.assign(static_cast<size_t>(kSectors * m_bins), kMinY);
    for (int64_t rz = -m_k; rz <= m_k; ++rz)
      for (int64_t rx = -m_k; rx <= m_k; ++rx)
        if (const Col& col = m_cols[index(rx, rz)]; col.top) add_to_sectors(rx, rz, col.max_top);
    for (int sec = 0; sec < kSectors; ++sec) suffix(sec);
    m_c0[0] = floor_div(m_eye_col.x - m_k, kCoarse) - floor_div(m_eye_col.x, kCoarse);
    m_c0[1] = floor_div(m_eye_col.z - m_k, kCoarse) - floor_div(m_eye_col.z, kCoarse);
    m_cside = floor_div(m_eye_col.x + m_k, kCoarse) - floor_div(m_eye_col.x, kCoarse) - m_c0[0] + 1;
    m_coarse.assign(static_cast<size_t>(m_cside * m_cside), kNoBound);
    for (int64_t cz = 0; cz < m_cside; ++cz)
      for (int64_t cx = 0; cx < m_cside; ++cx) m_coarse[static_cast<size_t>(cz * m_cside + cx)] = coarse_max(cx + m_c0[0], cz + m_c0[1]);
  }

  /// The highest top of every column in view within reach.
  int32_t max_top() const { return m_max; }
  /// The sector of a horizontal direction (x, z), not both 0: sectors split the "diamond angle" (a monotonic stand-in
  /// for the angle, in [0, 4), without trigonometry) evenly.
  static int sector_of(double x, double z) {
    const double a = z >= 0 ? (x >= 0 ? z / (x + z) : 1.0 - x / (z - x)) : (x < 0 ? 2.0 - z / (-x - z) : 3.0 + x / (x - z));
    return std::clamp(static_cast<int>(a * (kSectors / 4)), 0, kSectors - 1);
  }
  /// The highest top of the columns in a sector (of directions from the eye) that reach `distance` blocks or
  /// farther from the eye: what a ray in that sector can still meet from there on.
  int32_t beyond(int sector, double distance) const {
    const int b = std::clamp(static_cast<int>(distance / kColumnWidth), 0, m_bins - 1);
    return m_sector[static_cast<size_t>(sector * m_bins + b)];
  }
  ColumnPos eye_column() const { return m_eye_col; }
  /// Column (rx, rz) relative to the eye's column; null outside the square.
  const Col* col(int64_t rx, int64_t rz) const {
    if (rx < -m_k || rx > m_k || rz < -m_k || rz > m_k) return nullptr;
    return &m_cols[index(rx, rz)];
  }
  /// Reads an unknown column now (generating it), and tightens its coarse cell's bound.
  const Col* resolve(int64_t rx, int64_t rz) {
    Col& c = m_cols[index(rx, rz)];
    const HeightCache::View v = m_heights.view({m_eye_col.x + rx, m_eye_col.z + rz}, /*generate=*/true);
    c = {v.top, v.quad, v.cells, v.max_top};
    const int64_t cx = floor_div(m_eye_col.x + rx, kCoarse) - floor_div(m_eye_col.x, kCoarse);
    const int64_t cz = floor_div(m_eye_col.z + rz, kCoarse) - floor_div(m_eye_col.z, kCoarse);
    m_coarse[static_cast<size_t>((cz - m_c0[1]) * m_cside + (cx - m_c0[0]))] = coarse_max(cx, cz);
    m_max = std::max(m_max, c.max_top);
    for (int sec : add_to_sectors(rx, rz, c.max_top)) suffix(sec);
    return &c;
  }
  /// The highest top in coarse cell (cx, cz), relative to the coarse cell holding the eye's column; kNoBound while
  /// one of its columns within reach is unknown, or outside the square.
  int32_t coarse(int64_t cx, int64_t cz) const {
    const int64_t ix = cx - m_c0[0], iz = cz - m_c0[1];
    if (ix < 0 || iz < 0 || ix >= m_cside || iz >= m_cside) return kNoBound;
    return m_coarse[static_cast<size_t>(iz * m_cside + ix)];
  }
  /// Relative column of the first column of coarse cell c on an axis (0: x, 1: z).
  int64_t coarse_first_column(int axis, int64_t c) const {
    const int64_t e = axis == 0 ? m_eye_col.x : m_eye_col.z;
    return (floor_div(e, kCoarse) + c) * kCoarse - e;
  }

 private:
  static constexpr int kSectors = 1024;  // of the full circle of horizontal directions round the eye

  size_t index(int64_t rx, int64_t rz) const { return static_cast<size_t>((rz + m_k) * m_side + (rx + m_k)); }
  // Enters a column's top in the sectors its square spans (one more each side for rounding; every sector when the
  // eye is within a block of it), in the bin of its farthest point; returns the sectors.
  std::vector<int> add_to_sectors(int64_t rx, int64_t rz, int32_t top) {
    const ColumnPos c{m_eye_col.x + rx, m_eye_col.z + rz};
    const double x0 = static_cast<double>(c.min_x() - m_eye.x) - m_frac.x, z0 = static_cast<double>(c.min_z() - m_eye.z) - m_frac.z;
    const double x1 = x0 + kColumnWidth, z1 = z0 + kColumnWidth;
    double far = 0.0;
    for (double x : {x0, x1})
      for (double z : {z0, z1}) far = std::max(far, std::hypot(x, z));
    const int bin = std::clamp(static_cast<int>(far / kColumnWidth), 0, m_bins - 1);
    std::vector<int> secs;
    if (x0 < 1.0 && x1 > -1.0 && z0 < 1.0 && z1 > -1.0) {
      for (int sec = 0; sec < kSectors; ++sec) secs.push_back(sec);
    } else {
      // The corners' sectors, measured from the centre's so the span does not wrap (a square without the eye spans
      // less than half a turn).
      const int mid = sector_of(x0 + kColumnWidth / 2.0, z0 + kColumnWidth / 2.0);
      int lo = 0, hi = 0;
      for (double x : {x0, x1})
        for (double z : {z0, z1}) {
          int d = sector_of(x, z) - mid;
          if (d > kSectors / 2) d -= kSectors;
          if (d < -kSectors / 2) d += kSectors;
          lo = std::min(lo, d);
          hi = std::max(hi, d);
        }
      for (int d = lo - 1; d <= hi + 1; ++d) secs.push_back(((mid + d) % kSectors + kSectors) % kSectors);
    }
    for (int sec : secs) {
      int32_t& v = m_sector[static_cast<size_t>(sec * m_bins + bin)];
      v = std::max(v, top);
    }
    return secs;
  }
  // Makes each bin of a sector the highest of it and the bins beyond.
  void suffix(int sec) {
    int32_t* v = &m_sector[static_cast<size_t>(sec * m_bins)];
    for (int b = m_bins - 2; b >= 0; --b) v[b] = std::max(v[b], v[b + 1]);
  }
  int32_t coarse_max(int64_t cx, int64_t cz) const {
    int32_t m = kMinY;
    const int64_t x0 = coarse_first_column(0, cx), z0 = coarse_first_column(1, cz);
    for (int64_t rz = z0; rz < z0 + kCoarse; ++rz)
      for (int64_t rx = x0; rx < x0 + kCoarse; ++rx)
        if (const Col* c = col(rx, rz)) m = std::max(m, c->max_top);  // outside the square: beyond every ray
    return m;
  }

  HeightCache& m_heights;
  ColumnPos m_eye_col;
  int64_t m_k, m_side;
  std::vector<Col> m_cols;
  int64_t m_c0[2] = {0, 0}, m_cside = 0;
  std::vector<int32_t> m_coarse;
  int32_t m_max = kMinY;
  BlockPos m_eye;
  glm::dvec3 m_frac{0.0};
  int m_bins = 1;
  std::vector<int32_t> m_sector;  // kSectors x m_bins, suffix maxima by farthest distance
};

// The ray's horizontal path: from the eye (its block `eye`, fraction `o` in x and z) along (dd[0], dd[1]) per unit t.
struct Path {
  int64_t eye[2];
  double o[2], dd[2];
};

// Walks the cells of `size` blocks (aligned to world multiples of size) that the path crosses between t_from and
// t_to, in order, within cells [lo, hi] on each axis (cell indices relative to the cell holding the eye's block),
// calling visit(cx, cz, ta, tb) for each (Amanatides and Woo's DDA in 2D, started at t_from). Returns true as soon
// as visit does.
template <class Visit>
bool walk(const Path& p, int64_t size, const int64_t lo[2], const int64_t hi[2], double t_from, double t_to, Visit&& visit) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double sz = static_cast<double>(size);
  int64_t c[2], step[2];
  double t_max[2], t_delta[2];
  for (int a = 0; a < 2; ++a) {
    const double e = static_cast<double>(floor_mod(p.eye[a], size)) + p.o[a];
    const double u = e + p.dd[a] * t_from;
    if (p.dd[a] > 0) {
      c[a] = std::clamp(static_cast<int64_t>(std::floor(u / sz)), lo[a], hi[a]);
      step[a] = 1;
      t_max[a] = (static_cast<double>(c[a] + 1) * sz - e) / p.dd[a];
      t_delta[a] = sz / p.dd[a];
    } else if (p.dd[a] < 0) {
      c[a] = std::clamp(static_cast<int64_t>(std::ceil(u / sz)) - 1, lo[a], hi[a]);
      step[a] = -1;
      t_max[a] = (static_cast<double>(c[a]) * sz - e) / p.dd[a];
      t_delta[a] = -sz / p.dd[a];
    } else {
      c[a] = std::clamp(static_cast<int64_t>(std::floor(u / sz)), lo[a], hi[a]);
      step[a] = 0;
      t_max[a] = kInf;
      t_delta[a] = kInf;
    }
  }
  double ta = t_from;
  for (;;) {
    const double tb = std::max(ta, std::min({t_max[0], t_max[1], t_to}));
    if (visit(c[0], c[1], ta, tb)) return true;
    if (tb >= t_to) return false;
    const int axis = t_max[0] <= t_max[1] ? 0 : 1;
    c[axis] += step[axis];
    if (c[axis] < lo[axis] || c[axis] > hi[axis]) return false;
    t_max[axis] += t_delta[axis];
    ta = tb;
  }
}

// Marches the ray from the eye (camera-relative direction d; the eye's block `eye`, its fraction `frac`) over the
// (x, z) grid against the height map, up to `radius` horizontally, for the first opaque full cube it meets: coarse
// cells and columns whose highest top stays under the ray are passed over whole, then block by block down the
// levels the ray crosses under each block's top; a column out of view that a ray enters after all is read then.
RayResult march(const glm::dvec3& d, const BlockPos& eye, const glm::dvec3& frac, double radius, Reach& reach,
                const BlockRegistry& registry) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double hlen = std::sqrt(d.x * d.x + d.z * d.z);
  const double t_limit = hlen > 0 ? radius / hlen : kInf;
  const double top_of_world = static_cast<double>(kMaxY + 1 - eye.y);
  const Path p{{eye.x, eye.z}, {frac.x, frac.z}, {d.x, d.z}};
  // Under `top` (world y) somewhere between ta and tb: the ray's y is frac.y + d.y * t, relative to the eye's block.
  auto dips = [&](double ta, double tb, int32_t top) {
    if (top == kNoBound) return true;
    return std::min(frac.y + d.y * ta, frac.y + d.y * tb) < static_cast<double>(top - eye.y);
  };
  RayResult out;
  // Above the highest top within reach the ray meets nothing: it starts where it first goes under it, and a ray
  // rising above it (or above the world) is a miss.
  double t_start = 0.0;
  // Above the highest top of all, a rising ray is a miss at once; otherwise the ray's sector says more.
  if (d.y >= 0 && frac.y >= static_cast<double>(reach.max_top() - eye.y)) return out;
  const int sector = hlen > 0 ? Reach::sector_of(d.x, d.z) : -1;
  const double ceiling = std::min(top_of_world, static_cast<double>((sector < 0 ? reach.max_top() : reach.beyond(sector, 0.0)) - eye.y));
  if (frac.y >= ceiling) {
    if (d.y >= 0) return out;
    t_start = (ceiling - frac.y) / d.y;
    if (t_start >= t_limit) return out;
  }
  constexpr int64_t kFar = std::numeric_limits<int32_t>::max();
  const int64_t all_lo[2] = {-kFar, -kFar}, all_hi[2] = {kFar, kFar};
  walk(p, kCoarse * kColumnWidth, all_lo, all_hi, t_start, t_limit, [&](int64_t cx, int64_t cz, double ca, double cb) {
    if (d.y >= 0 && frac.y + d.y * ca > ceiling) return true;  // rising above every possible ground: a miss
    // Rising above all the sector holds from here on: a miss.
    if (d.y >= 0 && sector >= 0 && frac.y + d.y * ca > static_cast<double>(reach.beyond(sector, ca * hlen) - eye.y)) return true;
    if (!dips(ca, cb, reach.coarse(cx, cz))) return false;
    const int64_t clo[2] = {reach.coarse_first_column(0, cx), reach.coarse_first_column(1, cz)};
    const int64_t chi[2] = {clo[0] + kCoarse - 1, clo[1] + kCoarse - 1};
    return walk(p, kColumnWidth, clo, chi, ca, cb, [&](int64_t rx, int64_t rz, double ta, double tb) {
      const Reach::Col* col = reach.col(rx, rz);
      if (!col) return false;  // outside the square: beyond the radius
      if (col->max_top == kMinY) return false;  // beyond the radius
      if (!col->top) col = reach.resolve(rx, rz);
      if (!dips(ta, tb, col->max_top)) return false;
      const ColumnPos cp{reach.eye_column().x + rx, reach.eye_column().z + rz};
      // Then the column's 4 x 4-block cells, then the blocks.
      const int64_t qlo[2] = {floor_div(cp.min_x(), 4) - floor_div(eye.x, 4), floor_div(cp.min_z(), 4) - floor_div(eye.z, 4)};
      const int64_t qhi[2] = {qlo[0] + 3, qlo[1] + 3};
      return walk(p, 4, qlo, qhi, ta, tb, [&](int64_t qx, int64_t qz, double qa, double qb) {
      if (!dips(qa, qb, col->quad[(qz - qlo[1]) * 4 + (qx - qlo[0])])) return false;
      const int64_t blo[2] = {(floor_div(eye.x, 4) + qx) * 4 - eye.x, (floor_div(eye.z, 4) + qz) * 4 - eye.z};
      const int64_t bhi[2] = {blo[0] + 3, blo[1] + 3};
      return walk(p, 1, blo, bhi, qa, qb, [&](int64_t bx, int64_t bz, double t0, double t1) {
        const int64_t wx = eye.x + bx, wz = eye.z + bz;
        const int lx = local_of(wx), lz = local_of(wz);
        // Heights relative to the eye's block.
        const double top = static_cast<double>(col->top[lz * 16 + lx] - eye.y);
        const double y0 = frac.y + d.y * t0, y1 = frac.y + d.y * t1;
        if (std::min(y0, y1) >= top) return false;
        // The ray dips under the top of the opaque ground here: walk the block levels it crosses in this column,
        // in the ray's order, for an opaque cube (overhangs and caves let it through).
        const double lo = std::min(y0, y1), hi = std::min(std::max(y0, y1), top - 1e-9);
        const int64_t first = static_cast<int64_t>(std::floor(d.y < 0 ? hi : lo));
        const int64_t last = static_cast<int64_t>(std::floor(d.y < 0 ? lo : hi));
        const int64_t step_y = d.y < 0 ? -1 : 1;
        for (int64_t yb = first;; yb += step_y) {
          if (eye.y + yb < kMinY) break;
          if (y_in_range(eye.y + yb) && registry[col->cells->get(lx, eye.y + yb, lz).id].is_opaque_cube()) {
            double th = t0;
            if (d.y < 0 && y0 > static_cast<double>(yb + 1)) th = (static_cast<double>(yb + 1) - frac.y) / d.y;
            if (d.y > 0 && y0 < static_cast<double>(yb)) th = (static_cast<double>(yb) - frac.y) / d.y;
            out = {true, std::max(th, t0) * hlen, {wx, eye.y + yb, wz}};
            return true;
          }
          if (yb == last) break;
        }
        return false;
      });
      });
    });
  });
  return out;
}

}  // namespace

HolesResult measure_holes(const std::vector<float>& depth, int width, int height, const render::Camera& camera,
                          double radius_blocks, HeightCache& heights, int stride, double near_blocks,
                          const DrawnFn& drawn) {
  HolesResult r;
  heights.begin();
  struct End {
    HeightCache& h;
    ~End() { h.end(); }
  } end{heights};
  if (width <= 0 || height <= 0 || depth.size() < static_cast<size_t>(width) * static_cast<size_t>(height)) return r;
  stride = std::max(1, stride);
  // Underground eye: the height map cannot say what is visible.
  const double eye_top = static_cast<double>(heights.top(camera.block.x, camera.block.z) - camera.block.y) - camera.frac.y;
  if (eye_top >= 0.0) return r;
  r.measured = true;
  render::Camera cam = camera;
  cam.aspect = static_cast<double>(width) / static_cast<double>(height);
  const glm::dmat4 inv = glm::inverse(cam.view_projection());
  glm::dvec3 corners[4];
  for (int i = 0; i < 4; ++i) {
    // A pixel beyond the frame's corners (the edge test's rays).
    const double nx = (i & 1 ? 1.0 : -1.0) * (1.0 + 2.0 / width), ny = (i & 2 ? 1.0 : -1.0) * (1.0 + 2.0 / height);
    const glm::dvec4 f = inv * glm::dvec4(nx, ny, 1.0, 1.0);
    corners[i] = glm::dvec3(f) / f.w;
  }
  Reach reach(heights, cam.block, cam.frac, radius_blocks, corners, cam.forward());
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
        return march(glm::dvec3(far_point) / far_point.w, cam.block, cam.frac, radius_blocks, reach, heights.registry());
      };
      const RayResult hit = ray(0.0, 0.0);
      if (!hit.ground) continue;
      RayResult around[4];
      bool all = true;
      for (int k = 0; k < 4 && all; ++k) {
        around[k] = ray(k == 0 ? -1.0 : k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : k == 3 ? -1.0 : 0.0);
        all = around[k].ground;
      }
      if (!all) {
        ++r.edge_pixels;
        continue;
      }
      if (r.hole_pixels == 0) r.first_hole = hit.cell;
      if (r.hole_at.size() < 4096) r.hole_at.push_back({px, py});
      ++r.hole_pixels;
      if (hit.distance < near_blocks) {
        ++r.near_hole_pixels;
        // In a drawn column with a pixel's margin all round: the five rays meet ground in drawn columns (on the rim
        // of drawn ground next to undrawn ground, float rasterisation may round either way, as on a silhouette).
        bool in_drawn = drawn && drawn(column_pos_of(hit.cell));
        for (int k = 0; k < 4 && in_drawn; ++k) in_drawn = drawn(column_pos_of(around[k].cell));
        if (in_drawn && r.drawn_hole_pixels++ == 0) r.first_drawn_hole = hit.cell;
      }
    }
  return r;
}

namespace {
// Room for every column within the render distance and its ring, twice over, before the cache is cleared.
size_t cache_columns(int render_distance) {
  const size_t across = 2 * static_cast<size_t>(std::max(render_distance, 0)) + 5;
  return 2 * across * across;
}
}  // namespace

HolesObserver::HolesObserver(const gen::Generator& generator, const BlockRegistry& registry, const World& world,
                             int render_distance, HolesOptions options)
    : m_heights(generator, registry, cache_columns(render_distance), &world), m_far(generator), m_options(options) {}

void HolesObserver::begin(uint64_t frame) {
  if (frame == m_frame) return;
  m_frame = frame;
  m_result = HolesResult{};
  m_ms = 0;
}

void HolesObserver::edit_applied(uint64_t frame, const Edit& edit) {
  begin(frame);
  const double t = wall_ms();
  m_heights.forget(column_pos_of(edit.pos));  // the measurement reads the World
  m_ms += wall_ms() - t;
}

void HolesObserver::streamed(uint64_t frame, const stream::StreamFrameStats& stats, const stream::ColumnStreamer&) {
  begin(frame);
  if (stats.columns_unloaded == 0) return;
  // Loaded columns are read from the World: forget the ones just unloaded (a column generated again later has lost
  // an ephemeral world's edits).
  const double t = wall_ms();
  m_heights.forget_unloaded();
  m_ms += wall_ms() - t;
}

void HolesObserver::world_rendered(const play::RenderedFrame& f) {
  begin(f.frame);
  const double t = wall_ms();
  const std::vector<float> depth = f.renderer.read_depth();
  const stream::ColumnStreamer& streamer = f.streamer;
  m_result = measure_holes(depth, f.width, f.height, f.params.camera, f.params.fog_end, m_heights, m_options.stride,
                           m_options.near_blocks, [&streamer](ColumnPos col) { return streamer.drawn(col); });
  if (f.params.far.fog_end > f.params.fog_end && f.far_cell_pixels > 0)
    m_result.far_hole_pixels = m_far.measure(depth, f.width, f.height, f.params.camera, f.params.fog_end, f.params.far.fog_end,
                                             f.far_cell_pixels, m_options.stride, &m_result.far_hole_at);
  m_ms += wall_ms() - t;
}

int64_t FarHolesMeter::lattice(int level, int64_t lx, int64_t lz) {
  // Keyed by the point's position in blocks: a level-k point is also a point of every finer level.
  const int64_t spacing = int64_t{8} << (2 * level);
  const ColumnPos key{lx * spacing, lz * spacing};
  auto it = m_points.find(key);
  if (it != m_points.end()) return it->second;
  if (m_points.size() >= m_max) m_points.clear();
  const auto h = static_cast<int32_t>(m_gen.surface_y(key.x, key.z));
  m_points.emplace(key, h);
  return h;
}

int FarHolesMeter::lattice_level(double distance) { return distance < 1024.0 ? 0 : distance < 4096.0 ? 1 : 2; }

int64_t FarHolesMeter::ground(int64_t x, int64_t z, int level) {
  const int64_t spacing = int64_t{8} << (2 * level);
  const int64_t lx = floor_div(x, spacing), lz = floor_div(z, spacing);
  return std::min({lattice(level, lx, lz), lattice(level, lx + 1, lz), lattice(level, lx, lz + 1), lattice(level, lx + 1, lz + 1)});
}

uint64_t FarHolesMeter::measure(const std::vector<float>& depth, int width, int height, const render::Camera& camera_in,
                                double near_blocks, double fog_end, double cell_pixels, int stride,
                                std::vector<std::pair<int, int>>* at) {
  if (width <= 0 || height <= 0 || depth.size() < static_cast<size_t>(width) * static_cast<size_t>(height)) return 0;
  render::Camera camera = camera_in;
  camera.aspect = static_cast<double>(width) / height;
  const glm::dmat4 inv = glm::inverse(camera.view_projection());
  const double px_per_rad = height / (2.0 * std::tan(glm::radians(camera.fov_y_deg) * 0.5));
  // The march is camera-relative (small doubles); a ray point's block is the eye's int64 block plus the floor of
  // its offset, so the lattice is exact at any distance from the origin (2^62 included).
  const double ey = static_cast<double>(camera.block.y) + camera.frac.y;
  const double end = fog_end - 64.0;
  uint64_t holes = 0;
  stride = std::max(stride, 1);
  for (int py = 0; py < height; py += stride)
    for (int px = 0; px < width; px += stride) {
      if (depth[static_cast<size_t>(py) * width + px] < 1.0f) continue;  // terrain drawn here
      const glm::dvec4 ndc((px + 0.5) / width * 2.0 - 1.0, (py + 0.5) / height * 2.0 - 1.0, 1.0, 1.0);
      glm::dvec4 w = inv * ndc;
      const glm::dvec3 dir = glm::normalize(glm::dvec3(w) / w.w);
      const double horiz = std::sqrt(dir.x * dir.x + dir.z * dir.z);
      if (horiz < 1e-6) continue;
      // March by horizontal distance d from the render radius to the far end. A ray already under the ground at the
      // render radius met it in the near field: the near measurement's matter, not a far hole.
      for (double d = near_blocks; d < end; d += std::max(1.0, d / 64.0)) {
        const double t = d / horiz;
        const double y = ey + dir.y * t;
        if (y > kMaxY + 1 && dir.y >= 0) break;
        if (y > kMaxY + 1) continue;
        const double margin = std::max(2.0, cell_pixels * t / px_per_rad);
        const int64_t bx = camera.block.x + static_cast<int64_t>(std::floor(camera.frac.x + dir.x * t));
        const int64_t bz = camera.block.z + static_cast<int64_t>(std::floor(camera.frac.z + dir.z * t));
        if (y < static_cast<double>(ground(bx, bz, lattice_level(d))) - margin) {
          if (d > near_blocks) {
            ++holes;
            if (at != nullptr && at->size() < 4096) at->push_back({px, py});
          }
          break;
        }
      }
    }
  return holes;
}

}  // namespace voxen::playtest
