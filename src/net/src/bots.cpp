#include "voxen/net/bots.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <unordered_map>

#include "voxen/core/hash.h"
#include "voxen/net/client.h"

namespace voxen::net {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Bot {
  int index = 0;
  std::string name;
  std::unique_ptr<Client> client;
  Clock::time_point connect_started{}, last_attempt{}, closed_at{};
  bool ever_connected = false, view_seen = false, gave_up = false;
  double x = 0, y = 0, z = 0, heading = 0;
  bool flying = false;
  uint64_t step = 0;
  double next_turn = 0, next_action = 0, next_mode = 0;
  // across connections
  std::vector<std::pair<uint32_t, uint64_t>> accepted;
  ClientCounters counters;
  uint64_t bytes_in = 0, bytes_out = 0;
  double connected_s = 0;
  Clock::time_point joined_at{};
  std::vector<double> join_ms, view_ms;
  uint64_t remote_seen = 0;
  // end checks
  enum class Phase { kRun, kDrain, kQuery, kDone } phase = Phase::kRun;
};

/// Keeps what a closing or replaced client counted.
void bank(Bot& b) {
  if (!b.client) return;
  const ClientCounters& c = b.client->counters();
  b.counters.edits_sent += c.edits_sent;
  b.counters.edits_accepted += c.edits_accepted;
  b.counters.edits_refused += c.edits_refused;
  b.counters.rolled_back += c.rolled_back;
  for (const auto& [k, n] : c.refused) b.counters.refused[k] += n;
  b.counters.columns_received += c.columns_received;
  b.counters.remote_edits += c.remote_edits;
  b.counters.sim_changes += c.sim_changes;
  const LinkStats ls = b.client->link_stats();
  b.bytes_in += ls.bytes_in;
  b.bytes_out += ls.bytes_out;
  b.connected_s += std::chrono::duration<double>(Clock::now() - b.joined_at).count();
  b.accepted.insert(b.accepted.end(), b.client->accepted().begin(), b.client->accepted().end());
}

/// World y the bot stands at over (x, z): one above the highest solid cell at or below `from` + 3.
std::optional<int64_t> ground(const World& w, const BlockRegistry& reg, int64_t x, int64_t z, int64_t from) {
  if (!w.find(column_pos_of(BlockPos{x, 0, z}))) return std::nullopt;
  for (int64_t y = std::min<int64_t>(kMaxY, from + 3); y >= kMinY; --y)
    if (reg[w.get(BlockPos{x, y, z}).id].solid) return y + 1;
  return kMinY;
}

}  // namespace

Result<BotReport> run_bots(const BotOptions& o, const BlockRegistry& reg) {
  NetIo io;
  GeneratedCache cache;
  BotReport rep;
  rep.bots = o.count;
  const auto start = Clock::now();
  const auto run_end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  const uint16_t bedrock = reg.find("bedrock").value_or(0xFFFF);
  std::vector<Cell> palette;
  for (const char* n : {"stone", "dirt", "planks", "glass", "sand", "glowstone", "cobblestone", "gravel"})
    if (auto id = reg.find(n)) palette.push_back(Cell{*id, 0});
  const std::optional<uint16_t> water = reg.find("water");

  std::vector<Bot> bots(static_cast<size_t>(o.count));
  for (int i = 0; i < o.count; ++i) {
    bots[static_cast<size_t>(i)].index = i;
    bots[static_cast<size_t>(i)].name = o.prefix + "-" + std::to_string(i);
  }
  std::string first_error;
  ClientOptions co;
  co.view_radius = o.view_radius;
  co.keep_changes = false;
  co.timeout = std::chrono::milliseconds(5000);

  auto connect = [&](Bot& b, Clock::time_point now) {
    b.last_attempt = now;
    co.name = b.name;
    const auto t0 = Clock::now();
    auto c = Client::connect(io, o.host, o.port, co, reg, &cache);
    if (!c) {
      ++rep.connect_failures;
      if (first_error.empty()) first_error = c.error().to_string();
      return;
    }
    b.client = std::move(*c);
    b.join_ms.push_back(ms_between(t0, Clock::now()));
    b.connect_started = t0;
    b.joined_at = Clock::now();
    b.view_seen = false;
    if (b.ever_connected) ++rep.reconnects;
    if (!b.ever_connected) {
      const Welcome& w = b.client->welcome();
      HashStream h(hash2(o.seed, b.index, 0x5EED));
      b.x = w.spawn_x + (h.unit() - 0.5) * o.roam;
      b.z = w.spawn_z + (h.unit() - 0.5) * o.roam;
      b.y = w.spawn_y;
      b.heading = h.unit() * 360.0;
    }
    b.ever_connected = true;
    b.client->set_pose(Pose{b.x, b.y, b.z, static_cast<float>(b.heading), 0, 0});
  };

  const double dt = 0.05;
  auto next_step = Clock::now();
  while (true) {
    const auto now = Clock::now();
    const bool running = now < run_end;
    bool all_done = true;
    for (Bot& b : bots) {
      if (b.phase == Bot::Phase::kDone) continue;
      all_done = false;
      if (!b.client) {
        if (b.gave_up) continue;
        const bool waited = now - b.last_attempt > std::chrono::milliseconds(b.ever_connected ? 250 : 1000);
        if (!running && b.ever_connected && now - b.closed_at > std::chrono::duration<double>(o.reconnect_seconds)) {
          b.gave_up = true;
          b.phase = Bot::Phase::kDone;
          continue;
        }
        if (waited) connect(b, now);
        if (!b.client) {
          if (!b.ever_connected && now - start > std::chrono::duration<double>(o.reconnect_seconds)) {
            b.gave_up = true;
            b.phase = Bot::Phase::kDone;
          }
          continue;
        }
      }
      Client& c = *b.client;
      if (!c.poll()) {
        ++rep.closed[c.closed_reason().substr(0, c.closed_reason().find(':'))];
        rep.unanswered += c.pending();
        bank(b);
        b.client.reset();
        b.closed_at = now;
        if (b.phase != Bot::Phase::kRun) b.phase = Bot::Phase::kRun;  // redo the checks after reconnecting
        continue;
      }
      if (!b.view_seen && c.view_complete()) {
        b.view_seen = true;
        b.view_ms.push_back(ms_between(b.connect_started, now));
      }
      b.remote_seen = std::max<uint64_t>(b.remote_seen, c.players().size());
      if (b.phase == Bot::Phase::kRun && running) {
        // Move: walk (or fly) along the heading, turning now and then and back towards spawn when too far out.
        ++b.step;
        HashStream h(hash2(o.seed, b.index, static_cast<int64_t>(b.step)));
        const double t = std::chrono::duration<double>(now - start).count();
        if (t >= b.next_turn) {
          b.heading += (h.unit() - 0.5) * 120.0;
          b.next_turn = t + 1.0 + h.unit() * 3.0;
        }
        if (t >= b.next_mode) {
          b.flying = h.unit() < 0.2;
          b.next_mode = t + 4.0 + h.unit() * 8.0;
        }
        const Welcome& w = c.welcome();
        const double ox = b.x - w.spawn_x, oz = b.z - w.spawn_z;
        if (ox * ox + oz * oz > o.roam * o.roam) b.heading = std::atan2(-ox, oz) * 180.0 / M_PI;  // yaw 0 = -Z
        const double speed = b.flying ? 8.0 : 4.3;
        const double rad = b.heading * M_PI / 180.0;
        const double nx = b.x + std::sin(rad) * speed * dt, nz = b.z - std::cos(rad) * speed * dt;
        const int64_t from = static_cast<int64_t>(std::floor(b.y));
        if (auto g = ground(c.world(), reg, static_cast<int64_t>(std::floor(nx)), static_cast<int64_t>(std::floor(nz)), from + (b.flying ? 0 : 1))) {
          const double gy = static_cast<double>(*g);
          if (b.flying) {
            b.x = nx, b.z = nz, b.y = std::max(gy + 6.0, b.y + std::clamp(gy + 10.0 - b.y, -0.4, 0.4));
          } else if (gy <= b.y + 1.01) {  // step up one block at most, fall any height
            b.x = nx, b.z = nz, b.y = gy;
          } else {
            b.heading += 90.0 + h.unit() * 90.0;  // a wall: turn away
          }
        }
        c.set_pose(Pose{b.x, b.y, b.z, static_cast<float>(std::fmod(b.heading, 360.0)), 0, static_cast<uint8_t>(b.flying ? 1 : 0)});
        // Act: dig the top block of a nearby column, or place a block on it.
        if (t >= b.next_action && c.pending() < 8) {
          b.next_action = t + (0.5 + h.unit()) / std::max(0.01, o.actions_per_second);
          const int64_t bx = static_cast<int64_t>(std::floor(b.x)) + static_cast<int64_t>(h.below(7)) - 3;
          const int64_t bz = static_cast<int64_t>(std::floor(b.z)) + static_cast<int64_t>(h.below(7)) - 3;
          const bool dig = h.unit() < 0.5;
          if (auto g = ground(c.world(), reg, bx, bz, static_cast<int64_t>(std::floor(b.y)) + 2)) {
            const BlockPos top{bx, *g - 1, bz};
            const BlockPos above{bx, *g, bz};
            const BlockPos target = dig ? top : above;
            const double ex = b.x, ey = b.y + 1.62, ez = b.z;
            const double dx = static_cast<double>(target.x) + 0.5 - ex, dy = static_cast<double>(target.y) + 0.5 - ey,
                         dz = static_cast<double>(target.z) + 0.5 - ez;
            const bool in_reach = dx * dx + dy * dy + dz * dz <= 7.5 * 7.5 && y_in_range(target.y);
            const bool under_me = bx == static_cast<int64_t>(std::floor(b.x)) && bz == static_cast<int64_t>(std::floor(b.z));
            if (in_reach && !under_me) {
              const Cell here = c.world().get(target);
              if (dig) {
                const BlockDef& d = reg[here.id];
                if (here.id != kAirId && here.id != bedrock && d.shape != Shape::kFluid) c.edit(target, kAir);
              } else if (!palette.empty()) {
                Cell cell = palette[h.below(palette.size())];
                if (water && h.below(40) == 0) cell = Cell{*water, 0};
                const BlockDef& d = reg[here.id];
                if (d.is_air() || d.shape == Shape::kFluid || (d.shape == Shape::kCross && !d.solid)) c.edit(target, cell);
              }
            }
          }
        }
      } else if (b.phase == Bot::Phase::kRun) {
        b.phase = Bot::Phase::kDrain;
      }
      if (b.phase == Bot::Phase::kDrain && c.pending() == 0) {
        if (!o.verify) {
          b.phase = Bot::Phase::kDone;
        } else {
          c.query_log();
          c.query_hashes();
          b.phase = Bot::Phase::kQuery;
        }
      }
      if (b.phase == Bot::Phase::kQuery && c.log_done() && c.hash_done()) {
        // Lost: acknowledged but not in the log with that server sequence number. Duplicated: logged twice.
        std::unordered_map<uint32_t, uint64_t> logged;
        for (const LogEntryRef& e : c.log_answer()) {
          if (!logged.emplace(e.client_seq, e.server_seq).second) ++rep.duplicated;
        }
        rep.log_entries += c.log_answer().size();
        auto acked = b.accepted;
        acked.insert(acked.end(), c.accepted().begin(), c.accepted().end());
        for (const auto& [cs, ss] : acked) {
          auto it = logged.find(cs);
          if (it == logged.end() || it->second != ss) {
            ++rep.lost;
            if (rep.problems.size() < 20)
              rep.problems.push_back(b.name + ": edit " + std::to_string(cs) + " (server " + std::to_string(ss) + ") was acknowledged but is not in the server's log");
          }
        }
        rep.hash_columns += c.hash_compared();
        rep.hash_mismatches += c.hash_mismatches().size();
        for (const ColumnPos& p : c.hash_mismatches())
          if (rep.problems.size() < 20)
            rep.problems.push_back(b.name + ": column (" + std::to_string(p.x) + ", " + std::to_string(p.z) + ") differs from the server's");
        ++rep.bots_verified;
        b.phase = Bot::Phase::kDone;
      }
    }
    if (all_done) break;
    if (now - run_end > std::chrono::duration<double>(o.settle_seconds + o.reconnect_seconds)) {
      for (Bot& b : bots)
        if (b.phase != Bot::Phase::kDone && rep.problems.size() < 20)
          rep.problems.push_back(b.name + ": the end checks did not finish in time (" +
                                 (!b.client ? std::string("not connected") :
                                  b.phase == Bot::Phase::kDrain ? std::to_string(b.client->pending()) + " edits unanswered" :
                                  b.phase == Bot::Phase::kQuery ? std::string(b.client->log_done() ? "hashes" : "log") + " not answered" : "running") + ")");
      break;
    }
    next_step += std::chrono::milliseconds(50);
    const auto after = Clock::now();
    if (next_step > after) {
      // Sleep until the next step, waking for nothing in between (each poll takes what arrived).
      std::this_thread::sleep_until(next_step);
    } else if (after - next_step > std::chrono::milliseconds(500)) {
      next_step = after;
    }
  }
  for (Bot& b : bots) {
    if (b.client) {
      rep.unanswered += b.client->pending();
      bank(b);
      b.client->leave();
      b.client.reset();
    }
  }
  // Give the leaves a moment on the wire before the NetIo stops.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::vector<double> joins, views;
  double down = 0, up = 0, secs = 0;
  int connected = 0;
  for (Bot& b : bots) {
    rep.edits_sent += b.counters.edits_sent;
    rep.edits_accepted += b.counters.edits_accepted;
    rep.edits_refused += b.counters.edits_refused;
    rep.rolled_back += b.counters.rolled_back;
    for (const auto& [k, n] : b.counters.refused) rep.refused[k] += n;
    rep.columns_received += b.counters.columns_received;
    rep.remote_edits += b.counters.remote_edits;
    rep.sim_changes += b.counters.sim_changes;
    rep.remote_players_seen = std::max(rep.remote_players_seen, b.remote_seen);
    joins.insert(joins.end(), b.join_ms.begin(), b.join_ms.end());
    views.insert(views.end(), b.view_ms.begin(), b.view_ms.end());
    if (b.connected_s > 0) {
      down += static_cast<double>(b.bytes_in) / b.connected_s;
      up += static_cast<double>(b.bytes_out) / b.connected_s;
      secs = std::max(secs, b.connected_s);
      ++connected;
    }
  }
  if (connected == 0) return Error{first_error.empty() ? std::string("no bot connected") : first_error};
  rep.bytes_down_per_s = down / connected;
  rep.bytes_up_per_s = up / connected;
  rep.join_ms_p50 = median(joins);
  rep.join_ms_max = joins.empty() ? 0 : *std::max_element(joins.begin(), joins.end());
  rep.view_ms_p50 = median(views);
  rep.view_ms_max = views.empty() ? 0 : *std::max_element(views.begin(), views.end());
  rep.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  rep.edits_accepted_per_s = static_cast<double>(rep.edits_accepted) / std::max(1e-9, o.seconds);
  if (o.verify) {
    if (rep.bots_verified < static_cast<uint64_t>(o.count) && rep.problems.size() < 20)
      rep.problems.push_back(std::to_string(static_cast<uint64_t>(o.count) - rep.bots_verified) + " bot(s) could not run the end checks");
    if (rep.duplicated > 0 && rep.problems.size() < 20)
      rep.problems.push_back(std::to_string(rep.duplicated) + " client sequence number(s) logged twice");
  }
  return rep;
}

}  // namespace voxen::net
