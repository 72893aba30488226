#include "voxen/net/protocol.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "voxen/store/codec.h"

namespace voxen::net {

namespace {

// ---- writing ---------------------------------------------------------------------------------------------------

class Writer {
 public:
  explicit Writer(MsgType type) {
    m_out.resize(kFrameHeaderSize);
    u8(static_cast<uint8_t>(type));
  }
  void u8(uint8_t v) { m_out.push_back(static_cast<char>(v)); }
  void u16(uint16_t v) { put(v, 2); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void i64(int64_t v) { put(static_cast<uint64_t>(v), 8); }
  void i16(int16_t v) { put(static_cast<uint16_t>(v), 2); }
  void f32(float v) { u32(std::bit_cast<uint32_t>(v)); }
  void f64(double v) { u64(std::bit_cast<uint64_t>(v)); }
  void str8(std::string_view s) {
    VOXEN_ASSERT(s.size() <= 255);
    u8(static_cast<uint8_t>(s.size()));
    m_out.append(s);
  }
  void str16(std::string_view s) {
    VOXEN_ASSERT(s.size() <= 65535);
    u16(static_cast<uint16_t>(s.size()));
    m_out.append(s);
  }
  void bytes32(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    m_out.append(s);
  }
  /// A list's uint16 count; a count past `max` is the caller's bug.
  void count16(size_t n, size_t max) {
    VOXEN_ASSERT(n <= max);
    u16(static_cast<uint16_t>(n));
  }
  void cell(Cell c) {
    u16(c.id);
    u8(c.state);
  }
  void column(ColumnPos p) {
    i64(p.x);
    i64(p.z);
  }
  void block(const BlockPos& p) {
    i64(p.x);
    i16(static_cast<int16_t>(p.y));
    i64(p.z);
  }
  void pose(const Pose& p) {
    f64(p.x);
    f64(p.y);
    f64(p.z);
    f32(p.yaw);
    f32(p.pitch);
    u8(p.flags);
  }
  std::string finish(size_t max_frame) {
    const size_t body = m_out.size() - kFrameHeaderSize;
    VOXEN_ASSERT(body <= max_frame);
    for (int i = 0; i < 4; ++i) m_out[static_cast<size_t>(i)] = static_cast<char>((body >> (8 * i)) & 0xFF);
    return std::move(m_out);
  }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) m_out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  std::string m_out;
};

// ---- reading ---------------------------------------------------------------------------------------------------

/// A bounds-checked reader; the first failure sticks and names the field and offset.
class Reader {
 public:
  Reader(std::string_view body, const char* msg) : m_in(body), m_msg(msg) {}
  bool ok() const { return m_error.empty(); }
  const std::string& error() const { return m_error; }
  size_t offset() const { return m_pos; }
  void fail(const std::string& field, const std::string& why, size_t at) {
    if (m_error.empty()) m_error = std::string("message ") + m_msg + ": " + field + ": " + why + " at byte " + std::to_string(at);
  }
  bool need(size_t n, const char* field) {
    if (!ok()) return false;
    if (m_in.size() - m_pos < n) {
      fail(field, "message ends early (" + std::to_string(n) + " bytes needed, " + std::to_string(m_in.size() - m_pos) + " left)", m_pos);
      return false;
    }
    return true;
  }
  uint64_t get(size_t n, const char* field) {
    if (!need(n, field)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(m_in[m_pos + i])) << (8 * i);
    m_pos += n;
    return v;
  }
  uint8_t u8(const char* f) { return static_cast<uint8_t>(get(1, f)); }
  uint16_t u16(const char* f) { return static_cast<uint16_t>(get(2, f)); }
  uint32_t u32(const char* f) { return static_cast<uint32_t>(get(4, f)); }
  uint64_t u64(const char* f) { return get(8, f); }
  int64_t i64(const char* f) { return static_cast<int64_t>(get(8, f)); }
  int16_t i16(const char* f) { return static_cast<int16_t>(get(2, f)); }
  float f32(const char* f) { return std::bit_cast<float>(u32(f)); }
  double f64(const char* f) { return std::bit_cast<double>(u64(f)); }
  std::string_view take(size_t n, const char* f) {
    if (!need(n, f)) return {};
    std::string_view s = m_in.substr(m_pos, n);
    m_pos += n;
    return s;
  }
  std::string str8(const char* f) {
    const size_t n = u8(f);
    return std::string(take(n, f));
  }
  std::string str16(const char* f) {
    const size_t n = u16(f);
    return std::string(take(n, f));
  }
  Cell cell(const char* f) {
    Cell c;
    c.id = u16(f);
    c.state = u8(f);
    return c;
  }
  /// A column key whose blocks lie within +-kMaxCoordinate.
  ColumnPos column(const char* f) {
    const size_t at = m_pos;
    ColumnPos p;
    p.x = i64(f);
    p.z = i64(f);
    const int64_t lim = kMaxCoordinate >> 4;
    if (ok() && (p.x < -lim || p.x >= lim || p.z < -lim || p.z >= lim))
      fail(f, "column (" + std::to_string(p.x) + ", " + std::to_string(p.z) + ") outside the world (x, z in -2^55..2^55-1)", at);
    return p;
  }
  /// A world block within y -128..255 and +-kMaxCoordinate.
  BlockPos block(const char* f) {
    const size_t at = m_pos;
    BlockPos p;
    p.x = i64(f);
    p.y = i16(f);
    p.z = i64(f);
    if (!ok()) return p;
    if (p.x < -kMaxCoordinate || p.x >= kMaxCoordinate || p.z < -kMaxCoordinate || p.z >= kMaxCoordinate)
      fail(f, "block (" + std::to_string(p.x) + ", " + std::to_string(p.y) + ", " + std::to_string(p.z) + ") outside the world (x, z in -2^59..2^59-1)", at);
    else if (!y_in_range(p.y))
      fail(f, "y " + std::to_string(p.y) + " outside " + std::to_string(kMinY) + ".." + std::to_string(kMaxY), at);
    return p;
  }
  Pose pose(const char* f) {
    const size_t at = m_pos;
    Pose p;
    p.x = f64(f);
    p.y = f64(f);
    p.z = f64(f);
    p.yaw = f32(f);
    p.pitch = f32(f);
    p.flags = u8(f);
    if (!ok()) return p;
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z) || !std::isfinite(p.yaw) || !std::isfinite(p.pitch))
      fail(f, "not a finite number", at);
    else if (std::fabs(p.x) >= static_cast<double>(kMaxCoordinate) || std::fabs(p.z) >= static_cast<double>(kMaxCoordinate) ||
             std::fabs(p.y) > kMaxPoseY)
      fail(f, "position outside the world", at);
    else if (std::fabs(p.yaw) > 1e6f || std::fabs(p.pitch) > 90.0f)
      fail(f, "yaw or pitch out of range (|yaw| <= 10^6, |pitch| <= 90)", at);
    else if (p.flags > 1)
      fail(f, "unknown flag bits " + std::to_string(p.flags), at + 32);
    return p;
  }
  /// A count 0..max (or 1..max when !allow_zero) that the bytes left can hold at `entry` bytes each.
  size_t count16(const char* f, size_t max, size_t entry, bool allow_zero) {
    const size_t at = m_pos;
    const size_t n = u16(f);
    if (!ok()) return 0;
    if ((!allow_zero && n == 0) || n > max) {
      fail(f, "count " + std::to_string(n) + " outside " + (allow_zero ? "0" : "1") + ".." + std::to_string(max), at);
      return 0;
    }
    if (n * entry > m_in.size() - m_pos) {
      fail(f, "count " + std::to_string(n) + " needs " + std::to_string(n * entry) + " bytes, " + std::to_string(m_in.size() - m_pos) + " left", at);
      return 0;
    }
    return n;
  }
  void end() {
    if (ok() && m_pos != m_in.size()) fail("end", std::to_string(m_in.size() - m_pos) + " bytes after the message", m_pos);
  }

 private:
  std::string_view m_in;
  const char* m_msg;
  size_t m_pos = 1;  // after the type byte
  std::string m_error;
};

std::vector<ColumnPos> read_columns(Reader& r) {
  const size_t n = r.count16("count", kMaxColumnsPerMessage, 16, false);
  std::vector<ColumnPos> out;
  out.reserve(n);
  for (size_t i = 0; i < n && r.ok(); ++i) out.push_back(r.column("column"));
  return out;
}

void write_columns(Writer& w, const std::vector<ColumnPos>& cols) {
  VOXEN_ASSERT(!cols.empty());
  w.count16(cols.size(), kMaxColumnsPerMessage);
  for (const ColumnPos& c : cols) w.column(c);
}

/// A reason cut to kMaxReasonBytes at a UTF-8 character boundary (never inside a character).
std::string_view clip_reason(std::string_view s) {
  if (s.size() <= kMaxReasonBytes) return s;
  size_t n = kMaxReasonBytes;
  while (n > 0 && (static_cast<uint8_t>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

template <class T>
Result<T> done(Reader& r, T value) {
  r.end();
  if (!r.ok()) return Error{r.error()};
  return value;
}

}  // namespace

std::string msg_name(uint8_t type) {
  const char* n = "unknown";
  switch (static_cast<MsgType>(type)) {
    case MsgType::kHello: n = "Hello"; break;
    case MsgType::kRequestColumns: n = "RequestColumns"; break;
    case MsgType::kReleaseColumns: n = "ReleaseColumns"; break;
    case MsgType::kEdit: n = "Edit"; break;
    case MsgType::kPose: n = "Pose"; break;
    case MsgType::kChat: n = "Chat"; break;
    case MsgType::kLeave: n = "Leave"; break;
    case MsgType::kLogQuery: n = "LogQuery"; break;
    case MsgType::kHashQuery: n = "HashQuery"; break;
    case MsgType::kWelcome: n = "Welcome"; break;
    case MsgType::kRefuse: n = "Refuse"; break;
    case MsgType::kColumn: n = "Column"; break;
    case MsgType::kEditResult: n = "EditResult"; break;
    case MsgType::kEdits: n = "Edits"; break;
    case MsgType::kChanges: n = "Changes"; break;
    case MsgType::kPoses: n = "Poses"; break;
    case MsgType::kPlayerJoined: n = "PlayerJoined"; break;
    case MsgType::kPlayerLeft: n = "PlayerLeft"; break;
    case MsgType::kChatLine: n = "ChatLine"; break;
    case MsgType::kLogEntries: n = "LogEntries"; break;
    case MsgType::kHashes: n = "Hashes"; break;
  }
  return std::string(n) + " (" + std::to_string(type) + ")";
}

const char* refusal_name(EditRefusal r) {
  switch (r) {
    case EditRefusal::kNone: return "accepted";
    case EditRefusal::kCellChanged: return "cell changed";
    case EditRefusal::kOutOfReach: return "out of reach";
    case EditRefusal::kColumnNotHeld: return "column not held";
    case EditRefusal::kNotReplaceable: return "not replaceable";
    case EditRefusal::kCannotDig: return "cannot dig";
    case EditRefusal::kOverlapsPlayer: return "overlaps a player";
    case EditRefusal::kDuplicate: return "duplicate";
    case EditRefusal::kBadBlock: return "bad block";
  }
  return "?";
}

bool ColumnData::operator==(const ColumnData& o) const {
  if (pos != o.pos || server_seq != o.server_seq || mask != o.mask || sections.size() != o.sections.size()) return false;
  for (size_t i = 0; i < sections.size(); ++i)
    if (!sections[i].same_cells(o.sections[i])) return false;
  return true;
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}

bool valid_text(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) return false;
      ++i;
      continue;
    }
    int n = 0;
    uint32_t cp = 0, min = 0;
    if ((c & 0xE0) == 0xC0) n = 1, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) n = 2, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) n = 3, cp = c & 0x07, min = 0x10000;
    else return false;
    if (i + static_cast<size_t>(n) >= s.size()) return false;
    for (int k = 1; k <= n; ++k) {
      const auto b = static_cast<uint8_t>(s[i + static_cast<size_t>(k)]);
      if ((b & 0xC0) != 0x80) return false;
      cp = cp << 6 | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp < 0xA0)) return false;
    i += static_cast<size_t>(n) + 1;
  }
  return true;
}

// ---- encode ----------------------------------------------------------------------------------------------------

std::string encode(const ClientMessage& msg) {
  return std::visit(
      [](const auto& m) -> std::string {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, Hello>) {
          Writer w(MsgType::kHello);
          w.u32(kMagic);
          w.u16(m.version);
          w.str8(m.name);
          w.u8(m.view_radius);
          return w.finish(kMaxClientFrame);
        } else if constexpr (std::is_same_v<T, RequestColumns>) {
          Writer w(MsgType::kRequestColumns);
          write_columns(w, m.columns);
          return w.finish(kMaxClientFrame);
        } else if constexpr (std::is_same_v<T, ReleaseColumns>) {
          Writer w(MsgType::kReleaseColumns);
          write_columns(w, m.columns);
          return w.finish(kMaxClientFrame);
        } else if constexpr (std::is_same_v<T, EditRequest>) {
          Writer w(MsgType::kEdit);
          w.u32(m.client_seq);
          w.block(m.pos);
          w.cell(m.expect);
          w.cell(m.cell);
          return w.finish(kMaxClientFrame);
        } else if constexpr (std::is_same_v<T, PoseUpdate>) {
          Writer w(MsgType::kPose);
          w.pose(m.pose);
          return w.finish(kMaxClientFrame);
        } else if constexpr (std::is_same_v<T, Chat>) {
          Writer w(MsgType::kChat);
          w.str16(m.text);
          return w.finish(kMaxClientFrame);
        } else if constexpr (std::is_same_v<T, Leave>) {
          Writer w(MsgType::kLeave);
          return w.finish(kMaxClientFrame);
        } else if constexpr (std::is_same_v<T, LogQuery>) {
          Writer w(MsgType::kLogQuery);
          w.u32(m.after);
          return w.finish(kMaxClientFrame);
        } else {
          static_assert(std::is_same_v<T, HashQuery>);
          Writer w(MsgType::kHashQuery);
          write_columns(w, m.columns);
          return w.finish(kMaxClientFrame);
        }
      },
      msg);
}

std::string encode(const ServerMessage& msg) {
  return std::visit(
      [](const auto& m) -> std::string {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, Welcome>) {
          Writer w(MsgType::kWelcome);
          w.u16(m.version);
          w.u32(m.player_id);
          w.str8(m.world_name);
          w.u64(m.seed);
          w.str8(m.generator);
          w.str8(m.generator_fingerprint);
          w.u64(m.registry_fingerprint);
          w.u8(m.view_radius);
          w.u16(m.pose_radius);
          w.u16(m.tick_rate);
          w.f64(m.spawn_x);
          w.f64(m.spawn_y);
          w.f64(m.spawn_z);
          w.u32(m.last_client_seq);
          w.u64(m.server_seq);
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, Refuse>) {
          Writer w(MsgType::kRefuse);
          w.str16(clip_reason(m.reason));
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, ColumnData>) {
          Writer w(MsgType::kColumn);
          w.column(m.pos);
          w.u64(m.server_seq);
          w.u32(m.mask);
          VOXEN_ASSERT(static_cast<size_t>(std::popcount(m.mask)) == m.sections.size() && m.mask < (1u << kSectionsPerColumn));
          std::string payload;
          for (const Section& s : m.sections) store::encode_section(s, payload);
          w.bytes32(m.sections.empty() ? std::string() : store::seal(store::PayloadKind::kColumnCells, payload));
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, EditResult>) {
          Writer w(MsgType::kEditResult);
          w.u32(m.client_seq);
          w.u8(static_cast<uint8_t>(m.reason));
          w.u64(m.server_seq);
          w.block(m.pos);
          w.cell(m.now);
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, Edits>) {
          Writer w(MsgType::kEdits);
          w.count16(m.edits.size(), kMaxListEntries);
          for (const EditEvent& e : m.edits) {
            w.u64(e.server_seq);
            w.u32(e.player_id);
            w.block(e.pos);
            w.cell(e.cell);
          }
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, Changes>) {
          Writer w(MsgType::kChanges);
          w.u64(m.tick);
          w.column(m.column);
          w.count16(m.cells.size(), kMaxListEntries);
          for (const CellChangeLocal& c : m.cells) {
            w.u8(static_cast<uint8_t>(c.x | c.z << 4));
            w.i16(c.y);
            w.cell(c.cell);
          }
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, Poses>) {
          Writer w(MsgType::kPoses);
          w.count16(m.poses.size(), kMaxListEntries);
          for (const PlayerPose& p : m.poses) {
            w.u32(p.player_id);
            w.pose(p.pose);
          }
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, PlayerJoined>) {
          Writer w(MsgType::kPlayerJoined);
          w.u32(m.player_id);
          w.str8(m.name);
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, PlayerLeft>) {
          Writer w(MsgType::kPlayerLeft);
          w.u32(m.player_id);
          w.str16(clip_reason(m.reason));
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, ChatLine>) {
          Writer w(MsgType::kChatLine);
          w.u32(m.player_id);
          w.str16(m.text);
          return w.finish(kMaxServerFrame);
        } else if constexpr (std::is_same_v<T, LogEntries>) {
          Writer w(MsgType::kLogEntries);
          w.u8(m.done ? 1 : 0);
          w.count16(m.entries.size(), kMaxListEntries);
          for (const LogEntryRef& e : m.entries) {
            w.u32(e.client_seq);
            w.u64(e.server_seq);
          }
          return w.finish(kMaxServerFrame);
        } else {
          static_assert(std::is_same_v<T, Hashes>);
          Writer w(MsgType::kHashes);
          VOXEN_ASSERT(!m.hashes.empty());
          w.count16(m.hashes.size(), kMaxColumnsPerMessage);
          for (const ColumnHash& h : m.hashes) {
            w.column(h.pos);
            w.u8(h.loaded ? 1 : 0);
            w.u64(h.hash);
          }
          return w.finish(kMaxServerFrame);
        }
      },
      msg);
}

// ---- decode ----------------------------------------------------------------------------------------------------

Result<ClientMessage> decode_client(std::string_view body) {
  if (body.empty()) return Error{"empty message at byte 0"};
  if (body.size() > kMaxClientFrame)
    return Error{"message of " + std::to_string(body.size()) + " bytes is over the " + std::to_string(kMaxClientFrame) + "-byte limit"};
  const auto type = static_cast<uint8_t>(body[0]);
  const std::string name = msg_name(type);
  Reader r(body, name.c_str());
  switch (static_cast<MsgType>(type)) {
    case MsgType::kHello: {
      Hello h;
      const uint32_t magic = r.u32("magic");
      if (r.ok() && magic != kMagic) r.fail("magic", "not a voxen client (magic is not \"VOXN\")", 1);
      const size_t vat = r.offset();
      h.version = r.u16("version");
      if (r.ok() && h.version != kProtocolVersion)
        r.fail("version", "protocol version " + std::to_string(h.version) + " (this server speaks " + std::to_string(kProtocolVersion) + ")", vat);
      const size_t nat = r.offset();
      h.name = r.str8("name");
      if (r.ok() && !valid_name(h.name)) r.fail("name", "not 1..32 characters of A-Z a-z 0-9 _ -", nat);
      const size_t rat = r.offset();
      h.view_radius = r.u8("view_radius");
      if (r.ok() && (h.view_radius < 1 || h.view_radius > kMaxViewRadius))
        r.fail("view_radius", std::to_string(h.view_radius) + " outside 1.." + std::to_string(kMaxViewRadius), rat);
      return done<ClientMessage>(r, h);
    }
    case MsgType::kRequestColumns: {
      RequestColumns m;
      m.columns = read_columns(r);
      return done<ClientMessage>(r, m);
    }
    case MsgType::kReleaseColumns: {
      ReleaseColumns m;
      m.columns = read_columns(r);
      return done<ClientMessage>(r, m);
    }
    case MsgType::kEdit: {
      EditRequest e;
      e.client_seq = r.u32("client_seq");
      if (r.ok() && e.client_seq == 0) r.fail("client_seq", "0 (sequence numbers start at 1)", 1);
      e.pos = r.block("pos");
      e.expect = r.cell("expect");
      e.cell = r.cell("cell");
      return done<ClientMessage>(r, e);
    }
    case MsgType::kPose: {
      PoseUpdate p;
      p.pose = r.pose("pose");
      return done<ClientMessage>(r, p);
    }
    case MsgType::kChat: {
      Chat c;
      const size_t at = r.offset();
      c.text = r.str16("text");
      if (r.ok() && (c.text.empty() || c.text.size() > kMaxChatBytes))
        r.fail("text", std::to_string(c.text.size()) + " bytes (1.." + std::to_string(kMaxChatBytes) + ")", at);
      else if (r.ok() && !valid_text(c.text))
        r.fail("text", "not UTF-8 text without control characters", at + 2);
      return done<ClientMessage>(r, c);
    }
    case MsgType::kLeave:
      return done<ClientMessage>(r, Leave{});
    case MsgType::kLogQuery: {
      LogQuery q;
      q.after = r.u32("after");
      return done<ClientMessage>(r, q);
    }
    case MsgType::kHashQuery: {
      HashQuery q;
      q.columns = read_columns(r);
      return done<ClientMessage>(r, q);
    }
    default:
      return Error{"message " + name + ": not a message a client may send, at byte 0"};
  }
}

Result<ServerMessage> decode_server(std::string_view body) {
  if (body.empty()) return Error{"empty message at byte 0"};
  if (body.size() > kMaxServerFrame)
    return Error{"message of " + std::to_string(body.size()) + " bytes is over the " + std::to_string(kMaxServerFrame) + "-byte limit"};
  const auto type = static_cast<uint8_t>(body[0]);
  const std::string name = msg_name(type);
  Reader r(body, name.c_str());
  switch (static_cast<MsgType>(type)) {
    case MsgType::kWelcome: {
      Welcome w;
      const size_t vat = r.offset();
      w.version = r.u16("version");
      if (r.ok() && w.version != kProtocolVersion)
        r.fail("version", "protocol version " + std::to_string(w.version) + " (this client speaks " + std::to_string(kProtocolVersion) + ")", vat);
      w.player_id = r.u32("player_id");
      w.world_name = r.str8("world_name");
      w.seed = r.u64("seed");
      w.generator = r.str8("generator");
      w.generator_fingerprint = r.str8("generator_fingerprint");
      w.registry_fingerprint = r.u64("registry_fingerprint");
      const size_t rat = r.offset();
      w.view_radius = r.u8("view_radius");
      if (r.ok() && (w.view_radius < 1 || w.view_radius > kMaxViewRadius)) r.fail("view_radius", "out of range", rat);
      w.pose_radius = r.u16("pose_radius");
      w.tick_rate = r.u16("tick_rate");
      w.spawn_x = r.f64("spawn");
      w.spawn_y = r.f64("spawn");
      w.spawn_z = r.f64("spawn");
      if (r.ok() && !(std::isfinite(w.spawn_x) && std::isfinite(w.spawn_y) && std::isfinite(w.spawn_z) &&
                      std::fabs(w.spawn_x) < static_cast<double>(kMaxCoordinate) && std::fabs(w.spawn_z) < static_cast<double>(kMaxCoordinate) &&
                      std::fabs(w.spawn_y) <= kMaxPoseY))
        r.fail("spawn", "not a finite position in the world", rat + 5);
      w.last_client_seq = r.u32("last_client_seq");
      w.server_seq = r.u64("server_seq");
      if (r.ok() && (w.tick_rate < 1 || w.tick_rate > 1000)) r.fail("tick_rate", std::to_string(w.tick_rate) + " outside 1..1000", rat + 3);
      if (r.ok() && !(valid_text(w.world_name) && valid_text(w.generator) && valid_text(w.generator_fingerprint)))
        r.fail("world_name", "world name, generator or fingerprint is not UTF-8 text", 7);
      return done<ServerMessage>(r, w);
    }
    case MsgType::kRefuse: {
      Refuse m;
      m.reason = r.str16("reason");
      if (r.ok() && m.reason.size() > kMaxReasonBytes) r.fail("reason", "longer than " + std::to_string(kMaxReasonBytes) + " bytes", 1);
      if (r.ok() && !valid_text(m.reason)) r.fail("reason", "not UTF-8 text", 3);
      return done<ServerMessage>(r, m);
    }
    case MsgType::kColumn: {
      ColumnData c;
      c.pos = r.column("pos");
      c.server_seq = r.u64("server_seq");
      const size_t mat = r.offset();
      c.mask = r.u32("mask");
      if (r.ok() && c.mask >= (1u << kSectionsPerColumn)) r.fail("mask", "bits past section 23", mat);
      const size_t lat = r.offset();
      const uint32_t len = r.u32("sections");
      std::string_view sealed = r.take(len, "sections");
      if (!r.ok()) return Error{r.error()};
      if (c.mask == 0) {
        if (len != 0) r.fail("sections", "bytes for an unedited column (mask 0)", lat);
        return done<ServerMessage>(r, c);
      }
      auto payload = store::unseal(sealed, store::PayloadKind::kColumnCells);
      if (!payload) {
        r.fail("sections", payload.error().to_string(), lat + 4);
        return Error{r.error()};
      }
      size_t pos = 0;
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        if (!(c.mask >> s & 1)) continue;
        auto sec = store::decode_section(*payload, pos);
        if (!sec) {
          r.fail("sections", "section " + std::to_string(s) + ": " + sec.error().to_string(), lat + 4);
          return Error{r.error()};
        }
        c.sections.push_back(std::move(*sec));
      }
      if (pos != payload->size()) r.fail("sections", std::to_string(payload->size() - pos) + " bytes after the last section", lat + 4);
      return done<ServerMessage>(r, c);
    }
    case MsgType::kEditResult: {
      EditResult e;
      e.client_seq = r.u32("client_seq");
      const size_t at = r.offset();
      const uint8_t reason = r.u8("reason");
      if (r.ok() && reason > kMaxEditRefusal) r.fail("reason", "unknown reason " + std::to_string(reason), at);
      e.reason = static_cast<EditRefusal>(reason);
      e.server_seq = r.u64("server_seq");
      e.pos = r.block("pos");
      e.now = r.cell("now");
      return done<ServerMessage>(r, e);
    }
    case MsgType::kEdits: {
      Edits m;
      const size_t n = r.count16("count", kMaxListEntries, 33, true);
      for (size_t i = 0; i < n && r.ok(); ++i) {
        EditEvent e;
        e.server_seq = r.u64("server_seq");
        e.player_id = r.u32("player_id");
        e.pos = r.block("pos");
        e.cell = r.cell("cell");
        m.edits.push_back(e);
      }
      return done<ServerMessage>(r, m);
    }
    case MsgType::kChanges: {
      Changes m;
      m.tick = r.u64("tick");
      m.column = r.column("column");
      const size_t n = r.count16("count", kMaxListEntries, 6, true);
      for (size_t i = 0; i < n && r.ok(); ++i) {
        CellChangeLocal c;
        const uint8_t xz = r.u8("xz");
        c.x = xz & 15;
        c.z = xz >> 4;
        const size_t yat = r.offset();
        c.y = r.i16("y");
        if (r.ok() && !y_in_range(c.y)) r.fail("y", std::to_string(c.y) + " outside -128..255", yat);
        c.cell = r.cell("cell");
        m.cells.push_back(c);
      }
      return done<ServerMessage>(r, m);
    }
    case MsgType::kPoses: {
      Poses m;
      const size_t n = r.count16("count", kMaxListEntries, 37, true);
      for (size_t i = 0; i < n && r.ok(); ++i) {
        PlayerPose p;
        p.player_id = r.u32("player_id");
        p.pose = r.pose("pose");
        m.poses.push_back(p);
      }
      return done<ServerMessage>(r, m);
    }
    case MsgType::kPlayerJoined: {
      PlayerJoined m;
      m.player_id = r.u32("player_id");
      const size_t at = r.offset();
      m.name = r.str8("name");
      if (r.ok() && !valid_name(m.name)) r.fail("name", "not a player name", at);
      return done<ServerMessage>(r, m);
    }
    case MsgType::kPlayerLeft: {
      PlayerLeft m;
      m.player_id = r.u32("player_id");
      m.reason = r.str16("reason");
      if (r.ok() && (m.reason.size() > kMaxReasonBytes || !valid_text(m.reason))) r.fail("reason", "too long or not UTF-8 text", 5);
      return done<ServerMessage>(r, m);
    }
    case MsgType::kChatLine: {
      ChatLine m;
      m.player_id = r.u32("player_id");
      const size_t at = r.offset();
      m.text = r.str16("text");
      if (r.ok() && (m.text.size() > kMaxChatBytes + kMaxNameBytes + 8 || !valid_text(m.text)))
        r.fail("text", "not a chat line", at);
      return done<ServerMessage>(r, m);
    }
    case MsgType::kLogEntries: {
      LogEntries m;
      const uint8_t d = r.u8("done");
      if (r.ok() && d > 1) r.fail("done", "not 0 or 1", 1);
      m.done = d == 1;
      const size_t n = r.count16("count", kMaxListEntries, 12, true);
      for (size_t i = 0; i < n && r.ok(); ++i) {
        LogEntryRef e;
        e.client_seq = r.u32("client_seq");
        e.server_seq = r.u64("server_seq");
        m.entries.push_back(e);
      }
      return done<ServerMessage>(r, m);
    }
    case MsgType::kHashes: {
      Hashes m;
      const size_t n = r.count16("count", kMaxColumnsPerMessage, 25, false);
      for (size_t i = 0; i < n && r.ok(); ++i) {
        ColumnHash h;
        h.pos = r.column("pos");
        const uint8_t l = r.u8("loaded");
        if (r.ok() && l > 1) r.fail("loaded", "not 0 or 1", r.offset() - 1);
        h.loaded = l == 1;
        h.hash = r.u64("hash");
        m.hashes.push_back(h);
      }
      return done<ServerMessage>(r, m);
    }
    default:
      return Error{"message " + name + ": not a message a server may send, at byte 0"};
  }
}

}  // namespace voxen::net
