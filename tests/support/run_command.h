// Test support: run the real voxen binary (VOXEN_BINARY) with arguments and capture its exit code, stdout and
// stderr, so command tests drive features through the path a user takes.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace voxen::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

/// Quotes one argument for /bin/sh.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

/// Runs `VOXEN_BINARY args...` through /bin/sh with stdout and stderr captured to temporary files; `env` is
/// prefixed to the command line (VAR=value ...); with `cwd` the command runs in that directory.
inline CommandResult run_voxen(const std::vector<std::string>& args, const std::string& env = "",
                               const std::string& cwd = "") {
  char out_path[] = "/tmp/voxen_test_out_XXXXXX";
  char err_path[] = "/tmp/voxen_test_err_XXXXXX";
  const int fo = mkstemp(out_path);
  const int fe = mkstemp(err_path);
  close(fo);
  close(fe);
  std::string cmd = cwd.empty() ? "" : "cd " + shell_quote(cwd) + " && ";
  if (!env.empty()) cmd.append(env).append(" ");
  cmd += shell_quote(VOXEN_BINARY);
  // Appended piece by piece: GCC 12 reports a false -Wrestrict for `"literal" + std::string` when inlined.
  for (const auto& a : args) cmd.append(" ").append(shell_quote(a));
  cmd.append(" >").append(out_path).append(" 2>").append(err_path).append(" </dev/null");
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const char* p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  std::remove(out_path);
  std::remove(err_path);
  return r;
}

/// Number of lines in s (a trailing newline does not start a new line).
inline int line_count(const std::string& s) {
  int n = 0;
  for (char c : s) n += (c == '\n');
  if (!s.empty() && s.back() != '\n') ++n;
  return n;
}

}  // namespace voxen::testing
