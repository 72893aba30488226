// A saved world as a ColumnSource (`--world DIR`): store::WorldSession keeps the records, journals and write-behind
// queue; this source makes the cells (the world's generator, or air for an imported world), lets the session put
// the saved cells on top, journals every edit record()ed after it was applied, and hands unloaded columns back.
//
// The save indicator (save_status(), shown on `voxen play`'s HUD): an edit counts as saved only once the batch that
// holds it is committed (its ticket reached, RocksDB's WAL on: it survives a SIGKILL), not when it is queued.
// close() places the pending edits of columns never loaded (their columns are loaded, edited and unloaded, never
// lit), then closes the session: what it returns from is committed.
// Threads: load() from any thread (source.h); record, unload, commit, save_status and close from the owner's.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>

#include "voxen/store/world_session.h"
#include "voxen/stream/source.h"

namespace voxen::stream {

class SavedWorld final : public ColumnSource {
 public:
  /// Opens (or, with options.create_seed, creates) the world at options.dir, making its generator by the name
  /// and seed it records (store::WorldSession::open has the rules and errors).
  static Result<std::unique_ptr<SavedWorld>> open(const store::OpenOptions& options, const BlockRegistry& registry);
  /// A source over an open session (attach()ed stores, tests); `generator` (null for imported worlds) must make
  /// the world's terrain. Both must outlive the source.
  SavedWorld(store::WorldSession& session, const gen::Generator* generator);
  /// close() when open() made the session, errors on stderr.
  ~SavedWorld() override;

  store::WorldSession& session() { return *m_session; }
  const gen::Generator* generator() const override { return m_generator; }
  /// The session's database.
  store::WorldStore* far_store() override { return &m_session->store(); }
  bool edited(ColumnPos pos) const override { return m_session->edited(pos); }
  Result<std::optional<std::string>> sim_state() override { return m_session->sim_state(); }
  void set_sim_state(std::string bytes) override { m_session->set_sim_state(std::move(bytes)); }
  Result<std::optional<std::string>> creature_state() override { return m_session->creature_state(); }
  void set_creature_state(std::string bytes) override { m_session->set_creature_state(std::move(bytes)); }

  /// Puts the column's changes in the write-behind queue and lets the session forget it (a column edited since
  /// the last commit() is committed first, so its edits go out in a batch whose ticket the save indicator knows).
  /// Errors: store I/O.
  Status unload(std::unique_ptr<Column> column) override;
  /// Journals the edit (store::WorldSession::record).
  void record(const Edit& edit, const Column& column) override;
  /// Queues the changes since the last commit (write-behind; returns at once). Errors: voxen.toml rewrite, a
  /// failed write whose retry failed too.
  Status commit();
  /// Edits recorded that are not committed yet: not queued, or in a queued batch whose ticket the writer has not
  /// reached (WorldSession::committed()). 0 means every edit made so far is durable.
  uint64_t unsaved_edits();
  /// The HUD's words for it: "ALL EDITS SAVED", or "SAVING N EDIT(S)" while unsaved_edits() is N > 0.
  std::string save_status();
  /// Places the pending edits of columns never loaded, saves everything, waits until it is committed and closes
  /// the world. Later calls do nothing. Errors: saving failed (the message names the columns whose edits are lost).
  Status close();

 protected:
  Result<std::vector<std::unique_ptr<Column>>> make(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                    int64_t center_x, int64_t center_z) override;

 private:
  std::unique_ptr<store::WorldSession> m_owned_session;
  std::unique_ptr<gen::Generator> m_owned_generator;
  store::WorldSession* m_session = nullptr;
  const gen::Generator* m_generator = nullptr;
  bool m_closed = false;

  std::mutex m_mu;                                        // the save indicator's state
  uint64_t m_uncommitted = 0;                             // edits since the last commit()
  std::unordered_set<ColumnPos, ColumnPosHash> m_edited;  // their columns
  std::deque<std::pair<uint64_t, uint64_t>> m_queued;     // (ticket, edits) of batches queued, oldest first
};

}  // namespace voxen::stream
