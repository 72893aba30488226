// Helpers shared by the voxen subcommands: argument parsing with one-line errors, JSON output, timing.
// Errors in arguments are reported as "voxen <cmd>: <argument>: <what>" and exit code 2 (see UsageError).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "voxen/core/clock.h"
#include "voxen/core/coords.h"
#include "voxen/core/error.h"

namespace voxen::app {

/// Thrown by argument parsing; main() prints "voxen: <arg>: <message>" and exits 2.
struct UsageError : std::runtime_error {
  std::string argument;
  UsageError(std::string arg, const std::string& msg) : std::runtime_error(msg), argument(std::move(arg)) {}
};

/// Thrown for failures of the work itself (unreadable file, corrupt data); main() prints it and exits 1.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Parses a decimal int64 ("-30000000"); nullopt if malformed or out of range.
std::optional<int64_t> parse_int64(std::string_view s);
/// Parses "A,B" / "A,B,C" (exactly `count` comma-separated decimal int64 values); or an Error whose message says
/// what was expected ("malformed coordinate '1,x' (expected 2 comma-separated integers)").
Result<std::vector<int64_t>> parse_ints(std::string_view text, size_t count);
/// Parses "X,Y,Z" as a world block position (y up, within kMinY..kMaxY); or an Error naming what is wrong.
Result<BlockPos> parse_block_pos(std::string_view text);

/// A frame or window size in pixels.
struct FrameSize {
  int width = 0;
  int height = 0;
};
/// Parses "WxH", each 16..8192 pixels; or an Error "malformed or out of range '<text>' (expected WxH, each 16..8192)".
Result<FrameSize> parse_frame_size(std::string_view text);

/// The most worker threads a --threads option accepts: far above any core count voxen is run on, far below the
/// point where the system refuses threads (a refused thread is an error, "cannot start N worker threads").
inline constexpr int kMaxThreads = 256;

// Options with their checks, shared by the commands. CLI11 runs a value's check while parsing the command line,
// before the command does any work; a bad value is "voxen: <option>: <why>" and exit code 2 (main.cpp).

/// `--threads N`: worker threads, 0 (the default count: cores - 1, at least 1) to kMaxThreads (a CLI::Range).
CLI::Option* add_threads_option(CLI::App& cmd, int& threads, const std::string& help);
/// `--size WxH` in pixels (parse_frame_size); `size` keeps its value when the option is absent.
CLI::Option* add_frame_size_option(CLI::App& cmd, FrameSize& size, const std::string& help);
/// `<name> X,Y,Z`: one world block position (parse_block_pos).
CLI::Option* add_block_pos_option(CLI::App& cmd, const std::string& name, BlockPos& pos, const std::string& help);
/// `<name> X,Y,Z`, repeatable: world block positions in the order given.
CLI::Option* add_block_pos_list_option(CLI::App& cmd, const std::string& name, std::vector<BlockPos>& out,
                                       const std::string& help);
/// `<name> A,B`: two int64 values (world block X,Z for --center and --spawn; frame numbers for ranges).
CLI::Option* add_int_pair_option(CLI::App& cmd, const std::string& name, std::array<int64_t, 2>& out,
                                  const std::string& help);
/// A number in [lo, hi]: CLI::Range lets NaN through (every comparison with it is false); this names it.
CLI::Validator finite_range(double lo, double hi);
/// The CLI11 check behind the options above: runs `parse` on the text and reports its Error's message.
template <class T>
CLI::Validator parse_check(Result<T> (*parse)(std::string_view), const std::string& what) {
  return CLI::Validator(
      [parse](std::string& text) {
        auto r = parse(text);
        return r.ok() ? std::string() : r.error().message;
      },
      what);
}

/// Writes a file all or nothing and durably, so a command may report it written once this returns: `write` puts the
/// whole content into the temporary file it is given, beside `path` (same directory, `.<name>.tmp-<pid>`), and
/// returns "" or why it failed; the file is then fsynced, renamed over `path` and its directory fsynced. A crash at
/// any point leaves the old file (or none) or the whole new one. Throws RunError "<path>: <why>" (the system's
/// reason for a failed step) and removes the temporary file when `write` or a step fails.
void write_file_durably(const std::string& path, const std::function<std::string(const std::string& temp_path)>& write);

/// Formats a 64-bit value as 16 lower-case hex digits.
std::string hex64(uint64_t v);

}  // namespace voxen::app
