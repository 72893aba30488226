// Image comparison: strict and look modes, 4-connected blob search, PNG round trip. Synthetic images, cases
// derived from the look rule's named thresholds.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "voxen/render/image.h"
#include "voxen/render/imgdiff.h"

using namespace voxen::render;

namespace {

const LookRule kRule;  // 6/255 per channel, 0.05% of pixels, blobs up to 32 px
// 640 x 360 = 230,400 pixels: 0.05% is 115.2 failing pixels, so a 32- or 33-pixel blob is decided by its size alone.
constexpr int kW = 640, kH = 360;

Image base() {
  Image img(kW, kH, 0xFF406080u);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) img.at(x, y)[0] = static_cast<uint8_t>((x * 7 + y * 3) & 255);
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

}  // namespace
