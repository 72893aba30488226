// Helpers shared by the voxen subcommands: argument parsing with one-line errors, JSON output, timing.
// Errors in arguments are reported as "voxen <cmd>: <argument>: <what>" and exit code 2 (see UsageError).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/core/coords.h"

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
/// Parses "A,B" / "A,B,C" into int64 values; throws UsageError naming `arg` if malformed.
std::vector<int64_t> parse_ints(std::string_view text, size_t count, const std::string& arg);
/// Parses "X,Y,Z" as a world block position with y in -128..255; throws UsageError naming `arg`.
BlockPos parse_block_pos(std::string_view text, const std::string& arg);

/// The most worker threads a --threads option accepts: far above any core count voxen is run on, far below the
/// point where the system refuses threads (a refused thread is an error, "cannot start N worker threads").
inline constexpr int kMaxThreads = 256;
/// Checks a --threads value: 0 (the default thread count) to kMaxThreads; returns it, or throws
/// UsageError(arg, ...) (exit 2) for a negative or larger value.
int checked_threads(int threads, const std::string& arg = "--threads");

/// Writes a file all or nothing and durably, so a command may report it written once this returns: `write` puts the
/// whole content into the temporary file it is given, beside `path` (same directory, `.<name>.tmp-<pid>`), and
/// returns "" or why it failed; the file is then fsynced, renamed over `path` and its directory fsynced. A crash at
/// any point leaves the old file (or none) or the whole new one. Throws RunError "<path>: <why>" (the system's
/// reason for a failed step) and removes the temporary file when `write` or a step fails.
void write_file_durably(const std::string& path, const std::function<std::string(const std::string& temp_path)>& write);

/// Formats a 64-bit value as 16 lower-case hex digits.
std::string hex64(uint64_t v);

/// Wall-clock stopwatch in seconds.
class Stopwatch {
 public:
  Stopwatch() : m_start(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count(); }
  double ms() const { return seconds() * 1000.0; }

 private:
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace voxen::app
