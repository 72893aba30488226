// `voxen view FILE.vox --recolour INDEX=RRGGBB` (issue 21: a palette recolour is a GPU buffer write, no remesh)
// through the real binary: the picture after the recolour is byte for byte the picture of a fresh file whose palette
// entries have those colours (its RGBA chunk patched in a copy), for a generated scene (opaque, glass and media
// colours, a swap of two colours, two entries of one colour recoloured together) and for real files of
// ../shared/data (skipped when absent); the recolour remeshes nothing and says how long it took. What a tint cannot
// do is refused with exit 2 naming the flag and value: a bad index or colour, an unused index, entries sharing a
// block recoloured apart, a colour merging two blocks, an _emit colour whose light would change.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_command.h"
#include "voxen/import/vox_file.h"
#include "voxen/import/vox_place.h"
#include "voxen/render/image.h"
#include "voxen/world/world.h"
#include "vox_builder.h"

namespace voxen::import {
namespace {

using voxen::testing::run_voxen;

// Runs that open a GL context: Mesa's driver leaves 240 bytes at exit (vox_cli_test.cpp says why).
const std::string kGlEnv = "ASAN_OPTIONS=detect_leaks=0";
const std::string kSize = "160x120";

// Per process: ctest runs this executable's tests in parallel processes, each with its own files.
std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/voxen_recolour_" + std::to_string(getpid()) + "_" + name;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t{b[at]} | uint32_t{b[at + 1]} << 8 | uint32_t{b[at + 2]} << 16 | uint32_t{b[at + 3]} << 24;
}

/// The byte offset of palette entry `index`'s r, g, b, a in a .vox file's RGBA chunk (a child of MAIN: entry i is
/// the chunk's (i - 1)-th colour); nullopt when the file has none (it uses the default palette).
std::optional<size_t> rgba_entry(const std::vector<uint8_t>& b, int index) {
  for (size_t at = 20; at + 12 <= b.size();) {
    const uint32_t content = u32_at(b, at + 4), children = u32_at(b, at + 8);
    if (std::equal(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at) + 4, "RGBA") &&
        content >= 1024)
      return at + 12 + 4 * static_cast<size_t>(index - 1);
    at += 12 + size_t{content} + children;
  }
  return std::nullopt;
}

std::string hex6(uint8_t r, uint8_t g, uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02x%02x%02x", r, g, b);
  return buf;
}

struct Recolour {
  int index;
  uint8_t r, g, b;
  std::string arg() const { return std::to_string(index) + "=" + hex6(r, g, b); }
};

struct ViewRun {
  voxen::testing::CommandResult result;
  nlohmann::json json;
  render::Image image;
};

/// `voxen view PATH --size 160x120 --json` plus `extra`; the PNG read back when it exits 0.
ViewRun view(const std::string& path, const std::string& png, const std::vector<std::string>& extra = {},
             const std::string& env = kGlEnv) {
  std::vector<std::string> args = {"view", path, "--out", png, "--size", kSize, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  ViewRun v;
  v.result = run_voxen(args, env);
  if (v.result.exit_code != 0) return v;
  v.json = nlohmann::json::parse(v.result.out, nullptr, false);
  auto img = render::load_png(png);
  EXPECT_TRUE(img.ok()) << png;
  if (img.ok()) v.image = std::move(img).value();
  std::remove(png.c_str());
  return v;
}

size_t differing_pixels(const render::Image& a, const render::Image& b) {
  if (a.width != b.width || a.height != b.height) return ~size_t{0};
  size_t n = 0;
  for (size_t i = 0; i < a.pixel_count(); ++i)
    n += !std::equal(a.pixels.begin() + static_cast<std::ptrdiff_t>(i * 4), a.pixels.begin() + static_cast<std::ptrdiff_t>(i * 4 + 4),
                     b.pixels.begin() + static_cast<std::ptrdiff_t>(i * 4));
  return n;
}

/// Views `path` with the recolours, and a copy of it with those palette entries patched in its RGBA chunk; expects
/// the two pictures byte-identical, the recolour to have changed the picture and remeshed nothing. `what` names the
/// case in messages. Returns the recolour's milliseconds (-1 on a failure).
double expect_recolour_equals_fresh_file(const std::string& path, const std::vector<Recolour>& recolours,
                                         const std::string& what, const std::string& env = kGlEnv) {
  std::vector<uint8_t> bytes = read_bytes(path);
  std::vector<std::string> args;
  for (const Recolour& r : recolours) {
    const auto at = rgba_entry(bytes, r.index);
    EXPECT_TRUE(at.has_value()) << what << ": no RGBA chunk";
    if (!at) return -1;
    bytes[*at] = r.r;
    bytes[*at + 1] = r.g;
    bytes[*at + 2] = r.b;
    args.insert(args.end(), {"--recolour", r.arg()});
  }
  const std::string fresh_path = temp_path(what + "_fresh.vox");
  write_bytes(fresh_path, bytes);
  const ViewRun plain = view(path, temp_path(what + "_plain.png"), {}, env);
  const ViewRun recoloured = view(path, temp_path(what + "_recoloured.png"), args, env);
  const ViewRun fresh = view(fresh_path, temp_path(what + "_fresh.png"), {}, env);
  std::remove(fresh_path.c_str());
  EXPECT_EQ(plain.result.exit_code, 0) << what << ": " << plain.result.err;
  EXPECT_EQ(recoloured.result.exit_code, 0) << what << ": " << recoloured.result.err;
  EXPECT_EQ(fresh.result.exit_code, 0) << what << ": " << fresh.result.err;
  if (plain.result.exit_code || recoloured.result.exit_code || fresh.result.exit_code) return -1;
  const size_t changed = differing_pixels(plain.image, recoloured.image);
  const size_t off = differing_pixels(recoloured.image, fresh.image);
  const double ms = recoloured.json.value("recolour_ms", -1.0);
  std::printf("  %s: %zu pixels recoloured, %zu differ from the fresh file's picture; recolour %.3f ms, %d layers\n",
              what.c_str(), changed, off, ms, recoloured.json.value("recolour_layers", -1));
  EXPECT_GT(changed, 0u) << what << ": the recolour changed no pixel";
  EXPECT_EQ(off, 0u) << what << ": the recoloured picture is not the fresh file's";
  EXPECT_EQ(recoloured.json.value("sections_remeshed", -1), 0) << what;
  EXPECT_GE(recoloured.json.value("recolour_layers", 0), 1) << what;
  EXPECT_GE(ms, 0.0) << what;
  // The same meshes: the counts of the fresh file's import are the recoloured one's.
  for (const char* key : {"greedy_quads", "culled_faces", "blocks_added", "sections_meshed"})
    EXPECT_EQ(recoloured.json[key], fresh.json[key]) << what << ": " << key;
  return ms;
}

// --- A generated scene --------------------------------------------------------------------------------------------

// Palette entries of the generated scene (1-based, as in --recolour).
constexpr int kRed = 1, kGreen = 2, kGlass = 3, kMistA = 4, kMistB = 5, kLamp = 6, kGreyA = 7, kGreyB = 8, kBlue = 9, kStone = 10;

/// One 12 x 12 x 8 model (MagicaVoxel axes, z up): a red cube, a green pillar, a glass wall (_trans 0.5), a cloud of
/// two media shades of one look (_d 0.05), an _emit lamp, two grey bars of ONE colour (entries 7 and 8: one block), a
/// blue block, a block of the registry's stone (entry 10's material names it: _voxen_block). Every other palette
/// entry is unused.
std::vector<uint8_t> generated_scene() {
  testing::VoxBuilder b;
  std::vector<testing::Voxel> v;
  auto box = [&](int x0, int x1, int y0, int y1, int z0, int z1, auto colour) {
    for (int x = x0; x <= x1; ++x)
      for (int y = y0; y <= y1; ++y)
        for (int z = z0; z <= z1; ++z)
          v.push_back({static_cast<uint8_t>(x), static_cast<uint8_t>(y), static_cast<uint8_t>(z),
                       static_cast<uint8_t>(colour(x, y, z))});
  };
  auto only = [](int c) { return [c](int, int, int) { return c; }; };
  box(0, 2, 0, 2, 0, 2, only(kRed));
  box(4, 5, 0, 1, 0, 3, only(kGreen));
  box(0, 5, 5, 5, 0, 2, only(kGlass));
  box(7, 9, 7, 9, 3, 4, [](int x, int y, int z) { return (x + y + z) % 2 ? kMistA : kMistB; });
  box(9, 9, 0, 0, 0, 0, only(kLamp));
  box(7, 8, 3, 3, 0, 0, only(kGreyA));
  box(9, 10, 3, 3, 0, 0, only(kGreyB));
  box(11, 11, 11, 11, 0, 1, only(kBlue));
  box(11, 11, 0, 0, 0, 0, only(kStone));
  b.model(12, 12, 8, v);
  std::array<std::array<uint8_t, 4>, 256> palette{};
  for (auto& c : palette) c = {128, 128, 128, 255};
  palette[kRed - 1] = {210, 40, 40, 255};
  palette[kGreen - 1] = {40, 170, 60, 255};
  palette[kGlass - 1] = {90, 160, 230, 255};
  palette[kMistA - 1] = {235, 235, 240, 255};
  palette[kMistB - 1] = {200, 200, 215, 255};
  palette[kLamp - 1] = {255, 200, 80, 255};
  palette[kGreyA - 1] = {150, 150, 150, 255};
  palette[kGreyB - 1] = {150, 150, 150, 255};
  palette[kBlue - 1] = {30, 60, 200, 255};
  b.rgba(palette);
  b.matl(kGlass, {{"_type", "_glass"}, {"_trans", "0.5"}});
  b.matl(kMistA, {{"_type", "_media"}, {"_d", "0.05"}});
  b.matl(kMistB, {{"_type", "_media"}, {"_d", "0.05"}});
  b.matl(kLamp, {{"_type", "_emit"}, {"_emit", "1"}});
  b.matl(kStone, {{"_type", "_diffuse"}, {"_voxen_block", "stone"}});
  return b.bytes();
}

class RecolourGenerated : public ::testing::Test {
 protected:
  void SetUp() override {
    path = temp_path("generated.vox");
    write_bytes(path, generated_scene());
  }
  void TearDown() override { std::remove(path.c_str()); }
  std::string path;
};

TEST_F(RecolourGenerated, OpaqueGlassAndMediaEntriesDrawAsAFreshFileWithThoseColours) {
  expect_recolour_equals_fresh_file(path, {{kRed, 250, 220, 40}}, "gen_opaque");
  expect_recolour_equals_fresh_file(path, {{kGlass, 240, 90, 160}}, "gen_glass");
  // A media entry: its look's block takes the new mean colour (weighted by cells), as an import computes it.
  expect_recolour_equals_fresh_file(path, {{kMistA, 120, 40, 40}}, "gen_media");
  // Several at once, a swap of two colours among them, and both entries of one colour given one new colour.
  expect_recolour_equals_fresh_file(
      path, {{kRed, 40, 170, 60}, {kGreen, 210, 40, 40}, {kGreyA, 90, 60, 30}, {kGreyB, 90, 60, 30}, {kBlue, 10, 10, 10}},
      "gen_swap_and_shared");
}

TEST_F(RecolourGenerated, TheGl33PerChunkPathReadsTheTintsToo) {
  // MESA_GL_VERSION_OVERRIDE=3.3 caps the context: the renderer falls back to the per-chunk path with GLSL 3.30.
  const std::string env = kGlEnv + " MESA_GL_VERSION_OVERRIDE=3.3";
  expect_recolour_equals_fresh_file(path, {{kRed, 250, 220, 40}, {kGlass, 240, 90, 160}}, "gen_gl33", env);
  const ViewRun r = view(path, temp_path("gl33.png"), {"--recolour", "1=fadc28"}, env);
  EXPECT_EQ(r.result.exit_code, 0) << r.result.err;
  EXPECT_NE(r.result.err.find("using the per-chunk path"), std::string::npos) << r.result.err;
}

TEST_F(RecolourGenerated, WhatATintCannotDoIsRefusedNamingTheFlagAndValue) {
  struct Case {
    std::vector<std::string> values;
    std::string expected;  // in stderr
  };
  const std::vector<Case> cases = {
      {{"0=ff0000"}, "palette index '0' in '0=ff0000' is not 1..255"},
      {{"256=ff0000"}, "palette index '256' in '256=ff0000' is not 1..255"},
      {{"x=ff0000"}, "palette index 'x' in 'x=ff0000' is not 1..255"},
      {{"1=ff00"}, "colour 'ff00' in '1=ff00' is not six hex digits RRGGBB"},
      {{"1=gg0000"}, "colour 'gg0000' in '1=gg0000' is not six hex digits RRGGBB"},
      {{"1ff0000"}, "malformed recolour '1ff0000'"},
      {{"200=ff0000"}, "'200=ff0000': palette index 200 is not used by the scene"},
      {{"1=ff0000", "1=00ff00"}, "palette index 1 is recoloured twice"},
      // Entries 7 and 8 share one block: recolouring one alone would split it (a remesh).
      {{"7=ff0000"}, "'7=ff0000': palette index 7 and palette index 8 share the block 'vox_969696'"},
      {{"7=ff0000", "8=00ff00"}, "palette index 7 and palette index 8 share the block 'vox_969696'"},
      // Entry 1 given entry 9's colour: one block where there were two (a remesh).
      {{"1=1e3cc8"}, "'1=1e3cc8': palette index 1's new colour makes the block 'vox_1e3cc8', which palette index 9 has too"},
      // The lamp's light level follows its colour.
      {{"6=202020"}, "'6=202020': palette index 6 is an _emit colour whose light follows its colour"},
      {{"10=ff0000"}, "'10=ff0000': palette index 10 is the registry's block 'stone' (its material's _voxen_block)"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"view", path, "--out", temp_path("refused.png"), "--size", kSize};
    for (const std::string& v : c.values) args.insert(args.end(), {"--recolour", v});
    std::remove(temp_path("refused.png").c_str());
    const auto r = run_voxen(args, kGlEnv);
    EXPECT_EQ(r.exit_code, 2) << c.values[0] << ": " << r.err;
    EXPECT_NE(r.err.find("--recolour"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << "expected '" << c.expected << "' in: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(temp_path("refused.png"))) << c.values[0];
  }
  // The lamp with a colour of the same light levels is a tint (its light does not change).
  const auto same_light = run_voxen({"view", path, "--out", temp_path("lamp.png"), "--size", kSize, "--recolour", "6=fcca54"}, kGlEnv);
  EXPECT_EQ(same_light.exit_code, 0) << same_light.err;
  std::remove(temp_path("lamp.png").c_str());
  const auto without = run_voxen({"view", path, "--without-scene", "--recolour", "1=ff0000"}, kGlEnv);
  EXPECT_EQ(without.exit_code, 2);
  EXPECT_NE(without.err.find("not with --without-scene"), std::string::npos) << without.err;
}

// --- Real files ---------------------------------------------------------------------------------------------------

struct Candidate {
  Recolour recolour;
  std::string block;  // the block it recolours (its name says opaque, _t glass or _m media)
};

/// Imports `path` as voxen view does (an empty world, the default registry) and lists, for each kind of colour block
/// (opaque "", glass "_t", media "_m"), the entries that plan_vox_recolour accepts with a new colour (the colour's
/// complement, else its channels rotated, else each channel moved by half its range), most cells first: recolours a
/// fresh file can match byte for byte.
std::array<std::vector<Candidate>, 3> recolour_candidates(const std::string& path) {
  std::array<std::vector<Candidate>, 3> out;
  auto reg = BlockRegistry::load_default();
  auto file = read_vox_file(path);
  EXPECT_TRUE(reg.ok() && file.ok()) << path;
  if (!reg.ok() || !file.ok()) return out;
  VoxPlaceOptions po;
  po.anchor = VoxAnchor::kGroundCentre;
  po.origin = {0, kMinY + 1, 0};
  World world;
  auto stats = import_vox_file(world, *reg, path, po);
  EXPECT_TRUE(stats.ok()) << path;
  if (!stats.ok()) return out;
  std::vector<int> by_cells;
  for (int i = 1; i < 256; ++i)
    if (stats->cell_counts[static_cast<size_t>(i)] > 0) by_cells.push_back(i);
  std::stable_sort(by_cells.begin(), by_cells.end(), [&](int a, int b) {
    return stats->cell_counts[static_cast<size_t>(a)] > stats->cell_counts[static_cast<size_t>(b)];
  });
  for (const int i : by_cells) {
    const BlockDef& def = (*reg)[stats->cells[static_cast<size_t>(i)].id];
    if (!def.tinted) continue;
    const size_t kind = def.name.find("_m") != std::string::npos ? 2 : def.name.find("_t") != std::string::npos ? 1 : 0;
    const VoxRgba c = file->palette[static_cast<size_t>(i)];
    const auto half = [](uint8_t v) { return static_cast<uint8_t>(v ^ 0x80); };
    for (const Recolour& r : {Recolour{i, static_cast<uint8_t>(255 - c.r), static_cast<uint8_t>(255 - c.g), static_cast<uint8_t>(255 - c.b)},
                              Recolour{i, c.g, c.b, c.r}, Recolour{i, half(c.r), half(c.g), half(c.b)}}) {
      if (r.r == c.r && r.g == c.g && r.b == c.b) continue;
      const VoxRecolour vr{static_cast<uint8_t>(i), r.r, r.g, r.b};
      if (plan_vox_recolour(*reg, *file, *stats, std::span<const VoxRecolour>(&vr, 1)).ok()) {
        out[kind].push_back({r, def.name});
        break;
      }
    }
  }
  return out;
}

class RecolourRealFiles : public ::testing::TestWithParam<const char*> {};

// Per kind of colour block, the entry with the most cells whose recolour shows in the picture (many entries of a
// scene lie inside it: the study's most used colour is within its walls) is recoloured and compared with the fresh
// file. Opaque entries are required; glass and media ones where the file has a visible one.
TEST_P(RecolourRealFiles, DrawsAsTheFileWithThatPaletteEntry) {
  const std::string name = GetParam();
  const std::string path = std::string(VOXEN_SHARED_DATA_DIR) + "/vox/" + name;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data file " << path << " is absent (../shared/data)";
  const auto candidates = recolour_candidates(path);
  const ViewRun plain = view(path, temp_path(name + "_plain.png"));
  ASSERT_EQ(plain.result.exit_code, 0) << plain.result.err;
  const std::vector<uint8_t> bytes = read_bytes(path);
  static constexpr const char* kKinds[3] = {"opaque", "glass", "media"};
  constexpr size_t kTries = 6;  // candidates tried per kind
  for (size_t kind = 0; kind < 3; ++kind) {
    bool compared = false;
    for (size_t k = 0; k < std::min(kTries, candidates[kind].size()) && !compared; ++k) {
      const Candidate& c = candidates[kind][k];
      const std::string what = name + "_" + std::to_string(c.recolour.index);
      const ViewRun recoloured = view(path, temp_path(what + ".png"), {"--recolour", c.recolour.arg()});
      ASSERT_EQ(recoloured.result.exit_code, 0) << what << ": " << recoloured.result.err;
      EXPECT_EQ(recoloured.json.value("sections_remeshed", -1), 0) << what;
      const size_t changed = differing_pixels(plain.image, recoloured.image);
      if (changed == 0) continue;  // not seen from the camera
      std::vector<uint8_t> patched = bytes;
      const auto at = rgba_entry(patched, c.recolour.index);
      ASSERT_TRUE(at.has_value()) << name << ": no RGBA chunk";
      patched[*at] = c.recolour.r;
      patched[*at + 1] = c.recolour.g;
      patched[*at + 2] = c.recolour.b;
      const std::string fresh_path = temp_path(what + "_fresh.vox");
      write_bytes(fresh_path, patched);
      const ViewRun fresh = view(fresh_path, temp_path(what + "_fresh.png"));
      std::remove(fresh_path.c_str());
      ASSERT_EQ(fresh.result.exit_code, 0) << what << ": " << fresh.result.err;
      const size_t off = differing_pixels(recoloured.image, fresh.image);
      std::printf("  %s: %s entry %d (block %s) to %s: %zu pixels recoloured, %zu differ from the fresh file's picture; "
                  "recolour %.3f ms\n",
                  name.c_str(), kKinds[kind], c.recolour.index, c.block.c_str(),
                  hex6(c.recolour.r, c.recolour.g, c.recolour.b).c_str(), changed, off,
                  recoloured.json.value("recolour_ms", -1.0));
      EXPECT_EQ(off, 0u) << what << ": the recoloured picture is not the fresh file's";
      compared = true;
    }
    if (!compared) std::printf("  %s: no visible %s entry to recolour (%zu candidates)\n", name.c_str(), kKinds[kind], candidates[kind].size());
    if (kind == 0) EXPECT_TRUE(compared) << name << ": no opaque palette entry could be recoloured visibly";
  }
}

// Files with an RGBA chunk (mmmm_chr_beardo3.vox has none: its default palette cannot be patched in place).
INSTANTIATE_TEST_SUITE_P(SharedData, RecolourRealFiles,
                         ::testing::Values("mmmm_chr_mike.vox", "floooh_scene.vox", "ogt_test_multiple_model_scene.vox",
                                           "dotvox_axes.vox", "bevyvoxscene_study.vox", "mmmm_scene_store8.vox"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace voxen::import
