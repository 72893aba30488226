// Opening the world a command works on: `--world DIR` (a saved world: opened, or created with --seed, edited and
// saved through voxen::store) or, without it, an unsaved world generated from --seed/--generator.
// Every command that takes --world uses these two pieces, so they all open, create and save worlds the same way:
//
//   WorldFlags world; WorldDirFlag dir;            // in the options struct
//   world.add_to(*cmd); dir.add_to(*cmd);          // in add_<name>_command (dir after world)
//   CommandWorld cw(dir, world, reg);              // in the run function: throws RunError (exit 1) on failure
//   cw.load(positions, &pool, cx, cz);             // generate + apply saved edits
//   cw.apply(edit, how);                           // edits (saved with --world)
//   cw.close();                                    // flush; throws RunError if saving failed
//
// Exit codes: a directory that is not a voxen world, a world from a newer format version, or a world locked by
// another process: RunError (exit 1), nothing written.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/store/world_session.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"
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
  bool seed_given() const { return seed_option && seed_option->count() > 0; }
  bool generator_given() const { return generator_option && generator_option->count() > 0; }
};

/// The world of one command run: saved (with --world) or generated only. Main thread.
class CommandWorld {
 public:
  /// With --world: opens the world (an existing world keeps its own seed and generator; a differing --seed or
  /// --generator is warned about and ignored), or creates it when the directory is missing or empty and --seed
  /// was given. Without --world: the generator named by the flags. Throws RunError naming the world on failure.
  CommandWorld(const WorldDirFlag& dir, const WorldFlags& flags, const BlockRegistry& registry);
  /// Closes the world if close() was not called (errors go to stderr).
  ~CommandWorld();
  CommandWorld(const CommandWorld&) = delete;
  CommandWorld& operator=(const CommandWorld&) = delete;

  World& world() { return m_session ? m_session->world() : m_world; }
  /// The generator (the world's own with --world); null for an imported world.
  const gen::Generator* generator() const { return m_generator.get(); }
  /// The saved world, or null without --world.
  store::WorldSession* session() { return m_session.get(); }
  /// The seed in effect (the world's own with --world).
  uint64_t seed() const { return m_seed; }

  /// Makes the given columns present (those already loaded are kept): generated on `pool` nearest (center_x,
  /// center_z) first and, with --world, their saved edits applied on top. Corrupt records are warned about on
  /// stderr and their sections fall back to generation. Throws RunError on a store I/O error.
  void load(const std::vector<ColumnPos>& positions, JobPool* pool, int64_t center_x, int64_t center_z);
  /// Applies an edit through `how` (World::apply when null; light::apply_edit to keep light) and, with --world,
  /// records it to be saved. Returns whether it was applied.
  bool apply(const Edit& edit, const store::WorldSession::ApplyFn& how = nullptr);
  /// Drops a column from the world as it is (no light update in its neighbours: for callers that are done with
  /// the area, like `voxen mem`'s sliding window); with --world its edits are queued for saving first.
  void unload(ColumnPos pos);
  /// Saves everything and closes the world (no-op without --world). Throws RunError if saving failed.
  void close();

 private:
  World m_world;
  std::shared_ptr<gen::Generator> m_generator;
  std::unique_ptr<store::WorldSession> m_session;
  uint64_t m_seed = 0;
};

}  // namespace voxen::app
