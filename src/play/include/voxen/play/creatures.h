// Creatures (issue 22, after the VoxelBlox seed's animals): pigs, sheep, cows and chickens made of boxes, spawned
// from the seed on suitable ground, walking, turning and jumping with the player's physics (player.h step_player
// with each kind's PlayerConfig), all posed in one batched pass into render::BoxInstance rows that the renderer
// draws with one instanced draw.
//
// Lifecycle (by column, as the streamer draws them): a column that becomes drawn for the first time spawns its
// creatures, a pure function of (seed, column) and the column's cells then (the top cell at a hashed spot must be
// grass, or sand for chickens, with room above); a column that stops being drawn takes the creatures standing in it
// out of the world into a stash, kept as they were, and gives them back when it is drawn again (never spawning
// twice). Creatures never collide with each other and never change the world, so they do not touch a replay's world
// state; their own state is a pure function of the seed, the world's cells and the simulation time, so a replay
// reproduces it (state_hash).
//
// Ticks: a fixed 20 a second (StepClock, as Minecraft's mobs); a tick runs each creature's AI (hash of seed, id and
// tick: idle 2..8 s, then walk 1..4 s toward a hashed heading, turning at 180 degrees a second, jumping when
// blocked, turning away from drops of more than two blocks and from water) and one physics step of 1/20 s. A
// creature idle on the ground rests: no physics step at all until its idle time ends or a cell within 2 blocks of
// it changes (cells_changed).
//
// Space: positions as the player's (int64 feet block + fraction, world blocks, Y up, yaw 0 facing -Z, 90 +X);
// poses camera-relative (render::Camera::relative), so creatures 2^40 blocks out pose exactly.
// Threads: the owner's (the game's) thread only.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/play/collision.h"
#include "voxen/play/player.h"
#include "voxen/render/camera.h"
#include "voxen/render/image.h"
#include "voxen/render/renderer.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::play {

enum class CreatureKind : uint8_t { kPig, kSheep, kCow, kChicken };
inline constexpr int kCreatureKinds = 4;
/// "pig", "sheep", "cow", "chicken".
std::string_view creature_kind_name(CreatureKind kind);
/// The collision box, speeds and jump of a kind (a PlayerConfig for step_player).
const PlayerConfig& creature_body(CreatureKind kind);

/// One creature; a plain value (the stash keeps it as it is).
struct Creature {
  uint64_t id = 0;              // hash of (seed, spawn column, index), or of the spawn_around call: stable
  CreatureKind kind = CreatureKind::kPig;
  PlayerState body;             // feet, velocity, yaw (facing), on_ground: the player's physics state
  PlayerState before;           // body before the last tick: drawing interpolates from it to body
  double target_yaw = 0.0;      // the heading the AI turns toward, degrees
  double walk_phase = 0.0;      // leg swing phase, radians (advances with the distance walked)
  double walk_amount = 0.0;     // 0 standing .. 1 walking: the swing's amplitude (eases in and out)
  uint32_t tick = 0;            // ticks lived: the AI's hash input
  uint32_t mode_until = 0;      // the tick at which the current mode (idle or walking) ends
  uint8_t blocked_ticks = 0;    // ticks walking without moving: 2 make it jump
  bool walking = false;
  bool resting = false;         // idle on the ground: no physics until woken
  friend bool operator==(const Creature&, const Creature&) = default;
};

/// What advance() did.
struct CreatureTickStats {
  int ticks = 0;        // ticks run
  int stepped = 0;      // creature physics steps taken (creature x tick)
  int rested = 0;       // creature ticks skipped as resting
  double ms = 0;        // wall clock of the ticks
};

class Creatures {
 public:
  static constexpr double kTick = 1.0 / 20.0;   // seconds
  static constexpr double kSpawnChance = 0.08;  // of a column spawning a group

  Creatures(uint64_t seed, const BlockRegistry& registry);

  /// Brings the creatures in line with the drawn columns (stream::ColumnStreamer::drawn_columns, any order): new
  /// ones spawn or get their stash back, ones no longer drawn stash the creatures standing in them (as do creatures
  /// standing in a column that is not drawn). Cheap when nothing changed.
  void sync_columns(const World& world, const std::vector<ColumnPos>& drawn);
  /// Wakes resting creatures within 2 blocks (Chebyshev, feet block) of a changed cell.
  void cells_changed(std::span<const BlockPos> cells);
  /// Runs the ticks that `dt` seconds of simulation make due (a fixed 1/20 s each; the remainder carries).
  CreatureTickStats advance(double dt, const CollisionWorld& world);
  /// Poses every creature in one pass, interpolated between its last two ticks by the tick clock's remainder:
  /// appends its boxes (camera-relative, `cam`'s floating origin), lit by the world's light at its body, to `out`.
  void pose(const render::Camera& cam, const World& world, std::vector<render::BoxInstance>& out) const;
  /// The skins the poses index (render::Renderer::set_box_skins): 16 x 16 RGBA layers generated in code, 4 a kind
  /// (body, head, leg, face).
  static std::vector<render::Image> skins();

  /// Adds `n` creatures of `kind` on the ground within `radius` blocks of (x, z) (hashed spots of `salt`; spots
  /// without room are skipped). Returns how many were added. For tests and the tour.
  int spawn_around(const World& world, CreatureKind kind, int64_t x, int64_t z, int n, int radius, uint64_t salt);

  /// The live creatures, by id.
  const std::vector<Creature>& all() const { return m_live; }
  std::vector<Creature>& all_mutable() { return m_live; }
  /// Creatures stashed with their columns.
  size_t stashed() const;
  /// A hash of every live and stashed creature's state and the spawned columns, bit for bit: FNV-1a of
  /// save_state()'s bytes (replays compare it).
  uint64_t state_hash() const;
  /// Boxes a creature of `kind` poses into.
  static int boxes_of(CreatureKind kind);

  /// Every creature (live and stashed) and the columns that have spawned, as bytes for a saved world (record 'c';
  /// layout in docs/formats/world_store_v1.md, payload 10): little-endian, "VXCR", version 1, then the creatures
  /// sorted by id (124 bytes each) and the spawned columns sorted (16 bytes each). Drawing's interpolation is not
  /// kept (a loaded creature starts from where it stands). One spelling: load_state then save_state gives the bytes.
  std::string save_state() const;
  /// Replaces everything with saved bytes: every creature goes to its column's stash (sync_columns gives them back
  /// as their columns are drawn) and the spawned columns are remembered. Errors (nothing changed): bad magic or
  /// version, a size that does not match the counts, a kind past 3, a position fraction outside [0, 1), a value not
  /// finite, creatures not sorted by id, spawned columns not sorted; each names the byte offset.
  Status load_state(std::string_view bytes);

 private:
  void spawn_column(const World& world, const ColumnPos& c);
  bool spawn_at(const World& world, CreatureKind kind, int64_t x, int64_t z, uint64_t id);
  void tick_one(Creature& c, const CollisionWorld& world, CreatureTickStats& st) const;

  uint64_t m_seed;
  const BlockRegistry& m_registry;
  std::vector<Creature> m_live;                            // sorted by id
  std::map<ColumnPos, std::vector<Creature>> m_stash;      // by the column they stood in
  std::set<ColumnPos> m_active;                            // drawn columns as of the last sync
  std::set<ColumnPos> m_spawned;                           // columns that have spawned (never again)
  StepClock m_clock{kTick};
  uint16_t m_grass = 0, m_sand = 0, m_water = 0;
  bool m_have_grass = false, m_have_sand = false, m_have_water = false;
};

}  // namespace voxen::play
