// voxen: the command-line entry point. A thin dispatcher over subcommands (one file each: cmd_*.cpp).
// Exit codes: 0 ok; 1 the work failed (bad file, corrupt data); 2 bad arguments (one-line error).
#include <cstdio>
#include <exception>

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
