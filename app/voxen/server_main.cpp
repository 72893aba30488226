// voxen-server: the multiplayer server and the headless bots without the rest of voxen: it links no GL (no
// render, stream or play), so it runs where no GL library is installed. Same subcommands as `voxen serve` and
// `voxen bots`.
#include <CLI/CLI.hpp>

#include "cli_main.h"
#include "commands.h"

int main(int argc, char** argv) {
  using namespace voxen::app;
  CLI::App app{"voxen-server: a voxen multiplayer server (serve) and headless test clients (bots); no GL"};
  app.require_subcommand(1);
  RunFn run;
  add_serve_command(app, run);
  add_bots_command(app, run);
  return cli_main(app, run, argc, argv);
}
