// The command line's common entry: parses the subcommands one binary registers, runs the chosen one, and maps
// errors to exit codes (0 ok; 1 the work failed; 2 bad arguments). Shared by `voxen` and the GL-free `voxen-server`.
#include "cli_main.h"

#include <cstdio>
#include <exception>
#include <string>

#include "cli_util.h"

namespace voxen::app {

int cli_main(CLI::App& app, RunFn& run, int argc, char** argv) {
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

}  // namespace voxen::app
