// voxen: the command-line entry point. A thin dispatcher over subcommands (one file each: cmd_*.cpp).
// Exit codes: 0 ok; 1 the work failed (bad file, corrupt data); 2 bad arguments (one-line error).
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_util.h"
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

  // An unknown first word would otherwise be reported by CLI11 as "a subcommand is required"; name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known |= sub->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "voxen: %s: unknown command (expected one of: %s)\n", argv[1], names.c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "voxen: %s\n", e.what());
    return 2;
  }
  try {
    return run ? run() : 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "voxen: %s: %s\n", e.argument.c_str(), e.what());
    return 2;
  } catch (const RunError& e) {
    std::fprintf(stderr, "voxen: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "voxen: error: %s\n", e.what());
    return 1;
  }
}
