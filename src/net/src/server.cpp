#include "voxen/net/server.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "voxen/core/hash.h"
#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/net/edit_log.h"
#include "voxen/net/protocol.h"
#include "voxen/net/transport.h"
#include "voxen/sim/simulator.h"
#include "voxen/store/pg_store.h"
#include "voxen/store/world_copy.h"
#include "voxen/store/world_session.h"
#include "voxen/world/world.h"

namespace voxen::net {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

/// A token bucket: `rate` tokens a second, holding at most `burst`.
struct Bucket {
  double rate = 0, burst = 0, tokens = 0;
  Clock::time_point last = Clock::now();
  void init(double r, double b) {
    rate = r;
    burst = b;
    tokens = b;
    last = Clock::now();
  }
  bool take() {
    const auto now = Clock::now();
    tokens = std::min(burst, tokens + rate * std::chrono::duration<double>(now - last).count());
    last = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }
};

/// The first words of a reason, for counting disconnects by kind.
std::string reason_key(const std::string& reason) {
  const size_t colon = reason.find(':');
  return colon == std::string::npos ? reason : reason.substr(0, colon);
}

constexpr size_t kMaxWaitingConnections = 64;  // connections that have not sent Hello yet

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

uint64_t registry_fingerprint(const BlockRegistry& registry) {
  uint64_t h = kFnv1aOffset;
  for (size_t id = 0; id < registry.size(); ++id) {
    const BlockDef& b = registry[static_cast<uint16_t>(id)];
    h = fnv1a_u64(h, id);
    h = fnv1a(h, b.name);
    h = fnv1a_u64(h, static_cast<uint64_t>(b.shape) | (b.solid ? 0x100u : 0u));
  }
  return h;
}

struct Server::Impl {
  struct Conn {
    uint64_t id = 0;
    std::string peer;
    Clock::time_point opened = Clock::now();
    bool joined = false;
    bool dropping = false;
    std::string drop_reason;  // why the server closed it (what the others are told)
    uint32_t player_id = 0;
    std::string name;
    int view_radius = 1;
    Pose pose;
    bool pose_dirty = false;  // the pose (the spawn until the first Pose) changed since poses were last sent
    std::unordered_set<ColumnPos, ColumnPosHash> held;
    std::unordered_set<ColumnPos, ColumnPosHash> wanted;  // requested, waiting for the column to load
    Bucket messages, edits, poses, chats, queries;
    Clock::time_point last_heard = Clock::now();
    uint32_t last_applied = 0;  // highest client_seq applied for this name
    LinkStats last_stats;
  };
  struct ColumnInfo {
    uint32_t changed = 0;       // sections that may differ from generation (sent in a ColumnData)
    uint64_t idle_since = 0;    // tick since which no one holds it
    std::string frame;          // the encoded ColumnData, until the column changes
    std::optional<uint64_t> hash;  // its content hash, until the column changes
  };
  struct PendingAck {
    uint64_t conn = 0;
    uint64_t ticket = 0;  // the commit holding the edit (0: not committed yet)
    bool staged = false;  // a commit was made after the edit (ticket valid)
    EditResult result;
  };

  ServerOptions opt;
  const BlockRegistry& registry;
  std::unique_ptr<gen::Generator> generator;
  std::string generator_fp;
  std::unique_ptr<store::WorldSession> session;
  std::unique_ptr<sim::Simulator> sim;
  std::unique_ptr<JobPool> pool;
  World world;
  EditLog log;
  std::string name;
  uint16_t bedrock = 0xFFFF, unknown = 0xFFFF;

  EventQueue events;  // declared before io: the network thread (stopped with io) may push until then
  NetIo io;
  std::unique_ptr<Listener> listener;

  std::unordered_map<uint64_t, Conn> conns;
  std::unordered_map<ColumnPos, ColumnInfo, ColumnPosHash> columns;
  std::deque<ColumnPos> to_load;
  std::unordered_set<ColumnPos, ColumnPosHash> to_load_set;
  std::vector<PendingAck> acks;
  uint32_t next_player = 1;
  uint64_t tick = 0;
  bool dirty = false;  // something to commit
  std::vector<double> tick_ms;
  double between_ms = 0;  // event handling since the last tick (counted into the next tick's time)
  ServerStats st;
  bool closed = false;

  Impl(const ServerOptions& o, const BlockRegistry& r) : opt(o), registry(r) {}

  // ---- sending ---------------------------------------------------------------------------------------------------

  void drop(Conn& c, const std::string& reason) {
    if (c.dropping) return;
    c.dropping = true;
    c.drop_reason = reason;
    ++st.disconnects[reason_key(reason)];
    listener->close(c.id, encode(ServerMessage(Refuse{reason})));
  }

  void send(Conn& c, const std::string& frame) {
    if (c.dropping) return;
    if (listener->send(c.id, frame)) return;
    if (!listener->is_open(c.id)) return;  // closing already: its kClosed event follows
    drop(c, "fell behind: " + std::to_string(listener->queued_bytes(c.id)) + " bytes not taken yet (limit " +
                std::to_string(opt.max_queued_bytes) + ")");
  }

  void send(Conn& c, const ServerMessage& m) { send(c, encode(m)); }

  void broadcast_joined(const ServerMessage& m, uint64_t except) {
    const std::string frame = encode(m);
    for (auto& [id, c] : conns)
      if (c.joined && id != except) send(c, frame);
  }

  // ---- columns ---------------------------------------------------------------------------------------------------

  const std::string& column_frame(ColumnPos pos, ColumnInfo& info) {
    if (info.frame.empty()) {
      const Column* col = world.find(pos);
      VOXEN_ASSERT(col != nullptr);
      ColumnData d;
      d.pos = pos;
      d.server_seq = log.last_seq();
      d.mask = info.changed;
      for (int s = 0; s < kSectionsPerColumn; ++s)
        if (info.changed >> s & 1) d.sections.push_back(col->section(s));
      info.frame = encode(ServerMessage(std::move(d)));
    }
    return info.frame;
  }

  void give_column(Conn& c, ColumnPos pos) {
    auto it = columns.find(pos);
    VOXEN_ASSERT(it != columns.end());
    if (!c.held.insert(pos).second) return;
    ++st.columns_sent;
    send(c, column_frame(pos, it->second));
  }

  bool in_view(const Conn& c, ColumnPos pos, int slack = 2) const {
    const int64_t px = static_cast<int64_t>(std::floor(c.pose.x)) >> 4, pz = static_cast<int64_t>(std::floor(c.pose.z)) >> 4;
    const int64_t r = c.view_radius + slack;  // slack: the pose may lag the request
    return std::llabs(pos.x - px) <= r && std::llabs(pos.z - pz) <= r;
  }

  void load_columns() {
    std::vector<ColumnPos> batch;
    while (!to_load.empty() && batch.size() < 48) {
      const ColumnPos p = to_load.front();
      to_load.pop_front();
      to_load_set.erase(p);
      auto it = columns.find(p);
      if (it != columns.end() || world.find(p)) continue;
      bool wanted = false;
      for (const auto& [id, c] : conns) wanted |= !c.dropping && c.wanted.count(p) > 0;
      if (wanted) batch.push_back(p);  // a client that moved on or left no longer costs a generation
    }
    if (batch.empty()) return;
    std::vector<std::unique_ptr<Column>> cols;
    if (generator) {
      cols = gen::generate_columns(*generator, batch, pool.get());
    } else {
      for (const ColumnPos& p : batch) cols.push_back(std::make_unique<Column>(p));
    }
    auto rep = session->load(cols);
    if (!rep) {
      std::fprintf(stderr, "voxen serve: loading %zu columns failed: %s (retried next tick)\n", batch.size(), rep.error().to_string().c_str());
      for (const ColumnPos& p : batch)
        if (to_load_set.insert(p).second) to_load.push_back(p);
      return;
    }
    for (size_t i = 0; i < cols.size(); ++i) {
      if (!cols[i]) continue;  // held elsewhere: cannot happen, one owner
      const ColumnPos p = cols[i]->pos();
      ColumnInfo info;
      if (!session->generated()) {
        for (int s = 0; s < kSectionsPerColumn; ++s)
          if (!cols[i]->section(s).is_empty()) info.changed |= 1u << s;
      } else if (session->edited(p)) {  // few are: generate it again to find which sections its journal changed
        Column generated(p);
        generator->generate(generated);
        for (int s = 0; s < kSectionsPerColumn; ++s)
          if (!cols[i]->section(s).same_cells(generated.section(s))) info.changed |= 1u << s;
      }
      info.idle_since = tick;
      world.insert(std::move(cols[i]));
      columns[p] = std::move(info);
      ++st.columns_loaded;
    }
    // Answer the clients waiting for them.
    for (auto& [id, c] : conns) {
      if (c.wanted.empty() || c.dropping) continue;
      std::vector<ColumnPos> ready;
      for (const ColumnPos& p : c.wanted)
        if (columns.count(p)) ready.push_back(p);
      std::sort(ready.begin(), ready.end());
      for (const ColumnPos& p : ready) {
        c.wanted.erase(p);
        give_column(c, p);
      }
    }
  }

  void unload_idle() {
    std::unordered_set<ColumnPos, ColumnPosHash> held;
    for (const auto& [id, c] : conns) held.insert(c.held.begin(), c.held.end());
    std::vector<ColumnPos> gone;
    for (auto& [p, info] : columns) {
      if (held.count(p)) info.idle_since = tick;
      else if (tick - info.idle_since > static_cast<uint64_t>(opt.unload_after_ticks)) gone.push_back(p);
    }
    std::sort(gone.begin(), gone.end());
    for (const ColumnPos& p : gone) {
      if (Status s = session->unload(p); !s.ok()) {
        std::fprintf(stderr, "voxen serve: unloading column (%lld, %lld): %s\n", static_cast<long long>(p.x), static_cast<long long>(p.z),
                     s.error().to_string().c_str());
        continue;
      }
      world.remove(p);
      columns.erase(p);
      ++st.columns_unloaded;
    }
  }

  // ---- edits -----------------------------------------------------------------------------------------------------

  /// Applies a cell change as an edit: world, journal, simulation wake-up, the column's changed sections.
  void apply_cell(const BlockPos& p, Cell after, bool wake) {
    auto e = world.make_edit(p, after);
    if (!e) return;
    world.apply(*e);
    const ColumnPos cp = column_pos_of(p);
    Column* col = world.find(cp);
    const int s = section_of_y(p.y);
    session->record(*e, col->section(s));
    if (wake) sim->wake(p);
    ColumnInfo& info = columns.at(cp);
    info.changed |= 1u << s;
    info.frame.clear();
    info.hash.reset();
    dirty = true;
  }

  bool overlaps_player(const BlockPos& b) const {
    for (const auto& [id, c] : conns) {
      if (!c.joined) continue;
      const double x0 = c.pose.x - 0.3, x1 = c.pose.x + 0.3, y0 = c.pose.y, y1 = c.pose.y + 1.8, z0 = c.pose.z - 0.3, z1 = c.pose.z + 0.3;
      if (x1 > static_cast<double>(b.x) && x0 < static_cast<double>(b.x + 1) && y1 > static_cast<double>(b.y) &&
          y0 < static_cast<double>(b.y + 1) && z1 > static_cast<double>(b.z) && z0 < static_cast<double>(b.z + 1))
        return true;
    }
    return false;
  }

  EditRefusal check_edit(const Conn& c, const EditRequest& e) const {
    if (e.client_seq <= c.last_applied) return EditRefusal::kDuplicate;
    if (!c.held.count(column_pos_of(e.pos))) return EditRefusal::kColumnNotHeld;
    if (e.cell.id >= registry.size() || e.cell.id == bedrock || e.cell.id == unknown || registry[e.cell.id].name.empty())
      return EditRefusal::kBadBlock;
    const double ex = c.pose.x, ey = c.pose.y + 1.62, ez = c.pose.z;
    const double dx = static_cast<double>(e.pos.x) + 0.5 - ex, dy = static_cast<double>(e.pos.y) + 0.5 - ey,
                 dz = static_cast<double>(e.pos.z) + 0.5 - ez;
    if (dx * dx + dy * dy + dz * dz > (opt.reach + 1) * (opt.reach + 1)) return EditRefusal::kOutOfReach;
    const Cell now = world.get(e.pos);
    if (now != e.expect) return EditRefusal::kCellChanged;
    const BlockDef& there = registry[now.id];
    if (e.cell.id == kAirId) {
      if (e.cell != kAir || now.id == kAirId || now.id == bedrock || there.shape == Shape::kFluid) return EditRefusal::kCannotDig;
    } else {
      const bool replaceable = there.is_air() || there.shape == Shape::kFluid || (there.shape == Shape::kCross && !there.solid);
      if (!replaceable) return EditRefusal::kNotReplaceable;
      if (registry[e.cell.id].solid && overlaps_player(e.pos)) return EditRefusal::kOverlapsPlayer;
    }
    return EditRefusal::kNone;
  }

  void handle_edit(Conn& c, const EditRequest& e) {
    if (!c.edits.take()) {
      drop(c, "too many edits: more than " + std::to_string(static_cast<int>(opt.edit_rate)) + " a second");
      return;
    }
    const EditRefusal why = check_edit(c, e);
    if (why != EditRefusal::kNone) {
      ++st.edits_refused[refusal_name(why)];
      const bool held = world.find(column_pos_of(e.pos)) != nullptr;
      send(c, ServerMessage(EditResult{e.client_seq, why, 0, e.pos, held ? world.get(e.pos) : kAir}));
      return;
    }
    const Cell before = world.get(e.pos);
    apply_cell(e.pos, e.cell, true);
    const uint64_t seq = log.append(LogEntry{0, c.name, e.client_seq, e.pos, before, e.cell});
    c.last_applied = e.client_seq;
    ++st.edits_applied;
    PendingAck ack;
    ack.conn = c.id;
    ack.result = EditResult{e.client_seq, EditRefusal::kNone, seq, e.pos, e.cell};
    acks.push_back(ack);
    // Everyone else holding the column sees it now (the author when it is committed).
    const ColumnPos cp = column_pos_of(e.pos);
    std::string frame;
    for (auto& [id, o] : conns) {
      if (id == c.id || !o.held.count(cp)) continue;
      if (frame.empty()) frame = encode(ServerMessage(Edits{{EditEvent{seq, c.player_id, e.pos, e.cell}}}));
      send(o, frame);
    }
  }

  void send_acks() {
    const uint64_t committed = session->committed();
    size_t kept = 0;
    for (PendingAck& a : acks) {
      if (!a.staged || a.ticket > committed) {
        acks[kept++] = std::move(a);
        continue;
      }
      auto it = conns.find(a.conn);
      if (it == conns.end()) continue;
      a.result.now = world.find(column_pos_of(a.result.pos)) ? world.get(a.result.pos) : a.result.now;
      send(it->second, ServerMessage(a.result));
    }
    acks.resize(kept);
  }

  void commit() {
    if (!dirty) return;
    if (Status s = log.stage(*session); !s.ok()) {
      std::fprintf(stderr, "voxen serve: %s\n", s.error().to_string().c_str());
      return;
    }
    auto ticket = session->commit();
    if (!ticket) {
      std::fprintf(stderr, "voxen serve: saving: %s (the edits are kept and retried)\n", ticket.error().to_string().c_str());
      return;
    }
    ++st.commits;
    for (PendingAck& a : acks)
      if (!a.staged) {
        a.staged = true;
        a.ticket = *ticket;
      }
    dirty = false;
  }

  // ---- messages --------------------------------------------------------------------------------------------------

  void handle_hello(Conn& c, const Hello& h) {
    if (c.joined) return drop(c, "a second Hello");
    for (const auto& [id, o] : conns)
      if (o.joined && !o.dropping && o.name == h.name) return drop(c, "the name '" + h.name + "' is taken on this server");
    size_t players = 0;
    for (const auto& [id, o] : conns) players += o.joined && !o.dropping;
    if (static_cast<int>(players) >= opt.max_players)
      return drop(c, "the server is full (" + std::to_string(opt.max_players) + (opt.max_players == 1 ? " player)" : " players)"));
    c.joined = true;
    c.name = h.name;
    c.player_id = next_player++;
    c.view_radius = std::min<int>(h.view_radius, opt.max_view_radius);
    c.last_applied = log.last_client_seq(h.name);
    ++st.players_joined;
    st.players_peak = std::max<uint64_t>(st.players_peak, players + 1);
    Welcome w;
    w.player_id = c.player_id;
    w.world_name = name;
    w.seed = session->meta().seed;
    w.generator = generator ? std::string(generator->name()) : std::string();
    w.generator_fingerprint = generator_fp;
    w.registry_fingerprint = registry_fingerprint(registry);
    w.view_radius = static_cast<uint8_t>(c.view_radius);
    w.pose_radius = static_cast<uint16_t>(opt.pose_radius);
    w.tick_rate = static_cast<uint16_t>(opt.tick_rate);
    w.spawn_x = 0.5;
    w.spawn_z = 0.5;
    w.spawn_y = generator ? static_cast<double>(generator->surface_y(0, 0) + 1) : 128.0;
    w.last_client_seq = c.last_applied;
    w.server_seq = log.last_seq();
    c.pose = Pose{w.spawn_x, w.spawn_y, w.spawn_z, 0, 0, 0};  // where the client starts, until its first Pose
    send(c, ServerMessage(w));
    for (const auto& [id, o] : conns)
      if (o.joined && id != c.id && !o.dropping) send(c, ServerMessage(PlayerJoined{o.player_id, o.name}));
    broadcast_joined(ServerMessage(PlayerJoined{c.player_id, c.name}), c.id);
  }

  void handle(Conn& c, const ClientMessage& m) {
    if (const auto* h = std::get_if<Hello>(&m)) return handle_hello(c, *h);
    if (const auto* r = std::get_if<RequestColumns>(&m)) {
      for (const ColumnPos& p : r->columns) {
        if (c.held.count(p) || c.wanted.count(p) || !in_view(c, p)) continue;
        if (columns.count(p)) {
          give_column(c, p);
        } else {
          c.wanted.insert(p);
          if (to_load_set.insert(p).second) to_load.push_back(p);
        }
      }
      return;
    }
    if (const auto* r = std::get_if<ReleaseColumns>(&m)) {
      for (const ColumnPos& p : r->columns) {
        c.wanted.erase(p);
        c.held.erase(p);
      }
      return;
    }
    if (const auto* e = std::get_if<EditRequest>(&m)) return handle_edit(c, *e);
    if (const auto* p = std::get_if<PoseUpdate>(&m)) {
      if (!c.poses.take()) return;  // over 20 a second: ignored
      c.pose = p->pose;
      c.pose_dirty = true;
      // Columns far from the new pose are no longer the client's (it releases past radius + 1 itself): forget them,
      // so a client that never releases cannot keep columns loaded or queued all over the world.
      std::erase_if(c.held, [&](const ColumnPos& q) { return !in_view(c, q, 3); });
      std::erase_if(c.wanted, [&](const ColumnPos& q) { return !in_view(c, q, 3); });
      return;
    }
    if (const auto* t = std::get_if<Chat>(&m)) {
      if (!c.chats.take()) return;  // over 5 lines a second: not relayed
      return broadcast_joined(ServerMessage(ChatLine{c.player_id, t->text}), 0);
    }
    if (std::holds_alternative<Leave>(m)) {
      c.dropping = true;
      c.drop_reason = "left";
      ++st.disconnects["left"];
      listener->close(c.id, encode(ServerMessage(Refuse{"left"})), /*keep_queued=*/true);
      return;
    }
    if (const auto* q = std::get_if<LogQuery>(&m)) {
      if (!c.queries.take()) return drop(c, "too many log queries: more than 2 a second");
      auto all = log.entries_of(c.name, q->after);
      size_t at = 0;
      do {
        LogEntries le;
        for (; at < all.size() && le.entries.size() < kMaxListEntries; ++at) le.entries.push_back({all[at].first, all[at].second});
        le.done = at == all.size();
        send(c, ServerMessage(std::move(le)));
      } while (at < all.size());
      return;
    }
    if (const auto* q = std::get_if<HashQuery>(&m)) {
      Hashes h;
      for (const ColumnPos& p : q->columns) {
        auto it = columns.find(p);
        if (it == columns.end()) {
          h.hashes.push_back(ColumnHash{p, false, 0});
          continue;
        }
        if (!it->second.hash) it->second.hash = world.find(p)->content_hash(false);
        h.hashes.push_back(ColumnHash{p, true, *it->second.hash});
      }
      send(c, ServerMessage(std::move(h)));
      return;
    }
  }

  void on_event(NetEvent& ev) {
    switch (ev.kind) {
      case NetEvent::Kind::kOpened: {
        Conn c;
        c.id = ev.conn;
        c.peer = ev.text;
        c.messages.init(opt.message_rate, opt.message_rate * 2);
        c.edits.init(opt.edit_rate, opt.edit_rate * 2);
        c.poses.init(20, 20);
        c.chats.init(5, 10);
        c.queries.init(2, 4);
        {
          size_t waiting = 0;
          for (const auto& [id, o] : conns) waiting += !o.joined && !o.dropping;
          if (waiting >= kMaxWaitingConnections) {  // a flood of idle connections: refuse more before they cost anything
            conns.emplace(ev.conn, std::move(c));
            drop(conns.at(ev.conn), "too many connections waiting to join (" + std::to_string(kMaxWaitingConnections) + ")");
            return;
          }
        }
        conns.emplace(ev.conn, std::move(c));
        return;
      }
      case NetEvent::Kind::kFrame: {
        auto it = conns.find(ev.conn);
        if (it == conns.end() || it->second.dropping) return;
        Conn& c = it->second;
        c.last_heard = Clock::now();
        if (!c.messages.take())
          return drop(c, "too many messages: more than " + std::to_string(static_cast<int>(opt.message_rate)) + " a second");
        auto m = decode_client(ev.text);
        if (!m) return drop(c, "bad message: " + m.error().to_string());
        if (!c.joined && !std::holds_alternative<Hello>(*m))
          return drop(c, "message " + msg_name(static_cast<uint8_t>(ev.text[0])) + " before Hello");
        handle(c, *m);
        return;
      }
      case NetEvent::Kind::kProblem: {
        auto it = conns.find(ev.conn);
        if (it != conns.end()) drop(it->second, "bad message: " + ev.text);
        return;
      }
      case NetEvent::Kind::kClosed: {
        auto it = conns.find(ev.conn);
        if (it == conns.end()) return;
        Conn& c = it->second;
        if (!c.dropping) ++st.disconnects[reason_key(ev.text)];
        st.bytes_in += c.last_stats.bytes_in;
        st.bytes_out += c.last_stats.bytes_out;
        const bool joined = c.joined;
        const uint32_t pid = c.player_id;
        const std::string why = c.dropping ? c.drop_reason : ev.text;
        conns.erase(it);
        if (joined) broadcast_joined(ServerMessage(PlayerLeft{pid, why}), 0);
        return;
      }
    }
  }

  // ---- the tick --------------------------------------------------------------------------------------------------

  void step_simulation() {
    sim::TickReport rep = sim->step(world, pool.get());
    if (rep.changes.empty()) {
      if (!sim->quiet() || tick % 20 == 0) session->set_sim_state(sim->save_state());
      return;
    }
    std::map<ColumnPos, std::vector<CellChangeLocal>> by_column;
    for (const sim::CellChange& ch : rep.changes) {
      if (!world.find(column_pos_of(ch.pos))) continue;
      apply_cell(ch.pos, ch.after, false);
      by_column[column_pos_of(ch.pos)].push_back(
          CellChangeLocal{static_cast<uint8_t>(local_of(ch.pos.x)), static_cast<uint8_t>(local_of(ch.pos.z)), static_cast<int16_t>(ch.pos.y), ch.after});
    }
    st.sim_changes += rep.changes.size();
    session->set_sim_state(sim->save_state());
    dirty = true;
    for (auto& [cp, cells] : by_column) {
      std::vector<std::string> frames;
      for (size_t at = 0; at < cells.size(); at += kMaxListEntries) {
        Changes msg{rep.tick, cp, {}};
        msg.cells.assign(cells.begin() + static_cast<std::ptrdiff_t>(at), cells.begin() + static_cast<std::ptrdiff_t>(std::min(cells.size(), at + kMaxListEntries)));
        frames.push_back(encode(ServerMessage(std::move(msg))));
      }
      for (auto& [id, c] : conns)
        if (c.held.count(cp))
          for (const std::string& f : frames) send(c, f);
    }
  }

  void send_poses() {
    // At most 20 times a second whatever the tick rate (the voxelG seed's cap).
    const uint64_t every = static_cast<uint64_t>(std::max(1, (opt.tick_rate + 19) / 20));
    if (tick % every != 0) return;
    const bool refresh = tick % static_cast<uint64_t>(std::max(1, opt.tick_rate)) == 0;
    const double r2 = static_cast<double>(opt.pose_radius) * opt.pose_radius;
    for (auto& [id, c] : conns) {
      if (!c.joined || c.dropping) continue;
      Poses ps;
      for (const auto& [oid, o] : conns) {
        if (oid == id || !o.joined || (!o.pose_dirty && !refresh)) continue;
        const double dx = o.pose.x - c.pose.x, dy = o.pose.y - c.pose.y, dz = o.pose.z - c.pose.z;
        if (dx * dx + dy * dy + dz * dz > r2) continue;
        ps.poses.push_back(PlayerPose{o.player_id, o.pose});
        if (ps.poses.size() == kMaxListEntries) break;
      }
      if (!ps.poses.empty()) send(c, ServerMessage(std::move(ps)));
    }
    for (auto& [id, c] : conns) c.pose_dirty = false;
  }

  void check_clients() {
    for (auto& [id, c] : conns) {
      if (c.dropping) continue;
      c.last_stats = listener->stats(id);
      if (!c.joined && ms_since(c.opened) > opt.hello_timeout_ms) {
        drop(c, "no Hello within " + std::to_string(opt.hello_timeout_ms) + " ms");
        continue;
      }
      if (c.joined && ms_since(c.last_heard) > opt.silent_ms) {
        drop(c, "silent: no message for " + std::to_string(opt.silent_ms) + " ms");
        continue;
      }
      const int64_t waiting = listener->write_waiting_ms(id);
      if (waiting > opt.stall_ms) drop(c, "stalled: the connection took no data for " + std::to_string(waiting) + " ms");
    }
  }

  void do_tick() {
    const auto t0 = Clock::now();
    ++tick;
    std::array<double, 5> part{};
    auto lap = [t = Clock::now()](double& into) mutable {
      into = ms_since(t);
      t = Clock::now();
    };
    load_columns();
    lap(part[0]);
    step_simulation();
    lap(part[1]);
    send_poses();
    lap(part[2]);
    commit();
    lap(part[3]);
    unload_idle();
    check_clients();
    send_acks();
    lap(part[4]);
    const double total = ms_since(t0) + between_ms;
    tick_ms.push_back(total);
    if (total > st.slowest_tick_ms) {
      st.slowest_tick_ms = total;
      st.slowest_tick = tick;
      st.slowest_tick_parts = {{"messages", between_ms}, {"load", part[0]}, {"simulation", part[1]}, {"poses", part[2]},
                               {"commit", part[3]}, {"rest", part[4]}};
    }
    between_ms = 0;
    ++st.ticks;
  }
};

Server::Server(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Server::~Server() {
  if (Status s = close(); !s.ok()) std::fprintf(stderr, "voxen serve: error: %s\n", s.error().to_string().c_str());
}

Result<std::unique_ptr<Server>> Server::start(const ServerOptions& options, const BlockRegistry& registry) {
  if (options.tick_rate < 1 || options.tick_rate > 1000) return Error{"tick rate " + std::to_string(options.tick_rate) + " outside 1..1000"};
  if (options.max_view_radius < 1 || options.max_view_radius > kMaxViewRadius)
    return Error{"view radius " + std::to_string(options.max_view_radius) + " outside 1.." + std::to_string(kMaxViewRadius)};
  if (options.pose_radius < 1 || options.pose_radius > 65535) return Error{"pose radius " + std::to_string(options.pose_radius) + " outside 1..65535"};
  auto impl = std::make_unique<Impl>(options, registry);
  std::unique_ptr<gen::Generator> kept;
  auto fingerprint = [&registry, &kept](const std::string& gname, uint64_t seed) -> Result<std::string> {
    auto g = gen::make_generator(gname, seed, registry);
    if (!g) return g.error();
    kept = std::move(g).value();
    return gen::fingerprint(*kept, registry);
  };
  store::OpenOptions oo;
  oo.dir = options.world;
  oo.create_seed = options.create_seed;
  oo.create_generator = options.create_generator;
  oo.sync = options.sync;
  auto s = store::WorldSession::open(oo, registry, fingerprint);
  if (!s) return s.error();
  impl->session = std::move(*s);
  if (impl->session->generated()) {
    impl->generator = std::move(kept);
    impl->generator_fp = gen::fingerprint(*impl->generator, registry);
  }
  if (store::is_database_url(options.world)) {
    auto u = store::parse_database_url(options.world);
    impl->name = u ? u->world : store::world_display(options.world);
  } else {
    impl->name = std::filesystem::path(options.world).lexically_normal().filename().string();
    if (impl->name.empty()) impl->name = std::filesystem::path(options.world).lexically_normal().parent_path().filename().string();
  }
  if (impl->name.size() > 200 || !valid_text(impl->name)) impl->name = "world";
  impl->bedrock = registry.find("bedrock").value_or(0xFFFF);
  impl->unknown = registry.find("unknown").value_or(0xFFFF);
  if (Status l = impl->log.load(impl->session->store()); !l.ok()) return Error{"the world's edit log: " + l.error().to_string()};
  impl->st.log_entries = impl->log.size();
  impl->sim = std::make_unique<sim::Simulator>(registry, impl->session->meta().seed);
  auto state = impl->session->sim_state();
  if (!state) return state.error();
  if (*state) {
    if (Status ls = impl->sim->load_state(**state); !ls.ok()) return Error{"the simulation's pending updates: " + ls.error().to_string()};
  }
  impl->pool = std::make_unique<JobPool>(options.threads);
  LinkLimits limits;
  limits.max_frame = kMaxClientFrame;
  limits.max_queued_bytes = options.max_queued_bytes;
  limits.socket_send_buffer = options.socket_send_buffer;
  auto l = Listener::listen(impl->io, options.bind, options.port, limits, impl->events);
  if (!l) return l.error();
  impl->listener = std::move(*l);
  Impl* raw = impl.get();
  impl->session->set_commit_listener([raw](uint64_t) { raw->events.wake(); });
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

uint16_t Server::port() const { return m_impl->listener->port(); }
std::vector<std::string> Server::endpoints() const { return m_impl->listener->endpoints(); }
std::string Server::world_name() const { return m_impl->name; }
uint64_t Server::seed() const { return m_impl->session->meta().seed; }

void Server::run(const std::atomic<bool>& stop) {
  Impl& s = *m_impl;
  const auto period = std::chrono::microseconds(1000000 / s.opt.tick_rate);
  auto next = Clock::now() + period;
  while (!stop.load()) {
    const auto now = Clock::now();
    const auto wait = next > now ? std::chrono::duration_cast<std::chrono::microseconds>(next - now) : std::chrono::microseconds(0);
    auto evs = s.events.take(std::min<std::chrono::microseconds>(wait, std::chrono::microseconds(100000)));
    const auto t0 = Clock::now();
    for (NetEvent& e : evs) s.on_event(e);
    s.send_acks();
    s.between_ms += ms_since(t0);
    if (Clock::now() >= next) {
      s.do_tick();
      next += period;
      if (Clock::now() > next + 10 * period) next = Clock::now() + period;  // far behind: do not race to catch up
    }
  }
}

ServerStats Server::stats() const {
  ServerStats out = m_impl->st;
  out.tick_ms_p50 = percentile(m_impl->tick_ms, 0.50);
  out.tick_ms_p99 = percentile(m_impl->tick_ms, 0.99);
  out.tick_ms_max = m_impl->tick_ms.empty() ? 0 : *std::max_element(m_impl->tick_ms.begin(), m_impl->tick_ms.end());
  for (const auto& [id, c] : m_impl->conns) {
    const LinkStats ls = m_impl->listener ? m_impl->listener->stats(id) : LinkStats{};
    out.bytes_in += ls.bytes_in;
    out.bytes_out += ls.bytes_out;
  }
  out.log_entries = m_impl->log.size();
  return out;
}

Status Server::close() {
  Impl& s = *m_impl;
  if (s.closed) return Ok{};
  s.closed = true;
  // Everything applied is committed before the clients are told: then the acks still owed go out.
  s.dirty = s.dirty || !s.acks.empty();
  s.commit();
  Status flushed = s.session->flush();
  if (flushed.ok()) {
    for (auto& a : s.acks) a.staged = true, a.ticket = 0;
    s.send_acks();
  }
  // The connections' bytes so far: a link the peer closes during the goodbyes below leaves the listener (its stats
  // with it), so what each one sent and received is read now and again after them, keeping the larger.
  for (auto& [id, c] : s.conns) c.last_stats = s.listener->stats(id);
  for (auto& [id, c] : s.conns) {  // after the acks and everything else already queued
    if (c.dropping) continue;
    c.dropping = true;
    ++s.st.disconnects["the server is shutting down"];
    s.listener->close(id, encode(ServerMessage(Refuse{"the server is shutting down"})), /*keep_queued=*/true);
  }
  // Give the network thread a moment to write the goodbyes.
  for (int i = 0; i < 20; ++i) {
    bool pending = false;
    for (auto& [id, c] : s.conns) pending |= s.listener->queued_bytes(id) > 0;
    if (!pending) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Counted before the listener forgets them (stats() counts only those still in conns).
  for (auto& [id, c] : s.conns) {
    const LinkStats ls = s.listener->stats(id);
    s.st.bytes_in += std::max(ls.bytes_in, c.last_stats.bytes_in);
    s.st.bytes_out += std::max(ls.bytes_out, c.last_stats.bytes_out);
  }
  s.conns.clear();
  s.listener->shutdown();
  Status closed = s.session->close();
  if (!flushed.ok()) return flushed;
  return closed;
}

}  // namespace voxen::net
