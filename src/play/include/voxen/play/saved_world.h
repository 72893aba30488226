// Playing a saved world (`voxen play --world DIR`): a ColumnBackend over store::WorldSession, which owns the World.
// Columns enter through WorldSession::load (generation on the pool, then the saved journal on top: the journal
// always wins) in the streamer's per-frame batch, leave through WorldSession::unload (which saves their changed
// sections), and the player's edits go through WorldSession::apply around the game's own edit path (light, remesh,
// upload), so the session records each change. commit() queues what changed for the write-behind queue; the
// session's close() (the caller's) saves the rest.
// Threads: the main thread (the session's World is the game's).
#pragma once

#include "voxen/play/game.h"
#include "voxen/play/streamer.h"
#include "voxen/store/world_session.h"

namespace voxen::play {

class SavedWorldBackend final : public ColumnBackend {
 public:
  explicit SavedWorldBackend(store::WorldSession& session) : m_session(session) {}
  /// WorldSession::load of the batch on the pool; corrupt records are reported on stderr once each (their
  /// sections keep the generated cells, the store's rule). Errors: store I/O.
  Status load_batch(const std::vector<ColumnPos>& columns, JobPool& pool) override;
  /// Puts the column back and lets the session save and drop it. Errors: store I/O.
  Status unload(ColumnPos pos, std::unique_ptr<Column> column) override;
  /// The edit hook for Game::create: applies through the game's path inside WorldSession::apply (recorded).
  EditHook edit_hook();
  /// Queues the changes since the last commit (write-behind; returns at once). Errors: voxen.toml rewrite.
  Status commit();

 private:
  store::WorldSession& m_session;
};

}  // namespace voxen::play
