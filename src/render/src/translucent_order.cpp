#include "voxen/render/translucent_order.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

#include "voxen/core/error.h"
#include "voxen/mesh/quad_geometry.h"
#include "voxen/mesh/shapes.h"

namespace voxen::render {
namespace {

constexpr int32_t kHalfBlock = 32;  // 1/64 units per half-block: quads' origins and extents are whole half-blocks

// What the tree needs to know about one quad beyond its box.
struct Item {
  int8_t planar_axis = -1;  // the axis its four corners share a coordinate on (-1: none, e.g. a sloped fluid top)
  int8_t owner = -1;        // the side of that plane its cell is on: -1 below, +1 above (axis faces: behind the normal)
  uint8_t split_axes = 0;   // bit a: the quad may be cut across axis a (a merged, uniform axis rectangle)
};

Item describe(const mesh::FluidQuad& q, const int32_t lo[3], const int32_t hi[3]) {
  Item it;
  for (int a = 0; a < 3; ++a)
    if (lo[a] == hi[a]) {
      it.planar_axis = static_cast<int8_t>(a);
      break;
    }
  const mesh::QuadFields f = mesh::unpack_quad(q.w, true);
  const mesh::FaceAxes& fa = mesh::kFaceAxes[f.face % 6];
  if (f.kind == mesh::QuadKind::kAxis && it.planar_axis == fa.axis) it.owner = static_cast<int8_t>(-fa.sign);
  if (f.kind != mesh::QuadKind::kAxis) return it;
  // Splitting keeps the pixels only where every corner carries the same values (and the record repacks exactly).
  const mesh::FluidQuad again = mesh::pack_fluid_quad(f);
  if (!std::equal(std::begin(again.w), std::end(again.w), std::begin(q.w))) return it;
  for (int k = 1; k < 4; ++k)
    if (f.light[k] != f.light[0] || f.ao[k] != f.ao[0] || f.height[k] != f.height[0]) return it;
  for (int a : {fa.u, fa.v}) {
    if (a == 1 && f.height[0] != 0) continue;  // a vertical rectangle whose top follows fluid heights
    it.split_axes |= static_cast<uint8_t>(1u << a);
  }
  return it;
}

size_t count_le(const std::vector<int32_t>& v, int32_t c) {
  return static_cast<size_t>(std::upper_bound(v.begin(), v.end(), c) - v.begin());
}
size_t count_ge(const std::vector<int32_t>& v, int32_t c) {
  return static_cast<size_t>(v.end() - std::lower_bound(v.begin(), v.end(), c));
}
size_t count_eq(const std::vector<int32_t>& v, int32_t c) {
  const auto r = std::equal_range(v.begin(), v.end(), c);
  return static_cast<size_t>(r.second - r.first);
}

}  // namespace

void TranslucentOrder::clear() {
  m_quads.clear();
  m_boxes.clear();
  m_nodes.clear();
  m_list.clear();
  for (auto& p : m_planes) p.clear();
  m_splits = 0;
  m_unseparated = 0;
}

void TranslucentOrder::build(std::span<const mesh::FluidQuad> quads) {
  clear();
  m_quads.assign(quads.begin(), quads.end());
  std::vector<Item> items;
  auto add_box = [&](size_t i) {
    const auto c = mesh::quad_corners(mesh::unpack_quad(m_quads[i].w, true), true);
    Box b{};
    for (int a = 0; a < 3; ++a) {
      // Corners are whole 1/64 steps except a fluid side piece's pulled-in end (quad_geometry.h): round the box
      // outward so it always contains the quad.
      double lo = a == 0 ? c[0].x : a == 1 ? c[0].y : c[0].z, hi = lo;
      for (const auto& p : c) {
        const double v = a == 0 ? p.x : a == 1 ? p.y : p.z;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      b.lo[a] = static_cast<int32_t>(std::floor(lo));
      b.hi[a] = static_cast<int32_t>(std::ceil(hi));
    }
    if (i == m_boxes.size()) {
      m_boxes.push_back(b);
      items.push_back(describe(m_quads[i], b.lo, b.hi));
    } else {
      m_boxes[i] = b;
      items[i] = describe(m_quads[i], b.lo, b.hi);
    }
  };
  for (size_t i = 0; i < m_quads.size(); ++i) add_box(i);
  if (m_quads.empty()) return;

  // Cuts quad i across `axis` at `c` (inside its box, a half-block position): i keeps the part below, the part
  // above becomes a new record. Returns the new record's index.
  auto split = [&](uint32_t i, int axis, int32_t c) -> uint32_t {
    mesh::QuadFields lo = mesh::unpack_quad(m_quads[i].w, true);
    mesh::QuadFields hi = lo;
    const mesh::FaceAxes& fa = mesh::kFaceAxes[lo.face % 6];
    int* origin_lo = axis == 0 ? &lo.x : axis == 1 ? &lo.y : &lo.z;
    int* origin_hi = axis == 0 ? &hi.x : axis == 1 ? &hi.y : &hi.z;
    const int at = c / kHalfBlock;
    const int below = at - *origin_lo;
    if (axis == fa.u) {
      lo.w = below;
      hi.w -= below;
    } else {
      lo.h = below;
      hi.h -= below;
    }
    *origin_hi = at;
    m_quads[i] = mesh::pack_fluid_quad(lo);
    m_quads.push_back(mesh::pack_fluid_quad(hi));
    const auto j = static_cast<uint32_t>(m_quads.size() - 1);
    add_box(i);
    add_box(j);
    ++m_splits;
    return j;
  };

  struct Choice {
    bool found = false;
    int axis = 0;
    int32_t coord = 0;
    std::tuple<size_t, size_t, size_t> score{};  // (cuts, larger side + cuts, quads not in the plane)
  };
  // The best dividing plane of a set, or none (found = false).
  std::vector<int32_t> lo, hi, on, fixed_lo, fixed_hi, fixed_on, candidates;  // scratch, reused
  auto choose = [&](const std::vector<uint32_t>& set) -> Choice {
    Choice best;
    const size_t n = set.size();
    for (int a = 0; a < 3; ++a) {
      lo.clear(), hi.clear(), on.clear(), fixed_lo.clear(), fixed_hi.clear(), fixed_on.clear(), candidates.clear();
      for (uint32_t i : set) {
        const Box& b = m_boxes[i];
        lo.push_back(b.lo[a]);
        hi.push_back(b.hi[a]);
        if (items[i].planar_axis == a) on.push_back(b.lo[a]);
        if (!(items[i].split_axes >> a & 1u)) {
          fixed_lo.push_back(b.lo[a]);
          fixed_hi.push_back(b.hi[a]);
          if (b.lo[a] == b.hi[a]) fixed_on.push_back(b.lo[a]);
        }
      }
      for (auto* v : {&lo, &hi, &on, &fixed_lo, &fixed_hi, &fixed_on}) std::sort(v->begin(), v->end());
      candidates.insert(candidates.end(), lo.begin(), lo.end());
      candidates.insert(candidates.end(), hi.begin(), hi.end());
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      for (int32_t c : candidates) {
        const size_t in_plane = count_eq(on, c);
        const size_t le = count_le(hi, c), ge = count_ge(lo, c);
        // le + ge counts the quads in the plane twice (their box is flat at c).
        const size_t neg = le - in_plane, pos = ge - in_plane;
        const size_t cut = n + in_plane - le - ge;
        if (neg == n || pos == n) continue;  // divides nothing
        if (cut > 0) {
          const size_t fixed_cut = fixed_lo.size() + count_eq(fixed_on, c) - count_le(fixed_hi, c) - count_ge(fixed_lo, c);
          if (fixed_cut > 0 || c % kHalfBlock != 0) continue;
        }
        const std::tuple<size_t, size_t, size_t> score{cut, std::max(neg, pos) + cut, n - in_plane};
        if (!best.found || score < best.score) best = {true, a, c, score};
      }
    }
    return best;
  };

  struct Work {
    uint32_t node;
    std::vector<uint32_t> set;
  };
  std::vector<Work> stack;
  m_nodes.emplace_back();
  {
    Work root{0, {}};
    for (uint32_t i = 0; i < m_quads.size(); ++i) root.set.push_back(i);
    stack.push_back(std::move(root));
  }
  std::vector<uint32_t> in_neg, in_pos, neg_set, pos_set;
  while (!stack.empty()) {
    Work w = std::move(stack.back());
    stack.pop_back();
    const Choice ch = w.set.size() > 1 ? choose(w.set) : Choice{};
    if (!ch.found) {
      Node& leaf = m_nodes[w.node];
      leaf.leaf = true;
      leaf.begin = leaf.mid = static_cast<uint32_t>(m_list.size());
      m_list.insert(m_list.end(), w.set.begin(), w.set.end());
      leaf.end = static_cast<uint32_t>(m_list.size());
      if (w.set.size() > 1) m_unseparated += w.set.size();
      continue;
    }
    in_neg.clear(), in_pos.clear(), neg_set.clear(), pos_set.clear();
    for (uint32_t i : w.set) {
      const Box& b = m_boxes[i];
      if (b.lo[ch.axis] == ch.coord && b.hi[ch.axis] == ch.coord && items[i].planar_axis == ch.axis) {
        (items[i].owner > 0 ? in_pos : in_neg).push_back(i);
      } else if (b.hi[ch.axis] <= ch.coord) {
        neg_set.push_back(i);
      } else if (b.lo[ch.axis] >= ch.coord) {
        pos_set.push_back(i);
      } else {
        pos_set.push_back(split(i, ch.axis, ch.coord));
        neg_set.push_back(i);
      }
    }
    {
      Node& node = m_nodes[w.node];
      node.axis = static_cast<uint8_t>(ch.axis);
      node.coord = ch.coord;
      node.begin = static_cast<uint32_t>(m_list.size());
      m_list.insert(m_list.end(), in_neg.begin(), in_neg.end());
      node.mid = static_cast<uint32_t>(m_list.size());
      m_list.insert(m_list.end(), in_pos.begin(), in_pos.end());
      node.end = static_cast<uint32_t>(m_list.size());
    }
    // The plane orders something only when at least two of its four groups hold quads.
    const int groups = !neg_set.empty() + !in_neg.empty() + !in_pos.empty() + !pos_set.empty();
    if (groups >= 2) m_planes[ch.axis].push_back(ch.coord);
    for (std::vector<uint32_t>* side : {&neg_set, &pos_set}) {
      if (side->empty()) continue;
      const auto child = static_cast<int32_t>(m_nodes.size());
      m_nodes.emplace_back();
      (side == &neg_set ? m_nodes[w.node].neg : m_nodes[w.node].pos) = child;
      stack.push_back({static_cast<uint32_t>(child), std::move(*side)});
      side->clear();
    }
  }
  for (auto& p : m_planes) {
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
  }
}

TranslucentSortKey TranslucentOrder::key(const glm::dvec3& eye) const {
  TranslucentSortKey k;
  for (int a = 0; a < 3; ++a) {
    const std::vector<int32_t>& p = m_planes[a];
    const auto below = std::lower_bound(p.begin(), p.end(), eye[a], [](int32_t plane, double e) { return plane < e; });
    const bool on = below != p.end() && static_cast<double>(*below) == eye[a];
    k.slot[a] = static_cast<int32_t>(2 * (below - p.begin()) + (on ? 1 : 0));
    if (m_unseparated > 0) k.cell[a] = static_cast<int32_t>(std::clamp(std::floor(eye[a] / 64.0), -1.0, 16.0));
  }
  return k;
}

void TranslucentOrder::order(const glm::dvec3& eye, std::vector<uint32_t>& out) const {
  out.clear();
  if (m_nodes.empty()) return;
  out.reserve(m_quads.size());
  // Tasks: visit a node, or emit m_list[begin, end). Pushed in reverse of the order they run.
  struct Task {
    bool visit;
    uint32_t a, b;
  };
  std::vector<Task> stack{{true, 0, 0}};
  std::vector<std::pair<double, uint32_t>> leaf;
  while (!stack.empty()) {
    const Task t = stack.back();
    stack.pop_back();
    if (!t.visit) {
      out.insert(out.end(), m_list.begin() + t.a, m_list.begin() + t.b);
      continue;
    }
    const Node& n = m_nodes[t.a];
    if (n.leaf) {
      // Unseparated: far box centres first (ties by record, so the order is a function of the eye).
      leaf.clear();
      for (uint32_t k = n.begin; k < n.end; ++k) {
        const Box& b = m_boxes[m_list[k]];
        double d2 = 0;
        for (int a = 0; a < 3; ++a) {
          const double c = 0.5 * (b.lo[a] + b.hi[a]) - eye[a];
          d2 += c * c;
        }
        leaf.push_back({-d2, m_list[k]});
      }
      std::sort(leaf.begin(), leaf.end());
      for (const auto& e : leaf) out.push_back(e.second);
      continue;
    }
    // Eye above the plane (or in it): the negative side is the far one.
    const bool eye_above = eye[n.axis] >= static_cast<double>(n.coord);
    const int32_t far = eye_above ? n.neg : n.pos, near = eye_above ? n.pos : n.neg;
    if (near >= 0) stack.push_back({true, static_cast<uint32_t>(near), 0});
    if (eye_above) {
      stack.push_back({false, n.mid, n.end});    // cells on the eye's side, drawn last of the plane's quads
      stack.push_back({false, n.begin, n.mid});  // cells on the far side
    } else {
      stack.push_back({false, n.begin, n.mid});
      stack.push_back({false, n.mid, n.end});
    }
    if (far >= 0) stack.push_back({true, static_cast<uint32_t>(far), 0});
  }
  VOXEN_ASSERT(out.size() == m_quads.size());
}

void TranslucentOrder::sorted(const glm::dvec3& eye, std::vector<mesh::FluidQuad>& out) const {
  thread_local std::vector<uint32_t> perm;
  order(eye, perm);
  out.resize(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) out[k] = m_quads[perm[k]];
}

}  // namespace voxen::render
