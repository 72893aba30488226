// The --seed option shared by every voxen subcommand that takes one (through WorldFlags, and fuzz-play's own):
// a decimal 0..2^64-1 written with digits only. CLI11's own uint64 conversion is not enough: it wraps "-1" and
// values past 2^64-1 to 18446744073709551615 and reads "0x10" as hex and "010" as octal; here those are refused
// (exit 2, "voxen: --seed: ...") and leading zeros are plain decimal ("010" is ten).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace voxen::app {

/// Parses a seed: one or more ASCII digits (no sign, no spaces, no base prefix) whose value is 0..2^64-1;
/// nullopt otherwise.
std::optional<uint64_t> parse_seed(std::string_view text);

/// Adds `--seed` to `cmd`, bound to `seed`, with the check above (a bad value is a CLI11 ValidationError naming
/// --seed, which main() reports with exit code 2). Returns the option.
CLI::Option* add_seed_option(CLI::App& cmd, uint64_t& seed, const std::string& help);

}  // namespace voxen::app
