#include "voxen/world/world.h"

#include <algorithm>

namespace voxen {

Column* World::find(ColumnPos pos) {
  auto it = m_columns.find(pos);
  return it == m_columns.end() ? nullptr : it->second.get();
}

const Column* World::find(ColumnPos pos) const {
  auto it = m_columns.find(pos);
  return it == m_columns.end() ? nullptr : it->second.get();
}

Column& World::insert(std::unique_ptr<Column> column) {
  const ColumnPos pos = column->pos();
  auto& slot = m_columns[pos];
  slot = std::move(column);
  return *slot;
}

std::unique_ptr<Column> World::remove(ColumnPos pos) {
  auto it = m_columns.find(pos);
  if (it == m_columns.end()) return nullptr;
  auto c = std::move(it->second);
  m_columns.erase(it);
  return c;
}

std::vector<ColumnPos> World::positions() const {
  std::vector<ColumnPos> out;
  out.reserve(m_columns.size());
  for (const auto& [pos, col] : m_columns) out.push_back(pos);
  std::sort(out.begin(), out.end());
  return out;
}

Cell World::get(const BlockPos& p) const {
  const Column* c = find(column_pos_of(p));
  if (!c || !y_in_range(p.y)) return kAir;
  return c->get(local_of(p.x), p.y, local_of(p.z));
}

Light World::light(const BlockPos& p) const {
  if (p.y > kMaxY) return make_light(15, 0, 0, 0);
  const Column* c = find(column_pos_of(p));
  if (!c || p.y < kMinY) return 0;
  return c->light(local_of(p.x), p.y, local_of(p.z));
}

std::optional<Edit> World::make_edit(const BlockPos& p, Cell after) {
  const Column* c = find(column_pos_of(p));
  if (!c || !y_in_range(p.y)) return std::nullopt;
  return Edit{p, c->get(local_of(p.x), p.y, local_of(p.z)), after, m_next_seq++};
}

bool World::apply(const Edit& e) {
  Column* c = find(column_pos_of(e.pos));
  if (!c || !y_in_range(e.pos.y)) return false;
  c->set(local_of(e.pos.x), e.pos.y, local_of(e.pos.z), e.after);
  if (e.seq >= m_next_seq) m_next_seq = e.seq + 1;
  return true;
}

}  // namespace voxen
