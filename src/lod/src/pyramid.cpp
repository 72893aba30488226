#include "voxen/lod/pyramid.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "voxen/core/error.h"

namespace voxen::lod {
namespace {

/// Columns whose levels 0..4 are built at once by add_columns (bounds the memory of results waiting to be inserted).
constexpr size_t kBatchColumns = 64;

/// The y range of LOD-section coordinates at `level` that overlap the world (kMinY..kMaxY).
constexpr int64_t first_section_y(int level) { return int64_t{kMinY} >> (level + 5); }
constexpr int64_t last_section_y(int level) { return int64_t{kMaxY} >> (level + 5); }

}  // namespace

// ---- build_column_mips -------------------------------------------------------------------------------------------

ColumnMips build_column_mips(const Column& column, const Mipper& mipper) {
  ColumnMips out;
  out.pos = column.pos();
  out.sections.resize(kSectionsPerColumn);
  auto mips = std::make_unique<SectionMips>();
  LodCell gathered[LodBrick::kVolume];
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    SectionBricks& sb = out.sections[static_cast<size_t>(s)];
    mip_section(column.section(s), column.light_section(s), mipper, *mips);
    const bool uniform = column.section(s).is_uniform() && column.light_section(s).is_uniform();
    for (int o = 0; o < 8; ++o) {
      if (uniform) {
        sb.level0[static_cast<size_t>(o)].fill(mips->cells[0]);
        continue;
      }
      const int ox = (o & 1) * 8, oz = ((o >> 1) & 1) * 8, oy = (o >> 2) * 8;
      for (int y = 0; y < 8; ++y)
        for (int z = 0; z < 8; ++z)
          for (int x = 0; x < 8; ++x)
            gathered[LodBrick::index(x, y, z)] = mips->get(0, ox + x, oy + y, oz + z);
      sb.level0[static_cast<size_t>(o)].pack(gathered);
    }
    // Level 1 is 8^3 in SectionMips order (y * 8 + z) * 8 + x, which is the brick's own index order.
    if (uniform)
      sb.level1.fill(mips->cells[kMipOffset[1]]);
    else
      sb.level1.pack(mips->cells.data() + kMipOffset[1]);
    std::copy(mips->cells.begin() + kMipOffset[2], mips->cells.end(), sb.upper.begin());
  }
  return out;
}

LodCell ColumnMips::get(int level, int64_t cx, int64_t cy, int64_t cz) const {
  VOXEN_ASSERT(level >= 0 && level <= 4 && sections.size() == kSectionsPerColumn);
  const int n = 16 >> level;
  const int64_t lx = cx - pos.x * n, lz = cz - pos.z * n;
  VOXEN_ASSERT(lx >= 0 && lx < n && lz >= 0 && lz < n);
  const int64_t by = cy * (int64_t{1} << level);  // the cell's lowest block (kMinY is a multiple of 16)
  if (by < kMinY || by > kMaxY) return background_cell(level, cy);
  const int s = section_of_y(by);
  const SectionBricks& sb = sections[static_cast<size_t>(s)];
  const int x = static_cast<int>(lx), z = static_cast<int>(lz), y = static_cast<int>((by - section_base_y(s)) >> level);
  switch (level) {
    case 0:
      return sb.level0[static_cast<size_t>(child_index(x >> 3, y >> 3, z >> 3))].get(LodBrick::index(x & 7, y & 7, z & 7));
    case 1:
      return sb.level1.get(LodBrick::index(x, y, z));
    default:
      return sb.upper[static_cast<size_t>(SectionMips::index(level, x, y, z) - kMipOffset[2])];
  }
}

size_t ColumnMips::memory_bytes() const {
  size_t b = sizeof(*this) + sections.capacity() * sizeof(SectionBricks);
  for (const SectionBricks& sb : sections) {
    for (const LodBrick& br : sb.level0) b += br.heap_bytes();
    b += sb.level1.heap_bytes();
  }
  return b;
}

bool ColumnMips::identical(const ColumnMips& other) const {
  if (pos != other.pos || sections.size() != other.sections.size()) return false;
  for (size_t s = 0; s < sections.size(); ++s) {
    const SectionBricks& a = sections[s];
    const SectionBricks& b = other.sections[s];
    if (a.upper != b.upper || !a.level1.identical(b.level1)) return false;
    for (size_t o = 0; o < a.level0.size(); ++o)
      if (!a.level0[o].identical(b.level0[o])) return false;
  }
  return true;
}

// ---- LodUpdate ---------------------------------------------------------------------------------------------------

size_t LodUpdate::sections_at(int level) const {
  return static_cast<size_t>(
      std::count_if(sections.begin(), sections.end(), [level](const LodSectionChange& c) { return c.pos.level == level; }));
}

const LodSectionChange* LodUpdate::find(const LodSectionPos& pos) const {
  const auto it = std::lower_bound(sections.begin(), sections.end(), pos,
                                   [](const LodSectionChange& c, const LodSectionPos& p) { return c.pos < p; });
  return it != sections.end() && it->pos == pos ? &*it : nullptr;
}

// ---- the change log of one call ----------------------------------------------------------------------------------

/// Accumulates what one call changes: per touched section the changed cells, the faces they lie on and whether it
/// held a non-air cell before the call (recorded when the call first touches it).
class Pyramid::ChangeLog {
 public:
  /// Call before changing a section.
  void touch(const LodSectionPos& pos, const LodSection& section) {
    if (pos == m_last_pos && m_last) return;
    auto [it, fresh] = m_sections.try_emplace(pos);
    if (fresh) it->second.was_nonempty = section.nonair() > 0;
    m_last_pos = pos;
    m_last = &it->second;
  }
  /// Counts a cell recomputed from its children at `level`.
  void recomputed(int level) { ++m_recomputed[static_cast<size_t>(level)]; }
  /// Records changed cells of the section last touched.
  void add(int cells, uint8_t faces) {
    m_last->cells += static_cast<uint32_t>(cells);
    m_last->borders |= faces;
    m_cells[static_cast<size_t>(m_last_pos.level)] += static_cast<uint32_t>(cells);
  }
  /// Compacts every touched section and lists those that changed.
  LodUpdate finish(std::unordered_map<LodSectionPos, Entry, LodSectionPosHash>& sections) {
    LodUpdate u;
    for (auto& [pos, acc] : m_sections) {
      auto it = sections.find(pos);
      VOXEN_ASSERT(it != sections.end());
      it->second.section.compact();
      const bool presence = (it->second.section.nonair() > 0) != acc.was_nonempty;
      if (acc.cells == 0 && !presence) continue;
      u.sections.push_back({pos, acc.cells, acc.borders, presence});
    }
    std::sort(u.sections.begin(), u.sections.end(),
              [](const LodSectionChange& a, const LodSectionChange& b) { return a.pos < b.pos; });
    u.cells = m_cells;
    u.recomputed = m_recomputed;
    for (int level = 0; level < kMaxLevels; ++level)
      if (m_cells[static_cast<size_t>(level)] > 0) u.levels = level + 1;
    return u;
  }

 private:
  struct Acc {
    uint32_t cells = 0;
    uint8_t borders = 0;
    bool was_nonempty = false;
  };
  std::unordered_map<LodSectionPos, Acc, LodSectionPosHash> m_sections;
  std::array<uint32_t, kMaxLevels> m_cells{};
  std::array<uint32_t, kMaxLevels> m_recomputed{};
  LodSectionPos m_last_pos;
  Acc* m_last = nullptr;
};

// ---- Pyramid -----------------------------------------------------------------------------------------------------

Pyramid::Pyramid(const Mipper& mipper, int levels) : m_mipper(&mipper), m_levels(levels) {
  VOXEN_ASSERT(levels >= kMinLevels && levels <= kMaxLevels);
}

Pyramid::Entry& Pyramid::entry(const LodSectionPos& pos) {
  const auto it = m_sections.find(pos);
  VOXEN_ASSERT(it != m_sections.end());
  return it->second;
}

void Pyramid::claim_footprint(ColumnPos pos) {
  for (int level = 0; level < m_levels; ++level)
    for (int64_t sy = first_section_y(level); sy <= last_section_y(level); ++sy) {
      const LodSectionPos key{level, pos.x >> (level + 1), sy, pos.z >> (level + 1)};
      auto [it, fresh] = m_sections.try_emplace(key);
      if (fresh) {
        // Background, by cell y: a level-L cell is dark unless it lies wholly above the world.
        LodSection& s = it->second.section;
        s.fill(background_cell(level, sy * 32));
        for (int y = 1; y < LodSection::kSize; ++y) {
          const LodCell v = background_cell(level, sy * 32 + y);
          if (v == s.uniform_value() && s.is_uniform()) continue;
          for (int z = 0; z < LodSection::kSize; ++z)
            for (int x = 0; x < LodSection::kSize; ++x) s.set(x, y, z, v);
        }
        s.compact();
      }
      ++it->second.columns;
    }
}

void Pyramid::release_footprint(ColumnPos pos) {
  for (int level = 0; level < m_levels; ++level)
    for (int64_t sy = first_section_y(level); sy <= last_section_y(level); ++sy) {
      const auto it = m_sections.find({level, pos.x >> (level + 1), sy, pos.z >> (level + 1)});
      VOXEN_ASSERT(it != m_sections.end() && it->second.columns > 0);
      if (--it->second.columns == 0) m_sections.erase(it);
    }
}

void Pyramid::write_column(ColumnMips& mips, ChangeLog& log) {
  std::vector<CellKey> level4;
  const int64_t x0 = mips.pos.min_x(), z0 = mips.pos.min_z();
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    SectionBricks& sb = mips.sections[static_cast<size_t>(s)];
    const int64_t y0 = section_base_y(s);
    // Level 0: the section is one octant (8 bricks) of a level-0 LOD section.
    {
      const LodSectionPos key = lod_section_of(0, x0, y0, z0);
      Entry& e = entry(key);
      log.touch(key, e.section);
      const int bx = static_cast<int>((x0 & 31) >> 3), by = static_cast<int>((y0 & 31) >> 3),
                bz = static_cast<int>((z0 & 31) >> 3);
      for (int o = 0; o < 8; ++o) {
        const int b = ((by + (o >> 2)) << 4) | ((bz + ((o >> 1) & 1)) << 2) | (bx + (o & 1));
        const LodSection::BrickChange ch = e.section.replace_brick(b, std::move(sb.level0[static_cast<size_t>(o)]));
        log.add(ch.cells, ch.faces);
      }
    }
    // Level 1: one brick.
    {
      const LodSectionPos key = lod_section_of(1, x0 >> 1, y0 >> 1, z0 >> 1);
      Entry& e = entry(key);
      log.touch(key, e.section);
      const int b = LodSection::brick_of(static_cast<int>((x0 >> 1) & 31), static_cast<int>((y0 >> 1) & 31),
                                         static_cast<int>((z0 >> 1) & 31));
      const LodSection::BrickChange ch = e.section.replace_brick(b, std::move(sb.level1));
      log.add(ch.cells, ch.faces);
    }
    // Levels 2..4: cell by cell.
    for (int level = 2; level <= 4; ++level) {
      const int n = 16 >> level;
      const int64_t cx0 = x0 >> level, cy0 = y0 >> level, cz0 = z0 >> level;
      const LodSectionPos key = lod_section_of(level, cx0, cy0, cz0);
      Entry& e = entry(key);
      log.touch(key, e.section);
      for (int y = 0; y < n; ++y)
        for (int z = 0; z < n; ++z)
          for (int x = 0; x < n; ++x) {
            const LodCell v = sb.upper[static_cast<size_t>(SectionMips::index(level, x, y, z) - kMipOffset[2])];
            const int lx = static_cast<int>((cx0 + x) & 31), ly = static_cast<int>((cy0 + y) & 31),
                      lz = static_cast<int>((cz0 + z) & 31);
            if (!e.section.set(lx, ly, lz, v)) continue;
            log.add(1, LodSection::faces_of(lx, ly, lz));
            if (level == 4) level4.push_back({cx0 + x, cy0 + y, cz0 + z});
          }
    }
  }
  propagate(4, level4, log);
}

void Pyramid::propagate(int level, std::vector<CellKey>& changed, ChangeLog& log) {
  std::vector<CellKey> next;
  for (; level + 1 < m_levels && !changed.empty(); ++level) {
    for (CellKey& c : changed) c = {c.x >> 1, c.y >> 1, c.z >> 1};
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    next.clear();
    LodSectionPos child_key{-1, 0, 0, 0}, parent_key{-1, 0, 0, 0};
    const Entry* child = nullptr;
    Entry* parent = nullptr;
    for (const CellKey& p : changed) {
      // The 8 children (2p + d) share one level-`level` section (2p is even, so 2p and 2p + 1 agree above bit 0),
      // the one holding the changed child: it is held.
      const LodSectionPos ck = lod_section_of(level, 2 * p.x, 2 * p.y, 2 * p.z);
      if (ck != child_key) {
        child_key = ck;
        child = &entry(ck);
      }
      LodCell children[8];
      for (int c = 0; c < 8; ++c)
        children[c] = child->section.get(static_cast<int>((2 * p.x + (c & 1)) & 31),
                                         static_cast<int>((2 * p.y + (c >> 2)) & 31),
                                         static_cast<int>((2 * p.z + ((c >> 1) & 1)) & 31));
      const LodCell v = m_mipper->mip(children);
      log.recomputed(level + 1);
      const LodSectionPos pk = lod_section_of(level + 1, p.x, p.y, p.z);
      if (pk != parent_key) {
        parent_key = pk;
        parent = &entry(pk);
      }
      log.touch(pk, parent->section);
      const int lx = static_cast<int>(p.x & 31), ly = static_cast<int>(p.y & 31), lz = static_cast<int>(p.z & 31);
      if (!parent->section.set(lx, ly, lz, v)) continue;
      log.add(1, LodSection::faces_of(lx, ly, lz));
      next.push_back(p);
    }
    std::swap(changed, next);
  }
}

LodUpdate Pyramid::add_column(const Column& column) { return insert(build_column_mips(column, *m_mipper)); }

LodUpdate Pyramid::insert(ColumnMips mips) {
  ChangeLog log;
  if (m_columns.insert(mips.pos).second) claim_footprint(mips.pos);
  write_column(mips, log);
  return log.finish(m_sections);
}

LodUpdate Pyramid::add_columns(const World& world, std::span<const ColumnPos> positions, JobPool* pool) {
  std::vector<const Column*> columns;
  for (const ColumnPos& p : positions)
    if (const Column* c = world.find(p)) columns.push_back(c);
  ChangeLog log;
  std::vector<ColumnMips> built;
  for (size_t first = 0; first < columns.size(); first += kBatchColumns) {
    const size_t n = std::min(kBatchColumns, columns.size() - first);
    built.assign(n, ColumnMips{});
    for (size_t i = 0; i < n; ++i) {
      auto job = [this, &built, &columns, first, i] { built[i] = build_column_mips(*columns[first + i], *m_mipper); };
      if (pool)
        pool->submit(static_cast<double>(i), job);
      else
        job();
    }
    if (pool) pool->wait_idle();
    for (size_t i = 0; i < n; ++i) {
      if (m_columns.insert(built[i].pos).second) claim_footprint(built[i].pos);
      write_column(built[i], log);
    }
  }
  return log.finish(m_sections);
}

LodUpdate Pyramid::remove_column(ColumnPos pos) {
  if (!has_column(pos)) return {};
  // Background everywhere the column was: every level-0..4 cell of a column lies inside the world, so dark air.
  ColumnMips mips;
  mips.pos = pos;
  mips.sections.resize(kSectionsPerColumn);
  for (SectionBricks& sb : mips.sections) sb.upper.fill(LodCell{});
  ChangeLog log;
  write_column(mips, log);
  LodUpdate u = log.finish(m_sections);
  release_footprint(pos);
  m_columns.erase(pos);
  return u;
}

void Pyramid::update_boxes(const World& world, std::span<const std::array<BlockPos, 2>> boxes, ChangeLog& log) {
  std::vector<CellKey> changed;
  LodSectionPos key{-1, 0, 0, 0};
  Entry* e = nullptr;
  for (const auto& [lo, hi] : boxes) {
    const int64_t y_lo = std::max<int64_t>(lo.y, kMinY), y_hi = std::min<int64_t>(hi.y, kMaxY);
    for (int64_t cx = column_of(lo.x); cx <= column_of(hi.x); ++cx)
      for (int64_t cz = column_of(lo.z); cz <= column_of(hi.z); ++cz) {
        if (!has_column({cx, cz})) continue;
        const Column* column = world.find({cx, cz});
        if (!column) continue;
        const int64_t x_lo = std::max(lo.x, cx * 16), x_hi = std::min(hi.x, cx * 16 + 15);
        const int64_t z_lo = std::max(lo.z, cz * 16), z_hi = std::min(hi.z, cz * 16 + 15);
        for (int64_t y = y_lo; y <= y_hi; ++y)
          for (int64_t z = z_lo; z <= z_hi; ++z)
            for (int64_t x = x_lo; x <= x_hi; ++x) {
              const LodCell v = LodCell::make(column->get(local_of(x), y, local_of(z)),
                                              column->light(local_of(x), y, local_of(z)));
              const LodSectionPos k = lod_section_of(0, x, y, z);
              if (k != key) {
                key = k;
                e = &entry(k);
              }
              log.touch(k, e->section);
              const int lx = static_cast<int>(x & 31), ly = static_cast<int>(y & 31), lz = static_cast<int>(z & 31);
              if (!e->section.set(lx, ly, lz, v)) continue;
              log.add(1, LodSection::faces_of(lx, ly, lz));
              changed.push_back({x, y, z});
            }
      }
  }
  propagate(0, changed, log);
}

LodUpdate Pyramid::update_box(const World& world, const BlockPos& lo, const BlockPos& hi) {
  ChangeLog log;
  const std::array<BlockPos, 2> box{lo, hi};
  update_boxes(world, std::span(&box, 1), log);
  return log.finish(m_sections);
}

namespace {
/// The world-block boxes of the cells whose light changed.
std::vector<std::array<BlockPos, 2>> light_boxes(const light::LightChanges& changes) {
  std::vector<std::array<BlockPos, 2>> boxes;
  boxes.reserve(changes.sections.size() + 1);
  for (const light::SectionLightChange& c : changes.sections) {
    const BlockPos base{c.section.x * 16, section_base_y(c.section.y), c.section.z * 16};
    boxes.push_back({BlockPos{base.x + c.min_x, base.y + c.min_y, base.z + c.min_z},
                     BlockPos{base.x + c.max_x, base.y + c.max_y, base.z + c.max_z}});
  }
  return boxes;
}
}  // namespace

LodUpdate Pyramid::update_light(const World& world, const light::LightChanges& changes) {
  ChangeLog log;
  update_boxes(world, light_boxes(changes), log);
  return log.finish(m_sections);
}

LodUpdate Pyramid::apply_edit(const World& world, const Edit& edit, const light::LightChanges& changes) {
  ChangeLog log;
  std::vector<std::array<BlockPos, 2>> boxes = light_boxes(changes);
  boxes.push_back({edit.pos, edit.pos});
  update_boxes(world, boxes, log);
  return log.finish(m_sections);
}

LodCell Pyramid::get(int level, int64_t x, int64_t y, int64_t z) const {
  const auto it = m_sections.find(lod_section_of(level, x, y, z));
  if (it == m_sections.end()) return background_cell(level, y);
  return it->second.section.get(static_cast<int>(x & 31), static_cast<int>(y & 31), static_cast<int>(z & 31));
}

const LodSection* Pyramid::find(const LodSectionPos& pos) const {
  const auto it = m_sections.find(pos);
  return it == m_sections.end() ? nullptr : &it->second.section;
}

std::vector<LodSectionPos> Pyramid::positions() const {
  std::vector<LodSectionPos> out;
  out.reserve(m_sections.size());
  for (const auto& [pos, e] : m_sections) out.push_back(pos);
  std::sort(out.begin(), out.end());
  return out;
}

size_t Pyramid::memory_bytes() const {
  // A map node: the key and entry plus the node's next pointer and cached hash; a bucket pointer per bucket.
  constexpr size_t kNode = sizeof(LodSectionPos) + sizeof(Entry) + 2 * sizeof(void*);
  size_t bytes = sizeof(*this) + m_sections.bucket_count() * sizeof(void*);
  for (const auto& [pos, e] : m_sections) bytes += kNode - sizeof(LodSection) + e.section.memory_bytes();
  bytes += m_columns.size() * (sizeof(ColumnPos) + 2 * sizeof(void*)) + m_columns.bucket_count() * sizeof(void*);
  return bytes;
}

bool Pyramid::identical(const Pyramid& other) const {
  if (m_levels != other.m_levels || m_sections.size() != other.m_sections.size()) return false;
  for (const auto& [pos, e] : m_sections) {
    const LodSection* s = other.find(pos);
    if (!s || !e.section.identical(*s)) return false;
  }
  return true;
}

}  // namespace voxen::lod
