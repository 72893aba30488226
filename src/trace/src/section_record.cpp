#include "voxen/trace/section_record.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "voxen/mesh/quad_geometry.h"
#include "voxen/mesh/shapes.h"

namespace voxen::trace {

namespace {

constexpr int kCell64 = 64;  // a cell is 64 units of quad_corners' 1/64 block

int floor_div64(double v) { return static_cast<int>(std::floor(v / kCell64)); }

}  // namespace

void quad_cells(const uint32_t* words, bool fluid_record, std::vector<uint16_t>& out) {
  const mesh::QuadFields f = mesh::unpack_quad(words, fluid_record);
  const auto corners = mesh::quad_corners(f, fluid_record);
  double lo[3] = {corners[0].x, corners[0].y, corners[0].z}, hi[3] = {lo[0], lo[1], lo[2]};
  for (const mesh::Corner64& c : corners) {
    const double v[3] = {c.x, c.y, c.z};
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], v[a]);
      hi[a] = std::max(hi[a], v[a]);
    }
  }
  const bool axis_kind = f.kind == mesh::QuadKind::kAxis || f.kind == mesh::QuadKind::kTriangle;
  const int face = f.face % 6;
  int first[3], last[3];
  for (int a = 0; a < 3; ++a) {
    if (lo[a] == hi[a] && axis_kind && a == mesh::kFaceAxes[face].axis) {
      // Flat on its own axis: the cell it faces out of (a +X face at x = 64k belongs to cell k - 1, one at 64k + 32,
      // inside cell k, to k; a -X face at 64k or 64k + 32 to cell k).
      first[a] = last[a] = mesh::kFaceAxes[face].sign > 0 ? floor_div64(lo[a] - 1) : floor_div64(lo[a]);
      continue;
    }
    first[a] = floor_div64(lo[a]);
    last[a] = std::max(first[a], static_cast<int>(std::ceil(hi[a] / kCell64)) - 1);
  }
  for (int y = std::max(first[1], 0); y <= std::min(last[1], kSectionSize - 1); ++y)
    for (int z = std::max(first[2], 0); z <= std::min(last[2], kSectionSize - 1); ++z)
      for (int x = std::max(first[0], 0); x <= std::min(last[0], kSectionSize - 1); ++x)
        out.push_back(static_cast<uint16_t>(y << 8 | z << 4 | x));
}

std::vector<uint32_t> build_section_record(std::span<const mesh::Quad> opaque, std::span<const mesh::FluidQuad> translucent,
                                           const SectionOccupancy* occupancy) {
  const uint32_t quads = static_cast<uint32_t>(opaque.size() + translucent.size());
  // Each quad's cells: (cell, quad) pairs, sorted by cell then quad.
  std::vector<uint32_t> pairs;
  std::vector<uint16_t> cells;
  for (uint32_t i = 0; i < quads; ++i) {
    cells.clear();
    if (i < opaque.size()) quad_cells(opaque[i].w, false, cells);
    else quad_cells(translucent[i - opaque.size()].w, true, cells);
    for (const uint16_t c : cells) pairs.push_back(uint32_t{c} << 16 | i);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());

  std::array<uint64_t, kBricksPerSection> hit{};
  for (const uint32_t p : pairs) {
    const int c = static_cast<int>(p >> 16), x = c & 15, z = (c >> 4) & 15, y = c >> 8;
    hit[static_cast<size_t>(brick_of(x, y, z))] |= uint64_t{1} << bit_in_brick(x, y, z);
  }
  uint64_t hit_bricks = 0, shadow_bricks = 0;
  bool shadow_full = occupancy != nullptr;
  for (int b = 0; b < kBricksPerSection; ++b) {
    if (hit[static_cast<size_t>(b)]) hit_bricks |= uint64_t{1} << b;
    if (occupancy && occupancy->shadow[static_cast<size_t>(b)]) shadow_bricks |= uint64_t{1} << b;
    if (!occupancy || occupancy->shadow[static_cast<size_t>(b)] != ~uint64_t{0}) shadow_full = false;
  }
  const uint32_t n_hit = static_cast<uint32_t>(std::popcount(hit_bricks));
  const uint32_t n_shadow = static_cast<uint32_t>(std::popcount(shadow_bricks));
  uint32_t hit_cells = 0;
  for (const uint64_t bits : hit) hit_cells += static_cast<uint32_t>(std::popcount(bits));

  std::vector<uint32_t> w(kRecordHeaderWords, 0);
  w[0] = static_cast<uint32_t>(hit_bricks);
  w[1] = static_cast<uint32_t>(hit_bricks >> 32);
  w[2] = static_cast<uint32_t>(shadow_bricks);
  w[3] = static_cast<uint32_t>(shadow_bricks >> 32);
  w[4] = (shadow_full ? kRecordShadowFull : 0u) | n_hit << 8 | n_shadow << 16;
  uint32_t rank = 0;
  for (int b = 0; b < kBricksPerSection; ++b) {
    const uint64_t bits = hit[static_cast<size_t>(b)];
    if (!bits) continue;
    w.push_back(static_cast<uint32_t>(bits));
    w.push_back(static_cast<uint32_t>(bits >> 32));
    w.push_back(rank);
    rank += static_cast<uint32_t>(std::popcount(bits));
  }
  for (int b = 0; b < kBricksPerSection; ++b) {
    if (!(shadow_bricks >> b & 1)) continue;
    const uint64_t bits = occupancy->shadow[static_cast<size_t>(b)];
    w.push_back(static_cast<uint32_t>(bits));
    w.push_back(static_cast<uint32_t>(bits >> 32));
  }
  // The cell table in rank order: cells ascending by (brick, bit), which is the pairs' order only within a brick,
  // so each cell's references are found by a lookup of its cell index.
  w[5] = static_cast<uint32_t>(w.size());
  const size_t table = w.size();
  w.resize(table + hit_cells, 0);
  std::vector<uint16_t> refs;
  refs.reserve(pairs.size());
  {
    // Start of each cell's run in `pairs`.
    std::vector<uint32_t> run_first(kSectionVolume, 0), run_count(kSectionVolume, 0);
    for (size_t k = 0; k < pairs.size(); ++k) {
      const uint32_t c = pairs[k] >> 16;
      if (run_count[c]++ == 0) run_first[c] = static_cast<uint32_t>(k);
    }
    uint32_t r = 0;
    for (int b = 0; b < kBricksPerSection; ++b) {
      const uint64_t bits = hit[static_cast<size_t>(b)];
      for (int bit = 0; bit < 64; ++bit) {
        if (!(bits >> bit & 1)) continue;
        // Brick b, bit `bit` back to section-local cell coordinates (occupancy.h).
        const int x = (b & 3) << 2 | (bit & 3), z = ((b >> 2) & 3) << 2 | ((bit >> 2) & 3), y = (b >> 4) << 2 | (bit >> 4);
        const uint32_t c = static_cast<uint32_t>(y << 8 | z << 4 | x);
        w[table + r++] = static_cast<uint32_t>(refs.size()) | run_count[c] << 20;
        for (uint32_t k = 0; k < run_count[c]; ++k) refs.push_back(static_cast<uint16_t>(pairs[run_first[c] + k] & 0xFFFF));
      }
    }
  }
  w[6] = static_cast<uint32_t>(w.size());
  for (size_t k = 0; k < refs.size(); k += 2)
    w.push_back(refs[k] | (k + 1 < refs.size() ? uint32_t{refs[k + 1]} << 16 : 0u));
  w[7] = static_cast<uint32_t>(w.size());
  w[8] = quads;
  for (const mesh::Quad& q : opaque) w.insert(w.end(), {q.w[0], q.w[1], q.w[2], q.w[3], 0u});
  for (const mesh::FluidQuad& q : translucent) w.insert(w.end(), {q.w[0], q.w[1] | kRecordTranslucentBit, q.w[2], q.w[3], q.w[4]});
  return w;
}

namespace {

/// A cell's bit in a layer stored as `stride`-word bricks after `at` (only the mask's set bricks stored).
bool layer_bit(std::span<const uint32_t> w, uint64_t mask, uint32_t at, uint32_t stride, int x, int y, int z) {
  const int b = brick_of(x, y, z);
  if (!(mask >> b & 1)) return false;
  const uint32_t k = static_cast<uint32_t>(std::popcount(mask & ((uint64_t{1} << b) - 1)));
  const uint32_t base = at + k * stride;
  const uint64_t bits = w[base] | uint64_t{w[base + 1]} << 32;
  return bits >> bit_in_brick(x, y, z) & 1;
}

}  // namespace

bool SectionRecordView::hit(int x, int y, int z) const {
  return layer_bit(m_w, mask(0), kRecordHeaderWords, 3, x, y, z);
}

bool SectionRecordView::shadow(int x, int y, int z) const {
  const uint32_t n_hit = (m_w[4] >> 8) & 0xFF;
  return layer_bit(m_w, mask(2), kRecordHeaderWords + 3 * n_hit, 2, x, y, z);
}

std::vector<uint16_t> SectionRecordView::quads(int x, int y, int z) const {
  std::vector<uint16_t> out;
  if (!hit(x, y, z)) return out;
  const int b = brick_of(x, y, z);
  const uint64_t m = mask(0);
  const uint32_t base = kRecordHeaderWords + 3 * static_cast<uint32_t>(std::popcount(m & ((uint64_t{1} << b) - 1)));
  const uint64_t bits = m_w[base] | uint64_t{m_w[base + 1]} << 32;
  const int bit = bit_in_brick(x, y, z);
  const uint32_t rank = m_w[base + 2] + static_cast<uint32_t>(std::popcount(bits & ((uint64_t{1} << bit) - 1)));
  const uint32_t entry = m_w[m_w[5] + rank];
  const uint32_t refs = m_w[6];
  for (uint32_t k = 0; k < (entry >> 20); ++k) {
    const uint32_t r = (entry & 0xFFFFF) + k;
    out.push_back(static_cast<uint16_t>(m_w[refs + r / 2] >> (16 * (r & 1))));
  }
  return out;
}

}  // namespace voxen::trace
