// `voxen view` and `voxen export-vox` through the real binary: every real .vox file imports, counts and renders
// a picture that differs from the empty scene where the bounds project; bad files exit 1 with the byte offset;
// an exported region reads back to the generated cells.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "run_command.h"
#include "voxen/gen/generator.h"
#include "voxen/import/vox_place.h"
#include "voxen/render/image.h"
#include "vox_builder.h"

namespace voxen::import {
namespace {

using voxen::testing::run_voxen;

// Runs that open a GL context: the Mesa driver leaves 240 bytes (3 allocations, from its unloaded module) at exit,
// which LeakSanitizer reports in -DVOXEN_SANITIZE=ON builds whatever voxen does. Leak checking stays on for
// every other run, and the import path itself is leak-checked in this process by the in-process tests.
const std::string kGlEnv = "ASAN_OPTIONS=detect_leaks=0";

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "/voxen_import_" + name; }

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

nlohmann::json parse_json(const std::string& s) {
  auto j = nlohmann::json::parse(s, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << s;
  return j;
}

struct RealFile {
  const char* name;
  uint64_t models;
  uint64_t voxels;  // SOURCES.md
};

constexpr RealFile kFiles[] = {
    {"mmmm_chr_mike.vox", 1, 291},
    {"mmmm_chr_beardo3.vox", 1, 299},
    {"mmmm_scene_store8.vox", 1, 441118},
    {"floooh_scene.vox", 1, 45220},
    {"ogt_test_multiple_model_scene.vox", 41, 6053},
    {"dotvox_axes.vox", 4, 4372},
    {"dotvox_placeholder-with-materials.vox", 1, 4},
    {"bevyvoxscene_study.vox", 16, 259281},
};

class ViewRealFiles : public ::testing::TestWithParam<RealFile> {};

TEST_P(ViewRealFiles, ImportsCountsAndDrawsTheScene) {
  const RealFile rf = GetParam();
  const std::string path = std::string(VOXEN_SHARED_DATA_DIR) + "/vox/" + rf.name;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data file " << path << " is absent (../shared/data)";
  const std::string png = temp_path(std::string(rf.name) + ".png");
  const std::string empty_png = temp_path(std::string(rf.name) + ".empty.png");
  auto r = run_voxen({"view", path, "--out", png, "--size", "256x160", "--json"}, kGlEnv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = parse_json(r.out);
  for (const char* key : {"models", "voxels", "placed_voxels", "cube_triangles", "culled_faces", "greedy_quads",
                          "greedy_quads_no_ao", "draw_calls", "import_ms", "mesh_ms", "render_ms", "bounds"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["models"].get<uint64_t>(), rf.models);
  EXPECT_EQ(j["voxels"].get<uint64_t>(), rf.voxels);

  // placed_voxels: what the scene graph places, evaluated in this process.
  auto file = read_vox_file(path);
  ASSERT_TRUE(file.ok());
  auto scene = evaluate_scene(*file);
  ASSERT_TRUE(scene.ok());
  const uint64_t placed = j["placed_voxels"].get<uint64_t>();
  EXPECT_EQ(placed, scene->voxels.size());
  EXPECT_EQ(j["cube_triangles"].get<uint64_t>(), placed * 12);
  const auto culled = j["culled_faces"].get<uint64_t>();
  EXPECT_GT(culled, 0u);
  EXPECT_LE(culled, placed * 6);
  EXPECT_LE(j["greedy_quads"].get<uint64_t>(), culled);
  EXPECT_LE(j["greedy_quads_no_ao"].get<uint64_t>(), j["greedy_quads"].get<uint64_t>());
  EXPECT_GE(j["draw_calls"].get<int>(), 1);
  const auto b = j["bounds"];
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[1].get<int64_t>(), 0);  // the lowest cell stands on y = 0
  EXPECT_EQ(b[4].get<int64_t>() - b[1].get<int64_t>(), scene->max[1] - scene->min[1]);
  EXPECT_EQ(b[3].get<int64_t>() - b[0].get<int64_t>(), scene->max[0] - scene->min[0]);

  // The picture is not blank: where the bounds project it differs from the same view without the scene.
  auto e = run_voxen({"view", path, "--out", empty_png, "--size", "256x160", "--json", "--without-scene"}, kGlEnv);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  auto img = render::load_png(png);
  auto blank = render::load_png(empty_png);
  ASSERT_TRUE(img.ok() && blank.ok());
  ASSERT_EQ(img->width, 256);
  ASSERT_EQ(img->height, 160);
  const auto px = j["bounds_px"];
  int differ = 0, total = 0;
  for (int y = px[1].get<int>(); y <= px[3].get<int>(); ++y)
    for (int x = px[0].get<int>(); x <= px[2].get<int>(); ++x) {
      const size_t i = (static_cast<size_t>(y) * 256 + static_cast<size_t>(x)) * 4;
      int d = 0;
      for (int c = 0; c < 3; ++c) d += std::abs(img->pixels[i + c] - blank->pixels[i + c]);
      differ += d > 24;
      ++total;
    }
  ASSERT_GT(total, 0);
  // At least 1% (and 20 pixels): sparse scenes such as dotvox_axes (thin letters in a wide box) cover little of
  // their bounds' rectangle.
  EXPECT_GT(differ, std::max(20, total / 100)) << differ << " of " << total << " pixels differ inside the bounds";
  std::remove(png.c_str());
  std::remove(empty_png.c_str());
}

INSTANTIATE_TEST_SUITE_P(SharedData, ViewRealFiles, ::testing::ValuesIn(kFiles),
                         [](const ::testing::TestParamInfo<RealFile>& param_info) {
                           std::string n = param_info.param.name;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(ViewCli, OneVoxelHasSixFacesAndKnownBounds) {
  testing::VoxBuilder b;
  b.model(3, 3, 3, {{1, 1, 1, 5}});
  const std::string path = temp_path("one.vox");
  write_bytes(path, b.bytes());
  auto r = run_voxen({"view", path, "--out", temp_path("one.png"), "--size", "64x64", "--json"}, kGlEnv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = parse_json(r.out);
  EXPECT_EQ(j["placed_voxels"].get<int>(), 1);
  EXPECT_EQ(j["cube_triangles"].get<int>(), 12);
  EXPECT_EQ(j["culled_faces"].get<int>(), 6);
  EXPECT_EQ(j["greedy_quads"].get<int>(), 6);
  EXPECT_EQ(j["greedy_quads_no_ao"].get<int>(), 6);
  EXPECT_EQ(j["bounds"], nlohmann::json({0, 0, 0, 0, 0, 0}));
  std::remove(path.c_str());
  std::remove(temp_path("one.png").c_str());
}

TEST(ViewCli, ShortRgbaImportsWithOneWarning) {
  // The 80-byte file: one voxel of colour 1 and an RGBA of one colour (4 bytes).
  testing::VoxBuilder b;
  b.model(1, 1, 1, {{0, 0, 0, 1}});
  const size_t at = b.chunk("RGBA", {200, 40, 40, 255});
  const std::string path = temp_path("short_rgba.vox");
  write_bytes(path, b.bytes());
  ASSERT_EQ(std::filesystem::file_size(path), 80u);
  auto r = run_voxen({"view", path, "--out", temp_path("short_rgba.png"), "--size", "64x64", "--json"}, kGlEnv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = parse_json(r.out);
  EXPECT_EQ(j["placed_voxels"].get<int>(), 1);
  EXPECT_EQ(j["warnings"].get<int>(), 1);
  EXPECT_EQ(voxen::testing::line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(path + " @ byte " + std::to_string(at)), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("colour indices 2..255 take MagicaVoxel's default palette"), std::string::npos) << r.err;
  std::remove(path.c_str());
  std::remove(temp_path("short_rgba.png").c_str());
}

/// A 4^3 emissive orange model (colour 1) at the centre of a 16^3 cloud of two media shades (colours 2 and 3,
/// _d 0.04) that fills the model's cells too and is placed after it; `with_model` false leaves the model out.
std::vector<uint8_t> cloud_scene(bool with_model) {
  testing::VoxBuilder b;
  std::vector<testing::Voxel> cloud;
  for (uint8_t x = 0; x < 16; ++x)
    for (uint8_t y = 0; y < 16; ++y)
      for (uint8_t z = 0; z < 16; ++z) cloud.push_back({x, y, z, static_cast<uint8_t>(2 + (x + y + z) % 2)});
  std::vector<testing::Voxel> model;
  for (uint8_t x = 0; x < 4; ++x)
    for (uint8_t y = 0; y < 4; ++y)
      for (uint8_t z = 0; z < 4; ++z) model.push_back({x, y, z, 1});
  b.model(4, 4, 4, model);
  b.model(16, 16, 16, cloud);
  std::array<std::array<uint8_t, 4>, 256> palette{};
  for (auto& c : palette) c = {128, 128, 128, 255};
  palette[0] = {255, 140, 0, 255};
  palette[1] = {235, 235, 240, 255};
  palette[2] = {215, 215, 225, 255};
  b.rgba(palette);
  b.matl(1, {{"_type", "_emit"}, {"_emit", "1"}});
  b.matl(2, {{"_type", "_media"}, {"_d", "0.04"}});
  b.matl(3, {{"_type", "_media"}, {"_d", "0.04"}});
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, with_model ? std::vector<uint32_t>{2, 4} : std::vector<uint32_t>{4});
  b.ntrn(2, 3, -1, {{"_t", "0 0 8"}});  // both centred on scene (0, 0, 8)
  b.nshp(3, 0);
  b.ntrn(4, 5, -1, {{"_t", "0 0 8"}});
  b.nshp(5, 1);
  return b.bytes();
}

TEST(ViewCli, ThinMediaCloudAroundAnEmissiveModelShowsTheModel) {
  const std::string with = temp_path("cloud_with.vox"), without = temp_path("cloud_without.vox");
  write_bytes(with, cloud_scene(true));
  write_bytes(without, cloud_scene(false));
  auto a = run_voxen({"view", with, "--out", with + ".png", "--size", "320x180", "--json"}, kGlEnv);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto b = run_voxen({"view", without, "--out", without + ".png", "--size", "320x180", "--json"}, kGlEnv);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto ja = parse_json(a.out), jb = parse_json(b.out);
  EXPECT_EQ(ja["placed_voxels"].get<int>(), 16 * 16 * 16);  // the model's 64 cells are the model's, not cloud
  EXPECT_EQ(ja["bounds"], jb["bounds"]);                    // the same camera for both pictures
  EXPECT_EQ(ja["blocks_added"].get<int>(), 2);              // the orange emitter and ONE cloud block
  // The cloud alone draws its outside only: 6 sides of 16 x 16 cells, no face between its two shades.
  EXPECT_EQ(jb["culled_faces"].get<int>(), 6 * 16 * 16);
  auto img = render::load_png(with + ".png");
  auto cloud = render::load_png(without + ".png");
  ASSERT_TRUE(img.ok() && cloud.ok());
  // The camera looks at the centre of the bounds, where the model is: the 9 x 9 pixels there show the model's
  // orange through the cloud (red well above blue), and the cloud alone is grey there.
  auto red_minus_blue = [](const render::Image& im) {
    int sum = 0;
    for (int y = 90 - 4; y <= 90 + 4; ++y)
      for (int x = 160 - 4; x <= 160 + 4; ++x) {
        const size_t i = (static_cast<size_t>(y) * 320 + static_cast<size_t>(x)) * 4;
        sum += im.pixels[i] - im.pixels[i + 2];
      }
    return sum / 81;
  };
  EXPECT_GT(red_minus_blue(*img), 80);
  EXPECT_LT(std::abs(red_minus_blue(*cloud)), 20);
  for (const std::string& p : {with, without, with + ".png", without + ".png"}) std::remove(p.c_str());
}

TEST(ViewCli, FarApartInstancesCostTheirColumnsNotTheSpaceBetweenThem) {
  // Two one-voxel instances: 12,000 blocks apart along x, then at the int32 corners of the scene (translations
  // -2^31 and 2^31 - 1 on both horizontal axes). The ground is laid around each instance's column, so the
  // columns drawn and loaded are those of two lone instances (7 x 7 and 9 x 9 each), whatever the distance.
  const std::pair<const char*, const char*> cases[] = {{"-6000 0 0", "6000 0 0"},
                                                       {"-2147483648 2147483647 0", "2147483647 -2147483648 0"}};
  int n = 0;
  for (const auto& [t0, t1] : cases) {
    testing::VoxBuilder b;
    b.model(1, 1, 1, {{0, 0, 0, 1}});
    b.ntrn(0, 1, -1, {});
    b.ngrp(1, {2, 4});
    b.ntrn(2, 3, -1, {{"_t", t0}});
    b.nshp(3, 0);
    b.ntrn(4, 5, -1, {{"_t", t1}});
    b.nshp(5, 0);
    const std::string path = temp_path("far" + std::to_string(n++) + ".vox");
    write_bytes(path, b.bytes());
    // A generous guard so that a regression fails instead of holding the suite (the old code took 45 s and 4 GB
    // for the first file and ran out of memory on the second); the assertions are on the counts.
    auto r = run_voxen({"view", path, "--out", path + ".png", "--size", "320x180", "--json"},
                       kGlEnv + " timeout 120");
    ASSERT_EQ(r.exit_code, 0) << t0 << " / " << t1 << ": " << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j["placed_voxels"].get<int>(), 2);
    EXPECT_EQ(j["scene_columns"].get<int>(), 2);
    EXPECT_EQ(j["drawn_columns"].get<int>(), 2 * 7 * 7);
    EXPECT_EQ(j["loaded_columns"].get<int>(), 2 * 9 * 9);
    const auto bounds = j["bounds"];
    EXPECT_EQ(bounds[3].get<int64_t>() - bounds[0].get<int64_t>(), n == 1 ? 12000 : 4294967295LL) << bounds;
    EXPECT_TRUE(std::filesystem::exists(path + ".png"));
    std::remove(path.c_str());
    std::remove((path + ".png").c_str());
  }
}

/// One voxel instanced 2^levels times through shared nodes, each instance in its own column: group k lists two
/// nTRN that both lead to group k + 1, one of them moved 256 * 2^(k / 2) blocks along x (even k) or y (odd k).
std::vector<uint8_t> scattered_instances(uint32_t levels) {
  testing::VoxBuilder b;
  b.model(1, 1, 1, {{0, 0, 0, 1}});
  b.ntrn(0, 1, -1, {});
  for (uint32_t k = 0; k < levels; ++k) {
    const uint32_t group = 1 + 3 * k, next = group + 3;
    const std::string step = std::to_string(256u << (k / 2));
    b.ngrp(group, {group + 1, group + 2});
    b.ntrn(group + 1, next, -1, {});
    b.ntrn(group + 2, next, -1, {{"_t", k % 2 == 0 ? step + " 0 0" : "0 " + step + " 0"}});
  }
  b.nshp(1 + 3 * levels, 0);
  return b.bytes();
}

TEST(ViewCli, ScenesPastTheColumnCapAreRefusedBeforeAnyColumnIsMade) {
  // 2^17 lone voxels (a 3 KB file) lie in 131072 columns; 1024 of them need 82944 columns with their ground and
  // light ring; 64 of them (5184 columns) are drawn.
  const std::pair<uint32_t, std::string> cases[] = {
      {17, "the scene's cells lie in 131072 columns; voxen view loads at most 65536 columns"},
      {10, "the scene's cells lie in 1024 columns, 50176 with the ground around them, 82944 with the ring their "
           "light needs; voxen view loads at most 65536 columns"}};
  for (const auto& [levels, want] : cases) {
    const std::string path = temp_path("scattered" + std::to_string(levels) + ".vox");
    write_bytes(path, scattered_instances(levels));
    auto r = run_voxen({"view", path, "--out", path + ".png", "--size", "64x64"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(path + ": " + want), std::string::npos) << r.err;
    EXPECT_EQ(voxen::testing::line_count(r.err), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path + ".png"));
    std::remove(path.c_str());
  }
  const std::string path = temp_path("scattered6.vox");
  write_bytes(path, scattered_instances(6));
  auto r = run_voxen({"view", path, "--out", path + ".png", "--size", "64x64", "--json"}, kGlEnv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = parse_json(r.out);
  EXPECT_EQ(j["placed_voxels"].get<int>(), 64);
  EXPECT_EQ(j["loaded_columns"].get<int>(), 64 * 81);
  std::remove(path.c_str());
  std::remove((path + ".png").c_str());
}

TEST(ViewCli, BadFilesExitOneWithTheByteOffset) {
  testing::VoxBuilder ok;
  ok.model(2, 2, 2, {{0, 0, 0, 1}});
  std::vector<uint8_t> truncated = ok.bytes();
  truncated.resize(truncated.size() - 2);
  testing::VoxBuilder rot;
  rot.model(2, 2, 2, {{0, 0, 0, 1}});
  rot.ntrn(0, 1, -1, {});
  const size_t at = rot.ntrn(1, 2, 0, {{"_r", "7"}});
  rot.nshp(2, 0);
  const std::pair<std::vector<uint8_t>, std::string> cases[] = {
      {truncated, "@ byte 8: chunk 'MAIN'"},
      {rot.bytes(), "@ byte " + std::to_string(at + 12 + 28 + 6) + ": chunk 'nTRN'"},
      {std::vector<uint8_t>{'N', 'O', 'P', 'E', 150, 0, 0, 0}, "@ byte 0: not a MagicaVoxel file"},
  };
  int n = 0;
  for (const auto& [bytes, want] : cases) {
    const std::string path = temp_path("bad" + std::to_string(n++) + ".vox");
    write_bytes(path, bytes);
    const std::string png = path + ".png";
    auto r = run_voxen({"view", path, "--out", png});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
    EXPECT_EQ(voxen::testing::line_count(r.err), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(png));
    std::remove(path.c_str());
  }
  auto missing = run_voxen({"view", temp_path("does_not_exist.vox")});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos) << missing.err;
  auto size = run_voxen({"view", temp_path("x.vox"), "--size", "12x"});
  EXPECT_EQ(size.exit_code, 2);
  EXPECT_NE(size.err.find("--size"), std::string::npos);
}

TEST(ViewCli, NonRegularFilesAreRefusedNamingThePath) {
  const std::string dir = temp_path("adir.vox");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto d = run_voxen({"view", dir, "--out", temp_path("adir.png")});
  EXPECT_EQ(d.exit_code, 1) << d.err;
  EXPECT_NE(d.err.find(dir + ": is a directory"), std::string::npos) << d.err;
  EXPECT_EQ(voxen::testing::line_count(d.err), 1) << d.err;
  // /dev/zero never ends: refused by its type at once (it used to be read until memory ran out).
  auto z = run_voxen({"view", "/dev/zero", "--out", temp_path("zero.png")});
  EXPECT_EQ(z.exit_code, 1) << z.err;
  EXPECT_NE(z.err.find("/dev/zero: is not a regular file"), std::string::npos) << z.err;
  EXPECT_FALSE(std::filesystem::exists(temp_path("zero.png")));
  std::filesystem::remove_all(dir);
}

TEST(ViewCli, EmptyOutIsRefusedNotWrittenHere) {
  // `--out ""` used to fall back to the default name in the current directory.
  testing::VoxBuilder one;
  one.model(1, 1, 1, {{0, 0, 0, 1}});
  const std::string stem = "voxen_empty_out_" + std::to_string(::getpid());
  const std::string path = temp_path(stem + ".vox");
  write_bytes(path, one.bytes());
  auto r = run_voxen({"view", path, "--out", ""});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists("voxen_import_" + stem + ".png"));
  std::remove(("voxen_import_" + stem + ".png").c_str());
  std::remove(path.c_str());
}

TEST(ShotCli, VoxSceneAtTheInt64EdgeDoesNotWrap) {
  // Three cells along x, centred on --vox-at: one past each end of int64 at the edges.
  testing::VoxBuilder three;
  three.model(3, 1, 1, {{0, 0, 0, 1}, {1, 0, 0, 1}, {2, 0, 0, 1}});
  const std::string path = temp_path("edge.vox");
  write_bytes(path, three.bytes());
  for (const char* at : {"9223372036854775807,0,0", "-9223372036854775808,0,0"}) {
    std::remove(temp_path("edge.png").c_str());
    auto r = run_voxen({"shot", "--pos", "0,10,0", "--size", "32x32", "--render-distance", "1", "--vox", path,
                        "--vox-at", at, "--vox-empty", "--out", temp_path("edge.png")},
                       kGlEnv);
    EXPECT_EQ(r.exit_code, 1) << at << ": " << r.err;
    EXPECT_NE(r.err.find("the scene does not fit the world's x range"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(temp_path("edge.png")));
  }
  std::remove(path.c_str());
}

TEST(ShotCli, VoxSceneIsPlacedInTheShotsWorld) {
  const std::string path = std::string(VOXEN_SHARED_DATA_DIR) + "/vox/mmmm_chr_mike.vox";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data file " << path << " is absent (../shared/data)";
  // The character (8 x 6 x 11) stands on y = 0 centred on x = z = 0 in an empty world; the eye looks at it from
  // the south.
  const std::vector<std::string> common = {"shot", "--pos", "0.5,6,14", "--look", "0,-10", "--size", "96x64",
                                           "--render-distance", "2", "--vox-at", "0,0,0", "--vox-empty"};
  auto with = common;
  with.insert(with.end(), {"--vox", path, "--out", temp_path("shot_with.png")});
  auto r = run_voxen(with, kGlEnv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto without = common;
  without.insert(without.end(), {"--vox", temp_path("empty_scene.vox"), "--out", temp_path("shot_without.png")});
  testing::VoxBuilder empty;
  empty.model(1, 1, 1, {});
  write_bytes(temp_path("empty_scene.vox"), empty.bytes());
  auto e = run_voxen(without, kGlEnv);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  auto a = render::load_png(temp_path("shot_with.png"));
  auto b = render::load_png(temp_path("shot_without.png"));
  ASSERT_TRUE(a.ok() && b.ok());
  int differ = 0;
  for (size_t i = 0; i < a->pixels.size(); i += 4)
    differ += std::abs(a->pixels[i] - b->pixels[i]) + std::abs(a->pixels[i + 1] - b->pixels[i + 1]) > 24;
  EXPECT_GT(differ, 96 * 64 / 20);  // the character fills a good part of the middle of the picture

  testing::VoxBuilder bad;
  bad.size(0, 1, 1);
  write_bytes(temp_path("bad_shot.vox"), bad.bytes());
  auto f = run_voxen({"shot", "--pos", "0,10,0", "--vox", temp_path("bad_shot.vox"), "--out", temp_path("x.png")});
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_NE(f.err.find("@ byte 32: chunk 'SIZE'"), std::string::npos) << f.err;
  auto g = run_voxen({"shot", "--pos", "0,10,0", "--vox-at", "1,2", "--out", temp_path("x.png")});
  EXPECT_EQ(g.exit_code, 2);
  EXPECT_NE(g.err.find("--vox-at"), std::string::npos) << g.err;
}

TEST(ExportVoxCli, RegionReadsBackToTheGeneratedCells) {
  const std::string path = temp_path("export.vox");
  auto r = run_voxen({"export-vox", "--seed", "5", "--from", "-20,40,-3", "--to", "270,100,12", "--out", path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = parse_json(r.out);
  EXPECT_EQ(j["models"].get<int>(), 2);  // 291 wide: two 256-wide tiles along x
  auto file = read_vox_file(path);
  ASSERT_TRUE(file.ok()) << file.error().to_string();
  EXPECT_EQ(file->voxel_count(), j["voxels"].get<uint64_t>());

  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg.ok());
  auto gen = gen::make_generator("default", 5, *reg);
  ASSERT_TRUE(gen.ok());
  std::vector<ColumnPos> cols;
  for (int64_t cx = column_of(-20); cx <= column_of(270); ++cx)
    for (int64_t cz = column_of(-3); cz <= column_of(12); ++cz) cols.push_back({cx, cz});
  World generated;
  for (auto& c : gen::generate_columns(**gen, cols, nullptr)) generated.insert(std::move(c));
  World back;
  auto plan = plan_vox_placement(*file, {});
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(apply_vox_placement(back, *reg, *file, *plan, true).ok());
  uint64_t mismatches = 0;
  for (int64_t x = -20; x <= 270; ++x)
    for (int64_t z = -3; z <= 12; ++z)
      for (int64_t y = 40; y <= 100; ++y) mismatches += generated.get({x, y, z}) != back.get({x, y, z});
  EXPECT_EQ(mismatches, 0u);
  std::remove(path.c_str());
}

TEST(ExportVoxCli, BadArgumentsExitTwoNamingTheArgument) {
  auto r = run_voxen({"export-vox", "--from", "0,400,0", "--to", "1,1,1", "--out", temp_path("a.vox")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--from"), std::string::npos) << r.err;
  auto wide = run_voxen({"export-vox", "--from", "0,0,0", "--to", "5000,1,1", "--out", temp_path("a.vox")});
  EXPECT_EQ(wide.exit_code, 2);
  EXPECT_NE(wide.err.find("1024"), std::string::npos) << wide.err;
  // Corners at both ends of int64: the extent (2^64 blocks) is computed without overflow.
  auto whole = run_voxen({"export-vox", "--from", "-9223372036854775808,0,0", "--to", "9223372036854775807,1,2", "--out",
                          temp_path("a.vox")});
  EXPECT_EQ(whole.exit_code, 2);
  EXPECT_NE(whole.err.find("(got 18446744073709551616 x 3)"), std::string::npos) << whole.err;
  auto z = run_voxen({"export-vox", "--from", "5,0,9223372036854775807", "--to", "0,1,-1", "--out", temp_path("a.vox")});
  EXPECT_EQ(z.exit_code, 2);
  EXPECT_NE(z.err.find("(got 6 x 9223372036854775809)"), std::string::npos) << z.err;
}

TEST(ExportVoxCli, RegionsTheImporterWouldRefuseAreNotWritten) {
  // The flat world has 129 non-air cells per block column: 512 x 512 of them are 33818112 cells, past the
  // importer's 33554432 (import::kMaxSceneVoxels); the file would not read back, so none is written.
  const std::string path = temp_path("too_many.vox");
  std::remove(path.c_str());
  auto r = run_voxen({"export-vox", "--generator", "flat", "--from", "0,-128,0", "--to", "511,255,511", "--out", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("33818112 non-air cells"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at most " + std::to_string(kMaxSceneVoxels)), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace voxen::import
