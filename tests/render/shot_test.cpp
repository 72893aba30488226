// `voxen shot` through the real binary, headless (EGL surfaceless, llvmpipe), 320x180: pixels read back from the
// PNG it writes, counts from its --json report.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "shot_support.h"

using voxen::testing::file_bytes;
using voxen::testing::pixels_differing;
using voxen::testing::run_shot;
using voxen::testing::ShotResult;

namespace {

// The flat world (its pattern repeats every 64 blocks): the camera above the pond, looking north-north-west at
// the pillars and the row of torch, slabs and stairs. Render distance 4 keeps the test quick.
std::vector<std::string> flat_scene(const std::string& pos = "46.25,9.5,56.75", const std::string& look = "-15,-22",
                                    const std::string& render_distance = "4") {
  return {"--generator", "flat", "--pos", pos, "--look", look, "--size", "320x180", "--render-distance", render_distance};
}

// A default-world view with leaves, water, grass and stone (seed 1, near the origin).
std::vector<std::string> default_scene() {
  return {"--seed", "1", "--pos", "-700,surface,-768", "--look", "80,-12", "--size", "320x180", "--render-distance", "3"};
}

// A coast: beach, shallow and deep water (the translucent pass), trees in the distance.
std::vector<std::string> coast_scene() {
  return {"--seed", "1", "--pos", "-1735,72,-1920", "--look", "15,-14", "--size", "320x180", "--render-distance", "3"};
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

bool is_sky(const uint8_t* p) { return p[2] > p[0] + 40 && p[2] >= p[1]; }
bool is_grass(const uint8_t* p) { return p[1] > p[0] && p[1] > p[2]; }

TEST(Shot, SkyAtTheTopAndTerrainBelow) {
  // Looking south-south-east over open grass (the pond is behind the eye), the cloud layer off (its clouds would be
  // sky too, but not blue: the sky's own tests, sky_test.cpp, check them).
  const ShotResult s = run_shot(with(flat_scene("46.25,9.5,56.75", "165,-8"), {"--no-clouds"}));
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  ASSERT_EQ(s.image.width, 320);
  ASSERT_EQ(s.image.height, 180);
  // The top ten rows are all sky: blue, well above red.
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < s.image.width; ++x) ASSERT_TRUE(is_sky(s.image.at(x, y))) << "pixel " << x << "," << y;
  // The bottom twenty rows are the flat world's grass (the pond and its rim are above them).
  int grass = 0;
  for (int y = s.image.height - 20; y < s.image.height; ++y)
    for (int x = 0; x < s.image.width; ++x) grass += is_grass(s.image.at(x, y));
  EXPECT_GE(grass, 20 * 320 * 95 / 100);
  // Every pixel is opaque.
  for (size_t i = 0; i < s.image.pixel_count(); ++i) ASSERT_EQ(s.image.pixels[i * 4 + 3], 255);
}

// A frame is opaque everywhere, also where alpha-tested plants and leaves are cut out at lower mip levels and where
// water is blended: the PNG carries the framebuffer's alpha, and a cutout fragment that wrote its texel's alpha
// (0.5..1) made distant foliage show pale in any viewer that composites the PNG over white.
TEST(Shot, EveryPixelIsOpaqueOverFoliageAndWater) {
  const ShotResult s = run_shot({"--seed", "1", "--pos", "-520,surface,-768", "--look", "90,-5", "--time-of-day", "0",
                                 "--size", "320x180", "--render-distance", "4"});
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  ASSERT_EQ(s.image.width, 320);
  size_t translucent = 0;
  for (size_t i = 0; i < s.image.pixel_count(); ++i) translucent += s.image.pixels[i * 4 + 3] != 255;
  EXPECT_EQ(translucent, 0u) << "pixels with alpha below 255";
}

TEST(Shot, JsonReportsCountsPhasesAndTheRenderer) {
  const ShotResult s = run_shot(flat_scene());
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  const auto& j = s.json;
  ASSERT_TRUE(j.is_object()) << s.run.out;
  for (const char* k : {"columns_loaded", "sections_drawn", "quads_drawn", "draw_calls", "arena_bytes", "gl_renderer"})
    EXPECT_TRUE(j.contains(k)) << k;
  for (const char* phase : {"generate", "light", "mesh", "upload", "cull", "draw"}) {
    ASSERT_TRUE(j["cpu_ms"].contains(phase)) << phase;
    EXPECT_GE(j["cpu_ms"][phase].get<double>(), 0.0) << phase;
  }
  EXPECT_FALSE(j["gl_renderer"].get<std::string>().empty());
  EXPECT_EQ(j["render_path"], "mdi");
  // The pond is in view: opaque and translucent terrain, one multi-draw-indirect call each.
  EXPECT_EQ(j["draw_calls"], 2);
  EXPECT_GT(j["sections_drawn"].get<int>(), 10);
  EXPECT_GT(j["quads_drawn"].get<int>(), 1000);
  // The ring around the drawn columns is loaded too (light and mesh neighbours).
  EXPECT_GT(j["columns_loaded"].get<int>(), j["columns_drawn"].get<int>());
  EXPECT_GE(j["arena_bytes"].get<int64_t>(), j["arena_used_bytes"].get<int64_t>());
  // One GL buffer per arena here, their sizes as GL reports them adding up to arena_bytes; the GL limits.
  EXPECT_EQ(j["arena_buffers"], 2);
  int64_t sum = 0;
  for (const auto& size : j["arena_buffer_bytes"]) sum += size.get<int64_t>();
  EXPECT_EQ(sum, j["arena_bytes"].get<int64_t>());
  EXPECT_GT(j["arena_limits"]["shader_storage_block_bytes"].get<int64_t>(), 0);
  EXPECT_GT(j["arena_limits"]["texture_buffer_texels"].get<int64_t>(), 0);
  EXPECT_EQ(j["arena_limits"]["override_bytes"], 0);
  EXPECT_LE(j["arena_limits"]["buffer_bytes"].get<int64_t>(), j["arena_limits"]["shader_storage_block_bytes"].get<int64_t>());
  EXPECT_TRUE(j["frame_ms"].contains("sort"));
  EXPECT_GT(j["translucent_sorted"]["sections"].get<int>(), 0) << "the pond's sections are sorted for the eye";
}

// The far view through the CLI (seed 1, on a hill looking north over the land, render distance 3 = 48 blocks): to
// 1,536 blocks it turns sky below the horizon into terrain (pixels that were sky in the far-off picture), reports
// its LOD sections, quads, draw calls and bytes, and is the same file on 1 and 2 worker threads; a far distance at
// the render radius is off, the far-off picture byte for byte.
TEST(Shot, FarViewFillsTheSkyBelowTheHorizonAndIsOffAtTheRenderRadius) {
  const std::vector<std::string> scene = {"--seed", "1", "--pos", "440,150,120", "--look", "0,-6", "--size", "320x180",
                                          "--render-distance", "3"};
  const ShotResult off = run_shot(scene);
  ASSERT_EQ(off.run.exit_code, 0) << off.run.err;
  const std::string mask_path = voxen::testing::temp_path("mask");
  const ShotResult on = run_shot(with(scene, {"--far-distance", "1536", "--threads", "2", "--terrain-mask", mask_path}), "", /*keep=*/true);
  ASSERT_EQ(on.run.exit_code, 0) << on.run.err;
  const auto& j = on.json;
  EXPECT_EQ(j["far_distance"].get<double>(), 1536.0);
  EXPECT_GT(j["lod_sections_drawn"].get<int>(), 20);
  EXPECT_GT(j["lod_quads"].get<int64_t>(), 1000);
  EXPECT_EQ(j["lod_draw_calls"].get<int>(), 1);  // far water is opaque: one MDI call for the one LOD buffer
  EXPECT_GT(j["lod_gpu_bytes"].get<int64_t>(), 0);
  EXPECT_GT(j["lod_cpu_bytes"].get<int64_t>(), 0);
  int per_level = 0;
  for (const auto& n : j["lod_sections_per_level"]) per_level += n.get<int>();
  EXPECT_EQ(per_level, j["lod_sections_drawn"].get<int>());
  EXPECT_EQ(off.json["lod_sections_drawn"].get<int>(), 0);
  // Below the middle row (6 degrees down and more: rays from y 150 reach sea level within 830 blocks) every pixel
  // is terrain with the far view, where without it most are fog over nothing (pixels differ).
  size_t sky = 0, changed = 0;
  for (int y = 90; y < 180; ++y)
    for (int x = 0; x < 320; ++x) {
      sky += is_sky(on.image.at(x, y));
      changed += std::memcmp(on.image.at(x, y), off.image.at(x, y), 4) != 0;
    }
  EXPECT_EQ(sky, 0u) << "sky pixels below the horizon with the far view on";
  EXPECT_GT(changed, 320u * 90u / 2u) << "the far view changed too few pixels";
  // The terrain mask (from the depth buffer, far-only pixels included): white over every pixel of the lower half, black
  // over the sky-coloured pixels of the upper rows, its white count the JSON's terrain_pixels.
  auto mask = voxen::render::load_png(mask_path);
  ASSERT_TRUE(mask.ok()) << mask.error().to_string();
  std::remove(mask_path.c_str());
  uint64_t white = 0, lower_black = 0, sky_white = 0;
  for (int y = 0; y < 180; ++y)
    for (int x = 0; x < 320; ++x) {
      const bool w = mask->at(x, y)[0] == 255;
      white += w;
      if (y >= 90) lower_black += !w;
      if (y < 20 && is_sky(on.image.at(x, y))) sky_white += w;
    }
  EXPECT_EQ(white, j["terrain_pixels"].get<uint64_t>());
  EXPECT_EQ(lower_black, 0u);
  EXPECT_EQ(sky_white, 0u);
  // One worker or two: the same bytes.
  const ShotResult one = run_shot(with(scene, {"--far-distance", "1536", "--threads", "1"}), "", /*keep=*/true);
  ASSERT_EQ(one.run.exit_code, 0) << one.run.err;
  EXPECT_EQ(file_bytes(one.path), file_bytes(on.path));
  std::remove(one.path.c_str());
  std::remove(on.path.c_str());
  // At the render radius (3 columns = 48 blocks) the far view is off: the far-off picture.
  const ShotResult at = run_shot(with(scene, {"--far-distance", "48"}));
  ASSERT_EQ(at.run.exit_code, 0) << at.run.err;
  EXPECT_EQ(pixels_differing(at.image, off.image), 0u);
  EXPECT_EQ(at.json["far_distance"].get<double>(), 0.0);
}

// The terrain mask shows terrain only nearer than the fog end: past it the fog is complete and the sky shows, yet a
// near section is drawn whole when its footprint is within the render radius. The flat world along x = 10.5 (open
// ground, top face at y 1) from 16 blocks up at z = -7.5, looking north 20 degrees down, render distance 2 (fog end
// 32 blocks; the column z -48..-32 is drawn, its near edge 24.5 blocks away), far view off: down the middle column,
// every row whose ray meets the ground under 30 blocks away (horizontally) is white, every row meeting it past 34
// blocks, or not at all, black (seen red: the mask from depth alone had the rows out to 40.5 blocks white).
TEST(Shot, TheTerrainMaskLeavesOutTerrainWhollyFog) {
  const std::string mask_path = voxen::testing::temp_path("fog_mask");
  const ShotResult s = run_shot({"--generator", "flat", "--pos", "10.5,17,-7.5", "--look", "0,-20", "--size", "320x180",
                                 "--render-distance", "2", "--far-distance", "0", "--terrain-mask", mask_path});
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  auto mask = voxen::render::load_png(mask_path);
  ASSERT_TRUE(mask.ok()) << mask.error().to_string();
  std::remove(mask_path.c_str());
  const double pi = 3.14159265358979323846, t = std::tan(70.0 / 2 * pi / 180.0), pitch = -20.0 * pi / 180.0;
  int near_rows = 0, far_rows = 0;
  for (int y = 0; y < 180; ++y) {
    const double ndc_y = 1.0 - (y + 0.5) / 180.0 * 2.0;
    const double dy = std::sin(pitch) + ndc_y * t * std::cos(pitch);         // the ray's rise per unit forward
    const double dh = std::cos(pitch) - ndc_y * t * std::sin(pitch);         // its horizontal run (north)
    const double dist = dy < 0 ? 16.0 / -dy * dh : 1e9;                       // horizontal distance to the ground
    const bool white = mask->at(160, y)[0] == 255;
    if (dist < 30.0) {
      ++near_rows;
      EXPECT_TRUE(white) << "row " << y << ": ground " << dist << " blocks away";
    } else if (dist > 34.0) {
      ++far_rows;
      EXPECT_FALSE(white) << "row " << y << ": ground " << dist << " blocks away, past the fog end (32)";
    }
  }
  EXPECT_GT(near_rows, 40);
  EXPECT_GT(far_rows, 40);
}

TEST(Shot, ALoweredArenaLimitDrawsTheSamePictureWithNoLargerBuffer) {
  // Every column within 6 of the plain (about 4 MiB of quads) with the arena's buffers limited to 1 MiB: several
  // buffers, none larger than 1 MiB as GL reports them, one multi-draw call per buffer, and the same PNG bytes.
  const std::vector<std::string> scene = {"--seed", "1", "--pos", "-520,surface,-768", "--look", "90,-5", "--size",
                                          "320x180", "--render-distance", "6", "--load-all"};
  const ShotResult unlimited = run_shot(scene, "", true);
  const ShotResult limited = run_shot(with(scene, {"--arena-limit-mib", "1"}), "", true);
  ASSERT_EQ(unlimited.run.exit_code, 0) << unlimited.run.err;
  ASSERT_EQ(limited.run.exit_code, 0) << limited.run.err;
  EXPECT_EQ(file_bytes(unlimited.path), file_bytes(limited.path));
  std::remove(unlimited.path.c_str());
  std::remove(limited.path.c_str());
  EXPECT_EQ(limited.json["arena_limits"]["override_bytes"], 1 << 20);
  EXPECT_EQ(limited.json["arena_limits"]["buffer_bytes"], 1 << 20);
  EXPECT_GT(limited.json["arena_buffers"].get<int>(), 3);
  for (const auto& size : limited.json["arena_buffer_bytes"]) EXPECT_LE(size.get<int64_t>(), 1 << 20);
  EXPECT_EQ(unlimited.json["draw_calls"], 2);
  EXPECT_GT(limited.json["draw_calls"].get<int>(), 3);
  EXPECT_EQ(limited.json["quads_drawn"], unlimited.json["quads_drawn"]);
}

TEST(Shot, MdiDrawCallsStayTwoWhateverTheNumberOfSections) {
  const ShotResult near = run_shot(flat_scene("46.25,9.5,56.75", "-15,-22", "2"));
  const ShotResult far = run_shot(flat_scene("46.25,9.5,56.75", "-15,-22", "5"));
  const ShotResult per_chunk = run_shot(with(flat_scene("46.25,9.5,56.75", "-15,-22", "5"), {"--render-path", "per-chunk"}));
  ASSERT_EQ(near.run.exit_code, 0) << near.run.err;
  ASSERT_EQ(far.run.exit_code, 0) << far.run.err;
  ASSERT_EQ(per_chunk.run.exit_code, 0) << per_chunk.run.err;
  EXPECT_LT(near.json["sections_drawn"].get<int>(), far.json["sections_drawn"].get<int>());
  EXPECT_EQ(near.json["draw_calls"], 2);
  EXPECT_EQ(far.json["draw_calls"], 2);
  // Per chunk: one draw per visible mesh (each section with opaque quads, plus those with water).
  EXPECT_EQ(per_chunk.json["render_path"], "per-chunk");
  EXPECT_GT(per_chunk.json["draw_calls"].get<int>(), far.json["sections_drawn"].get<int>());
}

TEST(Shot, MdiAndPerChunkPathsRenderIdenticalPixels) {
  for (const auto& scene : {flat_scene(), default_scene(), coast_scene()}) {
    const ShotResult mdi = run_shot(with(scene, {"--render-path", "mdi"}));
    const ShotResult chunk = run_shot(with(scene, {"--render-path", "per-chunk"}));
    ASSERT_EQ(mdi.run.exit_code, 0) << mdi.run.err;
    ASSERT_EQ(chunk.run.exit_code, 0) << chunk.run.err;
    EXPECT_EQ(mdi.json["draw_calls"].get<int>() <= 2, true);
    EXPECT_GT(chunk.json["draw_calls"].get<int>(), 2);
    EXPECT_EQ(pixels_differing(mdi.image, chunk.image), 0u) << "of " << mdi.image.pixel_count();
  }
}

TEST(Shot, FarFromTheOriginRendersTheSamePixels) {
  // The flat world repeats every 64 blocks; 30,000,000 and 2^40 are multiples of 64, so these three cameras see
  // the same scene from the same relative position (binary fractions keep the eye exactly the same). The cloud
  // layer repeats every 4,096 blocks, which 30,000,000 is not a multiple of: off here (sky_test.cpp checks the
  // clouds 28,672,000 blocks out).
  const ShotResult origin = run_shot(with(flat_scene("46.25,9.5,56.75"), {"--no-clouds"}));
  const ShotResult thirty = run_shot(with(flat_scene("30000046.25,9.5,-29999943.25"), {"--no-clouds"}));
  const ShotResult far = run_shot(with(flat_scene("1099511627822.25,9.5,1099511627832.75"), {"--no-clouds"}));
  ASSERT_EQ(origin.run.exit_code, 0) << origin.run.err;
  ASSERT_EQ(thirty.run.exit_code, 0) << thirty.run.err;
  ASSERT_EQ(far.run.exit_code, 0) << far.run.err;
  ASSERT_EQ(origin.image.pixel_count(), 57600u);
  EXPECT_EQ(pixels_differing(origin.image, thirty.image), 0u) << "of 57,600 at (30,000,000, y, -30,000,000)";
  EXPECT_EQ(pixels_differing(origin.image, far.image), 0u) << "of 57,600 at (2^40, y, 2^40)";
}

TEST(Shot, TwoRendersOfOneSceneAreIdenticalFiles) {
  const ShotResult a = run_shot(coast_scene(), "", true);
  const ShotResult b = run_shot(coast_scene(), "", true);
  ASSERT_EQ(a.run.exit_code, 0) << a.run.err;
  ASSERT_EQ(b.run.exit_code, 0) << b.run.err;
  EXPECT_EQ(file_bytes(a.path), file_bytes(b.path));
  EXPECT_FALSE(file_bytes(a.path).empty());
  std::remove(a.path.c_str());
  std::remove(b.path.c_str());
}

TEST(Shot, SurfacePutsTheEyeTwoBlocksAboveTheGround) {
  // The flat world's ground top is y = 1 (grass at y = 0): the eye is at 3.
  const ShotResult s = run_shot(flat_scene("46.25,surface,56.75"));
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  EXPECT_DOUBLE_EQ(s.json["eye"]["y"].get<double>(), 3.0);
}

TEST(Shot, MissingEglDisplayGivesAClearError) {
  // With libglvnd pointed at a vendor file that does not exist, libEGL has no driver and no platform.
  const ShotResult s = run_shot(flat_scene(), "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/voxen_no_vendor.json");
  EXPECT_EQ(s.run.exit_code, 1);
  EXPECT_NE(s.run.err.find("no EGL display"), std::string::npos) << s.run.err;
  EXPECT_NE(s.run.err.find("libegl-mesa0"), std::string::npos) << s.run.err;
}

TEST(Shot, ImpossibleGlVersionGivesAClearError) {
  const ShotResult s = run_shot(with(flat_scene(), {"--gl-version", "9.9"}));
  EXPECT_EQ(s.run.exit_code, 1);
  EXPECT_NE(s.run.err.find("could not create an OpenGL 9.9 core context"), std::string::npos) << s.run.err;
}

TEST(Shot, WithoutGl43TheLogSaysWhyAndPerChunkDrawsTheSamePixels) {
  // Mesa capped at 3.3: 4.5 and 4.3 contexts are refused, 3.3 is made, and the renderer falls back.
  const ShotResult capped = run_shot(flat_scene(), "MESA_GL_VERSION_OVERRIDE=3.3");
  const ShotResult full = run_shot(flat_scene());
  ASSERT_EQ(capped.run.exit_code, 0) << capped.run.err;
  ASSERT_EQ(full.run.exit_code, 0) << full.run.err;
  EXPECT_EQ(capped.json["gl_version"], "3.3");
  EXPECT_EQ(capped.json["render_path"], "per-chunk");
  EXPECT_NE(capped.run.err.find("using the per-chunk path"), std::string::npos) << capped.run.err;
  EXPECT_NE(capped.run.err.find("needs 4.3"), std::string::npos) << capped.run.err;
  EXPECT_EQ(pixels_differing(capped.image, full.image), 0u);
}

TEST(Shot, BadArgumentsNameTheArgument) {
  struct Case {
    std::vector<std::string> args;
    const char* names;
  };
  const Case cases[] = {
      {with(flat_scene(), {"--render-path", "fast"}), "--render-path"},
      {{"--pos", "1,2", "--size", "320x180"}, "--pos"},
      {with(flat_scene(), {"--size", "320by180"}), "--size"},
      {with(flat_scene(), {"--look", "10"}), "--look"},
      {flat_scene("46.25,9.5,56.75", "-15,-22", "0"), "--render-distance"},
      {with(flat_scene(), {"--time-of-day", "25"}), "--time-of-day"},
      {with(flat_scene(), {"--arena-limit-mib", "0"}), "--arena-limit-mib"},
      {with(flat_scene(), {"--far-distance", "-1"}), "--far-distance"},
      {with(flat_scene(), {"--far-distance", "70000"}), "--far-distance"},
      {with(flat_scene(), {"--far-pixels", "0"}), "--far-pixels"},
      {with(flat_scene(), {"--far-distance", "nan"}), "--far-distance"},  // CLI::Range alone let NaN through
      {with(flat_scene(), {"--far-pixels", "nan"}), "--far-pixels"},
  };
  for (const Case& c : cases) {
    const ShotResult s = run_shot(c.args);
    EXPECT_EQ(s.run.exit_code, 2) << c.names << ": " << s.run.err;
    EXPECT_NE(s.run.err.find(c.names), std::string::npos) << s.run.err;
  }
}

// A yaw is a direction: 1e308 degrees looks where its remainder modulo 360 does (before, the huge angle reached the
// float view matrix and nothing was drawn).
TEST(Shot, AHugeYawLooksWhereItsRemainderDoes) {
  char turned[64];
  std::snprintf(turned, sizeof turned, "%.17g,-22", std::remainder(1e308, 360.0));
  const ShotResult huge = run_shot(flat_scene("46.25,9.5,56.75", "1e308,-22"));
  const ShotResult rem = run_shot(flat_scene("46.25,9.5,56.75", turned));
  ASSERT_EQ(huge.run.exit_code, 0) << huge.run.err;
  ASSERT_EQ(rem.run.exit_code, 0) << rem.run.err;
  EXPECT_GT(huge.json["quads_drawn"].get<int64_t>(), 0);
  EXPECT_EQ(pixels_differing(huge.image, rem.image), 0u);
}

TEST(Shot, LookAndVoxFlagsSayWhatIsWrong) {
  struct Case {
    std::vector<std::string> args;
    const char* names;  // the argument named
    const char* says;   // and what is said about it
  };
  const Case cases[] = {
      {flat_scene("46.25,9.5,56.75", "nan,0"), "--look", "yaw must be a finite number"},
      {flat_scene("46.25,9.5,56.75", "inf,0"), "--look", "yaw must be a finite number"},
      {flat_scene("46.25,9.5,56.75", "0,nan"), "--look", "pitch must be within -90..90"},
      {flat_scene("46.25,9.5,56.75", "0,91"), "--look", "pitch must be within -90..90"},
      {with(flat_scene(), {"--vox-empty"}), "--vox-empty", "needs --vox"},
  };
  for (const Case& c : cases) {
    const ShotResult s = run_shot(c.args);
    EXPECT_EQ(s.run.exit_code, 2) << c.says << ": " << s.run.err;
    EXPECT_NE(s.run.err.find(std::string(c.names) + ": " + c.says), std::string::npos) << s.run.err;
    EXPECT_EQ(voxen::testing::line_count(s.run.err), 1) << s.run.err;
  }
}

TEST(Shot, GlVersionHelpAndReportTellTheTruth) {
  // --gl-version requests one version only; a driver may answer with a later compatible one (Mesa gives 4.5 for
  // 3.3). The help does not promise "exactly" that version, and when the context differs, shot says so.
  const auto help = voxen::testing::run_voxen({"shot", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  const size_t at = help.out.find("--gl-version");
  ASSERT_NE(at, std::string::npos) << help.out;
  const std::string line = help.out.substr(at, help.out.find("\n  -", at + 1) - at);
  EXPECT_EQ(line.find("exactly"), std::string::npos) << line;
  EXPECT_NE(line.find("later compatible version"), std::string::npos) << line;

  const ShotResult s = run_shot(with(flat_scene(), {"--gl-version", "3.3"}));
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  const std::string got = s.json["gl_version"].get<std::string>();
  if (got == "3.3") {
    EXPECT_EQ(s.run.err.find("asked for OpenGL"), std::string::npos) << s.run.err;
  } else {
    EXPECT_NE(s.run.err.find("asked for OpenGL 3.3, the driver gave a compatible " + got + " context"), std::string::npos)
        << s.run.err;
  }
  // Asked for what it has, nothing is said.
  const ShotResult same = run_shot(with(flat_scene(), {"--gl-version", got}));
  ASSERT_EQ(same.run.exit_code, 0) << same.run.err;
  EXPECT_EQ(same.run.err.find("asked for OpenGL"), std::string::npos) << same.run.err;
}

TEST(Shot, WindowPlatformUnderXvfbRendersTheSamePixels) {
  if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0) GTEST_SKIP() << "xvfb-run is not installed";
  const ShotResult window = run_shot(with(flat_scene(), {"--platform", "glfw"}), "xvfb-run -a -s '-screen 0 640x480x24'");
  const ShotResult headless = run_shot(flat_scene());
  ASSERT_EQ(window.run.exit_code, 0) << window.run.err;
  ASSERT_EQ(headless.run.exit_code, 0) << headless.run.err;
  EXPECT_EQ(window.json["platform"], "glfw");
  EXPECT_EQ(pixels_differing(window.image, headless.image), 0u);
}

}  // namespace
