#include "voxen/stream/saved_world.h"

#include <algorithm>
#include <cstdio>

namespace voxen::stream {

Result<std::unique_ptr<SavedWorld>> SavedWorld::open(const store::OpenOptions& options, const BlockRegistry& registry) {
  // The session asks for the fingerprint of the generator the world names; the generator made for it is kept.
  std::unique_ptr<gen::Generator> kept;
  auto fingerprint = [&registry, &kept](const std::string& name, uint64_t seed) -> Result<std::string> {
    auto g = gen::make_generator(name, seed, registry);
    if (!g) return g.error();
    kept = std::move(g).value();
    return gen::fingerprint(*kept, registry);
  };
  auto s = store::WorldSession::open(options, registry, fingerprint);
  if (!s) return s.error();
  if (!(*s)->generated()) kept.reset();
  std::unique_ptr<SavedWorld> w(new SavedWorld(**s, kept.get()));
  w->m_owned_session = std::move(s).value();
  w->m_owned_generator = std::move(kept);
  return w;
}

SavedWorld::SavedWorld(store::WorldSession& session, const gen::Generator* generator)
    : m_session(&session), m_generator(generator) {}

SavedWorld::~SavedWorld() {
  if (!m_owned_session) return;  // an attached session is closed by its owner
  if (Status s = close(); !s.ok()) std::fprintf(stderr, "voxen: error: saving the world: %s\n", s.error().to_string().c_str());
}

Result<std::vector<std::unique_ptr<Column>>> SavedWorld::make(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                              int64_t center_x, int64_t center_z) {
  std::vector<std::unique_ptr<Column>> columns;
  if (m_generator && m_session->generated()) {
    columns = gen::generate_columns(*m_generator, positions, pool, center_x, center_z);
  } else {
    for (const ColumnPos& p : positions) columns.push_back(std::make_unique<Column>(p));  // imported: air
  }
  auto r = m_session->load(columns);
  if (!r) return r.error();
  columns.erase(std::remove(columns.begin(), columns.end(), nullptr), columns.end());  // held elsewhere
  return columns;
}

Status SavedWorld::unload(std::unique_ptr<Column> column) {
  if (!column) return Ok{};
  const ColumnPos pos = column->pos();
  // Edits of this column not committed yet go out through commit(), whose ticket the save indicator follows (the
  // session's own unload batch would carry them under a ticket nobody outside it sees).
  bool edited;
  {
    std::lock_guard lock(m_mu);
    edited = m_edited.count(pos) > 0;
  }
  if (edited) {
    if (Status s = commit(); !s.ok()) return s;
  }
  return m_session->unload(pos);
}

void SavedWorld::record(const Edit& edit, const Column& column) {
  if (!m_session->record(edit, column.section(section_of_y(edit.pos.y)))) return;
  std::lock_guard lock(m_mu);
  ++m_uncommitted;
  m_edited.insert(column_pos_of(edit.pos));
}

Status SavedWorld::commit() {
  auto t = m_session->commit();
  if (!t) return t.error();
  std::lock_guard lock(m_mu);
  // Ticket 0: nothing differed from what is stored (e.g. edits undone), so nothing is left to save.
  if (*t != 0 && m_uncommitted > 0) m_queued.emplace_back(*t, m_uncommitted);
  m_uncommitted = 0;
  m_edited.clear();
  return Ok{};
}

uint64_t SavedWorld::unsaved_edits() {
  const uint64_t done = m_session->committed();
  std::lock_guard lock(m_mu);
  while (!m_queued.empty() && m_queued.front().first <= done) m_queued.pop_front();
  uint64_t n = m_uncommitted;
  for (const auto& q : m_queued) n += q.second;
  return n;
}

std::string SavedWorld::save_status() {
  const uint64_t n = unsaved_edits();
  if (n == 0) return "ALL EDITS SAVED";
  return "SAVING " + std::to_string(n) + (n == 1 ? " EDIT" : " EDITS");
}

Status SavedWorld::close() {
  if (m_closed) return Ok{};
  m_closed = true;
  const std::vector<CellEdit> pending = take_pending();
  if (!pending.empty()) {
    // Edits in columns never loaded: load those columns, place the edits, and unload them to queue the changes
    // (never lit: nothing is shown from them).
    std::vector<ColumnPos> columns;
    for (const CellEdit& e : pending) columns.push_back(column_pos_of(e.pos));
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    add_edits(pending);
    auto loaded = load(columns);
    if (!loaded) return Error{"loading columns: " + loaded.error().to_string()};
    for (auto& c : *loaded)
      if (Status s = m_session->unload(c->pos()); !s.ok()) return s;
  }
  return m_session->close();
}

}  // namespace voxen::stream
