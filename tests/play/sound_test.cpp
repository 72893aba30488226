// The game's sounds as the game tells them (play/sound.h), recorded by a SoundSink that keeps every call: footsteps
// every stride walked on the ground with the material under the feet, none in the air or flying, a dig with the
// broken block's material and a place with the placed one's, the nearest water and lava within the radius, wind by
// height; then the same through the real frame loop (headless) with its clicks.
#include <gtest/gtest.h>

#include <cmath>

#include "play_test_util.h"
#include "voxen/audio/mixer.h"
#include "voxen/audio/synth.h"
#include "voxen/play/collision.h"
#include "voxen/play/player.h"
#include "voxen/play/sound.h"

namespace voxen::play {
namespace {

using audio::Material;
using testing::registry;

/// Keeps every call.
class RecordingSink final : public SoundSink {
 public:
  struct Step {
    Material material;
    audio::WorldPoint feet;
  };
  struct Block {
    Material material;
    BlockPos cell;
  };
  void listener(const audio::WorldPoint& eye, const glm::dvec3& forward, const glm::dvec3& up) override {
    ++listeners;
    last_eye = eye;
    last_forward = forward;
    last_up = up;
  }
  void footstep(Material m, const audio::WorldPoint& feet) override { steps.push_back({m, feet}); }
  void dig(Material m, const BlockPos& cell) override { digs.push_back({m, cell}); }
  void place(Material m, const BlockPos& cell) override { places.push_back({m, cell}); }
  void ambience(std::span<const BlockPos> w, std::span<const BlockPos> l) override {
    water.assign(w.begin(), w.end());
    lava.assign(l.begin(), l.end());
  }
  void wind(double level) override { wind_level = level; }

  int listeners = 0;
  audio::WorldPoint last_eye;
  glm::dvec3 last_forward{0}, last_up{0};
  std::vector<Step> steps;
  std::vector<Block> digs, places;
  std::vector<BlockPos> water, lava;
  double wind_level = -1;
};

// Air columns around the origin over a floor of `floor` at y = 0 (the feet stand at y = 1).
World floor_world(std::string_view floor, int radius = 2) {
  World w;
  const uint16_t id = registry().id(floor);
  for (int64_t cx = -radius; cx <= radius; ++cx)
    for (int64_t cz = -radius; cz <= radius; ++cz) {
      auto col = std::make_unique<Column>(ColumnPos{cx, cz});
      for (int x = 0; x < 16; ++x)
        for (int z = 0; z < 16; ++z) col->set(x, 0, z, {id, 0});
      w.insert(std::move(col));
    }
  return w;
}

void set(World& w, const BlockPos& p, std::string_view name) {
  w.find(column_pos_of(p))->set(local_of(p.x), p.y, local_of(p.z), {registry().id(name), 0});
}

/// Walks the player east (yaw 90) from x = -20 for `steps` physics steps on `w`, telling `director`; returns the
/// horizontal distance walked on the ground.
double walk_east(World& w, SoundDirector& director, int steps, bool fly = false) {
  const PlayerConfig cfg;
  const CollisionWorld cw(w, registry());
  PlayerState p;
  p.set_feet({-20.5, fly ? 5.0 : 1.0, 0.5});
  p.yaw = 90;
  p.flying = fly;
  p.on_ground = !fly;
  MoveIntent intent;
  intent.forward = 1;
  double walked = 0;
  for (int i = 0; i < steps; ++i) {
    const PlayerState before = p;
    step_player(p, intent, kPhysicsStep, cw, cfg);
    director.stepped(before, p, w);
    if (before.on_ground && p.on_ground && !p.flying) walked += std::abs(p.feet().x - before.feet().x);
  }
  return walked;
}

TEST(PlaySound, WalkingOnStoneStepsOnStoneEveryStride) {
  World w = floor_world("stone");
  RecordingSink sink;
  SoundDirector director(sink, registry());
  const double walked = walk_east(w, director, 240 * 5);  // 5 s: about 21 blocks
  ASSERT_GT(walked, 15.0);
  EXPECT_EQ(static_cast<double>(sink.steps.size()), std::floor(walked / director.config().stride));
  for (const auto& s : sink.steps) {
    EXPECT_EQ(s.material, Material::kStone);
    EXPECT_EQ(s.feet.block.y, 1);  // at the feet, standing on the floor
    EXPECT_EQ(s.feet.frac.y, 0.0);
  }
  // The steps are a stride apart along the walk (their spacing varies only by one physics step's motion).
  for (size_t i = 1; i < sink.steps.size(); ++i) {
    const double dx = (sink.steps[i].feet.block.x + sink.steps[i].feet.frac.x) - (sink.steps[i - 1].feet.block.x + sink.steps[i - 1].feet.frac.x);
    EXPECT_NEAR(dx, director.config().stride, 0.05) << "step " << i;
  }
}

TEST(PlaySound, LongStepsKeepWhatIsWalkedPastAStride) {
  // Ten steps of a whole block each (a fast walker, or a long frame): 10 blocks are 6 strides of 1.6, the
  // remainder of each carried to the next.
  World w = floor_world("stone");
  RecordingSink sink;
  SoundDirector director(sink, registry());
  PlayerState p;
  p.set_feet({0.5, 1.0, 0.5});
  p.on_ground = true;
  for (int i = 0; i < 10; ++i) {
    const PlayerState before = p;
    p.set_feet(p.feet() + glm::dvec3(0.6, 0.0, 0.8));  // a block along (0.6, 0.8)
    director.stepped(before, p, w);
  }
  EXPECT_EQ(sink.steps.size(), 6u);
  EXPECT_NEAR(director.walked(), 10.0 - 6 * 1.6, 1e-9);
}

TEST(PlaySound, TheFootstepIsTheMaterialUnderTheFeet) {
  for (auto [block, material] : {std::pair{"sand", Material::kSand}, {"gravel", Material::kGravel},
                                 {"planks", Material::kWood}, {"grass_block", Material::kDirt}, {"snow", Material::kSnow},
                                 {"glass", Material::kGlass}}) {
    World w = floor_world(block);
    RecordingSink sink;
    SoundDirector director(sink, registry());
    walk_east(w, director, 240 * 2);
    ASSERT_FALSE(sink.steps.empty()) << block;
    for (const auto& s : sink.steps) EXPECT_EQ(s.material, material) << block;
  }
}

TEST(PlaySound, NoFootstepsFlyingOrInTheAir) {
  World w = floor_world("stone");
  RecordingSink sink;
  SoundDirector director(sink, registry());
  walk_east(w, director, 240 * 3, true);
  EXPECT_TRUE(sink.steps.empty());
  // Falling from y 40 onto the floor: in the air the whole way, no step until walked on the ground.
  PlayerState before, after;
  before.set_feet({0.5, 40.0, 0.5});
  after.set_feet({3.5, 39.0, 0.5});
  director.stepped(before, after, w);
  EXPECT_TRUE(sink.steps.empty());
  EXPECT_EQ(director.walked(), 0.0);
  // Landing from a jump: the step that ends on the ground began in the air, its 3 blocks are not walked.
  after.on_ground = true;
  director.stepped(before, after, w);
  // Flying low, touching the ground: not walking either.
  before.on_ground = true;
  before.flying = after.flying = true;
  director.stepped(before, after, w);
  EXPECT_TRUE(sink.steps.empty());
  EXPECT_EQ(director.walked(), 0.0);
}

TEST(PlaySound, DigAndPlaceCarryTheBlocksMaterial) {
  RecordingSink sink;
  SoundDirector director(sink, registry());
  const BlockPos at{1LL << 40, 12, -(1LL << 40)};
  director.dug(Edit{at, {registry().id("sand"), 0}, kAir, 1});
  director.placed(Edit{at, kAir, {registry().id("glass"), 0}, 2});
  director.dug(Edit{at, {registry().id("oak_log"), 0}, kAir, 3});
  ASSERT_EQ(sink.digs.size(), 2u);
  EXPECT_EQ(sink.digs[0].material, Material::kSand);
  EXPECT_EQ(sink.digs[0].cell, at);
  EXPECT_EQ(sink.digs[1].material, Material::kWood);
  ASSERT_EQ(sink.places.size(), 1u);
  EXPECT_EQ(sink.places[0].material, Material::kGlass);
  // Breaking air (nothing) is no sound.
  director.dug(Edit{at, kAir, kAir, 4});
  EXPECT_EQ(sink.digs.size(), 2u);
}

TEST(PlaySound, AmbienceIsTheNearestWaterAndLavaWithinTheRadius) {
  World w = floor_world("stone");
  for (int i = 1; i <= 6; ++i) set(w, {i, 1, 0}, "water");  // 1..6 blocks east of the feet at x = 0
  set(w, {-7, 1, 0}, "water");  // within the radius, but farther than those (and first in the scan's order)
  set(w, {0, 1, 5}, "lava");
  set(w, {0, 1, 30}, "lava");  // beyond the radius (8)
  RecordingSink sink;
  SoundDirector director(sink, registry());
  PlayerState p;
  p.set_feet({0.5, 1.0, 0.5});
  director.frame(p, 1.62, w);
  EXPECT_EQ(sink.listeners, 1);
  EXPECT_EQ(sink.last_eye.block, (BlockPos{0, 2, 0}));
  ASSERT_EQ(sink.water.size(), audio::kMaxEmitters);
  for (size_t i = 0; i < sink.water.size(); ++i) EXPECT_EQ(sink.water[i], (BlockPos{static_cast<int64_t>(i) + 1, 1, 0}));
  ASSERT_EQ(sink.lava.size(), 1u);
  EXPECT_EQ(sink.lava[0], (BlockPos{0, 1, 5}));
  EXPECT_EQ(sink.wind_level, 0.0);
}

TEST(PlaySound, TheListenerIsTheEyeLookingAlongTheView) {
  World w = floor_world("stone");
  RecordingSink sink;
  SoundDirector director(sink, registry());
  PlayerState p;
  p.set_feet({-3.25, 1.0, 7.5});
  for (auto [yaw, pitch] : {std::pair{0.0, 0.0}, {90.0, 30.0}, {200.0, -90.0}, {45.0, 90.0}}) {
    p.yaw = yaw;
    p.pitch = pitch;
    director.frame(p, 1.62, w);
    EXPECT_EQ(sink.last_eye.block, (BlockPos{-4, 2, 7}));
    EXPECT_NEAR(sink.last_eye.frac.y, 0.62, 1e-12);
    EXPECT_NEAR(glm::length(sink.last_forward - look_direction(yaw, pitch)), 0.0, 1e-12);
    // Up is a unit vector at right angles to the look, upward, also looking straight up or down.
    EXPECT_NEAR(glm::length(sink.last_up), 1.0, 1e-9) << yaw << " " << pitch;
    EXPECT_NEAR(glm::dot(sink.last_up, sink.last_forward), 0.0, 1e-9);
    if (std::abs(pitch) < 90) {
      EXPECT_GT(sink.last_up.y, 0.0);
    }
  }
}

TEST(PlaySound, WindRisesWithHeight) {
  World w = floor_world("stone");
  RecordingSink sink;
  SoundDirector director(sink, registry());
  PlayerState p;
  const SoundConfig c = director.config();
  for (auto [y, level] : {std::pair{64.0, 0.0}, {c.wind_from_y, 0.0}, {(c.wind_from_y + c.wind_full_y) / 2, 0.5},
                          {c.wind_full_y, 1.0}, {250.0, 1.0}}) {
    p.set_feet({0.5, y, 0.5});
    director.frame(p, 1.62, w);
    EXPECT_NEAR(sink.wind_level, level, 1e-9) << "feet at y " << y;
  }
}

TEST(PlaySound, TheMixerSinkNamesOnlySoundsOfTheBank) {
  // Every sound the game can ask for exists: a null mixer counts names it does not know.
  const audio::SoundBank bank = audio::SoundBank::generate(1);
  auto mixer = audio::make_null_mixer(bank, "test");
  MixerSoundSink sink(*mixer);
  const audio::WorldPoint at{{3, 4, 5}, glm::dvec3(0.5)};
  sink.listener(at, {0, 0, -1}, {0, 1, 0});
  for (Material m : audio::kMaterials) {
    sink.footstep(m, at);
    sink.dig(m, at.block);
    sink.place(m, at.block);
  }
  const std::vector<BlockPos> cells{{1, 2, 3}};
  sink.ambience(cells, cells);
  sink.wind(0.5);
  const audio::MixerCounts c = mixer->counts();
  EXPECT_EQ(c.unknown_sounds, 0u);
  EXPECT_EQ(c.one_shots, 3 * audio::kMaterials.size());
  EXPECT_EQ(c.loops, 4u);  // music, water, lava, wind
  EXPECT_EQ(c.listener, 1u);
}

// Through the frame loop (headless, the flat world: grass at y 0 outside the checkerboard, dirt below): walking
// east along z = 10.5 from x = 17.5 steps on grass (dirt) every stride; a click breaks the grass ahead (a dig of
// dirt there), a right click fills the hole with the hotbar's block (a place of its material).
TEST(PlaySound, TheGameTellsItsSinkFootstepsDigsAndPlaces) {
  const std::string dir = testing::temp_dir("sound_game");
  testing::RecordingBuilder b(testing::flat_header(17.5, 1.0, 10.5, 90.0, 0.0));
  b.key(5, Key::kW, true).key(65, Key::kW, false);
  b.look(80, 90.0, -45.0).click(82, MouseButton::kLeft).click(90, MouseButton::kRight);
  const Recording rec = b.finish(100, dir + "/sound.rec");
  auto s = testing::open_session(rec.header);
  ASSERT_TRUE(s);
  RecordingSink sink;
  Game& g = s->game();
  g.set_sound_sink(&sink);
  const RunResult r = run_events(g, rec.events, rec.frames, 4, true);
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(sink.listeners, 100);
  const double walked = g.player().feet().x - 17.5;
  ASSERT_GT(walked, 3.0);
  EXPECT_EQ(static_cast<double>(sink.steps.size()), std::floor(walked / g.sound()->config().stride));
  for (const auto& st : sink.steps) EXPECT_EQ(st.material, Material::kDirt);
  ASSERT_EQ(sink.digs.size(), 1u);
  EXPECT_EQ(sink.digs[0].material, Material::kDirt);
  EXPECT_EQ(sink.digs[0].cell.y, 0);
  ASSERT_EQ(sink.places.size(), 1u);
  EXPECT_EQ(sink.places[0].cell, sink.digs[0].cell);
  const auto placed = audio::material_of(registry()[g.world().get(sink.places[0].cell).id]);
  ASSERT_TRUE(placed);
  EXPECT_EQ(sink.places[0].material, *placed);
  // Without a sink the game is silent and computes nothing.
  g.set_sound_sink(nullptr);
  EXPECT_EQ(g.sound(), nullptr);
}

}  // namespace
}  // namespace voxen::play
