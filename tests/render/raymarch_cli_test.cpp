// `voxen shot --render-path raymarch` through the real binary: --compare-raster reports how many pixels name the raster
// path's surface (render::match_frames) and writes where they do not; the flags refuse what they cannot do with a clear message;
// --json carries the march's steps per ray and the beam.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "shot_support.h"
#include "voxen/render/image.h"

namespace {

using voxen::testing::run_shot;
using voxen::testing::temp_path;

const std::vector<std::string> kMeadow = {"--seed", "1", "--pos", "-700,surface,-768", "--look", "80,-12", "--size", "320x180",
                                          "--render-distance", "3"};

TEST(RayMarchCli, ComparesWithTheRasterPathAndShowsWhereTheyDiffer) {
  const std::string where = temp_path("compare");
  std::vector<std::string> args = kMeadow;
  args.insert(args.end(), {"--render-path", "raymarch", "--compare-raster", where, "--shadows", "traced"});
  const auto r = run_shot(args);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const auto& c = r.json["compare_raster"];
  const uint64_t pixels = c["pixels"], same = c["same_cell_and_face"], surface = c["surface_pixels"];
  const uint64_t ties = c["edge_ties"], silhouettes = c["silhouettes"], differ = c["differ"];
  EXPECT_EQ(pixels, 320u * 180u);
  EXPECT_GT(surface, pixels / 2);
  EXPECT_EQ(same + ties + silhouettes + differ, pixels);
  EXPECT_GE((same + ties) * 1000, pixels * 999);
  EXPECT_DOUBLE_EQ(c["agreement"].get<double>(), static_cast<double>(same + ties) / static_cast<double>(pixels));
  EXPECT_TRUE(c["look_pass"].get<bool>());
  EXPECT_EQ(r.json["shadows"], "traced");
  EXPECT_GT(r.json["march"]["steps_mean"].get<double>(), 1.0);
  EXPECT_EQ(r.json["march"]["rays"], pixels);
  // The picture: yellow exactly at the edge ties, red at the silhouettes, magenta at the other differences.
  auto pic = voxen::render::load_png(where);
  ASSERT_TRUE(pic.ok()) << pic.error().message;
  uint64_t red = 0, yellow = 0, magenta = 0;
  for (int y = 0; y < pic->height; ++y)
    for (int x = 0; x < pic->width; ++x) {
      const uint8_t* p = pic->at(x, y);
      red += p[0] == 255 && p[1] == 0 && p[2] == 0;
      yellow += p[0] == 255 && p[1] == 255 && p[2] == 0;
      magenta += p[0] == 255 && p[1] == 0 && p[2] == 255;
    }
  EXPECT_EQ(red, silhouettes);
  EXPECT_EQ(yellow, ties);
  EXPECT_EQ(magenta, differ);
  EXPECT_GT(red + yellow + magenta, 0u) << "a view with no difference at all checks nothing here";
  std::remove(where.c_str());
}

TEST(RayMarchCli, AGlassPanelSeenHeadOnIsBlendedOnce) {
  // A row of 5 glass blocks in the sky, seen head on: rays on the diagonal of the panel's quads meet both triangles,
  // and a quad composited twice darkened a line of pixels (30 pixels over 6/255: the look rule failed).
  std::vector<std::string> a = {"--pos", "2.5,200.5,-5", "--look", "0,0", "--size", "320x180", "--render-distance", "3",
                                "--render-path", "raymarch", "--compare-raster", temp_path("glass")};
  for (int x = 0; x < 5; ++x) a.insert(a.end(), {"--edit", std::to_string(x) + ",200,-10=glass"});
  const auto r = run_shot(a);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_TRUE(r.json["compare_raster"]["look_pass"].get<bool>()) << r.json["compare_raster"].dump();
}

TEST(RayMarchCli, RefusesWhatItCannotDo) {
  std::vector<std::string> a = kMeadow;
  a.insert(a.end(), {"--compare-raster", temp_path("x")});
  auto r = run_shot(a);
  EXPECT_EQ(r.run.exit_code, 2);
  EXPECT_NE(r.run.err.find("--compare-raster"), std::string::npos) << r.run.err;
  EXPECT_NE(r.run.err.find("raymarch"), std::string::npos) << r.run.err;
  std::vector<std::string> b = kMeadow;
  b.insert(b.end(), {"--render-path", "raytrace"});
  r = run_shot(b);
  EXPECT_EQ(r.run.exit_code, 2);
  EXPECT_NE(r.run.err.find("--render-path"), std::string::npos) << r.run.err;
  std::vector<std::string> c = kMeadow;
  c.insert(c.end(), {"--shadows", "soft"});
  r = run_shot(c);
  EXPECT_EQ(r.run.exit_code, 2);
  EXPECT_NE(r.run.err.find("--shadows"), std::string::npos) << r.run.err;
  // The per-chunk path draws no shadows: asking for both is a contradiction, not a silent picture without them.
  std::vector<std::string> d = kMeadow;
  d.insert(d.end(), {"--render-path", "per-chunk", "--shadows", "traced"});
  r = run_shot(d);
  EXPECT_EQ(r.run.exit_code, 2);
  EXPECT_NE(r.run.err.find("per-chunk"), std::string::npos) << r.run.err;
  // The comparison's picture would overwrite the shot.
  const auto same = voxen::testing::run_voxen({"shot", "--pos", "0,surface,0", "--size", "64x36", "--render-path", "raymarch",
                                               "--out", "/tmp/voxen_same.png", "--compare-raster", "/tmp/voxen_same.png"});
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_NE(same.err.find("another file"), std::string::npos) << same.err;
}

TEST(RayMarchCli, OnAGl33ContextTheShadowsAreSaidToBeDropped) {
  std::vector<std::string> a = kMeadow;
  a.insert(a.end(), {"--render-path", "raymarch", "--shadows", "traced"});
  const auto r = run_shot(a, "MESA_GL_VERSION_OVERRIDE=3.3 MESA_GLSL_VERSION_OVERRIDE=330");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.json["render_path"], "per-chunk");
  EXPECT_EQ(r.json["shadows"], "none");
  EXPECT_NE(r.run.err.find("drawing no shadows"), std::string::npos) << r.run.err;
}

}  // namespace
