#include "voxen/net/client.h"

#include <thread>

#include <algorithm>
#include <bit>
#include <cmath>

#include "voxen/net/server.h"

namespace voxen::net {

namespace {
using Clock = std::chrono::steady_clock;

int64_t column_of(double v) { return static_cast<int64_t>(std::floor(v)) >> 4; }
}  // namespace

// ---- GeneratedCache ----------------------------------------------------------------------------------------------

std::unique_ptr<Column> GeneratedCache::get(const gen::Generator& generator, const std::string& fingerprint, ColumnPos pos) {
  const Key key{fingerprint, pos};
  {
    std::lock_guard lock(m_mu);
    auto it = m_columns.find(key);
    if (it != m_columns.end()) return std::make_unique<Column>(*it->second);
  }
  auto col = std::make_shared<Column>(pos);
  generator.generate(*col);
  std::lock_guard lock(m_mu);
  if (m_columns.emplace(key, col).second) {
    m_order.push_back(key);
    while (m_order.size() > m_capacity) {
      m_columns.erase(m_order.front());
      m_order.pop_front();
    }
  }
  return std::make_unique<Column>(*col);
}

// ---- RemotePlayer ------------------------------------------------------------------------------------------------

Pose RemotePlayer::at(Clock::time_point now) const {
  if (!has_pose) return to;
  const double span = std::chrono::duration<double>(to_time - from_time).count();
  const double t = span <= 0 ? 1.0 : std::clamp(std::chrono::duration<double>(now - from_time).count() / span, 0.0, 1.0);
  Pose p = to;
  p.x = from.x + (to.x - from.x) * t;
  p.y = from.y + (to.y - from.y) * t;
  p.z = from.z + (to.z - from.z) * t;
  const float dyaw = std::fmod(std::fmod(to.yaw - from.yaw, 360.0f) + 540.0f, 360.0f) - 180.0f;  // the short way round
  p.yaw = from.yaw + dyaw * static_cast<float>(t);
  p.pitch = from.pitch + (to.pitch - from.pitch) * static_cast<float>(t);
  return p;
}

// ---- Client ------------------------------------------------------------------------------------------------------

Client::~Client() {
  if (m_link && m_open) m_link->close();
}

Result<std::unique_ptr<Client>> Client::connect(NetIo& io, const std::string& host, uint16_t port, const ClientOptions& options,
                                                const BlockRegistry& registry, GeneratedCache* cache) {
  if (!valid_name(options.name)) return Error{"player name '" + options.name + "': use 1..32 characters of A-Z a-z 0-9 _ -"};
  if (options.view_radius < 1 || options.view_radius > kMaxViewRadius)
    return Error{"view radius " + std::to_string(options.view_radius) + " outside 1.." + std::to_string(kMaxViewRadius)};
  LinkLimits limits;
  limits.max_frame = kMaxServerFrame;
  limits.max_queued_bytes = size_t{1} << 20;
  auto link = ClientLink::connect(io, host, port, limits, options.timeout);
  if (!link) return link.error();
  std::unique_ptr<Client> c(new Client(registry));
  c->m_link = std::move(*link);
  c->m_cache = cache;
  c->m_options = options;
  c->m_link->send(encode(ClientMessage(Hello{kProtocolVersion, options.name, static_cast<uint8_t>(options.view_radius)})));
  const auto deadline = Clock::now() + options.timeout;
  const std::string where = host + ":" + std::to_string(port);
  while (true) {
    const auto now = Clock::now();
    if (now >= deadline) return Error{where + ": no Welcome within " + std::to_string(options.timeout.count()) + " ms"};
    auto evs = c->m_link->take(std::chrono::duration_cast<std::chrono::microseconds>(deadline - now));
    for (size_t i = 0; i < evs.size(); ++i) {
      NetEvent& e = evs[i];
      if (e.kind == NetEvent::Kind::kClosed) return Error{where + ": the connection closed before the Welcome (" + e.text + ")"};
      if (e.kind == NetEvent::Kind::kProblem) return Error{where + ": " + e.text};
      auto m = decode_server(e.text);
      if (!m) return Error{where + ": " + m.error().to_string()};
      if (auto* r = std::get_if<Refuse>(&*m)) return Error{where + " refused the connection: " + r->reason};
      auto* w = std::get_if<Welcome>(&*m);
      if (!w) return Error{where + ": expected a Welcome, got " + msg_name(static_cast<uint8_t>(e.text[0]))};
      if (w->registry_fingerprint != registry_fingerprint(registry))
        return Error{where + ": the server's block registry differs from this build's data/blocks.toml (a different voxen version?)"};
      if (!w->generator.empty()) {
        auto g = gen::make_generator(w->generator, w->seed, registry);
        if (!g) return Error{where + ": the server's generator '" + w->generator + "': " + g.error().to_string()};
        const std::string fp = gen::fingerprint(**g, registry);
        if (fp != w->generator_fingerprint)
          return Error{where + ": generator '" + w->generator + "' makes different terrain here (fingerprint " + fp + ", the server's " +
                       w->generator_fingerprint + ")"};
        c->m_generator = std::move(*g);
      }
      c->m_welcome = *w;
      c->m_next_seq = w->last_client_seq + 1;
      c->m_pose = Pose{w->spawn_x, w->spawn_y, w->spawn_z, 0, 0, 0};
      c->m_connected_at = Clock::now();
      c->handle_events(std::span<NetEvent>(evs).subspan(i + 1));  // what came in the same read, as poll() would
      c->update_interest();
      return c;
    }
  }
}

void Client::send(const ClientMessage& m) {
  if (!m_open) return;
  if (!m_link->send(encode(m))) {
    // Closed by the server (its Refuse reason, if any, comes with the next poll) or over the queue limit.
    if (m_link->open()) {
      m_closed_reason = "the connection's send queue is full";
      m_link->close();
    }
    m_open = false;
    poll_closed();
  }
}

void Client::poll_closed() {
  // Take the frames that came before the close (a Refuse names the reason).
  for (NetEvent& e : m_link->take(std::chrono::milliseconds(100))) {
    if (e.kind != NetEvent::Kind::kFrame) continue;
    auto m = decode_server(e.text);
    if (m && std::holds_alternative<Refuse>(*m)) m_closed_reason = std::get<Refuse>(*m).reason;
  }
}

void Client::handle_events(std::span<NetEvent> evs) {
  for (NetEvent& e : evs) {
    if (e.kind == NetEvent::Kind::kClosed) {
      m_open = false;
      if (m_closed_reason.empty()) m_closed_reason = e.text;
      continue;
    }
    if (e.kind == NetEvent::Kind::kProblem) {
      m_closed_reason = "the server sent " + e.text;
      m_link->close();
      continue;
    }
    auto m = decode_server(e.text);
    if (!m) {
      m_closed_reason = "the server sent a bad message: " + m.error().to_string();
      m_link->close();
      m_open = false;
      return;
    }
    handle(*m);
  }
}

bool Client::poll(std::chrono::microseconds wait) {
  if (!m_open) return false;
  auto evs = m_link->take(wait);
  handle_events(evs);
  const auto now = Clock::now();
  // Ask for more as soon as half of what is in flight has arrived; every 500 ms anyway (retries requests).
  const bool room = m_arrived_since > 0 && m_requested.size() <= m_options.max_columns_in_flight / 2;
  if (m_open && (room || now - m_interest_at >= std::chrono::milliseconds(500))) update_interest();
  // The pose when it changed (at most 20 a second), and every 5 s anyway: the server drops a player silent for 30 s.
  if (m_open && ((m_pose_dirty && now - m_pose_sent >= std::chrono::milliseconds(50)) || now - m_pose_sent >= std::chrono::seconds(5))) {
    send(ClientMessage(PoseUpdate{m_pose}));
    m_pose_sent = now;
    m_pose_dirty = false;
  }
  return m_open;
}

void Client::set_cell(const BlockPos& p, Cell c, bool report) {
  auto e = m_world.make_edit(p, c);
  if (!e || e->before == e->after) return;
  m_world.apply(*e);
  if (report && m_options.keep_changes) m_changes.push_back(*e);
}

void Client::reapply(const BlockPos& p) {
  for (const Prediction& pr : m_pending)
    if (pr.pos == p) set_cell(p, pr.cell, true);
}

void Client::reapply_column(ColumnPos c) {
  for (const Prediction& pr : m_pending)
    if (column_pos_of(pr.pos) == c) set_cell(pr.pos, pr.cell, true);
}

void Client::handle(ServerMessage& msg) {
  if (auto* r = std::get_if<Refuse>(&msg)) {
    m_closed_reason = r->reason;
    return;  // the server closes the connection next
  }
  if (auto* d = std::get_if<ColumnData>(&msg)) {
    m_requested.erase(d->pos);
    const int64_t cx = column_of(m_pose.x), cz = column_of(m_pose.z);
    const int64_t r = m_welcome.view_radius + 1;
    if (std::llabs(d->pos.x - cx) > r || std::llabs(d->pos.z - cz) > r) {  // wandered away meanwhile
      send(ClientMessage(ReleaseColumns{{d->pos}}));
      return;
    }
    std::unique_ptr<Column> col;
    if (m_generator) col = m_cache ? m_cache->get(*m_generator, m_welcome.generator_fingerprint, d->pos) : nullptr;
    if (!col) {
      col = std::make_unique<Column>(d->pos);
      if (m_generator) m_generator->generate(*col);
    }
    size_t i = 0;
    for (int s = 0; s < kSectionsPerColumn; ++s)
      if (d->mask >> s & 1) col->section(s) = std::move(d->sections[i++]);
    m_world.insert(std::move(col));
    ++m_counters.columns_received;
    if (d->mask) ++m_counters.columns_edited_received;
    if (m_options.keep_changes) m_arrived.push_back(d->pos);
    ++m_arrived_since;
    reapply_column(d->pos);
    return;
  }
  if (auto* e = std::get_if<EditResult>(&msg)) {
    auto it = std::find_if(m_pending.begin(), m_pending.end(), [&](const Prediction& p) { return p.seq == e->client_seq; });
    if (it == m_pending.end()) return;  // not ours (an edit sent before a reconnect)
    const Cell predicted = it->cell;
    m_pending.erase(it);
    if (e->reason == EditRefusal::kNone) {
      ++m_counters.edits_accepted;
      m_accepted.emplace_back(e->client_seq, e->server_seq);
    } else {
      ++m_counters.edits_refused;
      ++m_counters.refused[refusal_name(e->reason)];
      if (e->now != predicted) ++m_counters.rolled_back;
    }
    if (m_world.find(column_pos_of(e->pos))) {
      set_cell(e->pos, e->now, true);
      reapply(e->pos);
    }
    return;
  }
  if (auto* ed = std::get_if<Edits>(&msg)) {
    for (const EditEvent& e : ed->edits) {
      if (!m_world.find(column_pos_of(e.pos))) continue;
      ++m_counters.remote_edits;
      set_cell(e.pos, e.cell, true);
      reapply(e.pos);
    }
    return;
  }
  if (auto* ch = std::get_if<Changes>(&msg)) {
    if (!m_world.find(ch->column)) return;
    for (const CellChangeLocal& c : ch->cells) {
      const BlockPos p{ch->column.x * 16 + c.x, c.y, ch->column.z * 16 + c.z};
      set_cell(p, c.cell, true);
      reapply(p);
    }
    m_counters.sim_changes += ch->cells.size();
    return;
  }
  if (auto* ps = std::get_if<Poses>(&msg)) {
    const auto now = Clock::now();
    for (const PlayerPose& pp : ps->poses) {
      auto it = m_players.find(pp.player_id);
      if (it == m_players.end()) continue;
      RemotePlayer& rp = it->second;
      // From where it is drawn now to the new pose over one update interval (50 ms at 20 Hz).
      rp.from = rp.has_pose ? rp.at(now) : pp.pose;
      rp.from_time = now;
      rp.to = pp.pose;
      rp.to_time = now + std::chrono::milliseconds(50);
      rp.has_pose = true;
    }
    return;
  }
  if (auto* j = std::get_if<PlayerJoined>(&msg)) {
    RemotePlayer rp;
    rp.id = j->player_id;
    rp.name = j->name;
    m_players[j->player_id] = rp;
    return;
  }
  if (auto* l = std::get_if<PlayerLeft>(&msg)) {
    m_players.erase(l->player_id);
    return;
  }
  if (auto* c = std::get_if<ChatLine>(&msg)) {
    std::string who = "server";
    if (c->player_id != 0) {
      auto it = m_players.find(c->player_id);
      who = c->player_id == m_welcome.player_id ? m_options.name : it != m_players.end() ? it->second.name : "?";
    }
    if (m_options.keep_changes) m_chat.emplace_back(who, c->text);
    return;
  }
  if (auto* le = std::get_if<LogEntries>(&msg)) {
    m_log.insert(m_log.end(), le->entries.begin(), le->entries.end());
    if (le->done) m_log_done = true;
    return;
  }
  if (auto* h = std::get_if<Hashes>(&msg)) {
    if (m_hash_waiting > 0) --m_hash_waiting;
    for (const ColumnHash& ch : h->hashes) {
      const Column* col = m_world.find(ch.pos);
      if (!col) continue;  // released meanwhile
      ++m_hash_compared;
      if (!ch.loaded || ch.hash != col->content_hash(false)) m_hash_mismatch.push_back(ch.pos);
    }
    return;
  }
}

void Client::send_pose() {
  if (!m_open || !m_pose_dirty) return;
  send(ClientMessage(PoseUpdate{m_pose}));
  m_pose_sent = Clock::now();
  m_pose_dirty = false;
}

void Client::set_pose(const Pose& pose) {
  if (pose == m_pose) return;
  const bool moved_column = column_of(pose.x) != column_of(m_pose.x) || column_of(pose.z) != column_of(m_pose.z);
  m_pose = pose;
  m_pose_dirty = true;
  if (moved_column) {
    // The server checks requests against the pose it has: send it before asking for the new columns.
    const auto now = Clock::now();
    if (now - m_pose_sent >= std::chrono::milliseconds(50)) {
      send(ClientMessage(PoseUpdate{m_pose}));
      m_pose_sent = now;
      m_pose_dirty = false;
    }
  }
  update_interest();
}

void Client::update_interest() {
  if (!m_open) return;
  const auto now = Clock::now();
  m_interest_at = now;
  m_arrived_since = 0;
  // A request the server did not answer within 2 s was ignored (it checks requests against the pose it had: a fast
  // move or a teleport outruns it): forget it, so it is asked again below.
  std::erase_if(m_requested, [&](const auto& kv) { return now - kv.second > std::chrono::seconds(2); });
  const int64_t cx = column_of(m_pose.x), cz = column_of(m_pose.z);
  const int64_t r = m_welcome.view_radius;
  // Release what is past radius + 1.
  std::vector<ColumnPos> drop;
  for (const ColumnPos& p : m_world.positions())
    if (std::llabs(p.x - cx) > r + 1 || std::llabs(p.z - cz) > r + 1) drop.push_back(p);
  for (const ColumnPos& p : drop) {
    m_world.remove(p);
    if (m_options.keep_changes) m_released.push_back(p);
  }
  for (size_t at = 0; at < drop.size(); at += kMaxColumnsPerMessage)
    send(ClientMessage(ReleaseColumns{std::vector<ColumnPos>(drop.begin() + static_cast<std::ptrdiff_t>(at),
                                                             drop.begin() + static_cast<std::ptrdiff_t>(std::min(drop.size(), at + kMaxColumnsPerMessage)))}));
  // Ask for the missing ones, nearest first, keeping at most max_columns_in_flight requested.
  if (m_requested.size() >= m_options.max_columns_in_flight) return;
  std::vector<std::pair<int64_t, ColumnPos>> want;
  for (int64_t dz = -r; dz <= r; ++dz)
    for (int64_t dx = -r; dx <= r; ++dx) {
      const ColumnPos p{cx + dx, cz + dz};
      if (!m_world.find(p) && !m_requested.count(p)) want.emplace_back(dx * dx + dz * dz, p);
    }
  std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
  std::vector<ColumnPos> ask;
  for (const auto& [d, p] : want) {
    if (m_requested.size() + ask.size() >= m_options.max_columns_in_flight) break;
    ask.push_back(p);
  }
  for (const ColumnPos& p : ask) m_requested.emplace(p, now);
  for (size_t at = 0; at < ask.size(); at += kMaxColumnsPerMessage)
    send(ClientMessage(RequestColumns{std::vector<ColumnPos>(ask.begin() + static_cast<std::ptrdiff_t>(at),
                                                             ask.begin() + static_cast<std::ptrdiff_t>(std::min(ask.size(), at + kMaxColumnsPerMessage)))}));
}

bool Client::view_complete() const {
  const int64_t cx = column_of(m_pose.x), cz = column_of(m_pose.z);
  const int64_t r = m_welcome.view_radius;
  for (int64_t dz = -r; dz <= r; ++dz)
    for (int64_t dx = -r; dx <= r; ++dx)
      if (!m_world.find(ColumnPos{cx + dx, cz + dz})) return false;
  return true;
}

std::optional<uint32_t> Client::edit(const BlockPos& p, Cell cell) {
  if (!m_open || !y_in_range(p.y) || !m_world.find(column_pos_of(p))) return std::nullopt;
  const Cell expect = m_world.get(p);
  const uint32_t seq = m_next_seq++;
  m_pending.push_back(Prediction{seq, p, cell});
  set_cell(p, cell, true);
  ++m_counters.edits_sent;
  send(ClientMessage(EditRequest{seq, p, expect, cell}));
  return seq;
}

std::vector<Edit> Client::take_changes() { return std::exchange(m_changes, {}); }
std::vector<ColumnPos> Client::take_arrived() { return std::exchange(m_arrived, {}); }
std::vector<ColumnPos> Client::take_released() { return std::exchange(m_released, {}); }

void Client::chat(const std::string& text) {
  if (text.empty() || text.size() > kMaxChatBytes || !valid_text(text)) return;
  send(ClientMessage(Chat{text}));
}

std::vector<std::pair<std::string, std::string>> Client::take_chat() { return std::exchange(m_chat, {}); }

void Client::leave(std::chrono::milliseconds wait) {
  if (!m_open) return;
  send(ClientMessage(Leave{}));
  m_link->close();
  const auto until = Clock::now() + wait;
  while (!m_link->closed() && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

void Client::query_log() {
  m_log.clear();
  m_log_done = false;
  send(ClientMessage(LogQuery{0}));
}

void Client::query_hashes() {
  m_hash_compared = 0;
  m_hash_mismatch.clear();
  const std::vector<ColumnPos> held = m_world.positions();
  for (size_t at = 0; at < held.size(); at += kMaxColumnsPerMessage) {
    send(ClientMessage(HashQuery{std::vector<ColumnPos>(held.begin() + static_cast<std::ptrdiff_t>(at),
                                                        held.begin() + static_cast<std::ptrdiff_t>(std::min(held.size(), at + kMaxColumnsPerMessage)))}));
    ++m_hash_waiting;
  }
}

}  // namespace voxen::net
