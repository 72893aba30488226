#include "voxen/play/saved_world.h"

#include <cstdio>

namespace voxen::play {

Status SavedWorldBackend::load_batch(const std::vector<ColumnPos>& columns, JobPool& pool) {
  auto r = m_session.load(columns, &pool);
  if (!r) return r.error();
  for (const std::string& c : r->corrupt) std::fprintf(stderr, "voxen: warning: %s (the generated cells are shown)\n", c.c_str());
  return Ok{};
}

Status SavedWorldBackend::unload(ColumnPos pos, std::unique_ptr<Column> column) {
  // Edits of this column not committed yet go out through commit(), whose ticket the save indicator follows (the
  // session's own unload batch would carry them under a ticket nobody outside it sees).
  if (m_edited.count(pos)) {
    if (Status s = commit(); !s.ok()) return s;
  }
  // The session saves from the World's cells: put the column back for it to take.
  if (column) m_session.world().insert(std::move(column));
  return m_session.unload(pos);
}

EditHook SavedWorldBackend::edit_hook() {
  return [this](const Edit& edit, const std::function<bool(const Edit&)>& apply) {
    const bool applied = m_session.apply(edit, [&apply](World&, const Edit& e) { return apply(e); });
    if (applied) {
      ++m_uncommitted;
      m_edited.insert(column_pos_of(edit.pos));
    }
    return applied;
  };
}

Status SavedWorldBackend::commit() {
  auto t = m_session.commit();
  if (!t) return t.error();
  // Ticket 0: nothing differed from what is stored (e.g. edits undone), so nothing is left to save.
  if (*t != 0 && m_uncommitted > 0) m_queued.emplace_back(*t, m_uncommitted);
  m_uncommitted = 0;
  m_edited.clear();
  return Ok{};
}

uint64_t SavedWorldBackend::unsaved_edits() {
  const uint64_t done = m_session.committed();
  while (!m_queued.empty() && m_queued.front().first <= done) m_queued.pop_front();
  uint64_t n = m_uncommitted;
  for (const auto& q : m_queued) n += q.second;
  return n;
}

std::string SavedWorldBackend::save_status() {
  const uint64_t n = unsaved_edits();
  if (n == 0) return "ALL EDITS SAVED";
  return "SAVING " + std::to_string(n) + (n == 1 ? " EDIT" : " EDITS");
}

}  // namespace voxen::play
