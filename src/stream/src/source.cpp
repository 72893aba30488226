#include "voxen/stream/source.h"

#include <array>
#include <unordered_set>

namespace voxen::stream {

Result<std::vector<std::unique_ptr<Column>>> ColumnSource::load(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                                int64_t center_x, int64_t center_z) {
  auto made = make(positions, pool, center_x, center_z);
  if (!made) return made;
  std::vector<CellEdit> mine;
  {
    std::lock_guard lock(m_pending_mu);
    if (m_pending.empty()) return made;
    std::unordered_set<ColumnPos, ColumnPosHash> here;
    for (const auto& c : *made) here.insert(c->pos());
    std::vector<CellEdit> rest;
    for (const CellEdit& e : m_pending) (here.count(column_pos_of(e.pos)) ? mine : rest).push_back(e);
    m_pending = std::move(rest);
  }
  for (const CellEdit& e : mine) {
    for (auto& c : *made) {
      if (c->pos() != column_pos_of(e.pos)) continue;
      const int lx = local_of(e.pos.x), lz = local_of(e.pos.z);
      const Edit edit{e.pos, c->get(lx, e.pos.y, lz), e.cell, 0};
      c->set(lx, e.pos.y, lz, e.cell);
      record(edit, *c);
    }
  }
  return made;
}

void ColumnSource::add_edits(const std::vector<CellEdit>& edits) {
  std::lock_guard lock(m_pending_mu);
  m_pending.insert(m_pending.end(), edits.begin(), edits.end());
}

std::vector<CellEdit> ColumnSource::take_pending() {
  std::lock_guard lock(m_pending_mu);
  return std::exchange(m_pending, {});
}

Result<std::vector<std::unique_ptr<Column>>> GeneratedSource::make(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                                   int64_t center_x, int64_t center_z) {
  return gen::generate_columns(m_generator, positions, pool, center_x, center_z);
}

PreparedSource::PreparedSource(std::vector<std::unique_ptr<Column>> columns, const gen::Generator* base)
    : m_base(base) {
  for (auto& c : columns) {
    const ColumnPos pos = c->pos();
    auto [it, fresh] = m_held.try_emplace(pos, Held{std::move(c), false});
    VOXEN_ASSERT(fresh);  // one prepared column per position
  }
}

size_t PreparedSource::held() const {
  std::lock_guard lock(m_mu);
  return m_held.size();
}

Status PreparedSource::unload(std::unique_ptr<Column> column) {
  if (!column) return Ok{};
  std::lock_guard lock(m_mu);
  const ColumnPos pos = column->pos();
  m_held[pos] = Held{std::move(column), true};
  return Ok{};
}

Result<std::vector<std::unique_ptr<Column>>> PreparedSource::make(const std::vector<ColumnPos>& positions,
                                                                  JobPool* pool, int64_t center_x, int64_t center_z) {
  // Take what is held for these positions (one owner: it leaves the source), then make the base of the rest.
  std::vector<Held> held(positions.size());
  std::vector<ColumnPos> to_make;
  std::vector<size_t> made_at;
  {
    std::lock_guard lock(m_mu);
    for (size_t i = 0; i < positions.size(); ++i) {
      if (auto it = m_held.find(positions[i]); it != m_held.end()) {
        held[i] = std::move(it->second);
        m_held.erase(it);
      }
      if (held[i].whole || (held[i].column && !m_base)) continue;  // handed out as it is
      to_make.push_back(positions[i]);
      made_at.push_back(i);
    }
  }
  std::vector<std::unique_ptr<Column>> out(positions.size());
  std::vector<std::unique_ptr<Column>> base;
  if (m_base) base = gen::generate_columns(*m_base, to_make, pool, center_x, center_z);
  for (size_t k = 0; k < to_make.size(); ++k) {
    const size_t i = made_at[k];
    out[i] = m_base ? std::move(base[k]) : std::make_unique<Column>(to_make[k]);
    if (!held[i].column) continue;
    // The prepared column's non-air cells over the base's.
    std::array<uint32_t, kSectionVolume> cells;
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const Section& from = held[i].column->section(s);
      if (from.is_empty()) continue;
      from.unpack(cells.data());
      Section& to = out[i]->section(s);
      for (int c = 0; c < kSectionVolume; ++c)
        if (Cell::from_packed(cells[static_cast<size_t>(c)]).id != kAirId) to.set(c, Cell::from_packed(cells[static_cast<size_t>(c)]));
    }
  }
  for (size_t i = 0; i < positions.size(); ++i)
    if (!out[i]) out[i] = std::move(held[i].column);
  return out;
}

}  // namespace voxen::stream
