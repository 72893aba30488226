#include "voxen/play/remote.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <utility>

namespace voxen::play {

void column_differences(const Column& have, const Column& want, std::vector<stream::CellEdit>& out) {
  std::vector<uint32_t> a(kSectionVolume), b(kSectionVolume);
  const ColumnPos c = want.pos();
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    if (have.section(s).same_cells(want.section(s))) continue;
    have.section(s).unpack(a.data());
    want.section(s).unpack(b.data());
    for (int i = 0; i < kSectionVolume; ++i) {
      if (a[static_cast<size_t>(i)] == b[static_cast<size_t>(i)]) continue;
      const int x = i & 15, z = (i >> 4) & 15, y = i >> 8;  // section_index's layout: (y << 8) | (z << 4) | x
      out.push_back({BlockPos{c.min_x() + x, section_base_y(s) + y, c.min_z() + z}, Cell::from_packed(b[static_cast<size_t>(i)])});
    }
  }
}

namespace {
constexpr std::chrono::seconds kStalePose{2};

/// The protocol's pose of the game's player: feet (world blocks), look, flying.
net::Pose pose_of(const PlayerState& pl) {
  net::Pose pose;
  const glm::dvec3 f = pl.feet();
  pose.x = f.x;
  pose.y = f.y;
  pose.z = f.z;
  pose.yaw = static_cast<float>(std::fmod(pl.yaw, 360.0));
  pose.pitch = static_cast<float>(std::clamp(pl.pitch, -90.0, 90.0));
  pose.flags = pl.flying ? 1 : 0;
  return pose;
}
}  // namespace

uint32_t figure_color(uint32_t player_id) {
  static constexpr std::array<uint32_t, 6> kColors = {0xFFFF4040, 0xFF40C0FF, 0xFFFFD030, 0xFF60FF60, 0xFFFF60FF, 0xFFFF9020};
  return kColors[player_id % kColors.size()];
}

RemoteWorld::RemoteWorld(net::Client& client) : m_client(client) {
  // What arrived with the Welcome (or before this was made) is taken at the first sync(); the players already here
  // are not announced as joining.
  for (const auto& [id, rp] : m_client.players()) m_players.emplace(id, rp.name);
}

bool RemoteWorld::ready(ColumnPos pos) const {
  std::lock_guard lock(m_mu);
  return m_copies.count(pos) > 0;
}

Result<std::vector<std::unique_ptr<Column>>> RemoteWorld::make(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                               int64_t center_x, int64_t center_z) {
  (void)pool;
  (void)center_x;
  (void)center_z;
  std::vector<std::unique_ptr<Column>> out;
  std::lock_guard lock(m_mu);
  for (const ColumnPos& p : positions) {
    auto it = m_copies.find(p);
    if (it == m_copies.end()) continue;  // not arrived (or released since ready() said yes): asked again later
    out.push_back(std::move(it->second));
    m_copies.erase(it);
    m_handed.insert(p);
  }
  return out;
}

Status RemoteWorld::unload(std::unique_ptr<Column> column) {
  const ColumnPos p = column->pos();
  // The Game's copy may miss changes queued for it that never ran (a job's column dropped before integration):
  // keep the client's cells instead, the server's view now.
  const Column* held = m_client.world().find(p);
  std::lock_guard lock(m_mu);
  m_handed.erase(p);
  if (held) m_copies[p] = std::make_unique<Column>(*held);
  else m_copies.erase(p);
  return Ok{};
}

void RemoteWorld::record(const Edit& edit, const Column& column) {
  (void)column;
  // The server checks reach and the player's own box against the pose it has: the player's now (a teleport or a
  // move this frame, before its clicks), sent first.
  if (m_game) m_client.set_pose(pose_of(m_game->player()));
  m_client.send_pose();
  if (m_client.edit(edit.pos, edit.after)) {
    ++m_stats.edits_sent;
  } else {
    ++m_stats.edits_unsent;
    // Back to the cell before the first unsent edit of that cell (a dig, then a placement in the hole: stone).
    if (std::none_of(m_unsent.begin(), m_unsent.end(), [&](const stream::CellEdit& u) { return u.pos == edit.pos; }))
      m_unsent.push_back({edit.pos, edit.before});
  }
}

void RemoteWorld::catch_up(Game& game, ColumnPos pos, std::vector<stream::CellEdit>& out) {
  const Column* have = game.world().find(pos);
  const Column* want = m_client.world().find(pos);
  if (!have || !want) return;
  const size_t before = out.size();
  column_differences(*have, *want, out);
  ++m_stats.columns_caught_up;
  m_stats.cells_caught_up += out.size() - before;
}

bool RemoteWorld::sync(Game& game, std::chrono::steady_clock::time_point now) {
  ++m_stats.frames;
  if (!m_client.open()) return false;
  m_game = &game;
  m_client.set_pose(pose_of(game.player()));
  const bool open = m_client.poll();

  std::vector<stream::CellEdit> unsent = std::exchange(m_unsent, {}), queue;
  std::set<ColumnPos> caught;  // columns compared whole with the client's this call
  for (const ColumnPos& p : m_client.take_released()) {
    std::lock_guard lock(m_mu);
    m_copies.erase(p);
  }
  for (const ColumnPos& p : m_client.take_arrived()) {
    ++m_stats.columns_arrived;
    const Column* col = m_client.world().find(p);
    if (!col) continue;  // released again in the same poll
    if (game.world().find(p)) {
      // The Game kept it while the client had released it: bring it up to date.
      catch_up(game, p, queue);
      caught.insert(p);
      continue;
    }
    std::lock_guard lock(m_mu);
    if (!m_handed.count(p)) m_copies[p] = std::make_unique<Column>(*col);  // a handed-out one is caught up below
  }
  // The columns the Game integrated since the last call: their copies were taken when they arrived.
  std::vector<ColumnPos> handed;
  {
    std::lock_guard lock(m_mu);
    for (const ColumnPos& p : m_handed)
      if (game.world().find(p)) handed.push_back(p);
    for (const ColumnPos& p : handed) m_handed.erase(p);
  }
  std::sort(handed.begin(), handed.end());
  for (const ColumnPos& p : handed) {
    catch_up(game, p, queue);
    caught.insert(p);
  }
  // The server's changes (arrivals excluded) to the columns the Game holds; the others are caught up on load.
  for (const Edit& e : m_client.take_changes()) {
    if (!game.world().find(column_pos_of(e.pos))) continue;
    queue.push_back({e.pos, e.after});
    ++m_stats.changes_queued;
  }
  // The unsent edits' rollbacks go first (later entries of a cell win), except in a column just compared whole:
  // there the comparison already made the Game's cells the client's (a rollback would undo a predicted cell the
  // server happens to hold too).
  std::erase_if(unsent, [&](const stream::CellEdit& u) { return caught.count(column_pos_of(u.pos)) > 0; });
  queue.insert(queue.begin(), unsent.begin(), unsent.end());
  if (!queue.empty()) game.queue_source_edits(std::move(queue));

  // Players who joined or left since the last call, then the chat that came in.
  std::map<uint32_t, std::string> players;
  for (const auto& [id, rp] : m_client.players()) players.emplace(id, rp.name);
  for (const auto& [id, name] : m_players)
    if (!players.count(id)) game.show_message(name + " LEFT");
  for (const auto& [id, name] : players)
    if (!m_players.count(id)) game.show_message(name + " JOINED");
  m_players = std::move(players);
  for (const auto& [name, text] : m_client.take_chat()) game.show_message(name + ": " + text);

  std::vector<Figure> figures;
  for (const auto& [id, rp] : m_client.players()) {
    // A player the server stopped sending poses of (out of the pose radius: it refreshes them every second) is
    // not drawn where it was last seen.
    if (!rp.has_pose || now - rp.to_time > kStalePose) continue;
    const net::Pose p = rp.at(now);
    Figure fig;
    const glm::dvec3 feet{p.x, p.y, p.z};
    const glm::dvec3 fl = glm::floor(feet);
    fig.block = BlockPos{static_cast<int64_t>(fl.x), static_cast<int64_t>(fl.y), static_cast<int64_t>(fl.z)};
    fig.frac = feet - fl;
    fig.color = figure_color(id);
    fig.label = rp.name;
    figures.push_back(std::move(fig));
  }
  game.set_figures(std::move(figures));
  return open;
}

std::string RemoteWorld::status() const {
  const size_t players = m_client.players().size() + 1;
  std::string s = std::to_string(players) + (players == 1 ? " PLAYER" : " PLAYERS");
  if (m_client.pending() > 0) s += ", " + std::to_string(m_client.pending()) + (m_client.pending() == 1 ? " EDIT" : " EDITS") + " WAITING";
  return s;
}

}  // namespace voxen::play
