// Processes for the tests that run `voxen serve` (tests/net/serve_cli_test.cpp, tests/play/play_window_test.cpp): start
// one with its output in files, wait for a server to name its port, kill what a failed assertion left running.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace voxen::testing {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Starts `binary args...` with stdout and stderr to files; returns its pid.
inline pid_t spawn(const std::string& binary, const std::vector<std::string>& args, const std::filesystem::path& out, const std::filesystem::path& err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, binary.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

/// Waits until the server's stderr names its port (the n-th "listening on" line); 0 after 20 s.
inline uint16_t wait_listening(const std::filesystem::path& err, int nth) {
  for (int i = 0; i < 2000; ++i) {
    const std::string s = slurp(err);
    size_t at = 0;
    int seen = 0;
    const std::string mark = "listening on 127.0.0.1:";
    while ((at = s.find(mark, at)) != std::string::npos) {
      at += mark.size();
      if (++seen == nth) return static_cast<uint16_t>(std::stoi(s.substr(at)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

/// Kills a spawned process that is still running when the test leaves (an ASSERT returned early).
struct KillOnExit {
  pid_t& pid;
  ~KillOnExit() {
    if (pid > 0 && ::kill(pid, 0) == 0) {
      ::kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

/// The first child process of `parent` whose name (/proc/PID/stat's comm) is `comm`; -1 when there is none.
inline pid_t child_named(pid_t parent, const std::string& comm) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    const size_t open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && line.substr(open + 1, close - open - 1) == comm) return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

inline int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace voxen::testing
