// Where columns come from: one interface, ColumnSource, for every caller (the shot's batch load, play's streamer,
// the commands that read cells), with three implementations: GeneratedSource (a gen::Generator: the cells are the
// terrain function's), SavedWorld (saved_world.h: generation, then a saved world's records on top; "not found"
// is generation) and PreparedSource (columns made before they are asked for, laid over generation or air: an
// imported scene, `voxen view` and `voxen shot --vox`). Cells only: the owner of the World lights, meshes and
// draws them (streamer.h).
//
// Command-line edits (`--edit X,Y,Z=NAME`) are a source concern too: add_edits() queues them, and load() places
// each in its column's cells as that column is made, in the order given, before any light or mesh exists; the
// source then record()s it like any edit (a saved world journals it).
//
// Threads: load() may run on any thread, several at once (a worker loading one column, or the main thread loading
// a batch spread over a JobPool: then not from one of that pool's workers). unload() and record() are called by
// the owner of the cells (the main thread), after the edit or the unload is done; no callback runs under a lock.
// One owner per column: a caller never asks for a column it holds (the scheduler asks only for absent columns with
// no job) and hands every column it drops back through unload().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/store/world_store.h"
#include "voxen/world/cell.h"
#include "voxen/world/column.h"
#include "voxen/world/edit.h"

namespace voxen::stream {

/// A cell to place over the world's cells: world block `pos` (y within -128..255) gets `cell`.
struct CellEdit {
  BlockPos pos;
  Cell cell;
};

class ColumnSource {
 public:
  virtual ~ColumnSource() = default;

  /// Makes the columns at `positions` (no duplicates): their cells, not lit, then the pending edits of these
  /// columns placed and recorded (see the file comment). With a `pool`, the work is spread over it, nearest world
  /// block (center_x, center_z) first. Returns the columns made, in the order of `positions`; a column another
  /// owner already holds is left out (a SavedWorld's session refuses a second copy). Errors: I/O (saved worlds;
  /// nothing of the batch is returned).
  Result<std::vector<std::unique_ptr<Column>>> load(const std::vector<ColumnPos>& positions, JobPool* pool = nullptr,
                                                    int64_t center_x = 0, int64_t center_z = 0);
  /// Queues cells to place as their columns load, after any given before.
  void add_edits(const std::vector<CellEdit>& edits);

  /// Takes back a column its owner dropped (after light::unload_column, or never inserted into a World). The
  /// default drops it. Errors: I/O (a saved world queues its changes).
  virtual Status unload(std::unique_ptr<Column> column) {
    (void)column;
    return Ok{};
  }
  /// Told of an edit its owner has applied (cells, light, meshes and uploads done); `column` is the edit's column
  /// after it. The default does nothing; a saved world journals it.
  virtual void record(const Edit& edit, const Column& column) {
    (void)edit;
    (void)column;
  }
  /// False while the column at `pos` cannot be made yet (a server's column still on its way, play/remote.h): the
  /// streamer does not ask for it this frame and asks again on a later one. Main thread. The default: true.
  virtual bool ready(ColumnPos pos) const {
    (void)pos;
    return true;
  }
  /// True when the world simulates itself elsewhere (a server, play/remote.h): its owner runs no simulation (its
  /// changes come through the source). The default: false.
  virtual bool simulates() const { return false; }
  /// The terrain the cells start from (the world's own for a saved world); null for an imported world.
  virtual const gen::Generator* generator() const = 0;
  /// The world simulation's saved pending updates (sim::Simulator::save_state's bytes), or nullopt (the default:
  /// a world that is never saved). Errors: the saved world's (store I/O, a damaged record).
  virtual Result<std::optional<std::string>> sim_state() { return std::optional<std::string>(); }
  /// Keeps the simulation's pending updates with the edits recorded so far (a saved world writes them in the same
  /// batch as those edits' journals: WorldSession::set_sim_state). The default drops them.
  virtual void set_sim_state(std::string bytes) { (void)bytes; }
  /// The game's saved creatures (play::Creatures::save_state's bytes), or nullopt (the default: never saved).
  /// Errors: the saved world's (store I/O, a damaged record).
  virtual Result<std::optional<std::string>> creature_state() { return std::optional<std::string>(); }
  /// Keeps the creatures with the edits recorded so far (written by the saved world's next commit). The default
  /// drops them.
  virtual void set_creature_state(std::string bytes) { (void)bytes; }
  /// The database the columns are kept in, where the far view keeps its nodes beside them (FarView::set_store);
  /// null (the default) for a world that is never saved.
  virtual store::WorldStore* far_store() { return nullptr; }
  /// True when the loaded column at `pos` holds saved or new edits (a saved world's journal), so that views built
  /// from other sources keep its own cells (FarView::add_real_column's `keep`). The default: false.
  virtual bool edited(ColumnPos pos) const {
    (void)pos;
    return false;
  }

 protected:
  /// The cells of `positions` before the pending edits (load()'s contract, without the edits).
  virtual Result<std::vector<std::unique_ptr<Column>>> make(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                            int64_t center_x, int64_t center_z) = 0;
  /// The pending edits not placed yet (their columns never loaded), removed from the queue.
  std::vector<CellEdit> take_pending();

 private:
  std::mutex m_pending_mu;
  std::vector<CellEdit> m_pending;  // in the order given
};

/// Columns as a generator makes them. Thread-safe (Generator::generate is).
class GeneratedSource final : public ColumnSource {
 public:
  /// `generator` must outlive the source.
  explicit GeneratedSource(const gen::Generator& generator) : m_generator(generator) {}
  const gen::Generator* generator() const override { return &m_generator; }

 protected:
  Result<std::vector<std::unique_ptr<Column>>> make(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                    int64_t center_x, int64_t center_z) override;

 private:
  const gen::Generator& m_generator;
};

/// Columns made before anyone asks for them, laid over a base: an imported scene's cells (import::
/// apply_vox_placement into columns of their own), with `voxen view`'s ground plane, or over generated terrain for
/// `voxen shot --vox`. make() of a position with a prepared column hands out the base's column there (`base`'s
/// cells, or empty air when `base` is null) with every non-air cell of the prepared column written over it;
/// every other position gets the base's column alone. So a prepared column cannot carve air into the base.
/// Each prepared column is handed out once (moved out, or laid over the base and dropped): the caller owns it,
/// and unload() takes it back whole, so a later load hands out the same cells again, edits included (the source
/// is an in-memory world; GeneratedSource instead forgets unloaded columns). Memory: what the held columns hold
/// (paletted sections), nothing per position asked for. Thread-safe (a mutex guards the held columns; generation
/// runs outside it).
class PreparedSource final : public ColumnSource {
 public:
  /// `columns`: at most one per position; their light is ignored (the owner lights what it loads). `base` may
  /// be null and must outlive the source.
  PreparedSource(std::vector<std::unique_ptr<Column>> columns, const gen::Generator* base);
  const gen::Generator* generator() const override { return m_base; }
  /// Keeps the column (whole: never laid over the base again).
  Status unload(std::unique_ptr<Column> column) override;
  /// Columns held: prepared and not handed out yet, or handed back.
  size_t held() const;

 protected:
  Result<std::vector<std::unique_ptr<Column>>> make(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                    int64_t center_x, int64_t center_z) override;

 private:
  struct Held {
    std::unique_ptr<Column> column;
    bool whole = false;  // handed back by unload(): handed out as it is
  };
  const gen::Generator* m_base;
  mutable std::mutex m_mu;
  std::unordered_map<ColumnPos, Held, ColumnPosHash> m_held;
};

}  // namespace voxen::stream
