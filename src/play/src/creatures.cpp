#include "voxen/play/creatures.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>

#include <glm/gtc/matrix_transform.hpp>

#include "voxen/core/hash.h"
#include "voxen/world/cell.h"

namespace voxen::play {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr uint64_t kSpawnSalt = 0xC4EA7u;   // derive_seed salt of the column spawns
constexpr uint64_t kAiSalt = 0xA1A1u;       // of the AI's choices

// One box of a kind's model, in the creature's frame (feet centre at the origin, y up, facing -z), blocks.
struct Part {
  glm::vec3 size;     // extent
  glm::vec3 centre;   // centre at rest
  int skin;           // 0 body, 1 head, 2 leg (the kind's skin layers; the head's front face takes layer 3)
  float swing;        // legs: +1 or -1 (opposite pairs), swung about their top; 0: rigid
};

struct KindDef {
  const char* name;
  PlayerConfig body;
  std::array<Part, 6> parts;
  int part_count;
  bool sand_ok;  // spawns on sand too
};

PlayerConfig body_config(double width, double height, double speed) {
  PlayerConfig c;
  c.width = width;
  c.height = height;
  c.eye_height = height * 0.85;
  c.walk_speed = speed;
  c.jump_speed = 8.5;  // 1.13 blocks: over a block, as the player
  return c;
}

const std::array<KindDef, kCreatureKinds>& kinds() {
  static const std::array<KindDef, kCreatureKinds> k = {{
      {"pig", body_config(0.8, 0.9, 1.6),
       {{{{0.6f, 0.5f, 0.9f}, {0.0f, 0.6f, 0.0f}, 0, 0.0f},
         {{0.5f, 0.5f, 0.5f}, {0.0f, 0.75f, -0.6f}, 1, 0.0f},
         {{0.2f, 0.35f, 0.2f}, {-0.17f, 0.175f, -0.3f}, 2, 1.0f},
         {{0.2f, 0.35f, 0.2f}, {0.17f, 0.175f, -0.3f}, 2, -1.0f},
         {{0.2f, 0.35f, 0.2f}, {-0.17f, 0.175f, 0.3f}, 2, -1.0f},
         {{0.2f, 0.35f, 0.2f}, {0.17f, 0.175f, 0.3f}, 2, 1.0f}}},
       6, false},
      {"sheep", body_config(0.8, 1.2, 1.5),
       {{{{0.65f, 0.6f, 0.95f}, {0.0f, 0.8f, 0.0f}, 0, 0.0f},
         {{0.4f, 0.45f, 0.45f}, {0.0f, 1.0f, -0.62f}, 1, 0.0f},
         {{0.2f, 0.5f, 0.2f}, {-0.18f, 0.25f, -0.3f}, 2, 1.0f},
         {{0.2f, 0.5f, 0.2f}, {0.18f, 0.25f, -0.3f}, 2, -1.0f},
         {{0.2f, 0.5f, 0.2f}, {-0.18f, 0.25f, 0.3f}, 2, -1.0f},
         {{0.2f, 0.5f, 0.2f}, {0.18f, 0.25f, 0.3f}, 2, 1.0f}}},
       6, false},
      {"cow", body_config(0.9, 1.4, 1.4),
       {{{{0.8f, 0.7f, 1.1f}, {0.0f, 0.95f, 0.0f}, 0, 0.0f},
         {{0.5f, 0.5f, 0.4f}, {0.0f, 1.25f, -0.72f}, 1, 0.0f},
         {{0.25f, 0.6f, 0.25f}, {-0.22f, 0.3f, -0.38f}, 2, 1.0f},
         {{0.25f, 0.6f, 0.25f}, {0.22f, 0.3f, -0.38f}, 2, -1.0f},
         {{0.25f, 0.6f, 0.25f}, {-0.22f, 0.3f, 0.38f}, 2, -1.0f},
         {{0.25f, 0.6f, 0.25f}, {0.22f, 0.3f, 0.38f}, 2, 1.0f}}},
       6, false},
      {"chicken", body_config(0.4, 0.7, 1.2),
       {{{{0.35f, 0.35f, 0.45f}, {0.0f, 0.45f, 0.0f}, 0, 0.0f},
         {{0.22f, 0.3f, 0.2f}, {0.0f, 0.72f, -0.25f}, 1, 0.0f},
         {{0.08f, 0.28f, 0.08f}, {-0.08f, 0.14f, 0.0f}, 2, 1.0f},
         {{0.08f, 0.28f, 0.08f}, {0.08f, 0.14f, 0.0f}, 2, -1.0f},
         {{}, {}, 0, 0.0f},
         {{}, {}, 0, 0.0f}}},
       4, true},
  }};
  return k;
}

// The shortest signed turn from a to b, degrees in (-180, 180].
double turn(double a, double b) {
  double d = std::fmod(b - a, 360.0);
  if (d <= -180.0) d += 360.0;
  if (d > 180.0) d -= 360.0;
  return d;
}

uint64_t ai_hash(uint64_t seed, const Creature& c, uint64_t what) {
  return hash3(derive_seed(seed, kAiSalt), static_cast<int64_t>(c.id), c.tick, static_cast<int64_t>(what));
}

// Skins: 16 x 16, generated from hashes (no asset files). Value noise at 4-pixel cells for patches and fleece.
uint8_t clamp8(double v) { return static_cast<uint8_t>(std::clamp(v, 0.0, 255.0)); }
void put(render::Image& img, int x, int y, glm::dvec3 c) {
  uint8_t* p = &img.pixels[(static_cast<size_t>(y) * 16 + static_cast<size_t>(x)) * 4];
  p[0] = clamp8(c.r);
  p[1] = clamp8(c.g);
  p[2] = clamp8(c.b);
  p[3] = 255;
}
double noise(uint64_t salt, int x, int y) { return hash_to_unit(hash3(salt, x, y, 0)); }
double patches(uint64_t salt, int x, int y) {  // smooth-ish 0..1 from 4-pixel cells, bilinear
  const double fx = (x + 0.5) / 4.0 - 0.5, fy = (y + 0.5) / 4.0 - 0.5;
  const int ix = static_cast<int>(std::floor(fx)), iy = static_cast<int>(std::floor(fy));
  const double tx = fx - ix, ty = fy - iy;
  auto v = [&](int a, int b) { return noise(salt, (a + 8) & 3, (b + 8) & 3); };
  return (v(ix, iy) * (1 - tx) + v(ix + 1, iy) * tx) * (1 - ty) + (v(ix, iy + 1) * (1 - tx) + v(ix + 1, iy + 1) * tx) * ty;
}

}  // namespace

std::string_view creature_kind_name(CreatureKind kind) { return kinds()[static_cast<size_t>(kind)].name; }
const PlayerConfig& creature_body(CreatureKind kind) { return kinds()[static_cast<size_t>(kind)].body; }
int Creatures::boxes_of(CreatureKind kind) { return kinds()[static_cast<size_t>(kind)].part_count; }

Creatures::Creatures(uint64_t seed, const BlockRegistry& registry) : m_seed(seed), m_registry(registry) {
  if (auto id = registry.find("grass_block")) m_grass = *id, m_have_grass = true;
  if (auto id = registry.find("sand")) m_sand = *id, m_have_sand = true;
  if (auto id = registry.find("water")) m_water = *id, m_have_water = true;
}

std::vector<render::Image> Creatures::skins() {
  std::vector<render::Image> out;
  struct Palette {
    glm::dvec3 body, head, leg, spot;
  };
  const Palette pal[kCreatureKinds] = {
      {{238, 166, 166}, {242, 172, 172}, {226, 150, 150}, {214, 132, 136}},  // pig: pink, darker spots
      {{236, 236, 230}, {222, 200, 168}, {214, 190, 160}, {205, 205, 198}},  // sheep: fleece, tan face
      {{72, 56, 46}, {80, 62, 50}, {64, 50, 42}, {236, 236, 232}},           // cow: brown with white patches
      {{246, 246, 242}, {246, 246, 242}, {236, 180, 40}, {226, 226, 220}},   // chicken: white, yellow legs
  };
  for (int k = 0; k < kCreatureKinds; ++k) {
    const Palette& p = pal[k];
    const uint64_t salt = derive_seed(0x5C1Eu, static_cast<uint64_t>(k));
    for (int layer = 0; layer < 4; ++layer) {
      render::Image img(16, 16);
      for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) {
          const double grain = (noise(salt + static_cast<uint64_t>(layer), x, y) - 0.5) * 18.0;
          glm::dvec3 c = layer == 0 ? p.body : layer == 2 ? p.leg : p.head;
          if (layer == 0) {
            const double patch = patches(salt, x, y);
            if (k == 2 ? patch > 0.62 : patch > 0.78) c = p.spot;  // the cow's patches, the pig's spots
            if (k == 1) c += glm::dvec3(noise(salt ^ 7u, x / 2, y / 2) * 20.0 - 10.0);  // fleece curls
          }
          if (layer == 2 && y >= 13) c *= k == 3 ? 0.8 : 0.45;  // hooves, claws
          put(img, x, y, c + glm::dvec3(grain));
        }
      if (layer == 3) {  // the face: two eyes, and a snout, muzzle, or comb and beak
        for (int e : {4, 11}) {
          put(img, e, 6, {20, 20, 24});
          put(img, e, 5, {250, 250, 250});
        }
        if (k == 0)
          for (int y = 9; y < 13; ++y)
            for (int x = 5; x < 11; ++x) put(img, x, y, (x == 6 || x == 9) && y == 10 ? glm::dvec3(120, 60, 70) : glm::dvec3(228, 140, 150));
        if (k == 2)
          for (int y = 10; y < 14; ++y)
            for (int x = 4; x < 12; ++x) put(img, x, y, glm::dvec3(200, 190, 180));
        if (k == 3) {
          for (int y = 8; y < 11; ++y)
            for (int x = 6; x < 10; ++x) put(img, x, y, glm::dvec3(236, 160, 40));
          for (int y = 11; y < 14; ++y)
            for (int x = 7; x < 9; ++x) put(img, x, y, glm::dvec3(200, 30, 30));
        }
      }
      out.push_back(std::move(img));
    }
  }
  return out;
}

bool Creatures::spawn_at(const World& world, CreatureKind kind, int64_t x, int64_t z, uint64_t id) {
  const ColumnPos cp = column_pos_of(BlockPos{x, 0, z});
  if (!world.find(cp)) return false;
  // The top cell of the column at (x, z): grass (or sand for chickens) with two cells of room above.
  for (int64_t y = kMaxY; y > kMinY; --y) {
    const Cell cell = world.get({x, y, z});
    if (cell.id == 0) continue;
    const bool ground = (m_have_grass && cell.id == m_grass) ||
                        (m_have_sand && cell.id == m_sand && kinds()[static_cast<size_t>(kind)].sand_ok);
    if (!ground) return false;
    for (int64_t up = 1; up <= 2; ++up) {
      const Cell above = world.get({x, y + up, z});
      if (above.id != 0 && (m_registry[above.id].solid || m_registry[above.id].physics == Physics::kFluid)) return false;
    }
    Creature c;
    c.id = id;
    c.kind = kind;
    c.body.block = {x, y + 1, z};
    c.body.frac = {0.5, 0.0, 0.5};
    c.body.yaw = hash_to_unit(mix64(id)) * 360.0;
    c.body.on_ground = true;
    c.target_yaw = c.body.yaw;
    c.before = c.body;
    c.mode_until = static_cast<uint32_t>(20 + mix64(id ^ 1u) % 100);
    auto at = std::lower_bound(m_live.begin(), m_live.end(), id, [](const Creature& a, uint64_t v) { return a.id < v; });
    if (at != m_live.end() && at->id == id) return false;  // already here
    m_live.insert(at, c);
    return true;
  }
  return false;
}

void Creatures::spawn_column(const World& world, const ColumnPos& cp) {
  const uint64_t h = hash2(derive_seed(m_seed, kSpawnSalt), cp.x, cp.z);
  if (hash_to_unit(h) >= kSpawnChance) return;
  HashStream s(mix64(h));
  const CreatureKind kind = static_cast<CreatureKind>(s.below(kCreatureKinds));
  const int n = 1 + static_cast<int>(s.below(4));
  for (int i = 0; i < n; ++i) {
    const int64_t x = cp.min_x() + static_cast<int64_t>(s.below(kColumnWidth));
    const int64_t z = cp.min_z() + static_cast<int64_t>(s.below(kColumnWidth));
    spawn_at(world, kind, x, z, hash3(h, cp.x, cp.z, i));
  }
}

int Creatures::spawn_around(const World& world, CreatureKind kind, int64_t x, int64_t z, int n, int radius, uint64_t salt) {
  int added = 0;
  HashStream s(hash3(derive_seed(m_seed, salt), x, z, n));
  for (int i = 0; i < n; ++i) {
    const int64_t px = x + static_cast<int64_t>(s.below(2 * static_cast<uint64_t>(radius) + 1)) - radius;
    const int64_t pz = z + static_cast<int64_t>(s.below(2 * static_cast<uint64_t>(radius) + 1)) - radius;
    added += spawn_at(world, kind, px, pz, hash3(salt, px, pz, i)) ? 1 : 0;
  }
  return added;
}

void Creatures::sync_columns(const World& world, const std::vector<ColumnPos>& drawn) {
  std::set<ColumnPos> now(drawn.begin(), drawn.end());
  if (now == m_active) {
    // Nothing came or went; still, a creature may have walked into a column that is not drawn.
    bool all_in = true;
    for (const Creature& c : m_live) all_in = all_in && now.count(column_pos_of(c.body.block));
    if (all_in) return;
  }
  // Creatures standing outside the drawn columns go to their column's stash.
  std::vector<Creature> keep;
  keep.reserve(m_live.size());
  for (Creature& c : m_live) {
    const ColumnPos cp = column_pos_of(c.body.block);
    if (now.count(cp)) keep.push_back(c);
    else m_stash[cp].push_back(c);
  }
  m_live.swap(keep);
  // New columns: their stash back, then (m_live sorted again: spawn_at inserts in id order) their first spawn.
  std::vector<ColumnPos> to_spawn;
  for (const ColumnPos& cp : now) {
    if (m_active.count(cp)) continue;
    if (auto it = m_stash.find(cp); it != m_stash.end()) {
      for (const Creature& c : it->second) m_live.push_back(c);
      m_stash.erase(it);
    } else if (m_spawned.insert(cp).second) {
      to_spawn.push_back(cp);
    }
  }
  std::sort(m_live.begin(), m_live.end(), [](const Creature& a, const Creature& b) { return a.id < b.id; });
  for (const ColumnPos& cp : to_spawn) spawn_column(world, cp);
  m_active.swap(now);
}

void Creatures::cells_changed(std::span<const BlockPos> cells) {
  for (Creature& c : m_live) {
    if (!c.resting) continue;
    for (const BlockPos& p : cells)
      if (std::abs(coord_delta(p.x, c.body.block.x)) <= 2 && std::abs(coord_delta(p.y, c.body.block.y)) <= 2 &&
          std::abs(coord_delta(p.z, c.body.block.z)) <= 2) {
        c.resting = false;
        break;
      }
  }
}

void Creatures::tick_one(Creature& c, const CollisionWorld& world, CreatureTickStats& st) const {
  const KindDef& def = kinds()[static_cast<size_t>(c.kind)];
  c.before = c.body;
  ++c.tick;
  if (c.tick >= c.mode_until) {
    c.walking = !c.walking;
    const uint64_t h = ai_hash(m_seed, c, 0);
    c.mode_until = c.tick + static_cast<uint32_t>(c.walking ? 20 + h % 60 : 40 + h % 120);
    if (c.walking) {
      c.target_yaw = hash_to_unit(mix64(h)) * 360.0;
      c.resting = false;
    }
  }
  if (c.resting) {
    ++st.rested;
    return;
  }
  MoveIntent intent;
  if (c.walking) {
    const double d = turn(c.body.yaw, c.target_yaw);
    c.body.yaw += std::clamp(d, -9.0, 9.0);  // 180 degrees a second
    c.body.yaw = std::fmod(c.body.yaw + 360.0, 360.0);
    if (std::abs(d) < 60.0) {
      // Look one block ahead at the feet: a drop of more than two blocks, or water, turns it away.
      const glm::dvec3 f = horizontal_forward(c.body.yaw);
      const glm::dvec3 ahead = c.body.frac + f * (0.5 * def.body.width + 0.6);
      const BlockPos a{c.body.block.x + static_cast<int64_t>(std::floor(ahead.x)), c.body.block.y,
                       c.body.block.z + static_cast<int64_t>(std::floor(ahead.z))};
      bool drop = true;
      for (int64_t dy = 0; dy <= 2 && drop; ++dy) {
        const Cell below = world.world().get({a.x, a.y - 1 - dy, a.z});
        drop = !(below.id != 0 && m_registry[below.id].solid);
      }
      const Cell at = world.world().get(a);
      const bool wet = m_have_water && (at.id == m_water || world.world().get({a.x, a.y - 1, a.z}).id == m_water);
      if (c.body.on_ground && (drop || wet)) {
        c.target_yaw = std::fmod(c.body.yaw + 150.0 + hash_to_unit(ai_hash(m_seed, c, 1)) * 60.0, 360.0);
      } else {
        intent.forward = 1.0;
      }
    }
    intent.jump = c.blocked_ticks >= 2 && c.body.on_ground;
  }
  step_player(c.body, intent, kTick, world, def.body);
  ++st.stepped;
  const double moved = std::hypot(c.body.velocity.x, c.body.velocity.z);
  c.blocked_ticks = intent.forward > 0.0 && moved < 0.2 * def.body.walk_speed ? static_cast<uint8_t>(std::min(c.blocked_ticks + 1, 10)) : 0;
  c.walk_amount = std::clamp(c.walk_amount + (moved > 0.3 ? 0.2 : -0.2), 0.0, 1.0);
  c.walk_phase = std::fmod(c.walk_phase + moved * kTick * 3.0, 2.0 * kPi);
  if (!c.walking && c.body.on_ground && moved < 1e-3 && std::abs(c.body.velocity.y) < 1e-9) {
    c.body.velocity = glm::dvec3(0.0);
    c.resting = true;
  }
}

CreatureTickStats Creatures::advance(double dt, const CollisionWorld& world) {
  CreatureTickStats st;
  const auto t0 = std::chrono::steady_clock::now();
  st.ticks = m_clock.advance(dt);
  for (int i = 0; i < st.ticks; ++i)
    for (Creature& c : m_live) tick_one(c, world, st);
  st.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

void Creatures::pose(const render::Camera& cam, const World& world, std::vector<render::BoxInstance>& out) const {
  const double alpha = m_clock.fraction();
  for (const Creature& c : m_live) {
    const KindDef& def = kinds()[static_cast<size_t>(c.kind)];
    // Feet, camera-relative, between the last two ticks.
    const glm::dvec3 from = cam.relative(c.before.block, c.before.frac);
    const glm::dvec3 to = cam.relative(c.body.block, c.body.frac);
    const glm::dvec3 feet = from + (to - from) * alpha;
    const double yaw = c.before.yaw + turn(c.before.yaw, c.body.yaw) * alpha;
    const glm::dmat4 base = glm::rotate(glm::translate(glm::dmat4(1.0), feet), -yaw * kPi / 180.0, glm::dvec3(0, 1, 0));
    // Light of the cell at the body's middle.
    const BlockPos mid{c.body.block.x, c.body.block.y + static_cast<int64_t>(std::floor(c.body.frac.y + 0.5 * def.body.height)),
                       c.body.block.z};
    const Light l = world.light(mid);
    const float light[4] = {light_sky(l) / 15.0f, light_r(l) / 15.0f, light_g(l) / 15.0f, light_b(l) / 15.0f};
    const double swing = std::sin(c.walk_phase) * 0.7 * c.walk_amount;
    for (int i = 0; i < def.part_count; ++i) {
      const Part& p = def.parts[static_cast<size_t>(i)];
      glm::dmat4 m = glm::translate(base, glm::dvec3(p.centre));
      if (p.swing != 0.0f) {  // about the leg's top
        const double top = 0.5 * p.size.y;
        m = glm::translate(m, glm::dvec3(0, top, 0));
        m = glm::rotate(m, swing * p.swing, glm::dvec3(1, 0, 0));
        m = glm::translate(m, glm::dvec3(0, -top, 0));
      }
      m = glm::scale(m, glm::dvec3(p.size));
      render::BoxInstance b;
      for (int r = 0; r < 3; ++r)
        for (int col = 0; col < 4; ++col) b.rows[r * 4 + col] = static_cast<float>(m[col][r]);
      for (int k = 0; k < 4; ++k) b.light[k] = light[k];
      b.skin = static_cast<uint32_t>(static_cast<int>(c.kind) * 4 + p.skin);
      b.front = p.skin == 1 ? static_cast<uint32_t>(static_cast<int>(c.kind) * 4 + 3) : b.skin;
      out.push_back(b);
    }
  }
}

size_t Creatures::stashed() const {
  size_t n = 0;
  for (const auto& [cp, v] : m_stash) n += v.size();
  return n;
}

uint64_t Creatures::state_hash() const { return fnv1a(kFnv1aOffset, save_state()); }

namespace {

constexpr char kStateMagic[4] = {'V', 'X', 'C', 'R'};
constexpr uint8_t kStateVersion = 1;
constexpr size_t kStateHeader = 4 + 1 + 3 + 8 + 8;  // magic, version, 3 zero bytes, creature count, column count
constexpr size_t kCreatureBytes = 124;
constexpr size_t kColumnBytes = 16;

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
void put_f64(std::string& out, double v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, 8);
  put_u64(out, b);
}
uint64_t get_u64(std::string_view in, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + static_cast<size_t>(i)])) << (8 * i);
  return v;
}
uint32_t get_u32(std::string_view in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(in[at + static_cast<size_t>(i)])) << (8 * i);
  return v;
}
double get_f64(std::string_view in, size_t at) {
  const uint64_t b = get_u64(in, at);
  double v = 0;
  std::memcpy(&v, &b, 8);
  return v;
}
Error state_error(std::string message, size_t offset) {
  Error e{"creatures: " + std::move(message)};
  e.offset = static_cast<int64_t>(offset);
  return e;
}

}  // namespace

std::string Creatures::save_state() const {
  std::vector<const Creature*> all;
  for (const Creature& c : m_live) all.push_back(&c);
  for (const auto& [cp, v] : m_stash)
    for (const Creature& c : v) all.push_back(&c);
  std::sort(all.begin(), all.end(), [](const Creature* a, const Creature* b) { return a->id < b->id; });
  std::string out(kStateMagic, sizeof kStateMagic);
  out.push_back(static_cast<char>(kStateVersion));
  out.append(3, '\0');
  put_u64(out, all.size());
  put_u64(out, m_spawned.size());
  for (const Creature* c : all) {
    put_u64(out, c->id);
    out.push_back(static_cast<char>(c->kind));
    out.push_back(static_cast<char>((c->walking ? 1 : 0) | (c->resting ? 2 : 0) | (c->body.on_ground ? 4 : 0)));
    out.push_back(static_cast<char>(c->blocked_ticks));
    out.push_back('\0');
    put_u32(out, c->tick);
    put_u32(out, c->mode_until);
    put_u64(out, static_cast<uint64_t>(c->body.block.x));
    put_u64(out, static_cast<uint64_t>(c->body.block.y));
    put_u64(out, static_cast<uint64_t>(c->body.block.z));
    for (int a = 0; a < 3; ++a) put_f64(out, c->body.frac[a]);
    for (int a = 0; a < 3; ++a) put_f64(out, c->body.velocity[a]);
    put_f64(out, c->body.yaw);
    put_f64(out, c->target_yaw);
    put_f64(out, c->walk_phase);
    put_f64(out, c->walk_amount);
  }
  for (const ColumnPos& cp : m_spawned) {
    put_u64(out, static_cast<uint64_t>(cp.x));
    put_u64(out, static_cast<uint64_t>(cp.z));
  }
  return out;
}

Status Creatures::load_state(std::string_view in) {
  if (in.size() < kStateHeader)
    return state_error("truncated header (" + std::to_string(in.size()) + " of " + std::to_string(kStateHeader) + " bytes)", in.size());
  if (std::memcmp(in.data(), kStateMagic, sizeof kStateMagic) != 0) return state_error("bad magic (expected VXCR)", 0);
  if (static_cast<uint8_t>(in[4]) != kStateVersion)
    return state_error("version " + std::to_string(static_cast<uint8_t>(in[4])) + " is not 1 (written by a newer voxen?)", 4);
  for (size_t i = 5; i < 8; ++i)
    if (in[i] != '\0') return state_error("reserved byte is not 0", i);
  const uint64_t n = get_u64(in, 8), m = get_u64(in, 16);
  const uint64_t max_n = (in.size() - kStateHeader) / kCreatureBytes, max_m = (in.size() - kStateHeader) / kColumnBytes;
  if (n > max_n || m > max_m || kStateHeader + n * kCreatureBytes + m * kColumnBytes != in.size())
    return state_error(std::to_string(n) + " creatures and " + std::to_string(m) + " columns do not fill the record's " +
                           std::to_string(in.size()) + " bytes",
                       std::min<uint64_t>(in.size(), 8));
  std::vector<Creature> all;
  all.reserve(static_cast<size_t>(n));
  for (uint64_t i = 0; i < n; ++i) {
    const size_t at = kStateHeader + static_cast<size_t>(i) * kCreatureBytes;
    Creature c;
    c.id = get_u64(in, at);
    if (i > 0 && c.id <= all.back().id) return state_error("creature " + std::to_string(i) + ": ids not ascending", at);
    const uint8_t kind = static_cast<uint8_t>(in[at + 8]), flags = static_cast<uint8_t>(in[at + 9]);
    if (kind >= kCreatureKinds) return state_error("creature " + std::to_string(i) + ": kind " + std::to_string(kind) + " is not 0..3", at + 8);
    if (flags > 7) return state_error("creature " + std::to_string(i) + ": unknown flags", at + 9);
    if (in[at + 11] != '\0') return state_error("creature " + std::to_string(i) + ": reserved byte is not 0", at + 11);
    c.kind = static_cast<CreatureKind>(kind);
    c.walking = flags & 1;
    c.resting = flags & 2;
    c.body.on_ground = flags & 4;
    c.blocked_ticks = static_cast<uint8_t>(in[at + 10]);
    c.tick = get_u32(in, at + 12);
    c.mode_until = get_u32(in, at + 16);
    c.body.block = {static_cast<int64_t>(get_u64(in, at + 20)), static_cast<int64_t>(get_u64(in, at + 28)),
                    static_cast<int64_t>(get_u64(in, at + 36))};
    if (c.body.block.y < kMinY - 64 || c.body.block.y > kMaxY + 1024)
      return state_error("creature " + std::to_string(i) + ": y " + std::to_string(c.body.block.y) + " is outside the world", at + 28);
    for (int a = 0; a < 3; ++a) {
      c.body.frac[a] = get_f64(in, at + 44 + 8 * static_cast<size_t>(a));
      if (!(c.body.frac[a] >= 0.0 && c.body.frac[a] < 1.0))
        return state_error("creature " + std::to_string(i) + ": position fraction outside [0, 1)", at + 44 + 8 * static_cast<size_t>(a));
      c.body.velocity[a] = get_f64(in, at + 68 + 8 * static_cast<size_t>(a));
      if (!std::isfinite(c.body.velocity[a]))
        return state_error("creature " + std::to_string(i) + ": velocity not finite", at + 68 + 8 * static_cast<size_t>(a));
    }
    const double values[4] = {get_f64(in, at + 92), get_f64(in, at + 100), get_f64(in, at + 108), get_f64(in, at + 116)};
    for (int k = 0; k < 4; ++k)
      if (!std::isfinite(values[k])) return state_error("creature " + std::to_string(i) + ": a heading or swing not finite", at + 92 + 8 * static_cast<size_t>(k));
    c.body.yaw = values[0];
    c.target_yaw = values[1];
    c.walk_phase = values[2];
    c.walk_amount = values[3];
    c.before = c.body;
    all.push_back(c);
  }
  std::set<ColumnPos> spawned;
  for (uint64_t i = 0; i < m; ++i) {
    const size_t at = kStateHeader + static_cast<size_t>(n) * kCreatureBytes + static_cast<size_t>(i) * kColumnBytes;
    const ColumnPos cp{static_cast<int64_t>(get_u64(in, at)), static_cast<int64_t>(get_u64(in, at + 8))};
    if (!spawned.empty() && !(*spawned.rbegin() < cp)) return state_error("spawned columns not ascending", at);
    spawned.insert(spawned.end(), cp);
  }
  m_live.clear();
  m_stash.clear();
  m_active.clear();
  for (const Creature& c : all) m_stash[column_pos_of(c.body.block)].push_back(c);
  m_spawned = std::move(spawned);
  return Ok{};
}

}  // namespace voxen::play
