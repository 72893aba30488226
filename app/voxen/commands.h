// The voxen subcommands. Each add_* registers one CLI11 subcommand on `app`; when it is chosen, its callback
// stores the function that runs it in `run` (main calls it after parsing, so parse errors come first).
// A run function returns the process exit code: 0 ok, 1 failure of the work, 2 bad arguments.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace voxen::app {

using RunFn = std::function<int()>;

void add_gen_command(CLI::App& app, RunFn& run);
void add_probe_command(CLI::App& app, RunFn& run);
void add_mesh_command(CLI::App& app, RunFn& run);
void add_view_command(CLI::App& app, RunFn& run);
void add_export_vox_command(CLI::App& app, RunFn& run);
void add_shot_command(CLI::App& app, RunFn& run);
void add_imgdiff_command(CLI::App& app, RunFn& run);
void add_play_command(CLI::App& app, RunFn& run);
void add_replay_command(CLI::App& app, RunFn& run);
void add_fuzz_play_command(CLI::App& app, RunFn& run);
void add_tour_command(CLI::App& app, RunFn& run);
void add_store_stress_command(CLI::App& app, RunFn& run);
void add_mem_command(CLI::App& app, RunFn& run);
void add_import_anvil_command(CLI::App& app, RunFn& run);
void add_sim_command(CLI::App& app, RunFn& run);
void add_world_command(CLI::App& app, RunFn& run);
void add_serve_command(CLI::App& app, RunFn& run);  // cmd_serve.cpp (also in voxen-server)
void add_bots_command(CLI::App& app, RunFn& run);   // cmd_bots.cpp (also in voxen-server)
void add_structures_command(CLI::App& app, RunFn& run);
void add_sound_command(CLI::App& app, RunFn& run);

}  // namespace voxen::app
