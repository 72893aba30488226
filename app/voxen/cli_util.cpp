#include "cli_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace voxen::app {

std::optional<int64_t> parse_int64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<int64_t> parse_ints(std::string_view text, size_t count, const std::string& arg) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view part = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto v = parse_int64(part);
    if (!v) throw UsageError(arg, "malformed coordinate '" + std::string(text) + "' (expected " + std::to_string(count) + " comma-separated integers)");
    out.push_back(*v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.size() != count)
    throw UsageError(arg, "malformed coordinate '" + std::string(text) + "' (expected " + std::to_string(count) + " comma-separated integers)");
  return out;
}

BlockPos parse_block_pos(std::string_view text, const std::string& arg) {
  auto v = parse_ints(text, 3, arg);
  if (!y_in_range(v[1]))
    throw UsageError(arg, "y " + std::to_string(v[1]) + " is outside the world (" + std::to_string(kMinY) + ".." + std::to_string(kMaxY) + ")");
  return {v[0], v[1], v[2]};
}

int checked_threads(int threads, const std::string& arg) {
  if (threads < 0 || threads > kMaxThreads)
    throw UsageError(arg, "must be 0 (the default count) to " + std::to_string(kMaxThreads) + ", got " + std::to_string(threads));
  return threads;
}

namespace {

// fsync of a file or directory by name: 0, or the errno of the failed open or fsync.
int fsync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return errno;
  const int err = ::fsync(fd) != 0 ? errno : 0;
  ::close(fd);
  return err;
}

}  // namespace

void write_file_durably(const std::string& path, const std::function<std::string(const std::string& temp_path)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // Appended piece by piece: GCC 12 reports a false -Wrestrict for `"literal" + std::string` when inlined.
  std::string name(".");
  name.append(target.filename().string()).append(".tmp-").append(std::to_string(::getpid()));
  const std::string temp = (dir / name).string();
  auto fail = [&](const std::string& what) {
    std::remove(temp.c_str());
    throw RunError(path + ": " + what);
  };
  if (std::string e = write(temp); !e.empty()) fail(e);
  if (int e = fsync_path(temp, O_RDONLY); e != 0) fail(std::string("cannot sync the written file to disk: ") + std::strerror(e));
  if (std::rename(temp.c_str(), path.c_str()) != 0) fail(std::string("cannot rename the written file into place: ") + std::strerror(errno));
  // The rename is durable once the directory is synced. A file system that cannot sync a directory answers EINVAL;
  // the file's data is synced all the same, so that is not an error.
  if (int e = fsync_path(dir.string(), O_RDONLY | O_DIRECTORY); e != 0 && e != EINVAL)
    throw RunError(path + ": cannot sync its directory to disk: " + std::strerror(e));
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace voxen::app
