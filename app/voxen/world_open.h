// Opening the world a command works on: `--world DIR` (a saved world, stream::SavedWorld: opened, or created with
// --seed, edited and saved through voxen::store) or, without it, an unsaved world generated from --seed/--generator
// (stream::GeneratedSource). CommandWorld is the command line's thin wrapper over those column sources and a World.
// Every command that takes --world uses these pieces, so they all open, create, edit and save worlds the same way:
//
//   WorldFlags world; WorldDirFlag dir; EditFlag edits;   // in the options struct
//   world.add_to(*cmd); dir.add_to(*cmd); edits.add_to(*cmd);  // in add_<name>_command (dir after world)
//   auto specs = o.edits.parse(reg);               // bad --edit values: UsageError (exit 2), before any work
//   CommandWorld cw(dir, world, reg);              // in the run function: throws RunError (exit 1) on failure
//   cw.add_edits(specs);                           // placed as their columns load (saved with --world)
//   cw.load(positions, &pool, cx, cz);             // generate + apply saved edits, then the --edit edits
//   light::light_columns(cw.world(), ...);         // light after loading: exact, edits included
//   cw.apply(edit, how);                           // further edits (recorded by the source: saved with --world)
//   cw.close();                                    // flush; throws RunError if saving failed; print results after
//
// Durability: with --world, what close() returns from is committed (RocksDB, WAL on: it survives SIGKILL), so a
// command prints its results only after close() (docs/ARCHITECTURE.md, Persistence: Durability).
//
// Exit codes: a directory that is not a voxen world, a world from a newer format version, or a world locked by
// another process: RunError (exit 1), nothing written.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/stream/saved_world.h"
#include "voxen/stream/source.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"
#include "voxen/world/world.h"
#include "world_location.h"
#include "world_setup.h"

namespace voxen::app {

/// The --world DIR flag, plus whether --seed / --generator were given on the command line.
struct WorldDirFlag {
  std::string dir;
  const CLI::Option* seed_option = nullptr;
  const CLI::Option* generator_option = nullptr;
  /// Adds --world to a subcommand; call after WorldFlags::add_to (it looks up --seed and --generator). An empty
  /// DIR (`--world ""`) is a usage error (exit 2), not "no --world".
  void add_to(CLI::App& cmd);
  bool given() const { return !dir.empty(); }
  /// The world as messages show it (a URL's password hidden).
  std::string display() const;
  bool seed_given() const { return seed_option && seed_option->count() > 0; }
  bool generator_given() const { return generator_option && generator_option->count() > 0; }
};

/// One --edit value: place `cell` at world block `pos` (y within -128..255).
using EditSpec = stream::CellEdit;

/// The repeatable --edit X,Y,Z=NAME[:STATE] flag, with `voxen probe`'s meaning: the cells are placed over the world
/// (generation and, with --world, its saved edits) in the order given, and saved to the world with --world.
struct EditFlag {
  std::vector<std::string> values;
  /// Adds --edit to a subcommand.
  void add_to(CLI::App& cmd);
  /// Parses every value in order. Throws UsageError("--edit", ...) (exit 2) naming the value for a missing '=', a
  /// malformed position or y outside -128..255, an unknown block name or state bits the block does not use.
  std::vector<EditSpec> parse(const BlockRegistry& registry) const;
};

/// The world of one command run: saved (with --world) or generated only. Main thread.
class CommandWorld {
 public:
  /// With --world: opens the world (an existing world keeps its own seed and generator; a differing --seed or
  /// --generator is warned about and ignored), or creates it when the directory is missing or empty and --seed
  /// was given. Without --world: the generator named by the flags. Throws RunError naming the world on failure.
  CommandWorld(const WorldDirFlag& dir, const WorldFlags& flags, const BlockRegistry& registry);
  /// An unsaved world of `prepared` columns laid over `base`'s terrain (null: air; stream::PreparedSource), e.g.
  /// `voxen shot --vox`'s scene over the flags' terrain.
  CommandWorld(std::unique_ptr<gen::Generator> base, std::vector<std::unique_ptr<Column>> prepared);
  /// Closes the world if close() was not called (errors go to stderr).
  ~CommandWorld();
  CommandWorld(const CommandWorld&) = delete;
  CommandWorld& operator=(const CommandWorld&) = delete;

  /// The loaded columns.
  World& world() { return m_world; }
  /// The generator (the world's own with --world); null for an imported world.
  const gen::Generator* generator() const { return m_source->generator(); }
  /// Where the columns come from (and where edits are recorded).
  stream::ColumnSource& source() { return *m_source; }
  /// The saved world, or null without --world.
  stream::SavedWorld* saved() { return m_saved.get(); }
  /// The seed in effect (the world's own with --world).
  uint64_t seed() const { return m_seed; }

  /// The generator's name ("default", "flat", a --vox overlay's), or "none (imported world)".
  std::string generator_name() const;

  /// Edits to place (the --edit flag's), appended after any given before (ColumnSource::add_edits). Each is placed
  /// in the cells (no light: commands light after loading, so light is exact) when load() first makes its column
  /// present, in the order given (edits in different columns are independent), and recorded for saving with
  /// --world. With --world,
  /// close() also places those whose columns were never loaded (their columns are loaded, edited and saved, never
  /// lit); without it those are dropped, as nothing the command shows can see them. Call before load() of their
  /// columns: columns already loaded do not get them.
  void add_edits(const std::vector<EditSpec>& edits);
  /// Makes the given columns present (those already loaded are kept): generated on `pool` nearest (center_x,
  /// center_z) first and, with --world, their saved edits applied on top; then the pending edits (add_edits) of
  /// these columns. Corrupt records are warned about on stderr and their sections fall back to generation. Throws
  /// RunError on a store I/O error. The columns are not lit.
  void load(const std::vector<ColumnPos>& positions, JobPool* pool, int64_t center_x, int64_t center_z);
  /// Applies an edit through `how` (World::apply when null; light::apply_edit to keep light) and, with --world,
  /// records it to be saved. Returns whether it was applied.
  using ApplyFn = std::function<bool(World&, const Edit&)>;
  bool apply(const Edit& edit, const ApplyFn& how = nullptr);
  /// Drops a column from the world as it is (no light update in its neighbours: for callers that are done with
  /// the area, like `voxen play`'s spawn search before the game's streamer loads its own) and hands it back to the
  /// source (with --world its edits are queued for saving).
  void unload(ColumnPos pos);
  /// With --world: places the pending edits of columns never loaded (see add_edits), saves everything, waits until
  /// it is committed (durable) and closes the world. Without --world: drops the pending edits. Throws RunError if
  /// saving failed. Later calls do nothing.
  void close();

 private:
  World m_world;
  std::unique_ptr<gen::Generator> m_generator;  // without --world (may be null under prepared columns)
  std::unique_ptr<stream::SavedWorld> m_saved;  // with --world
  std::unique_ptr<stream::GeneratedSource> m_generated;
  std::unique_ptr<stream::PreparedSource> m_prepared;
  stream::ColumnSource* m_source = nullptr;     // one of the three
  uint64_t m_seed = 0;
};

}  // namespace voxen::app
