// Playing a saved world (`voxen play --world DIR`): a stream::ColumnBackend over store::WorldSession, which owns the World.
// Columns enter through WorldSession::load (generation on the pool, then the saved journal on top: the journal
// always wins) in the streamer's per-frame batch, leave through WorldSession::unload (which saves their changed
// sections), and the player's edits go through WorldSession::apply around the game's own edit path (light, remesh,
// upload), so the session records each change. commit() queues what changed for the write-behind queue; the
// session's close() (the caller's) saves the rest.
// The save indicator (save_status(), shown on `voxen play`'s HUD): an edit counts as saved only once the batch that
// holds it is committed (its ticket reached, RocksDB's WAL on: it survives a SIGKILL), not when it is queued.
// Threads: the main thread (the session's World is the game's).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_set>
#include <utility>

#include "voxen/play/game.h"
#include "voxen/stream/streamer.h"
#include "voxen/store/world_session.h"

namespace voxen::play {

class SavedWorldBackend final : public stream::ColumnBackend {
 public:
  explicit SavedWorldBackend(store::WorldSession& session) : m_session(session) {}
  /// WorldSession::load of the batch on the pool; corrupt records are reported on stderr once each (their
  /// sections keep the generated cells, the store's rule). Errors: store I/O.
  Status load_batch(const std::vector<ColumnPos>& columns, JobPool& pool) override;
  /// Puts the column back and lets the session save and drop it (a column edited since the last commit() is
  /// committed first, so its edits go out in a batch whose ticket the save indicator knows). Errors: store I/O.
  Status unload(ColumnPos pos, std::unique_ptr<Column> column) override;
  /// The edit hook for Game::create: applies through the game's path inside WorldSession::apply (recorded).
  EditHook edit_hook();
  /// Queues the changes since the last commit (write-behind; returns at once). Errors: voxen.toml rewrite.
  Status commit();

  /// Edits applied through the hook that are not committed yet: not queued, or in a queued batch whose ticket the
  /// writer has not reached (WorldSession::committed()). 0 means every edit made so far is durable.
  uint64_t unsaved_edits();
  /// The HUD's words for it: "ALL EDITS SAVED", or "SAVING N EDIT(S)" while unsaved_edits() is N > 0.
  std::string save_status();

 private:
  store::WorldSession& m_session;
  uint64_t m_uncommitted = 0;                          // edits since the last commit()
  std::unordered_set<ColumnPos, ColumnPosHash> m_edited;  // their columns
  std::deque<std::pair<uint64_t, uint64_t>> m_queued;  // (ticket, edits) of batches queued, oldest first
};

}  // namespace voxen::play
