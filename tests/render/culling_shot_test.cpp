// Cave culling through the real binary (`voxen shot --culling`, ARCHITECTURE "Visibility"): the oracle is the same
// view drawn with no culling at all. A seeded set of cameras on seed 1, underground (in caves or in rock), at and
// above the surface, looking level, up and down, at a small render distance: the picture with `--culling all` is
// the same bytes as with `--culling none`, and the search ran from enough of them and hid sections (so the check
// is not vacuous). 64 cameras through the CLI (with occlusion since `all` includes it); the 200 cameras and
// the edits are in-process (culling_test.cpp), the moving cameras in tests/playtest/culling_tour_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shot_support.h"
#include "voxen/core/hash.h"

using voxen::testing::pixels_differing;
using voxen::testing::run_shot;
using voxen::testing::ShotResult;

namespace {

TEST(CullingShot, CullingAllDrawsTheBytesOfNoCulling) {
  constexpr int kYs[] = {-35, -5, 30, 70, 85, 100, 120, 150, 200};
  constexpr double kPitches[] = {-89.0, -45.0, -15.0, 0.0, 20.0, 60.0, 89.0};
  int searched = 0, cameras = 0;
  uint64_t hidden = 0, in_frustum = 0;
  for (uint64_t k = 0; k < 64; ++k) {
    const uint64_t h = voxen::hash3(0xC011, static_cast<int64_t>(k), 0, 0);
    const std::string pos = std::to_string(-700 + static_cast<int64_t>(h % 1400)) + ".37," +
                            std::to_string(kYs[(h >> 12) % 9]) + ".61," + std::to_string(-700 + static_cast<int64_t>((h >> 20) % 1400)) + ".52";
    const std::string look = std::to_string((h >> 32) % 360) + "," + std::to_string(kPitches[(h >> 44) % 7]);
    const std::vector<std::string> view = {"--seed", "1", "--pos", pos, "--look", look, "--size", "160x90",
                                           "--render-distance", "3", "--far-distance", "0", "--json"};
    SCOPED_TRACE("--pos " + pos + " --look " + look);
    std::vector<std::string> none = view, all = view;
    none.insert(none.end(), {"--culling", "none"});
    all.insert(all.end(), {"--culling", "all"});
    const ShotResult a = run_shot(none), b = run_shot(all);
    ASSERT_EQ(a.run.exit_code, 0) << a.run.err;
    ASSERT_EQ(b.run.exit_code, 0) << b.run.err;
    ++cameras;
    EXPECT_EQ(pixels_differing(a.image, b.image), 0u) << "sections hidden by caves: " << b.json["culling"]["sections_hidden_by_caves"];
    if (!b.json["culling"]["eye_near_opaque"].get<bool>()) ++searched;
    hidden += b.json["culling"]["sections_hidden_by_caves"].get<uint64_t>();
    in_frustum += b.json["culling"]["sections_in_frustum"].get<uint64_t>();
    EXPECT_EQ(a.json["culling"]["sections_hidden_by_caves"].get<uint64_t>(), 0u);
  }
  EXPECT_EQ(cameras, 64);
  EXPECT_GE(searched, 24) << "the search ran from too few of the cameras";
  EXPECT_GT(hidden, 0u) << "cave culling hid nothing: the check would pass without it";
  std::printf("cave culling: searched from %d of 64 cameras, hid %llu of %llu sections in the frustum\n", searched,
              static_cast<unsigned long long>(hidden), static_cast<unsigned long long>(in_frustum));
}

}  // namespace
