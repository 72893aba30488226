// `--world DIR` and `--edit X,Y,Z=NAME[:STATE]` on `voxen shot`, `voxen mesh` and `voxen export-vox`, through the
// real binary, with probe's meaning (app/voxen/world_open.h): a shot shows an edit exactly where it projects and
// nowhere else; a shot of a saved world made by `probe --world --edit` is the very picture of the same edits given
// with --edit, and both have the light the oracle gives (--verify-light); a fresh saved world looks like plain
// generation (`surface` included); edits outside the view are saved; `mesh` counts change by what a known edit
// adds; an exported region reads back to the edited cells; bad --edit values exit 2 before anything is written.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../render/shot_support.h"
#include "cli_temp_dir.h"
#include "run_command.h"
#include "voxen/gen/generator.h"
#include "voxen/import/vox_file.h"
#include "voxen/import/vox_place.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/column.h"
#include "voxen/world/world.h"

namespace voxen {
namespace {

namespace fs = std::filesystem;
using testing::line_count;
using testing::run_shot;
using testing::run_voxen;
using testing::ShotResult;

// Runs that open a GL context go without leak checking in sanitizer builds (Mesa leaves 240 bytes at exit; see
// tests/CMakeLists.txt); everything else about them stays checked. One llvmpipe thread: the pictures do not depend
// on it (docs/ARCHITECTURE.md, Threads), and the tests running beside these ones keep their cores.
const std::string kGlEnv = "ASAN_OPTIONS=detect_leaks=0 LP_NUM_THREADS=1";

using clitest::TempDir;

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

nlohmann::json parse_json(const std::string& s) {
  auto j = nlohmann::json::parse(s, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << s;
  return j;
}

/// Pixels whose RGBA differ between two pictures of the same size, as (x, y).
std::vector<std::pair<int, int>> differing(const render::Image& a, const render::Image& b) {
  std::vector<std::pair<int, int>> out;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x)
      if (std::memcmp(a.at(x, y), b.at(x, y), 4) != 0) out.emplace_back(x, y);
  return out;
}

// The flat world from 100 blocks up, looking north (-Z) level: sky above the horizon, the far ground below it.
// The eye is at (0.5, 100.5, 0.5); a block at (0, 100, -10) shows its south face head-on, 9.5 blocks away.
std::vector<std::string> sky_view(const std::string& render_distance = "2") {
  return {"--generator", "flat", "--seed", "5", "--pos", "0.5,100.5,0.5", "--look", "0,0", "--size", "320x180",
          "--render-distance", render_distance};
}

TEST(ShotEdit, AnEditShowsExactlyWhereItProjects) {
  const ShotResult plain = run_shot(sky_view(), kGlEnv);
  const ShotResult edited = run_shot(with(sky_view(), {"--edit", "0,100,-10=red_lamp"}), kGlEnv);
  ASSERT_EQ(plain.run.exit_code, 0) << plain.run.err;
  ASSERT_EQ(edited.run.exit_code, 0) << edited.run.err;
  ASSERT_EQ(edited.image.width, 320);
  ASSERT_EQ(plain.image.width, 320);
  // The face spans 1 block at 9.5 blocks: 128.5 px per unit of tan (fov 70 over 180 rows), so 13.5 px square,
  // centred on the picture's centre (160, 90). Nothing else may change: the lamp's light reaches no visible cell and
  // its shadow falls on ground 92 blocks below, far outside the view.
  const auto diff = differing(plain.image, edited.image);
  EXPECT_GE(diff.size(), 150u);
  for (const auto& [x, y] : diff) {
    ASSERT_GE(x, 152) << "pixel " << x << "," << y << " changed outside the block";
    ASSERT_LE(x, 168) << "pixel " << x << "," << y << " changed outside the block";
    ASSERT_GE(y, 82) << "pixel " << x << "," << y << " changed outside the block";
    ASSERT_LE(y, 98) << "pixel " << x << "," << y << " changed outside the block";
  }
  // The centre shows the red lamp, where the plain picture shows sky.
  const uint8_t* lamp = edited.image.at(160, 90);
  EXPECT_GT(lamp[0], lamp[1] + 60) << int(lamp[0]) << "," << int(lamp[1]) << "," << int(lamp[2]);
  EXPECT_GT(lamp[0], lamp[2] + 60) << int(lamp[0]) << "," << int(lamp[1]) << "," << int(lamp[2]);
  const uint8_t* sky = plain.image.at(160, 90);
  EXPECT_GT(sky[2], sky[0] + 40);
}

// The flat world's corner of columns (0, 0), (1, 0), (0, 1), (1, 1) at night, from above: block light shows.
std::vector<std::string> border_view() {
  return {"--generator", "flat", "--seed", "5", "--pos", "16,12,22", "--look", "0,-60", "--size", "320x180",
          "--render-distance", "2", "--time-of-day", "0"};
}

// Edits on both sides of the column borders at x = 16 and z = 16: glowstone lighting both columns, a dug shaft whose
// walls lie in the neighbour column, a glass pane across the corner.
const std::vector<std::string> kBorderEdits = {"--edit", "15,1,16=glowstone", "--edit", "16,0,15=air",   "--edit",
                                               "16,-1,15=air",      "--edit", "16,1,16=glass",      "--edit",
                                               "17,1,17=red_lamp",  "--edit", "15,1,15=stone_stairs:1"};

TEST(ShotEdit, ASavedWorldShowsItsEditsAsTheSamePictureAndTheLightIsTheOracles) {
  TempDir tmp;
  const std::string world = tmp / "world";
  // The same edits saved by probe into a new world with the same seed and generator.
  auto probe = run_voxen(with(with({"probe", "--world", world, "--seed", "5", "--generator", "flat"}, kBorderEdits),
                              {"--at", "15,1,16"}));
  ASSERT_EQ(probe.exit_code, 0) << probe.err;

  const ShotResult plain = run_shot(border_view(), kGlEnv);
  const ShotResult edited = run_shot(with(with(border_view(), kBorderEdits), {"--verify-light"}), kGlEnv);
  const ShotResult saved =
      run_shot({"--world", world, "--pos", "16,12,22", "--look", "0,-60", "--size", "320x180", "--render-distance", "2",
                "--time-of-day", "0", "--verify-light"},
               kGlEnv);
  ASSERT_EQ(plain.run.exit_code, 0) << plain.run.err;
  ASSERT_EQ(edited.run.exit_code, 0) << edited.run.err;  // --verify-light: the light equals relight_all's
  ASSERT_EQ(saved.run.exit_code, 0) << saved.run.err;
  ASSERT_EQ(edited.image.width, 320);
  ASSERT_EQ(saved.image.width, 320);
  // The saved world's journal and the --edit edits give the same cells, light and meshes: the same bytes.
  EXPECT_EQ(testing::pixels_differing(edited.image, saved.image), 0u);
  // And the edits are in the picture (lit at night: many pixels change).
  EXPECT_GT(testing::pixels_differing(edited.image, plain.image), 500u);
  EXPECT_EQ(saved.json["columns_loaded"], plain.json["columns_loaded"]);
}

TEST(ShotEdit, AFreshSavedWorldLooksLikePlainGenerationSurfaceIncluded) {
  TempDir tmp;
  for (const auto& view : {std::vector<std::string>{"--pos", "-700,surface,-768", "--look", "80,-12", "--seed", "1"},
                           std::vector<std::string>{"--pos", "40.5,surface,52.5", "--look", "200,-20", "--seed", "2",
                                                    "--generator", "flat"}}) {
    const std::string world = tmp / ("world" + view[5]);
    const std::vector<std::string> common = {"--size", "320x180", "--render-distance", "2"};
    const ShotResult plain = run_shot(with(view, common), kGlEnv);
    const ShotResult fresh = run_shot(with(with(view, common), {"--world", world}), kGlEnv);
    ASSERT_EQ(plain.run.exit_code, 0) << plain.run.err;
    ASSERT_EQ(fresh.run.exit_code, 0) << fresh.run.err;
    EXPECT_TRUE(fs::exists(fs::path(world) / "voxen.toml"));
    // `surface` read from the saved world's cells lands where the generator's surface_y puts it.
    EXPECT_EQ(fresh.json["eye"], plain.json["eye"]);
    EXPECT_EQ(testing::pixels_differing(fresh.image, plain.image), 0u);
  }
}

// `surface` read from a saved world's cells stands where the generator's surface_y says on unedited ground, also
// where the top cell is foliage, water, a plant or a torch (which the camera does not stand on) or a slab: one spot of
// each kind the default generator makes near the origin (found here from the generator itself), and the flat world's
// pond, torch, top slab and tallest pillar.
TEST(ShotEdit, SurfaceFromAFreshSavedWorldsCellsIsTheGeneratorsOnFeaturesToo) {
  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg.ok());
  auto gen = gen::make_generator("default", 1, *reg);
  ASSERT_TRUE(gen.ok());
  // The first (x, z) (in a fixed scan) whose highest non-air cell is leaves, water or a plant.
  std::vector<std::pair<int64_t, int64_t>> spots;
  bool leaves = false, water = false, plant = false;
  for (int64_t cx = -3; cx <= 3 && !(leaves && water && plant); ++cx)
    for (int64_t cz = -3; cz <= 3 && !(leaves && water && plant); ++cz) {
      Column col({-44 + cx * 5, -48 + cz * 5});  // around the default view above (-700, -768)
      (*gen)->generate(col);
      for (int x = 0; x < 16; ++x)
        for (int z = 0; z < 16; ++z) {
          int y = kMaxY;
          while (y > kMinY && col.get(x, y, z).id == 0) --y;
          const BlockDef& d = (*reg)[col.get(x, y, z).id];
          bool* kind = d.shape == Shape::kFluid                                                    ? &water
                       : d.shape == Shape::kCross                                                  ? &plant
                       : d.transparency == Transparency::kCutout && d.shape == Shape::kCube ? &leaves
                                                                                                   : nullptr;
          if (kind && !*kind) {
            *kind = true;
            spots.emplace_back(col.pos().min_x() + x, col.pos().min_z() + z);
          }
        }
    }
  ASSERT_TRUE(leaves && water && plant) << "foliage " << leaves << ", water " << water << ", plant " << plant
                                        << ": widen the scan";
  TempDir tmp;
  // The decimal of a block's centre: block -934 is -934..-933, its centre "-933.5".
  auto centre = [](int64_t b) { return (b >= 0 ? std::to_string(b) : std::string("-").append(std::to_string(-(b + 1)))).append(".5"); };
  // The eye y a shot of the saved world reports, against the generator's surface_y + 3 (the plain shot's eye).
  auto expect_eye = [&](const std::vector<std::string>& args, int64_t x, int64_t z, const gen::Generator& g) {
    const ShotResult s = run_shot(with(args, {"--pos", centre(x) + ",surface," + centre(z), "--size", "16x16",
                                              "--render-distance", "1", "--threads", "1"}),
                                  kGlEnv);
    ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
    EXPECT_EQ(s.json["eye"]["y"].get<double>(), static_cast<double>(g.surface_y(x, z) + 3)) << x << "," << z;
  };
  for (const auto& [x, z] : spots) expect_eye({"--seed", "1", "--world", tmp / "default"}, x, z, **gen);
  auto flat = gen::make_generator("flat", 1, *reg);
  ASSERT_TRUE(flat.ok());
  for (const auto& [x, z] : std::vector<std::pair<int64_t, int64_t>>{{44, 44}, {50, 20}, {56, 20}, {36, 6}})
    expect_eye({"--generator", "flat", "--seed", "1", "--world", tmp / "flat"}, x, z, **flat);
}

TEST(ShotEdit, SurfaceStandsOnTheEditedCells) {
  // A stone pillar top at y 30 under the eye's (x, z): the eye goes 2 blocks above its top face.
  const ShotResult s = run_shot({"--generator", "flat", "--pos", "20.5,surface,20.5", "--look", "0,-30", "--size", "64x36",
                                 "--render-distance", "1", "--edit", "20,30,20=stone"},
                                kGlEnv);
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  EXPECT_EQ(s.json["eye"]["y"].get<double>(), 33.0) << s.run.out;
}

TEST(ShotEdit, EditsOutsideTheViewAreSavedWithTheWorld) {
  TempDir tmp;
  const std::string world = tmp / "world";
  const ShotResult s = run_shot(with(sky_view("1"), {"--world", world, "--edit", "5000,3,-7000=bricks",
                                                  "--edit", "0,100,-10=glass", "--edit", "5001,3,-7000=glowstone"}),
                                kGlEnv);
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  auto p = run_voxen({"probe", "--world", world, "--at", "5000,3,-7000", "--at", "0,100,-10", "--at", "5001,3,-7000", "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const auto cells = parse_json(p.out)["cells"];
  EXPECT_EQ(cells[0]["block"], "bricks") << p.out;
  EXPECT_EQ(cells[1]["block"], "glass") << p.out;
  EXPECT_EQ(cells[2]["block"], "glowstone") << p.out;
}

TEST(ShotEdit, VoxCannotBeCombinedWithWorld) {
  TempDir tmp;
  auto r = run_voxen({"shot", "--world", tmp / "w", "--seed", "1", "--pos", "0,100,0", "--vox", tmp / "x.vox", "--out",
                      tmp / "x.png"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--vox"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "w"));
}

nlohmann::json mesh_counts(const std::vector<std::string>& extra) {
  auto r = run_voxen(with({"mesh", "--generator", "flat", "--seed", "5", "--center", "8,8", "--radius", "1", "--json",
                           "--threads", "2"},
                          extra));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return parse_json(r.out);
}

TEST(MeshEdit, CountsChangeByWhatAKnownEditAdds) {
  const auto plain = mesh_counts({});
  // One stone cube in open air (the flat world is air above y 8): one voxel, 12 cube triangles, 6 culled faces and
  // 6 greedy quads (without the AO rule; with it at least 6, as its shadow may split the ground's quads).
  const auto one = mesh_counts({"--edit", "3,100,3=stone"});
  EXPECT_EQ(one["voxels"].get<uint64_t>(), plain["voxels"].get<uint64_t>() + 1);
  EXPECT_EQ(one["cube_triangles"].get<uint64_t>(), plain["cube_triangles"].get<uint64_t>() + 12);
  EXPECT_EQ(one["culled_faces"].get<uint64_t>(), plain["culled_faces"].get<uint64_t>() + 6);
  EXPECT_EQ(one["greedy_quads_no_ao"].get<uint64_t>(), plain["greedy_quads_no_ao"].get<uint64_t>() + 6);
  EXPECT_GE(one["greedy_quads"].get<uint64_t>(), plain["greedy_quads"].get<uint64_t>() + 6);
  // A second cube on top of it: one voxel more, the shared faces culled (6 + 6 - 2 faces; 6 greedy quads, the
  // sides merging into 1 x 2).
  const auto two = mesh_counts({"--edit", "3,100,3=stone", "--edit", "3,101,3=stone"});
  EXPECT_EQ(two["voxels"].get<uint64_t>(), plain["voxels"].get<uint64_t>() + 2);
  EXPECT_EQ(two["culled_faces"].get<uint64_t>(), plain["culled_faces"].get<uint64_t>() + 10);
  EXPECT_EQ(two["greedy_quads_no_ao"].get<uint64_t>(), plain["greedy_quads_no_ao"].get<uint64_t>() + 6);
  // An edit in the outer ring (generated and lit, not meshed) or beyond it changes no count.
  const auto ring = mesh_counts({"--edit", "40,100,40=stone", "--edit", "4000,100,40=stone"});
  for (const char* k : {"voxels", "culled_faces", "greedy_quads", "greedy_quads_no_ao", "bytes"}) EXPECT_EQ(ring[k], plain[k]) << k;
}

TEST(MeshEdit, ASavedWorldCountsAsTheSameEditsGivenWithEdit) {
  TempDir tmp;
  const std::string world = tmp / "world";
  const std::vector<std::string> edits = {"--edit", "3,100,3=stone", "--edit", "15,1,16=glowstone", "--edit", "16,0,15=air"};
  ASSERT_EQ(run_voxen(with(with({"probe", "--world", world, "--seed", "5", "--generator", "flat"}, edits), {"--at", "3,100,3"}))
                .exit_code,
            0);
  auto saved = run_voxen({"mesh", "--world", world, "--center", "8,8", "--radius", "1", "--json"});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const auto js = parse_json(saved.out);
  const auto je = mesh_counts(edits);
  for (const char* k : {"voxels", "culled_faces", "greedy_quads", "greedy_quads_no_ao", "bytes"}) EXPECT_EQ(js[k], je[k]) << k;
  EXPECT_NE(js["voxels"], mesh_counts({})["voxels"]);
  EXPECT_EQ(js["generator"], "flat");
  EXPECT_EQ(js["seed"], 5);
}

TEST(ExportVoxEdit, TheExportedRegionReadsBackToTheEditedCells) {
  TempDir tmp;
  const std::vector<std::string> edits = {"--edit", "3,5,3=glowstone", "--edit", "16,2,16=bricks", "--edit",
                                          "17,0,17=air", "--edit", "20,1,4=stone_stairs:6", "--edit", "9000,1,1=glass"};
  const std::string path = tmp / "edited.vox";
  auto r = run_voxen(with({"export-vox", "--generator", "flat", "--seed", "5", "--from", "0,-3,0", "--to", "20,8,20", "--out", path},
                          edits));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // What the region should hold: generation, then the edits.
  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg.ok());
  auto gen = gen::make_generator("flat", 5, *reg);
  ASSERT_TRUE(gen.ok());
  World expected;
  for (auto& c : gen::generate_columns(**gen, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, nullptr)) expected.insert(std::move(c));
  for (const auto& [pos, name] : std::vector<std::pair<BlockPos, std::string>>{
           {{3, 5, 3}, "glowstone"}, {{16, 2, 16}, "bricks"}, {{17, 0, 17}, "air"}, {{20, 1, 4}, "stone_stairs:6"}}) {
    auto cell = reg->parse_cell(name);
    ASSERT_TRUE(cell.ok());
    ASSERT_TRUE(expected.apply(*expected.make_edit(pos, *cell)));
  }
  // Read the file back at its own positions.
  auto file = import::read_vox_file(path);
  ASSERT_TRUE(file.ok()) << file.error().to_string();
  auto plan = import::plan_vox_placement(*file, {});
  ASSERT_TRUE(plan.ok());
  World back;
  ASSERT_TRUE(import::apply_vox_placement(back, *reg, *file, *plan, true).ok());
  uint64_t mismatches = 0;
  for (int64_t x = 0; x <= 20; ++x)
    for (int64_t z = 0; z <= 20; ++z)
      for (int64_t y = -3; y <= 8; ++y) mismatches += expected.get({x, y, z}) != back.get({x, y, z});
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(back.get({16, 2, 16}).id, reg->id("bricks"));  // the edits are there (so the comparison means something)

  // A saved world with the same edits exports the same bytes; with --world the edit outside the region is saved.
  const std::string world = tmp / "world";
  ASSERT_EQ(run_voxen(with({"probe", "--world", world, "--seed", "5", "--generator", "flat", "--at", "0,0,0"}, edits)).exit_code, 0);
  const std::string from_world = tmp / "from_world.vox";
  auto w = run_voxen({"export-vox", "--world", world, "--from", "0,-3,0", "--to", "20,8,20", "--out", from_world});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(testing::file_bytes(from_world), testing::file_bytes(path));
  const std::string more = tmp / "more.vox";
  auto m = run_voxen({"export-vox", "--world", world, "--from", "0,-3,0", "--to", "20,8,20", "--out", more, "--edit",
                      "5,5,5=planks", "--edit", "-9000,1,1=glass"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(testing::file_bytes(more), testing::file_bytes(path));
  auto p = run_voxen({"probe", "--world", world, "--at", "5,5,5", "--at", "-9000,1,1", "--at", "9000,1,1", "--json"});
  const auto cells = parse_json(p.out)["cells"];
  EXPECT_EQ(cells[0]["block"], "planks") << p.out;
  EXPECT_EQ(cells[1]["block"], "glass") << p.out;
  EXPECT_EQ(cells[2]["block"], "glass") << p.out;
  // No temporary file is left beside the outputs.
  for (const auto& e : fs::directory_iterator(fs::path(path).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST(EditOption, BadEditsExitTwoNamingTheArgumentBeforeAnythingIsWritten) {
  TempDir tmp;
  const std::vector<std::vector<std::string>> commands = {
      {"shot", "--pos", "0,100,0", "--out", tmp / "x.png"},
      {"mesh", "--radius", "0"},
      {"export-vox", "--from", "0,0,0", "--to", "1,1,1", "--out", tmp / "x.vox"},
      {"probe", "--at", "0,0,0"},
  };
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"0,1,0=unobtainium", "unobtainium"},  // unknown block
      {"0,1,0=stone:1", "stone"},           // state bits stone does not use
      {"0,300,0=stone", "outside the world"},
      {"0,-129,0=stone", "outside the world"},
      {"0,1,0", "expected X,Y,Z=NAME"},
      {"0,1=stone", "malformed"},
  };
  for (const auto& base : commands)
    for (const auto& [value, says] : bad) {
      const std::string world = tmp / "world";
      auto r = run_voxen(with(base, {"--world", world, "--seed", "3", "--edit", "1,1,1=glass", "--edit", value}));
      EXPECT_EQ(r.exit_code, 2) << base[0] << " --edit " << value << ": " << r.err;
      EXPECT_EQ(line_count(r.err), 1) << r.err;
      EXPECT_NE(r.err.find("--edit"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
      EXPECT_FALSE(fs::exists(world)) << base[0] << " --edit " << value << " created the world";
      EXPECT_FALSE(fs::exists(tmp / "x.png"));
      EXPECT_FALSE(fs::exists(tmp / "x.vox"));
      for (const std::string& p : {world, tmp / "x.png", tmp / "x.vox"}) fs::remove_all(p);  // the next case on its own
    }
}

}  // namespace
}  // namespace voxen
