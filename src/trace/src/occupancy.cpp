#include "voxen/trace/occupancy.h"

namespace voxen::trace {

OccupancyTable::OccupancyTable(const BlockRegistry& registry) : m_flags(registry.size(), 0) {
  for (size_t id = 0; id < registry.size(); ++id) {
    const BlockDef& b = registry[static_cast<uint16_t>(id)];
    if (!b.defined || b.is_air()) continue;
    uint8_t f = kHit;
    // A plant's two planes would cast a whole cell's shadow: plants cast none.
    if (b.transparency != Transparency::kTranslucent && b.shape != Shape::kCross) f |= kShadow;
    if (b.is_opaque_cube()) f |= kFull;
    m_flags[id] = f;
  }
}

namespace {

/// The brick masks from the bit layers.
void finish_masks(SectionOccupancy& o) {
  o.hit_bricks = o.shadow_bricks = o.full_bricks = 0;
  for (int b = 0; b < kBricksPerSection; ++b) {
    const size_t i = static_cast<size_t>(b);
    if (o.hit[i]) o.hit_bricks |= uint64_t{1} << b;
    if (o.shadow[i]) o.shadow_bricks |= uint64_t{1} << b;
    if (o.fill[i] == ~uint64_t{0}) o.full_bricks |= uint64_t{1} << b;
  }
}

}  // namespace

SectionOccupancy build_section(const Section& section, const OccupancyTable& table) {
  SectionOccupancy o;
  if (section.is_uniform()) {
    const uint16_t id = section.get(0).id;
    const auto all = [](bool on) { return on ? ~uint64_t{0} : uint64_t{0}; };
    o.hit.fill(all(table.hits(id)));
    o.shadow.fill(all(table.shadows(id)));
    o.fill.fill(all(table.fills(id)));
    finish_masks(o);
    return o;
  }
  std::vector<uint32_t> cells(kSectionVolume);
  section.unpack(cells.data());
  for (int y = 0; y < kSectionSize; ++y)
    for (int z = 0; z < kSectionSize; ++z)
      for (int x = 0; x < kSectionSize; ++x) {
        const uint16_t id = Cell::from_packed(cells[static_cast<size_t>(section_index(x, y, z))]).id;
        const size_t b = static_cast<size_t>(brick_of(x, y, z));
        const uint64_t bit = uint64_t{1} << bit_in_brick(x, y, z);
        if (table.hits(id)) o.hit[b] |= bit;
        if (table.shadows(id)) o.shadow[b] |= bit;
        if (table.fills(id)) o.fill[b] |= bit;
      }
  finish_masks(o);
  return o;
}

void OccupancyMap::set_column(const Column& column) {
  ColumnOccupancy c;
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    SectionOccupancy o = build_section(column.section(s), m_table);
    if (o.empty()) continue;
    c.sections[static_cast<size_t>(s)] = std::make_unique<SectionOccupancy>(o);
    c.mask |= 1u << s;
  }
  m_columns[column.pos()] = std::move(c);
}

void OccupancyMap::remove_column(ColumnPos pos) { m_columns.erase(pos); }

void OccupancyMap::set_cell(const BlockPos& p, Cell cell) {
  if (!y_in_range(p.y)) return;
  auto it = m_columns.find(column_pos_of(p));
  if (it == m_columns.end()) return;
  ColumnOccupancy& c = it->second;
  const int s = section_of_y(p.y);
  auto& slot = c.sections[static_cast<size_t>(s)];
  if (!slot) {
    if (!m_table.hits(cell.id)) return;  // empty stays empty
    slot = std::make_unique<SectionOccupancy>();
  }
  const int x = static_cast<int>(local_of(p.x)), y = static_cast<int>(p.y - section_base_y(s)), z = static_cast<int>(local_of(p.z));
  const int b = brick_of(x, y, z);
  const uint64_t bit = uint64_t{1} << bit_in_brick(x, y, z), bb = uint64_t{1} << b;
  SectionOccupancy& o = *slot;
  auto set = [&](std::array<uint64_t, kBricksPerSection>& layer, bool on) {
    uint64_t& w = layer[static_cast<size_t>(b)];
    w = on ? (w | bit) : (w & ~bit);
    return w;
  };
  const uint64_t h = set(o.hit, m_table.hits(cell.id)), sh = set(o.shadow, m_table.shadows(cell.id)),
                 f = set(o.fill, m_table.fills(cell.id));
  o.hit_bricks = h ? (o.hit_bricks | bb) : (o.hit_bricks & ~bb);
  o.shadow_bricks = sh ? (o.shadow_bricks | bb) : (o.shadow_bricks & ~bb);
  o.full_bricks = f == ~uint64_t{0} ? (o.full_bricks | bb) : (o.full_bricks & ~bb);
  if (o.empty()) {
    slot.reset();
    c.mask &= ~(1u << s);
  } else {
    c.mask |= 1u << s;
  }
}

const SectionOccupancy* OccupancyMap::section(const SectionPos& sp) const {
  if (sp.y < 0 || sp.y >= kSectionsPerColumn) return nullptr;
  auto it = m_columns.find(sp.column());
  return it == m_columns.end() ? nullptr : it->second.sections[static_cast<size_t>(sp.y)].get();
}

uint32_t OccupancyMap::section_mask(ColumnPos pos) const {
  auto it = m_columns.find(pos);
  return it == m_columns.end() ? 0 : it->second.mask;
}

bool OccupancyMap::at(const BlockPos& p, Layer l) const {
  if (!y_in_range(p.y)) return false;
  const SectionOccupancy* o = section(section_pos_of(p));
  return o && o->at(l, local_of(p.x), static_cast<int>(p.y - section_base_y(section_of_y(p.y))), local_of(p.z));
}

}  // namespace voxen::trace
