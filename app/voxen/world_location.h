// Checking a world location given on the command line (a directory or a postgresql:// URL); needs only the store.
#pragma once
#include <string>

namespace voxen::app {

/// CLI11 check of a world location (`--world`, `voxen world copy`): "" when usable, else why not (exit 2): empty, a
/// world URL that does not parse (password hidden), or a URL of another scheme (which would become a directory).
std::string world_location_check(const std::string& v);

}  // namespace voxen::app
