#include "cli_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
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

Result<std::vector<int64_t>> parse_ints(std::string_view text, size_t count) {
  auto malformed = [&] {
    return Error{"malformed coordinate '" + std::string(text) + "' (expected " + std::to_string(count) +
                 " comma-separated integers)"};
  };
  std::vector<int64_t> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    auto v = parse_int64(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (!v) return malformed();
    out.push_back(*v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.size() != count) return malformed();
  return out;
}

Result<BlockPos> parse_block_pos(std::string_view text) {
  auto v = parse_ints(text, 3);
  if (!v) return v.error();
  if (!y_in_range((*v)[1]))
    return Error{"y " + std::to_string((*v)[1]) + " is outside the world (" + std::to_string(kMinY) + ".." +
                 std::to_string(kMaxY) + ")"};
  return BlockPos{(*v)[0], (*v)[1], (*v)[2]};
}

Result<FrameSize> parse_frame_size(std::string_view text) {
  const size_t x = text.find('x');
  auto w = x == std::string_view::npos ? std::nullopt : parse_int64(text.substr(0, x));
  auto h = x == std::string_view::npos ? std::nullopt : parse_int64(text.substr(x + 1));
  if (!w || !h || *w < 16 || *h < 16 || *w > 8192 || *h > 8192)
    return Error{"malformed or out of range '" + std::string(text) + "' (expected WxH, each 16..8192)"};
  return FrameSize{static_cast<int>(*w), static_cast<int>(*h)};
}

CLI::Option* add_threads_option(CLI::App& cmd, int& threads, const std::string& help) {
  return cmd.add_option("--threads", threads, help)->check(CLI::Range(0, kMaxThreads));
}

CLI::Option* add_frame_size_option(CLI::App& cmd, FrameSize& size, const std::string& help) {
  return cmd
      .add_option_function<std::string>(
          "--size", [&size](const std::string& text) { size = *parse_frame_size(text); }, help)
      ->check(parse_check(&parse_frame_size, "WxH"))
      ->default_str(std::to_string(size.width) + "x" + std::to_string(size.height));
}

CLI::Option* add_block_pos_option(CLI::App& cmd, const std::string& name, BlockPos& pos, const std::string& help) {
  return cmd
      .add_option_function<std::string>(
          name, [&pos](const std::string& text) { pos = *parse_block_pos(text); }, help)
      ->check(parse_check(&parse_block_pos, "X,Y,Z"));
}

CLI::Option* add_block_pos_list_option(CLI::App& cmd, const std::string& name, std::vector<BlockPos>& out,
                                       const std::string& help) {
  return cmd
      .add_option_function<std::vector<std::string>>(
          name,
          [&out](const std::vector<std::string>& texts) {
            for (const auto& t : texts) out.push_back(*parse_block_pos(t));
          },
          help)
      ->check(parse_check(&parse_block_pos, "X,Y,Z"));
}

CLI::Option* add_int_pair_option(CLI::App& cmd, const std::string& name, std::array<int64_t, 2>& out,
                                  const std::string& help) {
  auto parse_pair = +[](std::string_view text) { return parse_ints(text, 2); };
  return cmd
      .add_option_function<std::string>(
          name,
          [&out, parse_pair](const std::string& text) {
            const auto v = *parse_pair(text);
            out = {v[0], v[1]};
          },
          help)
      ->check(parse_check(parse_pair, "A,B"));
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

CLI::Validator finite_range(double lo, double hi) {
  const CLI::Range range(lo, hi);
  return CLI::Validator(
      [range](std::string& text) {
        double v = 0;
        if (CLI::detail::lexical_cast(text, v) && std::isnan(v)) return std::string("not a number: ") + text;
        return range(text);
      },
      range.get_description());
}

}  // namespace voxen::app
