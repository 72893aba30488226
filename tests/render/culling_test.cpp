// Culling in-process (ARCHITECTURE "Visibility"): the oracle is the same frame drawn with no culling at all. A fixed
// seeded set of 200 cameras on seed 1 (above ground, in caves, in water, at column and section borders, looking
// straight up and down, at 30,000,000 blocks), each drawn with --culling none, all and occlusion, gives the same
// bytes; edits that open a tunnel out of a cave and close it again between frames too. The stages ran and hid
// sections (so the check is not vacuous). Red before opaque quads grew by 1/256 pixel (terrain_vert.glsl, u_seam):
// T-junction pinholes showed what lies behind the ground, which culling rightly hid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "voxen/core/hash.h"
#include "voxen/cull/occlusion.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"
#include "gl_suite.h"

using namespace voxen;
using namespace voxen::render;

namespace {

using render_test::kHeight;
using render_test::kWidth;

constexpr double kRadius = 48.0;  // render distance 3
constexpr char kDefaultGenerator[] = "default";

class Culling : public render_test::StreamedGlTest<kDefaultGenerator> {
 protected:
  // `pool`: the culling stages' helpers (null: the calling thread alone).
  Image draw(const Camera& cam, CullMode mode, FrameStats* stats = nullptr, JobPool* pool = nullptr) {
    FrameParams fp;
    fp.camera = cam;
    fp.fog_end = kRadius;
    fp.eye_sky_light = light_sky(world->light(cam.block));
    fp.culling.mode = mode;
    fp.culling.store = &streamer->visibility();
    fp.culling.pool = pool;
    const FrameStats st = renderer->render(fp);
    if (stats) *stats = st;
    return renderer->read_pixels();
  }
  // Draws `cam` with culling none, all (on the pool) and occlusion (on the calling thread alone); expects the same
  // bytes and adds to the tallies. Every 8th camera also draws all on the calling thread alone: the same sections
  // hidden, the same occluders drawn.
  void check(const Camera& cam, const std::string& what) {
    char eye[160];
    std::snprintf(eye, sizeof eye, ": --pos %.3f,%.3f,%.3f --look %g,%g", static_cast<double>(cam.block.x) + cam.frac.x,
                  static_cast<double>(cam.block.y) + cam.frac.y, static_cast<double>(cam.block.z) + cam.frac.z, cam.yaw_deg,
                  cam.pitch_deg);
    SCOPED_TRACE(what + eye);
    FrameStats all, occ;
    const Image a = draw(cam, CullMode::kAll, &all, s_shared->pool.get());
    if (cameras % 8 == 0) {
      FrameStats alone;
      const Image b = draw(cam, CullMode::kAll, &alone);
      EXPECT_EQ(std::memcmp(a.pixels.data(), b.pixels.data(), a.pixels.size()), 0) << "all: pool and calling thread";
      EXPECT_EQ(all.sections_hidden_by_caves, alone.sections_hidden_by_caves);
      EXPECT_EQ(all.sections_hidden_by_occlusion, alone.sections_hidden_by_occlusion);
      EXPECT_EQ(all.occluder_boxes, alone.occluder_boxes);
      ++threaded_checks;
    }
    const Image none = draw(cam, CullMode::kNone);
    const Image o = draw(cam, CullMode::kOcclusion, &occ);
    size_t differ_all = 0, differ_occ = 0;
    for (int y = 0; y < a.height; ++y)
      for (int x = 0; x < a.width; ++x) {
        differ_all += std::memcmp(a.at(x, y), none.at(x, y), 4) != 0;
        differ_occ += std::memcmp(o.at(x, y), none.at(x, y), 4) != 0;
      }
    EXPECT_EQ(differ_all, 0u) << "culling all: " << all.sections_hidden_by_caves << " hidden by caves, "
                              << all.sections_hidden_by_occlusion << " by occlusion";
    EXPECT_EQ(differ_occ, 0u) << "culling occlusion: " << occ.sections_hidden_by_occlusion << " hidden";
    ++cameras;
    if (!all.culling_eye_near_opaque) ++searched;
    in_frustum += all.sections_in_frustum;
    hidden_caves += all.sections_hidden_by_caves;
    hidden_occlusion += all.sections_hidden_by_occlusion;
    hidden_occlusion_alone += occ.sections_hidden_by_occlusion;
  }
  // An air cell at least 6 blocks under the surface with air above it and no sky light (a cave), searched in a
  // square of `reach` blocks round (x, z) from a hashed start; nullopt when none.
  std::optional<BlockPos> find_cave(int64_t x, int64_t z, int reach, uint64_t salt) const {
    const uint16_t air = 0;
    for (int k = 0; k < 4 * reach * reach; ++k) {
      const uint64_t h = hash3(salt, k, 0, 0);
      const int64_t cx = x - reach + static_cast<int64_t>(h % static_cast<uint64_t>(2 * reach));
      const int64_t cz = z - reach + static_cast<int64_t>((h >> 20) % static_cast<uint64_t>(2 * reach));
      const int64_t top = s_shared->generator->surface_y(cx, cz) - 6;
      for (int64_t y = top; y > kMinY + 2; --y) {
        const BlockPos p{cx, y, cz};
        if (world->get(p).id == air && world->get({cx, y + 1, cz}).id == air && light_sky(world->light(p)) == 0 &&
            world->get({cx, y - 1, cz}).id != air)
          return BlockPos{cx, y + 1, cz};
      }
    }
    return std::nullopt;
  }
  // A water cell with water above it (under a sea or lake's surface) near (x, z); nullopt when none.
  std::optional<BlockPos> find_water(int64_t x, int64_t z, int reach) const {
    const uint16_t water = s_shared->registry.id("water");
    for (int64_t dz = -reach; dz <= reach; dz += 3)
      for (int64_t dx = -reach; dx <= reach; dx += 3)
        for (int64_t y = 80; y > 20; --y) {
          const BlockPos p{x + dx, y, z + dz};
          if (world->get(p).id == water && world->get({p.x, y + 1, p.z}).id == water) return p;
        }
    return std::nullopt;
  }

  int cameras = 0, searched = 0, threaded_checks = 0;
  uint64_t in_frustum = 0, hidden_caves = 0, hidden_occlusion = 0, hidden_occlusion_alone = 0;
};

TEST_F(Culling, TwoHundredCamerasDrawTheBytesOfNoCulling) {
  constexpr double kPitches[] = {-90.0, -40.0, -12.0, 0.0, 8.0, 35.0, 90.0};
  // 24 places (the last at 30,000,000), 8 cameras each, then the tunnel's edits.
  for (int place = 0; place < 24; ++place) {
    const uint64_t h = hash3(0xC0FFEE, place, 0, 0);
    const int64_t x = place == 23 ? 30'000'000 : -3000 + static_cast<int64_t>(h % 6000);
    const int64_t z = place == 23 ? -30'000'000 : -3000 + static_cast<int64_t>((h >> 16) % 6000);
    load_around(x, z);
    const int64_t ground = s_shared->generator->surface_y(x, z);
    const auto look = [&](int k) {
      const uint64_t hk = hash3(0xA11, place, k, 0);
      return std::pair<double, double>{static_cast<double>(hk % 360), kPitches[(hk >> 12) % 7]};
    };
    const std::string where = "place " + std::to_string(place) + " (" + std::to_string(x) + ", " + std::to_string(z) + ")";
    // Above ground: 2 blocks over it, on a column border (x = 16k, frac 0), 40 blocks up, on a section border.
    for (int k = 0; k < 4; ++k) {
      const auto [yaw, pitch] = look(k);
      BlockPos eye{x, ground + 2, z};
      glm::dvec3 frac{0.37, 0.61, 0.52};
      if (k == 1) eye.x = x & ~int64_t{15}, frac.x = 0.0;
      if (k == 2) eye.y = ground + 40;
      if (k == 3) eye.y = std::max<int64_t>(ground + 2, section_base_y(static_cast<int>((ground + 2 - kMinY) / 16) + 1)), frac.y = 0.001;
      check(camera(eye, frac, yaw, pitch), where + " above ground, camera " + std::to_string(k));
    }
    // Straight down from high up, straight up from the ground.
    check(camera({x, ground + 60, z}, {0.5, 0.5, 0.5}, 17.0, -90.0), where + " straight down");
    check(camera({x, ground + 2, z}, {0.5, 0.5, 0.5}, 17.0, 90.0), where + " straight up");
    // In a cave (or, without one near, in the rock under the ground), and in water (or else low over the ground).
    const auto [yaw_c, pitch_c] = look(6);
    const std::optional<BlockPos> cave = find_cave(x, z, 24, static_cast<uint64_t>(place));
    check(camera(cave.value_or(BlockPos{x, ground - 20, z}), {0.5, 0.3, 0.5}, yaw_c, pitch_c),
          where + (cave ? " in a cave" : " in rock"));
    const auto [yaw_w, pitch_w] = look(7);
    const std::optional<BlockPos> water = find_water(x, z, 24);
    check(camera(water.value_or(BlockPos{x, ground + 1, z}), {0.5, 0.2, 0.5}, yaw_w, pitch_w),
          where + (water ? " in water" : " low over the ground"));
  }
  // Edits between frames: from a cave, a tunnel dug 12 blocks along the view opens the wall (frames after each
  // third block), then is filled again block by block; each frame drawn with and without culling.
  load_around(400, -900);
  std::optional<BlockPos> cave;
  for (uint64_t salt = 0; salt < 8 && !cave; ++salt) cave = find_cave(400, -900, 24, salt);
  ASSERT_TRUE(cave.has_value()) << "no cave near (400, -900) on seed 1";
  const Camera cam = camera(*cave, {0.5, 0.3, 0.5}, 90.0, 0.0);  // looking east (+X)
  std::vector<Edit> dug;
  for (int i = 1; i <= 12; ++i)
    for (int dy = 0; dy <= 1; ++dy) {
      const BlockPos p{cave->x + i, cave->y + dy - 1, cave->z};
      const Cell before = world->get(p);
      if (before.id == 0) continue;
      dug.push_back(Edit{p, before, Cell{}});
      ASSERT_TRUE(streamer->apply_edit(dug.back()).applied);
      if (dug.size() % 3 == 0) check(cam, "tunnel dug " + std::to_string(dug.size()) + " blocks");
    }
  ASSERT_GE(dug.size(), 6u) << "the tunnel found too little rock to dig";
  check(cam, "tunnel open");
  for (size_t i = dug.size(); i-- > 0;) {
    ASSERT_TRUE(streamer->apply_edit(Edit{dug[i].pos, dug[i].after, dug[i].before}).applied);
    if (i % 3 == 0) check(cam, "tunnel filled to " + std::to_string(i) + " blocks");
  }
  EXPECT_GE(cameras, 200);
  EXPECT_GE(searched, cameras / 2) << "the culling stages ran for too few cameras";
  EXPECT_GE(threaded_checks, 25) << "too few cameras compared the pool's culling with the calling thread's";
  EXPECT_GT(hidden_caves, 0u) << "cave culling hid nothing: the check would pass without it";
  EXPECT_GT(hidden_occlusion, 0u) << "occlusion hid nothing after cave culling";
  EXPECT_GT(hidden_occlusion_alone, hidden_occlusion) << "occlusion alone hid no more than after cave culling";
  std::printf("culling: %d cameras, the stages ran for %d; of %llu sections in the frustum, caves hid %llu, then "
              "occlusion %llu (occlusion alone: %llu)\n",
              cameras, searched, static_cast<unsigned long long>(in_frustum), static_cast<unsigned long long>(hidden_caves),
              static_cast<unsigned long long>(hidden_occlusion), static_cast<unsigned long long>(hidden_occlusion_alone));
}

// Stone y 0..19 in columns (0, 0) and (1, 0), a dirt wall x 36, y 0..29 in column (2, 0), air elsewhere.
class SlabAndWall final : public gen::Generator {
 public:
  explicit SlabAndWall(const BlockRegistry& r) : m_stone(r.id("stone")), m_dirt(r.id("dirt")) {}
  void generate(Column& out) const override {
    const ColumnPos p = out.pos();
    if (p.z != 0) return;
    for (int z = 0; z < 16; ++z)
      for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 16; ++x) {
          if ((p.x == 0 || p.x == 1) && y < 20) out.set(x, y, z, Cell{m_stone});
          if (p.x == 2 && x == 4) out.set(x, y, z, Cell{m_dirt});
        }
  }
  int64_t surface_y(int64_t, int64_t) const override { return 19; }
  std::string_view name() const override { return "slab-and-wall"; }
  uint64_t seed() const override { return 0; }

 private:
  uint16_t m_stone, m_dirt;
};

// Occluders only where their faces are drawn (ARCHITECTURE, "Visibility"): column (0, 0) is loaded but not drawn
// (a column whose mesh is not built yet), so the stone of column (1, 0) behind it shows no face toward the eye (its
// west faces are hidden against (0, 0)'s stone) and the eye sees through both to the dirt wall beyond. The stone's
// slab must not hide the wall: occluders come only from within the columns in view that are all drawn. (Red with
// occluders taken up to the fog end.)
TEST_F(Culling, OccludersComeOnlyFromWhereEveryColumnInViewIsDrawn) {
  SlabAndWall gen(s_shared->registry);
  stream::GeneratedSource src(gen);
  World w;
  stream::ColumnStreamer s(w, *renderer, src, *s_shared->light, *s_shared->baked, *s_shared->pool);
  const Camera cam = camera({-9, 10, 8}, {0.5, 0.5, 0.5}, 90.0, 0.0);  // west of the slab, looking east
  std::vector<ColumnPos> draw = stream::columns_for_view(cam, kRadius, false);
  std::erase(draw, ColumnPos{0, 0});
  std::vector<ColumnPos> load = stream::with_neighbour_ring(draw);
  ASSERT_TRUE(std::binary_search(load.begin(), load.end(), ColumnPos{0, 0}));
  ASSERT_TRUE(s.load_view(draw, load).ok());
  const auto frame = [&](CullMode mode, FrameStats* st) {
    FrameParams fp;
    fp.camera = cam;
    fp.fog_end = kRadius;
    fp.culling.mode = mode;
    fp.culling.store = &s.visibility();
    const FrameStats out = renderer->render(fp);
    if (st) *st = out;
    return renderer->read_pixels();
  };
  FrameStats occ;
  const Image culled = frame(CullMode::kOcclusion, &occ);
  const Image none = frame(CullMode::kNone, nullptr);
  // The wall shows in the middle of the frame, through the undrawn column and the stone with no face toward the eye.
  const std::vector<float> depth = renderer->read_depth();
  EXPECT_LT(depth[static_cast<size_t>(kHeight / 2) * kWidth + kWidth / 2], 1.0f) << "nothing drawn mid-frame: the case tests nothing";
  EXPECT_FALSE(occ.culling_eye_near_opaque);
  EXPECT_TRUE(culled == none) << occ.sections_hidden_by_occlusion << " sections hidden";
}

}  // namespace
