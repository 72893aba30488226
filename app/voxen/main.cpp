// voxen: the command-line entry point. A thin dispatcher over subcommands (one file each: cmd_*.cpp).
// Exit codes: 0 ok; 1 the work failed (bad file, corrupt data); 2 bad arguments (one-line error).
#include <CLI/CLI.hpp>

#include "cli_main.h"
#include "commands.h"

int main(int argc, char** argv) {
  using namespace voxen::app;
  CLI::App app{"voxen: a voxel engine (generate, light, mesh, render, import, play)"};
  app.require_subcommand(1);
  RunFn run;
  add_gen_command(app, run);
  add_probe_command(app, run);
  add_mesh_command(app, run);
  add_view_command(app, run);
  add_export_vox_command(app, run);
  add_shot_command(app, run);
  add_imgdiff_command(app, run);
  add_play_command(app, run);
  add_replay_command(app, run);
  add_fuzz_play_command(app, run);
  add_tour_command(app, run);
  add_store_stress_command(app, run);
  add_mem_command(app, run);
  add_import_anvil_command(app, run);
  add_sim_command(app, run);
  add_world_command(app, run);
  add_serve_command(app, run);
  add_bots_command(app, run);
  add_structures_command(app, run);
  add_sound_command(app, run);
  return cli_main(app, run, argc, argv);
}
