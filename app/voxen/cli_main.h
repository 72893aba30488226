// The shared entry of the voxen binaries (cli_main.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include "commands.h"

namespace voxen::app {

/// Parses argv against the subcommands registered on `app` (each stores its run function in `run`), runs it and
/// returns the exit code: an unknown subcommand or bad arguments 2 (one line on stderr), a failure of the work 1.
int cli_main(CLI::App& app, RunFn& run, int argc, char** argv);

}  // namespace voxen::app
