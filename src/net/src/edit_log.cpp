#include "voxen/net/edit_log.h"

#include <algorithm>

#include "voxen/net/protocol.h"
#include "voxen/store/codec.h"

namespace voxen::net {

namespace {

constexpr std::string_view kLogMagic = "VXLOG";
constexpr uint8_t kLogVersion = 1;

void put(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

store::RecordKey page_key(uint64_t first_seq) {
  return store::RecordKey{store::RecordKind::kEditLog, SectionPos{static_cast<int64_t>(first_seq), 0, 0}};
}

}  // namespace

std::string encode_log_page(const std::vector<LogEntry>& entries) {
  std::string out(kLogMagic);
  out.push_back(static_cast<char>(kLogVersion));
  put(out, entries.size(), 4);
  for (const LogEntry& e : entries) {
    put(out, e.server_seq, 8);
    out.push_back(static_cast<char>(e.player.size()));
    out += e.player;
    put(out, e.client_seq, 4);
    put(out, static_cast<uint64_t>(e.pos.x), 8);
    put(out, static_cast<uint16_t>(static_cast<int16_t>(e.pos.y)), 2);
    put(out, static_cast<uint64_t>(e.pos.z), 8);
    put(out, e.before.id, 2);
    out.push_back(static_cast<char>(e.before.state));
    put(out, e.after.id, 2);
    out.push_back(static_cast<char>(e.after.state));
  }
  return out;
}

Result<std::vector<LogEntry>> decode_log_page(std::string_view b) {
  size_t pos = 0;
  auto fail = [&](const std::string& why) { return Error{"edit log page: " + why + " at byte " + std::to_string(pos)}; };
  auto get = [&](int n, uint64_t& v) {
    if (b.size() - pos < static_cast<size_t>(n)) return false;
    v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[pos + static_cast<size_t>(i)])) << (8 * i);
    pos += static_cast<size_t>(n);
    return true;
  };
  if (b.size() < 10 || b.substr(0, 5) != kLogMagic) return fail("not an edit log page (magic is not \"VXLOG\")");
  pos = 5;
  if (static_cast<uint8_t>(b[5]) != kLogVersion) return fail("unknown version " + std::to_string(static_cast<uint8_t>(b[5])));
  pos = 6;
  uint64_t count = 0;
  get(4, count);
  if (count > kPageEntries) return fail("count " + std::to_string(count) + " over " + std::to_string(kPageEntries));
  std::vector<LogEntry> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    LogEntry e;
    uint64_t v = 0;
    if (!get(8, e.server_seq)) return fail("truncated entry " + std::to_string(i));
    if (i > 0 && e.server_seq != out.back().server_seq + 1) return fail("sequence number " + std::to_string(e.server_seq) + " does not follow " + std::to_string(out.back().server_seq));
    if (!get(1, v) || b.size() - pos < v) return fail("truncated entry " + std::to_string(i));
    e.player = std::string(b.substr(pos, v));
    if (!valid_name(e.player)) return fail("entry " + std::to_string(i) + ": not a player name");
    pos += v;
    if (!get(4, v)) return fail("truncated entry " + std::to_string(i));
    e.client_seq = static_cast<uint32_t>(v);
    if (!get(8, v)) return fail("truncated entry " + std::to_string(i));
    e.pos.x = static_cast<int64_t>(v);
    if (!get(2, v)) return fail("truncated entry " + std::to_string(i));
    e.pos.y = static_cast<int16_t>(v);
    if (!y_in_range(e.pos.y)) return fail("entry " + std::to_string(i) + ": y " + std::to_string(e.pos.y) + " out of range");
    if (!get(8, v)) return fail("truncated entry " + std::to_string(i));
    e.pos.z = static_cast<int64_t>(v);
    uint64_t id = 0, st = 0;
    if (!get(2, id) || !get(1, st)) return fail("truncated entry " + std::to_string(i));
    e.before = Cell{static_cast<uint16_t>(id), static_cast<uint8_t>(st)};
    if (!get(2, id) || !get(1, st)) return fail("truncated entry " + std::to_string(i));
    e.after = Cell{static_cast<uint16_t>(id), static_cast<uint8_t>(st)};
    out.push_back(std::move(e));
  }
  if (pos != b.size()) return fail(std::to_string(b.size() - pos) + " bytes after the last entry");
  return out;
}

Status EditLog::load(store::WorldStore& store) {
  auto keys = store.list(store::RecordKind::kEditLog);
  if (!keys) return keys.error();
  for (const store::RecordKey& key : *keys) {
    const uint64_t first = static_cast<uint64_t>(key.pos.x);
    auto value = store.get(key);
    if (!value) return value.error();
    if (!*value) continue;
    auto payload = store::unseal(**value, store::PayloadKind::kEditLog);
    Result<std::vector<LogEntry>> page = payload ? decode_log_page(*payload) : Result<std::vector<LogEntry>>(payload.error());
    if (!page || page->empty() || page->front().server_seq != first) {
      auto aside = store.keep_aside(key, **value);
      return Error{"the server's edit log page from sequence number " + std::to_string(first) + " cannot be read: " +
                   (page ? std::string("its entries do not start there") : page.error().to_string()) +
                   (aside ? "; its bytes are kept at " + *aside : std::string())};
    }
    if (first != m_last_seq + 1)
      return Error{"the server's edit log jumps from sequence number " + std::to_string(m_last_seq) + " to " + std::to_string(first)};
    for (const LogEntry& e : *page) m_by_player[e.player].emplace_back(e.client_seq, e.server_seq);
    m_last_seq = page->back().server_seq;
    m_count += page->size();
    if (page->size() < kPageEntries) {  // the open page: appends continue it
      m_open = std::move(*page);
      m_open_first = first;
    } else {
      m_open.clear();
      m_open_first = m_last_seq + 1;
    }
  }
  return Ok{};
}

uint32_t EditLog::last_client_seq(const std::string& player) const {
  // Client sequence numbers of one name only grow in server order (the server refuses any not above the last one),
  // so the last entry holds the highest.
  auto it = m_by_player.find(player);
  return it == m_by_player.end() || it->second.empty() ? 0 : it->second.back().first;
}

uint64_t EditLog::append(LogEntry entry) {
  entry.server_seq = ++m_last_seq;
  ++m_count;
  m_by_player[entry.player].emplace_back(entry.client_seq, entry.server_seq);
  m_open.push_back(std::move(entry));
  m_open_dirty = true;
  if (m_open.size() == kPageEntries) {
    m_unstaged_full.emplace_back(m_open_first, std::move(m_open));
    m_open.clear();
    m_open_first = m_last_seq + 1;
    m_open_dirty = false;
  }
  return m_last_seq;
}

Status EditLog::stage(store::WorldSession& session) {
  for (auto& [first, entries] : m_unstaged_full)
    if (Status s = session.put_log_record(page_key(first), encode_log_page(entries)); !s.ok()) return s;
  m_unstaged_full.clear();
  if (m_open_dirty) {
    if (Status s = session.put_log_record(page_key(m_open_first), encode_log_page(m_open)); !s.ok()) return s;
    m_open_dirty = false;
  }
  return Ok{};
}

std::vector<std::pair<uint32_t, uint64_t>> EditLog::entries_of(const std::string& player, uint32_t after) const {
  std::vector<std::pair<uint32_t, uint64_t>> out;
  auto it = m_by_player.find(player);
  if (it == m_by_player.end()) return out;
  const auto& v = it->second;  // sorted by client_seq (see last_client_seq)
  auto from = std::upper_bound(v.begin(), v.end(), after, [](uint32_t a, const auto& e) { return a < e.first; });
  out.assign(from, v.end());
  return out;
}

}  // namespace voxen::net
