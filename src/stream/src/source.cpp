#include "voxen/stream/source.h"

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

}  // namespace voxen::stream
