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
  // The session saves from the World's cells: put the column back for it to take.
  if (column) m_session.world().insert(std::move(column));
  return m_session.unload(pos);
}

EditHook SavedWorldBackend::edit_hook() {
  return [this](const Edit& edit, const std::function<bool(const Edit&)>& apply) {
    return m_session.apply(edit, [&apply](World&, const Edit& e) { return apply(e); });
  };
}

Status SavedWorldBackend::commit() {
  auto t = m_session.commit();
  if (!t) return t.error();
  return Ok{};
}

}  // namespace voxen::play
