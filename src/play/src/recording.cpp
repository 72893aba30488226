#include "voxen/play/recording.h"

#include "voxen/sim/scenario.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace voxen::play {
namespace {

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// A token for an error message, in single quotes, cut to kMaxQuotedToken characters ("..." and the full length
// after a cut), so a hostile file cannot make a message of megabytes.
std::string quote(std::string_view s) {
  // Appended piece by piece: GCC 12 reports a false -Wrestrict for `"literal" + std::string` when inlined.
  std::string q = "'";
  if (s.size() <= kMaxQuotedToken) return q.append(s).append("'");
  return q.append(s.substr(0, kMaxQuotedToken)).append("...' (").append(std::to_string(s.size())).append(" characters)");
}

/// Most words a line may have: a `jobs` line's frame, kind, two counts and at most kMaxJobsInFlight positions. A
/// longer line is refused after reading this many, so a hostile line cannot hold memory many times its size.
constexpr size_t kMaxLineWords = 6 + stream::kMaxJobsInFlight;  // FRAME jobs GEN MESH, the positions, far N

/// The words of a line, at most kMaxLineWords + 1 (one more than a line may have: the caller refuses it).
std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size() && words.size() <= kMaxLineWords) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

template <class T>
bool parse_int(std::string_view s, T& out) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data() + (s.front() == '+' ? 1 : 0), end, out);
  return ec == std::errc{} && p == end;
}

bool parse_double(std::string_view s, double& out) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data() + (s.front() == '+' ? 1 : 0), end, out);
  return ec == std::errc{} && p == end && std::isfinite(out);
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : m_text(text), m_path(path) {}

  Result<Recording> run() {
    Recording rec;
    bool have_version = false, have_start = false, in_events = false;
    size_t pos = 0;
    while (pos <= m_text.size()) {
      const size_t nl = m_text.find('\n', pos);
      std::string_view line = m_text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      pos = nl == std::string_view::npos ? m_text.size() + 1 : nl + 1;
      ++m_line;
      if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      const auto w = split_words(line);
      if (w.empty()) continue;
      if (w.size() > kMaxLineWords) return fail("more than " + std::to_string(kMaxLineWords) + " words on one line");
      if (!have_version) {
        if (w[0] != "voxen-input-recording") return fail("not a voxen input recording (the first line must be 'voxen-input-recording VERSION')");
        int v = 0;
        if (w.size() != 2 || !parse_int(w[1], v)) return fail("malformed version line (expected 'voxen-input-recording VERSION')");
        if (v < 1 || v > kRecordingVersion)
          return fail("recording format version " + std::to_string(v) + " is not supported (this voxen reads versions 1 to " +
                      std::to_string(kRecordingVersion) + ")");
        m_version = v;
        have_version = true;
        if (v < 5) rec.header.tick_rate = 0.0;  // recorded before the world simulated anything
        continue;
      }
      if (rec.complete) return fail("text after the 'end' line");
      if (w[0] == "end") {
        if (w.size() != 2 || !parse_int(w[1], rec.frames)) return fail("malformed 'end' (expected 'end FRAMES')");
        if (rec.frames > kMaxRecordingFrames)
          return fail("'end " + std::to_string(rec.frames) + "' is more than the " + std::to_string(kMaxRecordingFrames) +
                      " frames a recording may cover");
        if (m_any_frame && rec.frames <= m_last_frame)
          return fail("'end " + std::to_string(rec.frames) + "' does not cover the last frame with a record, " + std::to_string(m_last_frame));
        rec.complete = true;
        continue;
      }
      // An event starts with its frame number; a signed number is a frame number too (and refused below).
      const auto digit = [](char c) { return c >= '0' && c <= '9'; };
      const bool is_event = digit(w[0][0]) || (w[0].size() > 1 && (w[0][0] == '-' || w[0][0] == '+') && digit(w[0][1]));
      if (!is_event) {
        if (in_events) return fail("header field " + quote(w[0]) + " after the first event");
        if (auto s = header_field(w, rec.header, have_start); !s.ok()) return s.error();
        continue;
      }
      if (w[0][0] == '-') return fail("frame " + quote(w[0]) + " is negative (frames count from 0)");
      if (!have_start) return fail("frame record before the 'start' line (the header must say where the player starts)");
      in_events = true;
      uint64_t frame = 0;
      if (w.size() >= 2 && w[1] == "jobs") {
        auto js = jobs(w, rec);
        if (!js.ok()) return js.error();
        frame = js->first;
        if (auto s = frame_order(frame); !s.ok()) return s.error();
        rec.schedules.emplace(frame, std::move(js->second));
        continue;
      }
      auto e = event(w);
      if (!e.ok()) return e.error();
      if (auto s = frame_order(e->frame); !s.ok()) return s.error();
      if (rec.schedules.count(e->frame)) return fail("event after frame " + std::to_string(e->frame) + "'s 'jobs' line (it comes last in its frame)");
      rec.events.push_back(*e);
    }
    if (!have_version) return Error{"empty file: not a voxen input recording", m_path};
    if (!have_start) return Error{"no 'start' line: the header must say where the player starts", m_path};
    if (!rec.complete) rec.frames = m_any_frame ? m_last_frame + 1 : 0;
    return rec;
  }

 private:
  Error fail(const std::string& what) const { return Error{what, m_path, m_line}; }

  /// Frames must not decrease from line to line.
  Status frame_order(uint64_t frame) {
    if (m_any_frame && frame < m_last_frame)
      return fail("frame " + std::to_string(frame) + " comes after frame " + std::to_string(m_last_frame) + " (frames must not decrease)");
    m_any_frame = true;
    m_last_frame = frame;
    return Ok{};
  }

  /// A `<frame> jobs GEN MESH [P ...]` line.
  Result<std::pair<uint64_t, stream::FrameSchedule>> jobs(const std::vector<std::string_view>& w, const Recording& rec) {
    constexpr uint64_t kMaxSubmitted = stream::kMaxJobsInFlight, kMaxPosition = stream::kMaxJobsInFlight;
    uint64_t frame = 0, gen = 0, mesh = 0;
    if (!parse_int(w[0], frame)) return fail("frame " + quote(w[0]) + " is not a decimal uint64");
    if (frame >= kMaxRecordingFrames)
      return fail("frame " + std::to_string(frame) + " is past the " + std::to_string(kMaxRecordingFrames) +
                  " frames a recording may cover");
    if (!rec.header.stream_live) return fail("'jobs' line in a recording whose streaming is not 'stream live'");
    if (rec.schedules.count(frame)) return fail("a second 'jobs' line for frame " + std::to_string(frame));
    if (w.size() < 4 || !parse_int(w[2], gen) || !parse_int(w[3], mesh) || gen > kMaxSubmitted || mesh > kMaxSubmitted)
      return fail("'jobs' takes GEN MESH (each 0.." + std::to_string(kMaxSubmitted) + ") and then the integrated jobs' queue positions");
    stream::FrameSchedule sc;
    sc.gen = static_cast<uint32_t>(gen);
    sc.mesh = static_cast<uint32_t>(mesh);
    size_t end = w.size();
    for (size_t i = 4; i + 2 < end; ++i)
      if (w[i] == "far") return fail("'jobs': 'far N' must end the line");
    if (end >= 6 && w[end - 2] == "far") {
      uint64_t far = 0;
      if (m_version < 3) return fail("'jobs': 'far' needs recording format version 3");
      if (!parse_int(w[end - 1], far) || far > kMaxSubmitted)
        return fail("'jobs': far " + quote(w[end - 1]) + " is not a number 0.." + std::to_string(kMaxSubmitted));
      sc.far = static_cast<uint32_t>(far);
      end -= 2;
    }
    for (size_t i = 4; i < end; ++i) {
      uint64_t p = 0;
      if (!parse_int(w[i], p) || p >= kMaxPosition) return fail("'jobs': position " + quote(w[i]) + " is not a number below " + std::to_string(kMaxPosition));
      if (!sc.integrated.empty() && p <= sc.integrated.back()) return fail("'jobs': positions must ascend");
      sc.integrated.push_back(static_cast<uint32_t>(p));
    }
    return std::pair{frame, std::move(sc)};
  }

  Status header_field(const std::vector<std::string_view>& w, RecordingHeader& h, bool& have_start) {
    const std::string key(w[0]);
    static constexpr const char* kKnown[] = {"seed", "generator", "render_distance", "size", "fov", "step", "stream", "start", "far_distance", "tick_rate", "sky"};
    for (const char* known : kKnown) {
      if (key != known) continue;
      if (auto [it, fresh] = m_header_lines.emplace(key, m_line); !fresh)
        return fail("duplicate header field '" + key + "' (first given on line " + std::to_string(it->second) + ")");
    }
    auto need = [&](size_t n) -> Status {
      if (w.size() != n + 1) return fail("'" + key + "' takes " + std::to_string(n) + " value" + (n == 1 ? "" : "s"));
      return Ok{};
    };
    if (key == "seed") {
      if (auto s = need(1); !s.ok()) return s;
      if (!parse_int(w[1], h.seed)) return fail("seed " + quote(w[1]) + " is not a decimal uint64");
    } else if (key == "generator") {
      if (auto s = need(1); !s.ok()) return s;
      if (w[1].size() > 64 || !std::all_of(w[1].begin(), w[1].end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
          }))
        return fail("generator " + quote(w[1]) + " is not a generator name (1..64 letters, digits, '_' or '-')");
      h.generator = std::string(w[1]);
    } else if (key == "render_distance") {
      if (auto s = need(1); !s.ok()) return s;
      if (!parse_int(w[1], h.render_distance) || h.render_distance < 1 || h.render_distance > 64)
        return fail("render_distance " + quote(w[1]) + " must be 1..64");
    } else if (key == "far_distance") {
      if (auto s = need(1); !s.ok()) return s;
      if (m_version < 3) return fail("'far_distance' needs recording format version 3");
      if (!parse_double(w[1], h.far_distance) || !(h.far_distance >= 0.0) || h.far_distance > 65536.0)
        return fail("far_distance " + quote(w[1]) + " must be 0..65536 blocks");
      if (m_version < 4 && h.far_distance > 0.0)
        return fail("a far view recorded in format version " + std::to_string(m_version) +
                    " counts the far view's jobs from before real columns (version 4): this voxen cannot replay it; "
                    "record it again");
    } else if (key == "tick_rate") {
      if (auto s = need(1); !s.ok()) return s;
      if (m_version < 5) return fail("'tick_rate' needs recording format version 5");
      if (!parse_double(w[1], h.tick_rate) || !(h.tick_rate >= 0.0) || h.tick_rate > 1000.0)
        return fail("tick_rate " + quote(w[1]) + " must be 0..1000 ticks a second");
    } else if (key == "sky") {
      if (auto s = need(3); !s.ok()) return s;
      if (m_version < 6) return fail("'sky' needs recording format version 6");
      if (!parse_double(w[1], h.time_of_day) || !(h.time_of_day >= 0.0) || h.time_of_day > 24.0)
        return fail("sky: time of day " + quote(w[1]) + " must be 0..24 hours");
      if (!parse_double(w[2], h.day_minutes) || !(h.day_minutes >= 0.0) || h.day_minutes > 100000.0)
        return fail("sky: day length " + quote(w[2]) + " must be 0..100000 minutes (0: the time stays put)");
      if (w[3] != "0" && w[3] != "1") return fail("sky: clouds " + quote(w[3]) + " must be 1 (on) or 0 (off)");
      h.clouds = w[3] == "1";
    } else if (key == "size") {
      if (auto s = need(1); !s.ok()) return s;
      const size_t x = w[1].find('x');
      if (x == std::string_view::npos || !parse_int(w[1].substr(0, x), h.width) || !parse_int(w[1].substr(x + 1), h.height) ||
          h.width < 16 || h.height < 16 || h.width > 8192 || h.height > 8192)
        return fail("size " + quote(w[1]) + " must be WxH, each 16..8192");
    } else if (key == "fov") {
      if (auto s = need(1); !s.ok()) return s;
      if (!parse_double(w[1], h.fov) || h.fov < 10.0 || h.fov > 150.0) return fail("fov " + quote(w[1]) + " must be 10..150 degrees");
    } else if (key == "step") {
      if (auto s = need(1); !s.ok()) return s;
      if (!parse_double(w[1], h.step) || !(h.step > 0.0) || h.step > 1.0) return fail("step " + quote(w[1]) + " must be in (0, 1] seconds");
    } else if (key == "stream" && w.size() == 2 && w[1] == "live") {
      if (m_version < 2) return fail("'stream live' needs recording format version 2");
      h.stream_live = true;
    } else if (key == "stream") {
      if (auto s = need(3); !s.ok()) return s;
      if (!parse_int(w[1], h.stream_lag) || !parse_int(w[2], h.stream_gen) || !parse_int(w[3], h.stream_mesh) || h.stream_lag < 0 ||
          h.stream_lag > 16 || h.stream_gen < 1 || h.stream_gen > 1024 || h.stream_mesh < 1 || h.stream_mesh > 1024)
        return fail("stream: expected LAG (0..16) GEN (1..1024) MESH (1..1024)");
    } else if (key == "start") {
      if (auto s = need(9); !s.ok()) return s;
      int fly = 0;
      if (!parse_int(w[1], h.start_block.x) || !parse_int(w[2], h.start_block.y) || !parse_int(w[3], h.start_block.z))
        return fail("start: block coordinates must be int64");
      // The same room to move as a teleport (kMaxTeleportCoord).
      if (h.start_block.x < -kWorldReach || h.start_block.x > kWorldReach || h.start_block.z < -kWorldReach ||
          h.start_block.z > kWorldReach)
        return fail("start: x and z must be within -2^62..2^62 blocks (the int64 world with room to move)");
      if (!parse_double(w[4], h.start_frac.x) || !parse_double(w[5], h.start_frac.y) || !parse_double(w[6], h.start_frac.z) ||
          h.start_frac.x < 0 || h.start_frac.x >= 1 || h.start_frac.y < 0 || h.start_frac.y >= 1 || h.start_frac.z < 0 ||
          h.start_frac.z >= 1)
        return fail("start: fractions must be numbers in [0, 1)");
      if (!parse_double(w[7], h.start_yaw) || !parse_double(w[8], h.start_pitch) || h.start_pitch < -90 || h.start_pitch > 90)
        return fail("start: yaw and pitch must be degrees (pitch -90..90)");
      if (!parse_int(w[9], fly) || (fly != 0 && fly != 1)) return fail("start: fly must be 0 or 1");
      if (h.start_block.y < kMinY - 64 || h.start_block.y > kMaxY + 256) return fail("start: y is too far outside the world");
      h.start_flying = fly == 1;
      have_start = true;
    } else {
      return fail("unknown header field " + quote(key));
    }
    return Ok{};
  }

  Result<InputEvent> event(const std::vector<std::string_view>& w) {
    InputEvent e;
    if (!parse_int(w[0], e.frame)) return fail("frame " + quote(w[0]) + " is not a decimal uint64");
    if (e.frame >= kMaxRecordingFrames)
      return fail("frame " + std::to_string(e.frame) + " is past the " + std::to_string(kMaxRecordingFrames) +
                  " frames a recording may cover");
    if (w.size() < 2) return fail("event without a kind");
    const auto kind = parse_event_kind(w[1]);
    if (!kind) return fail("unknown event kind " + quote(w[1]));
    e.kind = *kind;
    const std::string kname(w[1]);
    auto count = [&](size_t n) -> Status {
      if (w.size() != n + 2) return fail("'" + kname + "' takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s"));
      return Ok{};
    };
    // The first n of `args` arguments (n by default) are x, y, z in that order.
    auto numbers = [&](size_t n, size_t args = 0) -> Status {
      if (auto s = count(args ? args : n); !s.ok()) return s;
      double* dst[3] = {&e.x, &e.y, &e.z};
      for (size_t i = 0; i < n; ++i)
        if (!parse_double(w[2 + i], *dst[i])) return fail("'" + kname + "': " + quote(w[2 + i]) + " is not a finite number");
      return Ok{};
    };
    // x, y, z a place in the world (teleport, blast): y near the world's range, |x|, |z| <= kMaxTeleportCoord.
    auto place = [&](size_t args) -> Status {
      if (auto s = numbers(3, args); !s.ok()) return s;
      if (e.y < kMinY - 64 || e.y > kMaxY + 256) return fail("'" + kname + "': y is too far outside the world");
      if (std::fabs(e.x) > kMaxTeleportCoord || std::fabs(e.z) > kMaxTeleportCoord)
        return fail("'" + kname + "': x and z must be within -2^62..2^62 blocks (the int64 world with room to move)");
      return Ok{};
    };
    switch (e.kind) {
      case EventKind::kKeyDown:
      case EventKind::kKeyUp: {
        if (auto s = count(1); !s.ok()) return s.error();
        const auto k = parse_key(w[2]);
        if (!k) return fail("unknown key " + quote(w[2]));
        e.code = static_cast<int32_t>(*k);
        break;
      }
      case EventKind::kButtonDown:
      case EventKind::kButtonUp: {
        if (auto s = count(1); !s.ok()) return s.error();
        const auto b = parse_button(w[2]);
        if (!b) return fail("unknown mouse button " + quote(w[2]));
        e.code = static_cast<int32_t>(*b);
        break;
      }
      case EventKind::kMouseMove:
      case EventKind::kLook:
        if (auto s = numbers(2); !s.ok()) return s.error();
        break;
      case EventKind::kScroll:
        if (auto s = count(1); !s.ok()) return s.error();
        if (!parse_double(w[2], e.y)) return fail("'scroll': " + quote(w[2]) + " is not a finite number");
        break;
      case EventKind::kFrameTime:
        if (auto s = numbers(1); !s.ok()) return s.error();
        if (e.x < 0.0 || e.x > 1.0) return fail("'frame_time' must be 0..1 seconds");
        break;
      case EventKind::kFlySpeed:
        if (auto s = numbers(1); !s.ok()) return s.error();
        if (e.x < 0.0 || e.x > 10000.0) return fail("'fly_speed' must be 0..10000 blocks/s");
        break;
      case EventKind::kTeleport:
        if (auto s = place(3); !s.ok()) return s.error();
        break;
      case EventKind::kSetFly: {
        if (auto s = count(1); !s.ok()) return s.error();
        if (w[2] != "0" && w[2] != "1") return fail("'set_fly' takes 0 or 1");
        e.code = w[2] == "1" ? 1 : 0;
        break;
      }
      case EventKind::kBlast: {
        if (auto s = place(4); !s.ok()) return s.error();
        int64_t r = 0;
        if (!parse_int(w[5], r) || r < 1 || r > kMaxBlastRadius)
          return fail("'blast': radius " + quote(w[5]) + " must be a whole number 1.." + std::to_string(kMaxBlastRadius));
        e.code = static_cast<int32_t>(r);
        break;
      }
      case EventKind::kScenario: {
        if (auto s = count(3); !s.ok()) return s.error();
        if (!parse_double(w[2], e.x) || !parse_double(w[3], e.z)) return fail("'scenario': the site X Z must be finite numbers");
        if (std::fabs(e.x) > kMaxTeleportCoord || std::fabs(e.z) > kMaxTeleportCoord)
          return fail("'scenario': x and z must be within -2^62..2^62 blocks");
        const auto& names = sim::scenario_names();
        const auto it = std::find(names.begin(), names.end(), w[4]);
        if (it == names.end()) return fail("'scenario': unknown scenario " + quote(w[4]));
        e.code = static_cast<int32_t>(it - names.begin());
        break;
      }
      case EventKind::kCount: return fail("unknown event kind");
    }
    return e;
  }

  std::string_view m_text;
  const std::string& m_path;
  int64_t m_line = 0;
  std::map<std::string, int64_t> m_header_lines;  // header field -> the line it was first given on
  int m_version = 1;
  bool m_any_frame = false;   // an event or `jobs` line was read
  uint64_t m_last_frame = 0;  // the frame of the last one
};

}  // namespace

std::string format_event(const InputEvent& e) {
  std::string s = std::to_string(e.frame) + " " + std::string(event_kind_name(e.kind));
  switch (e.kind) {
    case EventKind::kKeyDown:
    case EventKind::kKeyUp: return s + " " + std::string(key_name(static_cast<Key>(e.code)));
    case EventKind::kButtonDown:
    case EventKind::kButtonUp: return s + " " + std::string(button_name(static_cast<MouseButton>(e.code)));
    case EventKind::kMouseMove:
    case EventKind::kLook: return s + " " + num(e.x) + " " + num(e.y);
    case EventKind::kScroll: return s + " " + num(e.y);
    case EventKind::kFrameTime:
    case EventKind::kFlySpeed: return s + " " + num(e.x);
    case EventKind::kTeleport: return s + " " + num(e.x) + " " + num(e.y) + " " + num(e.z);
    case EventKind::kSetFly: return s + (e.code ? " 1" : " 0");
    case EventKind::kBlast: return s + " " + num(e.x) + " " + num(e.y) + " " + num(e.z) + " " + std::to_string(e.code);
    case EventKind::kScenario: {
      const auto& names = sim::scenario_names();
      const bool known = e.code >= 0 && static_cast<size_t>(e.code) < names.size();
      std::string line = s;
      line.append(" ").append(num(e.x)).append(" ").append(num(e.z)).append(" ");
      line.append(known ? names[static_cast<size_t>(e.code)] : std::string("?"));
      return line;
    }
    case EventKind::kCount: break;
  }
  return s;
}

std::string format_header(const RecordingHeader& h) {
  std::ostringstream o;
  const bool sky = h.time_of_day != 10.0 || h.day_minutes != 0.0 || !h.clouds;
  o << "voxen-input-recording " << (sky ? 6 : h.tick_rate > 0 ? 5 : h.far_distance > 0 ? 4 : h.stream_live ? 2 : 1) << "\n";
  o << "seed " << h.seed << "\n";
  o << "generator " << h.generator << "\n";
  o << "render_distance " << h.render_distance << "\n";
  o << "size " << h.width << "x" << h.height << "\n";
  o << "fov " << num(h.fov) << "\n";
  o << "step " << num(h.step) << "\n";
  if (h.far_distance > 0) o << "far_distance " << num(h.far_distance) << "\n";
  if (h.tick_rate > 0) o << "tick_rate " << num(h.tick_rate) << "\n";
  if (sky) o << "sky " << num(h.time_of_day) << " " << num(h.day_minutes) << " " << (h.clouds ? 1 : 0) << "\n";
  if (h.stream_live) o << "stream live\n";
  else o << "stream " << h.stream_lag << " " << h.stream_gen << " " << h.stream_mesh << "\n";
  o << "start " << h.start_block.x << " " << h.start_block.y << " " << h.start_block.z << " " << num(h.start_frac.x) << " "
    << num(h.start_frac.y) << " " << num(h.start_frac.z) << " " << num(h.start_yaw) << " " << num(h.start_pitch) << " "
    << (h.start_flying ? 1 : 0) << "\n";
  return o.str();
}

std::string format_schedule(uint64_t frame, const stream::FrameSchedule& schedule) {
  std::string s = std::to_string(frame) + " jobs " + std::to_string(schedule.gen) + " " + std::to_string(schedule.mesh);
  for (const uint32_t p : schedule.integrated) s += " " + std::to_string(p);
  if (schedule.far > 0) s += " far " + std::to_string(schedule.far);
  return s;
}

std::string format_recording(const Recording& r) {
  std::string s = format_header(r.header);
  // Each frame's events, then its `jobs` line.
  auto sc = r.schedules.begin();
  auto flush_schedules = [&](uint64_t before) {
    for (; sc != r.schedules.end() && sc->first < before; ++sc) s += format_schedule(sc->first, sc->second) + "\n";
  };
  for (const InputEvent& e : r.events) {
    flush_schedules(e.frame);
    s += format_event(e) + "\n";
  }
  flush_schedules(UINT64_MAX);
  s += "end " + std::to_string(r.frames) + "\n";
  return s;
}

Result<Recording> parse_recording(std::string_view text, const std::string& path) { return Parser(text, path).run(); }

Result<Recording> read_recording(const std::string& path) {
  // The file's type and size first: a directory, a device (/dev/zero) or a FIFO would otherwise be read until
  // memory runs out or fail deep in the stream library without the path.
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) return Error{"cannot open the recording for reading (no such file)", path};
  if (std::filesystem::is_directory(st)) return Error{"is a directory, not a recording file", path};
  if (!std::filesystem::is_regular_file(st))
    return Error{"is not a regular file (a device, FIFO or socket); a recording must be a regular file", path};
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error{"cannot read the recording's size: " + ec.message(), path};
  if (size > kMaxRecordingBytes)
    return Error{"the recording is " + std::to_string(size) + " bytes; at most " + std::to_string(kMaxRecordingBytes) +
                     " are read",
                 path};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open the recording for reading", path};
  // Read at most the cap plus one byte, so a file that grew since the size check is still refused, not slurped.
  std::string text(static_cast<size_t>(size) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return Error{"read error", path};
  text.resize(static_cast<size_t>(in.gcount()));
  while (text.size() <= kMaxRecordingBytes && in) {  // grew since the size check: read on up to the cap + 1
    char buf[65536];
    in.read(buf, sizeof buf);
    if (in.bad()) return Error{"read error", path};
    text.append(buf, static_cast<size_t>(in.gcount()));
  }
  if (text.size() > kMaxRecordingBytes)
    return Error{"the recording is more than " + std::to_string(kMaxRecordingBytes) + " bytes", path};
  return parse_recording(text, path);
}

Status write_recording(const std::string& path, const Recording& r) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error{"cannot open the recording for writing", path};
  out << format_recording(r);
  out.flush();
  if (!out) return Error{"write error", path};
  return Ok{};
}

RecordingWriter::~RecordingWriter() {
  if (m_file) std::fclose(m_file);
}

Status RecordingWriter::open(const std::string& path, const RecordingHeader& header, const std::string& note) {
  if (m_file) std::fclose(m_file);
  m_path = path;
  m_failed = false;
  m_file = std::fopen(path.c_str(), "wb");
  if (!m_file) return Error{"cannot create the recording file", path};
  std::string h = format_header(header);
  if (!note.empty()) h += "# " + note + "\n";
  if (std::fwrite(h.data(), 1, h.size(), m_file) != h.size() || std::fflush(m_file) != 0) m_failed = true;
  return m_failed ? Status(Error{"write error", path}) : Status(Ok{});
}

void RecordingWriter::append(const InputEvent& e) {
  if (!m_file) return;
  const std::string line = format_event(e) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), m_file) != line.size()) m_failed = true;
}

void RecordingWriter::append_schedule(uint64_t frame, const stream::FrameSchedule& schedule) {
  if (!m_file || schedule.empty()) return;
  const std::string line = format_schedule(frame, schedule) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), m_file) != line.size()) m_failed = true;
}

void RecordingWriter::end_frame() {
  if (m_file && std::fflush(m_file) != 0) m_failed = true;
}

Status RecordingWriter::finish(uint64_t frames) {
  if (!m_file) return Ok{};
  const std::string end = "end " + std::to_string(frames) + "\n";
  if (std::fwrite(end.data(), 1, end.size(), m_file) != end.size()) m_failed = true;
  if (std::fclose(m_file) != 0) m_failed = true;
  m_file = nullptr;
  if (m_failed) return Error{"write error (disk full?)", m_path};
  return Ok{};
}

}  // namespace voxen::play
