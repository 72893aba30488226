// stitch, light_column(s), apply_edit and unload_column over the world-level Flood (flood.h).
#include "voxen/light/light.h"

#include <algorithm>

#include "flood.h"

namespace voxen::light {
namespace {

using detail::Flood;

/// The cell pair across one border: `a` in the column, `b` in its neighbour on `side`, at face coordinate k
/// (z for the east/west faces, x for the south/north faces). Column-local x and z of each.
struct FacePair {
  int ax, az, bx, bz;
};
FacePair face_pair(Face side, int k) {
  switch (side) {
    case kFacePosX: return {15, k, 0, k};
    case kFaceNegX: return {0, k, 15, k};
    case kFacePosZ: return {k, 15, k, 0};
    default: return {k, 0, k, 15};  // kFaceNegZ
  }
}

bool same_uniform(const LightSection& a, const LightSection& b) {
  return a.is_uniform() && b.is_uniform() && a.uniform_value() == b.uniform_value();
}

/// 0x0F in every byte lane where a < b (lanes 0..15).
constexpr uint32_t lanes_less(uint32_t a, uint32_t b) {
  return (~(((a | 0x10101010u) - b) >> 4) & 0x01010101u) * 0x0Fu;
}

}  // namespace

std::vector<SectionPos> LightChanges::dirty_sections() const {
  std::vector<SectionPos> out;
  for (const auto& ch : sections) {
    const int x0 = ch.min_x == 0 ? -1 : 0, x1 = ch.max_x == 15 ? 1 : 0;
    const int y0 = ch.min_y == 0 ? -1 : 0, y1 = ch.max_y == 15 ? 1 : 0;
    const int z0 = ch.min_z == 0 ? -1 : 0, z1 = ch.max_z == 15 ? 1 : 0;
    for (int dy = y0; dy <= y1; ++dy) {
      const int y = ch.section.y + dy;
      if (y < 0 || y >= kSectionsPerColumn) continue;
      for (int dx = x0; dx <= x1; ++dx)
        for (int dz = z0; dz <= z1; ++dz) out.push_back({ch.section.x + dx, y, ch.section.z + dz});
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

LightChanges stitch(World& world, const LightTable& table, ColumnPos pos) {
  Flood f(world, table);
  const int slot = f.slot_of(pos);
  if (slot < 0) return {};
  for (const Face side : kHorizontalFaces) {
    const int ns = f.neighbour_slot(slot, side);
    if (ns < 0) continue;
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      // Equal uniform values on both sides: a horizontal step loses at least 1, so neither side can raise the
      // other (open sky against open sky, rock against rock).
      if (same_uniform(f.column(slot).light_section(s), f.column(ns).light_section(s))) continue;
      for (int y = 0; y < kSectionSize; ++y)
        for (int k = 0; k < kColumnWidth; ++k) {
          const FacePair p = face_pair(side, k);
          const int yi = s * kSectionSize + y;
          const uint32_t a = Flood::ref(slot, p.ax, yi, p.az), b = Flood::ref(ns, p.bx, yi, p.bz);
          const Light la = f.get(a), lb = f.get(b);
          if ((la | lb) == 0) continue;
          f.offer(b, la, false);
          f.offer(a, lb, false);
        }
    }
  }
  f.run_relight();
  return f.changes();
}

LightChanges light_column(World& world, const LightTable& table, ColumnPos pos) {
  Column* c = world.find(pos);
  if (!c) return {};
  light_column_local(*c, table);
  return stitch(world, table, pos);
}

void light_columns(World& world, const LightTable& table, std::span<const ColumnPos> positions, JobPool* pool) {
  // The local part once per distinct column (two jobs must never share a column), in any order: each job
  // touches only its own column.
  std::vector<ColumnPos> distinct(positions.begin(), positions.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<Column*> columns;
  for (const ColumnPos& p : distinct)
    if (Column* c = world.find(p)) columns.push_back(c);
  if (pool) {
    for (size_t i = 0; i < columns.size(); ++i) {
      Column* c = columns[i];
      pool->submit(static_cast<double>(i), [c, &table] { light_column_local(*c, table); });
    }
    pool->wait_idle();
  } else {
    for (Column* c : columns) light_column_local(*c, table);
  }
  for (const ColumnPos& p : positions) stitch(world, table, p);
}

namespace {

/// Seeds `f` for one applied edit at world cell `p` whose block went from `before` to `after` (World::apply has run):
/// the channels that may drop go to the removal queue, the cell and its 6 neighbours to the re-flood queue.
void seed_edit(Flood& f, const LightTable& table, const BlockPos& p, Cell before, Cell after) {
  const int op_old = table.opacity(before.id), op_new = table.opacity(after.id);
  const uint32_t src_old = spread(table.source(before.id, p.y)), src_new = spread(table.source(after.id, p.y));
  if (op_old == op_new && src_old == src_new) return;  // light cannot change
  const int slot = f.slot_of(column_pos_of(p));
  const uint32_t c = Flood::ref(slot, local_of(p.x), static_cast<int>(p.y - kMinY), local_of(p.z));
  // Channels that may go down: all of them if the cell became more opaque, else those whose source dropped.
  // In every other channel the new fixed point is at least the old one, so the old values stay as lower bounds.
  const uint32_t may_drop = op_new > op_old ? 0x0F0F0F0Fu : lanes_less(src_new, src_old);
  const uint32_t old = spread(f.get(c));
  f.set(c, unspread(max_lanes(old & ~may_drop, src_new)));
  if (old & may_drop) f.push_removal(c, unspread(old & may_drop));
  // The cell's own new light, and its neighbours' light flowing into it (its opacity may have dropped).
  f.push_relight(c);
  for (int d = 0; d < 6; ++d) {
    uint32_t n;
    if (f.neighbour(c, static_cast<Face>(d), n)) f.push_relight(n);
  }
}

}  // namespace

EditsResult apply_edits(World& world, const LightTable& table, std::span<const Edit> edits) {
  EditsResult r;
  r.applied.assign(edits.size(), 0);
  Flood f(world, table);
  for (size_t i = 0; i < edits.size(); ++i) {
    const Edit& edit = edits[i];
    const BlockPos& p = edit.pos;
    const Column* col = world.find(column_pos_of(p));
    if (!col || !y_in_range(p.y)) continue;
    const Cell before = col->get(local_of(p.x), p.y, local_of(p.z));
    if (!world.apply(edit)) continue;
    r.applied[i] = 1;
    ++r.count;
    seed_edit(f, table, p, before, edit.after);
  }
  // One removal flood and one re-flood for every seed at once: each seed's removal clears only values that may
  // have come from it, and the re-flood restores the fixed point from every boundary and source together.
  f.run_removal();
  f.run_relight();
  r.light = f.changes();
  return r;
}

EditResult apply_edit(World& world, const LightTable& table, const Edit& edit) {
  EditsResult batch = apply_edits(world, table, std::span<const Edit>(&edit, 1));
  return EditResult{batch.count == 1, std::move(batch.light)};
}

UnloadResult unload_column(World& world, const LightTable& table, ColumnPos pos) {
  UnloadResult r;
  r.column = world.remove(pos);
  if (!r.column) return r;
  const Column& gone = *r.column;
  Flood f(world, table);
  // Every neighbour cell on the border loses what the removed column gave it: a removal flood seeded as if each
  // of the removed column's border cells had gone dark. The re-flood seeds come from inside the neighbours.
  for (const Face side : kHorizontalFaces) {
    const int ns = f.slot_of({pos.x + kFaceStep[side][0], pos.z + kFaceStep[side][2]});
    if (ns < 0) continue;
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const LightSection& la = gone.light_section(s);
      if (la.is_uniform() && la.uniform_value() == 0) continue;
      if (same_uniform(la, f.column(ns).light_section(s))) continue;
      for (int y = 0; y < kSectionSize; ++y)
        for (int k = 0; k < kColumnWidth; ++k) {
          const FacePair fp = face_pair(side, k);
          const Light old = la.get(section_index(fp.ax, y, fp.az));
          if (old == 0) continue;
          f.remove_into(Flood::ref(ns, fp.bx, s * kSectionSize + y, fp.bz), old, false, false);
        }
    }
  }
  f.run_removal();
  f.run_relight();
  r.light = f.changes();
  return r;
}

}  // namespace voxen::light
