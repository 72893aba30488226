// Image comparison: strict and look modes, 4-connected blob search, PNG round trip. Synthetic images, cases
// derived from the look rule's named thresholds; the same cases through the real `voxen imgdiff` command on PNGs
// the tests write (exit codes, --json keys, --out).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shot_support.h"
#include "voxen/render/image.h"
#include "voxen/render/imgdiff.h"

using namespace voxen::render;

namespace {

const LookRule kRule;  // 6/255 per channel, 0.05% of pixels, blobs up to 32 px
// 640 x 360 = 230,400 pixels: 0.05% is 115.2 failing pixels, so a 32- or 33-pixel blob is decided by its size alone.
constexpr int kW = 640, kH = 360;

Image base(int w = kW, int h = kH) {
  Image img(w, h, 0xFF406080u);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img.at(x, y)[0] = static_cast<uint8_t>((x * 7 + y * 3) & 255);
  return img;
}

// Changes `count` pixels in a horizontal run starting at (x, y), wrapping to the next row (a 4-connected blob).
void bump_run(Image& img, int x, int y, int count, int delta) {
  for (int i = 0; i < count; ++i) {
    uint8_t* p = img.at(x + i % 16, y + i / 16);
    p[1] = static_cast<uint8_t>(p[1] + delta);
  }
}

TEST(ImgDiff, IdenticalImagesPassBothModes) {
  const Image a = base();
  for (DiffMode m : {DiffMode::kStrict, DiffMode::kLook}) {
    const DiffResult r = compare_images(a, a, m);
    EXPECT_TRUE(r.pass);
    EXPECT_EQ(r.pixels_differing, 0u);
    EXPECT_EQ(r.largest_blob, 0u);
  }
}

TEST(ImgDiff, StrictFailsOnOneLevelOfOneChannel) {
  const Image a = base();
  Image b = a;
  b.at(100, 100)[2] ^= 1;
  const DiffResult strict = compare_images(a, b, DiffMode::kStrict);
  EXPECT_FALSE(strict.pass);
  EXPECT_EQ(strict.pixels_differing, 1u);
  EXPECT_EQ(strict.pixels_failing, 0u);  // within the look tolerance
  EXPECT_TRUE(compare_images(a, b, DiffMode::kLook).pass);
}

TEST(ImgDiff, ToleranceIsSixLevels) {
  const Image a = base();
  Image six = a, seven = a;
  bump_run(six, 10, 10, 200, kRule.channel_tolerance);       // 200 pixels off by exactly 6: all within tolerance
  bump_run(seven, 10, 10, 1, kRule.channel_tolerance + 1);   // one pixel off by 7: fails, but 1 px is allowed
  const DiffResult r6 = compare_images(a, six, DiffMode::kLook);
  EXPECT_EQ(r6.pixels_differing, 200u);
  EXPECT_EQ(r6.pixels_failing, 0u);
  EXPECT_TRUE(r6.pass);
  const DiffResult r7 = compare_images(a, seven, DiffMode::kLook);
  EXPECT_EQ(r7.pixels_failing, 1u);
  EXPECT_EQ(r7.max_channel_delta, kRule.channel_tolerance + 1);
  EXPECT_TRUE(r7.pass);
}

TEST(ImgDiff, BlobOf32PassesAndBlobOf33Fails) {
  const Image a = base();
  Image b32 = a, b33 = a;
  bump_run(b32, 200, 50, kRule.max_blob_pixels, 40);
  bump_run(b33, 200, 50, kRule.max_blob_pixels + 1, 40);
  const DiffResult r32 = compare_images(a, b32, DiffMode::kLook);
  EXPECT_EQ(r32.largest_blob, 32u);
  EXPECT_TRUE(r32.pass);
  const DiffResult r33 = compare_images(a, b33, DiffMode::kLook);
  EXPECT_EQ(r33.largest_blob, 33u);
  EXPECT_FALSE(r33.pass);
}

TEST(ImgDiff, DiagonalPixelsAreNotConnected) {
  // 40 failing pixels on a diagonal: 4-connectivity sees 40 blobs of 1, so the largest blob is 1 and it passes
  // (40 < 115 failing pixels allowed).
  const Image a = base();
  Image b = a;
  for (int i = 0; i < 40; ++i) b.at(300 + i, 100 + i)[0] ^= 0x80;
  const DiffResult r = compare_images(a, b, DiffMode::kLook);
  EXPECT_EQ(r.pixels_failing, 40u);
  EXPECT_EQ(r.largest_blob, 1u);
  EXPECT_TRUE(r.pass);
}

TEST(ImgDiff, TooManyScatteredPixelsFail) {
  // 116 isolated failing pixels (every 4th pixel of a row, never touching) exceed 0.05% (115.2) of 230,400.
  const Image a = base();
  Image b = a, ok = a;
  for (int i = 0; i < 116; ++i) b.at((i % 100) * 4 + 2, (i / 100) * 4 + 2)[1] ^= 0x80;
  for (int i = 0; i < 115; ++i) ok.at((i % 100) * 4 + 2, (i / 100) * 4 + 2)[1] ^= 0x80;
  const DiffResult r = compare_images(a, b, DiffMode::kLook);
  EXPECT_EQ(r.pixels_failing, 116u);
  EXPECT_EQ(r.largest_blob, 1u);
  EXPECT_FALSE(r.pass);
  EXPECT_TRUE(compare_images(a, ok, DiffMode::kLook).pass);
}

TEST(ImgDiff, DifferentSizesNeverPass) {
  const Image a(10, 10), b(10, 11);
  for (DiffMode m : {DiffMode::kStrict, DiffMode::kLook}) {
    const DiffResult r = compare_images(a, b, m);
    EXPECT_TRUE(r.size_mismatch);
    EXPECT_FALSE(r.pass);
  }
}

TEST(ImgDiff, DiffImageMarksFailingPixelsRed) {
  const Image a = base();
  Image b = a;
  b.at(5, 6)[0] ^= 0x80;  // fails
  b.at(7, 8)[0] ^= 0x01;  // differs within tolerance
  const Image d = diff_image(a, b);
  EXPECT_EQ(d.at(5, 6)[0], 255);
  EXPECT_EQ(d.at(5, 6)[1], 0);
  EXPECT_EQ(d.at(7, 8)[1], 220);  // yellow
  EXPECT_LT(d.at(0, 0)[0], 120);  // unchanged pixels are dimmed grey
}

TEST(ImgDiff, PngRoundTripKeepsEveryByte) {
  Image a = base();
  a.at(3, 4)[3] = 17;  // alpha survives too
  const std::string path = ::testing::TempDir() + "voxen_imgdiff_roundtrip.png";
  ASSERT_TRUE(save_png(a, path).ok());
  auto b = load_png(path);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(*b, a);
  std::remove(path.c_str());
}

TEST(ImgDiff, UnreadablePngNamesTheFile) {
  auto r = load_png("/nonexistent/voxen_missing.png");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, "/nonexistent/voxen_missing.png");
  EXPECT_NE(r.error().message.find("cannot read image"), std::string::npos);
}

// ---- `voxen imgdiff` through the real binary ----

struct ImgdiffRun {
  voxen::testing::CommandResult run;
  nlohmann::json json;  // the --json report (discarded if stdout is not JSON)
};

// Writes `a` and `b` to temporary PNGs and runs `voxen imgdiff A B <args...> --json`.
ImgdiffRun run_imgdiff(const Image& a, const Image& b, const std::vector<std::string>& args) {
  const std::string pa = voxen::testing::temp_path("imgdiff_a"), pb = voxen::testing::temp_path("imgdiff_b");
  EXPECT_TRUE(save_png(a, pa).ok());
  EXPECT_TRUE(save_png(b, pb).ok());
  std::vector<std::string> full = {"imgdiff", pa, pb};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--json");
  ImgdiffRun r;
  r.run = voxen::testing::run_voxen(full);
  r.json = nlohmann::json::parse(r.run.out, nullptr, false);
  std::remove(pa.c_str());
  std::remove(pb.c_str());
  return r;
}

TEST(ImgDiffCommand, IdenticalImagesExitZeroInBothModes) {
  const Image a = base();
  for (const char* mode : {"look", "strict"}) {
    const ImgdiffRun r = run_imgdiff(a, a, {"--mode", mode});
    EXPECT_EQ(r.run.exit_code, 0) << mode << ": " << r.run.err;
    ASSERT_TRUE(r.json.is_object()) << r.run.out;
    EXPECT_EQ(r.json["pass"], true);
    EXPECT_EQ(r.json["mode"], mode);
    EXPECT_EQ(r.json["pixels"], kW * kH);
    EXPECT_EQ(r.json["pixels_differing"], 0);
    EXPECT_EQ(r.json["largest_blob"], 0);
  }
}

TEST(ImgDiffCommand, LookModeBlobRuleFailsABlobOf33AndPassesOneOf32) {
  // 640 x 360: 0.05% is 115.2 pixels, so only the blob rule can decide a 32- or 33-pixel blob.
  const Image a = base();
  Image b32 = a, b33 = a;
  bump_run(b32, 200, 50, 32, 50);  // rows of 16: a 16 x 2 block, 4-connected
  bump_run(b33, 200, 50, 33, 50);  // the same plus one pixel below it
  const ImgdiffRun r33 = run_imgdiff(a, b33, {"--mode", "look"});
  EXPECT_EQ(r33.run.exit_code, 1) << r33.run.err;
  ASSERT_TRUE(r33.json.is_object()) << r33.run.out;
  EXPECT_EQ(r33.json["pass"], false);
  EXPECT_EQ(r33.json["largest_blob"], 33);
  EXPECT_EQ(r33.json["pixels_failing"], 33);
  EXPECT_EQ(r33.json["max_channel_delta"], 50);
  const ImgdiffRun r32 = run_imgdiff(a, b32, {"--mode", "look"});
  EXPECT_EQ(r32.run.exit_code, 0) << r32.run.err;
  ASSERT_TRUE(r32.json.is_object()) << r32.run.out;
  EXPECT_EQ(r32.json["pass"], true);
  EXPECT_EQ(r32.json["largest_blob"], 32);
}

TEST(ImgDiffCommand, LookModePixelShareRuleDecidesOnA320x180Image) {
  // 320 x 180 = 57,600 pixels: 0.05% is 28.8. 29 isolated failing pixels (no blob above 1) fail, 28 pass; and a
  // 32-pixel blob, allowed by the blob rule, fails here on the share rule alone.
  constexpr int w = 320, h = 180;
  const Image a = base(w, h);
  Image b28 = a, b29 = a, blob32 = a;
  for (int i = 0; i < 29; ++i) {
    if (i < 28) b28.at((i % 20) * 8 + 3, (i / 20) * 8 + 3)[1] ^= 0x80;
    b29.at((i % 20) * 8 + 3, (i / 20) * 8 + 3)[1] ^= 0x80;
  }
  bump_run(blob32, 100, 100, 32, 50);
  const ImgdiffRun r29 = run_imgdiff(a, b29, {"--mode", "look"});
  EXPECT_EQ(r29.run.exit_code, 1) << r29.run.err;
  ASSERT_TRUE(r29.json.is_object()) << r29.run.out;
  EXPECT_EQ(r29.json["pixels_failing"], 29);
  EXPECT_EQ(r29.json["largest_blob"], 1);
  const ImgdiffRun r28 = run_imgdiff(a, b28, {"--mode", "look"});
  EXPECT_EQ(r28.run.exit_code, 0) << r28.run.err;
  ASSERT_TRUE(r28.json.is_object()) << r28.run.out;
  EXPECT_EQ(r28.json["pixels_failing"], 28);
  const ImgdiffRun rb = run_imgdiff(a, blob32, {"--mode", "look"});
  EXPECT_EQ(rb.run.exit_code, 1) << rb.run.err;
  ASSERT_TRUE(rb.json.is_object()) << rb.run.out;
  EXPECT_EQ(rb.json["largest_blob"], 32);
  EXPECT_EQ(rb.json["pass"], false);
}

TEST(ImgDiffCommand, StrictFailsOnOneLevelOfOnePixelThatLookAllows) {
  const Image a = base();
  Image b = a;
  b.at(100, 100)[2] ^= 1;
  const ImgdiffRun strict = run_imgdiff(a, b, {"--mode", "strict"});
  EXPECT_EQ(strict.run.exit_code, 1) << strict.run.err;
  ASSERT_TRUE(strict.json.is_object()) << strict.run.out;
  EXPECT_EQ(strict.json["pixels_differing"], 1);
  EXPECT_EQ(strict.json["pass"], false);
  const ImgdiffRun by_default = run_imgdiff(a, b, {});  // strict is the default mode
  EXPECT_EQ(by_default.run.exit_code, 1);
  EXPECT_EQ(run_imgdiff(a, b, {"--mode", "look"}).run.exit_code, 0);
}

TEST(ImgDiffCommand, OutWritesTheDiffPicture) {
  const Image a = base();
  Image b = a;
  b.at(5, 6)[0] ^= 0x80;  // fails
  const std::string out = voxen::testing::temp_path("imgdiff_out");
  const ImgdiffRun r = run_imgdiff(a, b, {"--mode", "look", "--out", out});
  EXPECT_EQ(r.run.exit_code, 0) << r.run.err;  // one failing pixel is allowed
  ASSERT_TRUE(r.json.is_object()) << r.run.out;
  EXPECT_EQ(r.json["diff_image"], out);
  auto d = load_png(out);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->width, kW);
  EXPECT_EQ(d->height, kH);
  EXPECT_EQ(*d, diff_image(a, b));  // the library's picture: the failing pixel red, the rest dimmed
  EXPECT_EQ(d->at(5, 6)[0], 255);
  EXPECT_EQ(d->at(5, 6)[1], 0);
  std::remove(out.c_str());
}

TEST(ImgDiffCommand, BadModeAndMissingFileFailWithAMessage) {
  const Image a = base(16, 16);
  const ImgdiffRun bad = run_imgdiff(a, a, {"--mode", "fuzzy"});
  EXPECT_NE(bad.run.exit_code, 0);
  EXPECT_EQ(bad.run.exit_code, 2);  // a usage error
  EXPECT_NE(bad.run.err.find("--mode"), std::string::npos) << bad.run.err;
  EXPECT_NE(bad.run.err.find("fuzzy"), std::string::npos) << bad.run.err;
  const auto missing = voxen::testing::run_voxen({"imgdiff", "/nonexistent/voxen_a.png", "/nonexistent/voxen_b.png"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/voxen_a.png"), std::string::npos) << missing.err;
}

}  // namespace
