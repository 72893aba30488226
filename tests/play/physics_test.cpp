// Player physics, collision shapes and picking on hand-built worlds: the box never ends inside a solid cell
// (random worlds and random motions, compared against a tiny-step oracle), shapes collide by their boxes, the
// voxel DDA finds what a brute-force scan finds, and spawn spots have room and ground.
#include <gtest/gtest.h>

#include <cmath>

#include "play_test_util.h"
#include "voxen/core/hash.h"
#include "voxen/play/collision.h"
#include "voxen/play/pick.h"
#include "voxen/play/player.h"
#include "voxen/play/spawn.h"

namespace voxen::play {
namespace {

using testing::registry;

// A world of air columns around the origin with a stone floor at y = 0 (feet stand at y = 1).
World floor_world(int radius = 1) {
  World w;
  const uint16_t stone = registry().id("stone");
  for (int64_t cx = -radius; cx <= radius; ++cx)
    for (int64_t cz = -radius; cz <= radius; ++cz) {
      auto col = std::make_unique<Column>(ColumnPos{cx, cz});
      for (int x = 0; x < 16; ++x)
        for (int z = 0; z < 16; ++z) col->set(x, 0, z, {stone, 0});
      w.insert(std::move(col));
    }
  return w;
}

void set(World& w, const BlockPos& p, std::string_view name, uint8_t st = 0) {
  w.find(column_pos_of(p))->set(local_of(p.x), p.y, local_of(p.z), {registry().id(name), st});
}

TEST(Collision, ShapesCollideByTheirBoxes) {
  const BlockRegistry& r = registry();
  auto boxes = [&](std::string_view n, uint8_t st) { return collision_boxes(r[r.id(n)], st); };
  EXPECT_EQ(boxes("stone", 0).count, 1);
  EXPECT_EQ(boxes("stone_slab", 0).box[0].max.y, 0.5);
  EXPECT_EQ(boxes("stone_slab", state::kHalfBit).box[0].min.y, 0.5);
  // Stairs facing north, bottom half: the lower slab plus the upper quarter at the back (z 0..0.5).
  const CellBoxes st = boxes("stone_stairs", state::make_facing(state::kNorth, false));
  ASSERT_EQ(st.count, 2);
  EXPECT_EQ(st.box[0].min, glm::dvec3(0, 0, 0));
  EXPECT_EQ(st.box[0].max, glm::dvec3(1, 0.5, 1));
  EXPECT_EQ(st.box[1].min, glm::dvec3(0, 0.5, 0));
  EXPECT_EQ(st.box[1].max, glm::dvec3(1, 1, 0.5));
  // A slope collides like the stairs of its facing and half.
  const CellBoxes sl = boxes("stone_slope", state::make_facing(state::kEast, true));
  const CellBoxes st2 = boxes("stone_stairs", state::make_facing(state::kEast, true));
  ASSERT_EQ(sl.count, st2.count);
  for (int i = 0; i < sl.count; ++i) EXPECT_EQ(sl.box[i].min, st2.box[i].min);
  EXPECT_EQ(boxes("water", 0).count, 0);
  EXPECT_EQ(boxes("torch", 0).count, 0);
  EXPECT_EQ(boxes("tall_grass", 0).count, 0);
  EXPECT_EQ(pick_boxes(r[r.id("water")], 0).count, 0);
  EXPECT_EQ(pick_boxes(r[r.id("torch")], 0).count, 1);
}

TEST(Physics, StandsFallsAndJumps) {
  World w = floor_world();
  const CollisionWorld cw(w, registry());
  PlayerConfig cfg;
  PlayerState p;
  p.set_feet({0.5, 3.0, 0.5});
  for (int i = 0; i < 60; ++i) step_player(p, {}, 1.0 / 60.0, cw, cfg);
  EXPECT_DOUBLE_EQ(p.feet().y, 1.0);
  EXPECT_TRUE(p.on_ground);
  MoveIntent jump;
  jump.jump = true;
  double peak = 0;
  step_player(p, jump, 1.0 / 60.0, cw, cfg);
  for (int i = 0; i < 60; ++i) {
    step_player(p, {}, 1.0 / 60.0, cw, cfg);
    peak = std::max(peak, p.feet().y);
  }
  EXPECT_GT(peak, 2.2);  // clears one block
  EXPECT_LT(peak, 2.35);
  EXPECT_DOUBLE_EQ(p.feet().y, 1.0);
}

TEST(Physics, HeadBumpsAndCrouchingStopsAtEdges) {
  World w = floor_world();
  set(w, {0, 3, 0}, "stone");  // a ceiling 2 blocks over the floor: the 1.8 box fits under it
  const CollisionWorld cw(w, registry());
  PlayerConfig cfg;
  PlayerState p;
  p.set_feet({0.5, 1.0, 0.5});
  MoveIntent jump;
  jump.jump = true;
  double peak = 0;
  for (int i = 0; i < 30; ++i) {
    step_player(p, i == 0 ? jump : MoveIntent{}, 1.0 / 60.0, cw, cfg);
    peak = std::max(peak, p.feet().y);
  }
  EXPECT_NEAR(peak, 3.0 - 1.8, 1e-9);  // the head stopped at the ceiling
  // Crouching walk east over an edge: remove the floor east of x = 2.
  World w2 = floor_world();
  for (int64_t x = 2; x < 16; ++x)
    for (int64_t z = -16; z < 16; ++z) set(w2, {x, 0, z}, "air");
  const CollisionWorld cw2(w2, registry());
  PlayerState q;
  q.set_feet({0.5, 1.0, 0.5});
  q.yaw = 90.0;
  MoveIntent crouch;
  crouch.forward = 1;
  crouch.descend = true;
  for (int i = 0; i < 240; ++i) step_player(q, crouch, 1.0 / 60.0, cw2, cfg);
  EXPECT_DOUBLE_EQ(q.feet().y, 1.0) << "crouching never walks off an edge";
  EXPECT_LE(q.feet().x, 2.0 + 0.3 + 1e-9);
  EXPECT_GT(q.feet().x, 2.0);
}

// A random world near the origin: stone floor, random solid cells, slabs and stairs.
World random_world(uint64_t seed) {
  World w = floor_world();
  HashStream rng(seed);
  const char* names[] = {"stone", "stone_slab", "stone_stairs", "glass", "water", "torch", "stone_slope"};
  for (int i = 0; i < 400; ++i) {
    const BlockPos p{static_cast<int64_t>(rng.below(20)) - 10, static_cast<int64_t>(rng.below(6)) + 1,
                     static_cast<int64_t>(rng.below(20)) - 10};
    set(w, p, names[rng.below(7)], static_cast<uint8_t>(rng.below(8)));
  }
  return w;
}

TEST(Physics, NeverEndsInsideASolidCellAtAnySpeed) {
  PlayerConfig cfg;
  int checked = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    World w = random_world(seed);
    const CollisionWorld cw(w, registry());
    HashStream rng(seed * 77);
    // Start somewhere free.
    PlayerState p;
    for (int tries = 0; tries < 1000; ++tries) {
      p.set_feet({rng.unit() * 16 - 8, 1.0 + rng.unit() * 6, rng.unit() * 16 - 8});
      if (!player_inside_solid(p, cw, cfg)) break;
    }
    ASSERT_FALSE(player_inside_solid(p, cw, cfg));
    for (int step = 0; step < 600; ++step) {
      MoveIntent in;
      in.forward = rng.unit() * 2 - 1;
      in.strafe = rng.unit() * 2 - 1;
      in.jump = rng.unit() < 0.3;
      in.descend = rng.unit() < 0.2;
      in.sprint = rng.unit() < 0.5;
      p.yaw = rng.unit() * 360;
      if (rng.unit() < 0.02) p.flying = !p.flying;
      p.fly_speed = rng.unit() < 0.5 ? 112.0 : 10.0;
      const double dt = rng.unit() < 0.1 ? 0.1 : 1.0 / 60.0;
      step_player(p, in, dt, cw, cfg);
      ASSERT_FALSE(player_inside_solid(p, cw, cfg)) << "seed " << seed << " step " << step << " feet " << p.feet().x << " "
                                                    << p.feet().y << " " << p.feet().z;
      ASSERT_TRUE(std::isfinite(p.feet().x) && std::isfinite(p.feet().y) && std::isfinite(p.feet().z));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 12 * 600);
}

TEST(Physics, FarFromTheOriginMovesTheSame) {
  // The same walk at the origin and 2^40 blocks out lands at the same offset (floating origin).
  const int64_t far = int64_t{1} << 40;
  World a = floor_world(), b;
  const uint16_t stone = registry().id("stone");
  for (int64_t cx = -1; cx <= 1; ++cx)
    for (int64_t cz = -1; cz <= 1; ++cz) {
      auto col = std::make_unique<Column>(ColumnPos{column_of(far) + cx, cz});
      for (int x = 0; x < 16; ++x)
        for (int z = 0; z < 16; ++z) col->set(x, 0, z, {stone, 0});
      b.insert(std::move(col));
    }
  set(a, {5, 1, 0}, "stone_slab");
  b.find(column_pos_of({far + 5, 1, 0}))->set(5, 1, 0, {registry().id("stone_slab"), 0});
  PlayerConfig cfg;
  PlayerState pa, pb;
  pa.block = {0, 1, 0};
  pa.frac = {0.3, 0.0, 0.5};
  pb = pa;
  pb.block.x += far;
  pa.yaw = pb.yaw = 90.0;
  MoveIntent in;
  in.forward = 1;
  for (int i = 0; i < 90; ++i) {
    step_player(pa, in, 1.0 / 60.0, CollisionWorld(a, registry()), cfg);
    step_player(pb, in, 1.0 / 60.0, CollisionWorld(b, registry()), cfg);
  }
  EXPECT_EQ(pa.block.x + far, pb.block.x);
  EXPECT_EQ(pa.block.y, pb.block.y);
  EXPECT_EQ(pa.frac, pb.frac);
}

TEST(Pick, DdaMatchesTheBruteForceOracle) {
  int hits = 0, misses = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    World w = random_world(seed + 100);
    HashStream rng(seed);
    for (int i = 0; i < 300; ++i) {
      const BlockPos eye{static_cast<int64_t>(rng.below(12)) - 6, static_cast<int64_t>(rng.below(5)) + 1,
                         static_cast<int64_t>(rng.below(12)) - 6};
      const glm::dvec3 frac(rng.unit(), rng.unit(), rng.unit());
      glm::dvec3 dir(rng.unit() * 2 - 1, rng.unit() * 2 - 1, rng.unit() * 2 - 1);
      if (i % 10 == 0) dir = glm::dvec3(0, -1, 0);  // axis-aligned rays too
      const auto fast = pick(w, registry(), eye, frac, dir, 8.0);
      const auto slow = pick_reference(w, registry(), eye, frac, dir, 8.0);
      ASSERT_EQ(fast.has_value(), slow.has_value()) << "seed " << seed << " ray " << i;
      if (!fast) {
        ++misses;
        continue;
      }
      ++hits;
      EXPECT_EQ(fast->distance, slow->distance) << "seed " << seed << " ray " << i;
      if (fast->distance == slow->distance && !(fast->cell == slow->cell)) continue;  // a tie on a shared edge
      EXPECT_EQ(fast->cell, slow->cell) << "seed " << seed << " ray " << i;
      EXPECT_EQ(fast->face, slow->face) << "seed " << seed << " ray " << i;
    }
  }
  EXPECT_GT(hits, 500);
  EXPECT_GT(misses, 50);
}

TEST(Pick, FacesAndShapes) {
  World w = floor_world();
  set(w, {2, 1, 0}, "stone_slab");  // bottom slab: its top is at y 1.5
  // Looking east at y 1.8 passes over the slab; at y 1.2 hits its west face.
  auto over = pick(w, registry(), {0, 1, 0}, {0.5, 0.8, 0.5}, {1, 0, 0});
  EXPECT_FALSE(over.has_value());
  auto side = pick(w, registry(), {0, 1, 0}, {0.5, 0.2, 0.5}, {1, 0, 0});
  ASSERT_TRUE(side.has_value());
  EXPECT_EQ(side->cell, (BlockPos{2, 1, 0}));
  EXPECT_EQ(side->face, kFaceNegX);
  EXPECT_EQ(side->adjacent(), (BlockPos{1, 1, 0}));
  EXPECT_DOUBLE_EQ(side->distance, 1.5);
  // Straight down onto the slab's top face.
  auto down = pick(w, registry(), {2, 3, 0}, {0.5, 0.5, 0.5}, {0, -1, 0});
  ASSERT_TRUE(down.has_value());
  EXPECT_EQ(down->face, kFacePosY);
  EXPECT_DOUBLE_EQ(down->distance, 2.0);
  // Water is not a target: the ray goes through to the floor.
  set(w, {0, 1, 4}, "water");
  auto wet = pick(w, registry(), {0, 3, 4}, {0.5, 0.5, 0.5}, {0, -1, 0});
  ASSERT_TRUE(wet.has_value());
  EXPECT_EQ(wet->cell, (BlockPos{0, 0, 4}));
  // Beyond the reach: nothing.
  EXPECT_FALSE(pick(w, registry(), {0, 12, 0}, {0.5, 0.5, 0.5}, {0, -1, 0}, 8.0).has_value());
}

TEST(Spawn, AsksForRoomAndForGround) {
  World w = floor_world();
  // A tree-like cover over (0, 0): leaves at y 4 make (0, 0) a spot under cover; a pillar at (1, 0) leaves no room.
  set(w, {0, 4, 0}, "oak_leaves");
  set(w, {1, 1, 0}, "stone");
  set(w, {1, 2, 0}, "stone");
  const auto s = find_world_spawn(w, registry(), 0, 0);
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->x == 0 && s->z == 0) << "under leaves: not open to the sky";
  const Column& c = *w.find(column_pos_of(*s));
  EXPECT_TRUE(is_standing_spot(c, registry(), s->x, s->y, s->z));
  EXPECT_EQ(*s, (BlockPos{0, 1, 1})) << "the nearest open spot (ties by x, z)";
  EXPECT_EQ(highest_standing_spot(c, registry(), 1, 0), std::optional<int64_t>(3)) << "on top of the pillar";
  // Generated worlds: the spawn stands on ground with two cells of room, never in water.
  for (uint64_t seed : {1ull, 2ull, 3ull}) {
    auto gen = gen::make_generator("default", seed, registry());
    ASSERT_TRUE(gen.ok());
    const auto sp = find_generated_spawn(**gen, registry(), 0, 0);
    ASSERT_TRUE(sp.has_value());
    Column col(column_pos_of(*sp));
    (*gen)->generate(col);
    EXPECT_TRUE(is_standing_spot(col, registry(), sp->x, sp->y, sp->z));
    EXPECT_TRUE(registry()[col.get(local_of(sp->x), sp->y - 1, local_of(sp->z)).id].is_opaque_cube());
  }
}

}  // namespace
}  // namespace voxen::play
