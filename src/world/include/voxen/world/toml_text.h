// TOML parsing for voxen's data files (data/blocks.toml, data/minecraft_blocks.toml) with the error shape every
// loader reports: file, line and toml++'s description. Include only from source files that link toml++ (the world
// and import modules do, privately).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>

#include "voxen/core/error.h"

namespace voxen {

/// Parses TOML text; `path` names it in errors ("data/blocks.toml:12: TOML syntax: ...").
inline Result<toml::table> parse_toml_text(std::string_view text, const std::string& path) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& err) {
    Error e;
    e.file = path;
    e.line = err.source().begin.line;
    e.message = "TOML syntax: " + std::string(err.description());
    return e;
  }
}

}  // namespace voxen
