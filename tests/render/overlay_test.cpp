// The overlay (voxen/render/overlay.h) draws into a headless 320 x 180 frame over a rendered sky: every pixel of a
// text string is ink exactly where the bitmap font's glyph has it (at the scale asked, from the cell's top-left
// corner) and the sky elsewhere; an opaque rectangle covers exactly its pixels; a translucent one blends over the
// sky; 3D lines are depth-tested against the depth already in the framebuffer and write none (read back with
// Renderer::read_depth, bottom row first). And take_gl_error reports a frame's first GL error and clears the rest.
#include <gtest/gtest.h>

#include <epoxy/gl.h>

#include <cstdlib>

#include "gl_suite.h"
#include "voxen/render/bitmap_font.h"
#include "voxen/render/overlay.h"
#include "voxen/render/renderer.h"

namespace voxen::render {
namespace {

using render_test::kHeight;
using render_test::kWidth;

class OverlayDraw : public render_test::SharedGlTest<render_test::kNoGenerator> {
 protected:
  void SetUp() override {
    SharedGlTest::SetUp();
    if (HasFatalFailure()) return;
    renderer = render_test::make_renderer(*s_shared);
    ASSERT_NE(renderer, nullptr);
    auto o = Overlay::create();
    ASSERT_TRUE(o.ok()) << o.error().message;
    overlay = std::move(o).value();
  }

  // A frame of sky only (no sections): the background the overlay draws over; its depth is 1.0 everywhere.
  Image sky() {
    FrameParams fp;
    fp.camera.aspect = static_cast<double>(kWidth) / kHeight;
    renderer->render(fp);
    return renderer->read_pixels();
  }

  static bool same(const uint8_t* p, const uint8_t* q) { return p[0] == q[0] && p[1] == q[1] && p[2] == q[2] && p[3] == q[3]; }
  static bool is(const uint8_t* p, uint8_t r, uint8_t g, uint8_t b) { return p[0] == r && p[1] == g && p[2] == b; }

  std::unique_ptr<Renderer> renderer;
  std::unique_ptr<Overlay> overlay;
};

TEST_F(OverlayDraw, TextAndRectanglesLandOnTheirPixels) {
  const Image bg = sky();
  OverlayList list(kWidth, kHeight);
  constexpr int kRx = 10, kRy = 20, kRw = 30, kRh = 15;      // opaque red rectangle
  constexpr int kTx = 100, kTy = 50, kScale = 2;            // white text, 2 pixels per font pixel
  constexpr int kHx = 200, kHy = 120, kHw = 40, kHh = 30;   // half-transparent black rectangle
  const std::string text = "A7?";
  list.rect(kRx, kRy, kRw, kRh, {1, 0, 0, 1});
  list.text(kTx, kTy, text, kScale, {1, 1, 1, 1});
  list.rect(kHx, kHy, kHw, kHh, {0, 0, 0, 0.5f});
  overlay->draw(list, s_shared->platform->framebuffer());
  const Image img = renderer->read_pixels();
  ASSERT_EQ(img.width, kWidth);

  const std::vector<uint8_t> atlas = font::build_atlas();
  const int text_w = static_cast<int>(text.size()) * font::kCellW * kScale, text_h = font::kCellH * kScale;
  int ink = 0, wrong = 0;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const uint8_t* p = img.at(x, y);
      const uint8_t* b = bg.at(x, y);
      bool ok;
      if (x >= kRx && x < kRx + kRw && y >= kRy && y < kRy + kRh) {
        ok = is(p, 255, 0, 0);
      } else if (x >= kTx && x < kTx + text_w && y >= kTy && y < kTy + text_h) {
        // The glyph's atlas texel under this pixel: character i's cell, font pixel (gx, gy) of it.
        const int i = (x - kTx) / (font::kCellW * kScale), gx = (x - kTx) / kScale % font::kCellW, gy = (y - kTy) / kScale;
        const int code = static_cast<unsigned char>(text[static_cast<size_t>(i)]) - 32;
        const int ax = code % font::kAtlasCols * font::kCellW + gx, ay = code / font::kAtlasCols * font::kCellH + gy;
        const bool has_ink = atlas[static_cast<size_t>(ay * font::kAtlasW + ax)] >= 128;
        ink += has_ink;
        ok = has_ink ? is(p, 255, 255, 255) : same(p, b);
      } else if (x >= kHx && x < kHx + kHw && y >= kHy && y < kHy + kHh) {
        // Half of the sky's colour (GL's blend rounds either way).
        ok = true;
        for (int c = 0; c < 3; ++c) ok = ok && std::abs(2 * p[c] - b[c]) <= 2;
      } else {
        ok = same(p, b);
      }
      if (!ok && ++wrong <= 5)
        ADD_FAILURE() << "pixel (" << x << ", " << y << ") is " << int(p[0]) << "," << int(p[1]) << "," << int(p[2]) << "," << int(p[3])
                      << " (sky " << int(b[0]) << "," << int(b[1]) << "," << int(b[2]) << ")";
    }
  EXPECT_EQ(wrong, 0);
  // Each glyph pixel is kScale x kScale frame pixels; "A", "7" and "?" have ink.
  EXPECT_GT(ink, 3 * 4 * kScale * kScale);
  EXPECT_EQ(take_gl_error(), 0u);
}

TEST_F(OverlayDraw, LinesAreDepthTestedAgainstTheFramebufferAndWriteNoDepth) {
  sky();
  // Depth 0.25 in the left half of the frame, 1.0 (the sky's) in the right half.
  glBindFramebuffer(GL_FRAMEBUFFER, s_shared->platform->framebuffer());
  glEnable(GL_SCISSOR_TEST);
  glScissor(0, 0, kWidth / 2, kHeight);
  glClearDepth(0.25);
  glClear(GL_DEPTH_BUFFER_BIT);
  glClearDepth(1.0);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_DEPTH_TEST);  // the overlay sets the depth state its lines need, whatever the caller left

  // A horizontal line across the frame at clip z 0 (window depth 0.5), the identity as view-projection: hidden
  // behind depth 0.25, shown in front of 1.0. Its row: y = 0.5 pixels above the frame's middle line.
  OverlayList list(kWidth, kHeight);
  list.line(glm::dmat4(1.0), {-0.9, 1.0 / kHeight, 0.0}, {0.9, 1.0 / kHeight, 0.0}, {0, 1, 0, 1});
  ASSERT_EQ(list.line_vertices().size(), 2u);
  overlay->draw(list, s_shared->platform->framebuffer());
  const Image img = renderer->read_pixels();
  int left = 0, right = 0;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x)
      if (is(img.at(x, y), 0, 255, 0)) (x < kWidth / 2 ? left : right)++;
  EXPECT_EQ(left, 0) << "the line was drawn over nearer depth";
  // From x 16 to 304 (clip -0.9 .. 0.9), less the left half: about 144 pixels.
  EXPECT_GE(right, 140);
  EXPECT_LE(right, 146);
  // The middle row holds the line's pixels in the image (top row first): GL row kHeight / 2.
  int on_row = 0;
  for (int x = kWidth / 2; x < kWidth; ++x) on_row += is(img.at(x, kHeight / 2 - 1), 0, 255, 0);
  EXPECT_EQ(on_row, right);

  // read_depth: row 0 at the bottom; the line (GL row kHeight / 2) left the depth as it was.
  const std::vector<float> depth = renderer->read_depth();
  ASSERT_EQ(depth.size(), static_cast<size_t>(kWidth) * kHeight);
  for (int y : {0, kHeight / 2, kHeight / 2 - 1, kHeight - 1}) {
    EXPECT_FLOAT_EQ(depth[static_cast<size_t>(y * kWidth + 40)], 0.25f) << "row " << y;
    EXPECT_FLOAT_EQ(depth[static_cast<size_t>(y * kWidth + kWidth - 40)], 1.0f) << "row " << y;
  }
  EXPECT_EQ(take_gl_error(), 0u);
}

TEST_F(OverlayDraw, LinesWithAnEndBehindTheEyeAreDropped) {
  OverlayList list(kWidth, kHeight);
  glm::dmat4 vp(1.0);
  vp[3][3] = 0.0;  // clip w = the point's z, so z <= 0.01 is at or behind the eye
  vp[2][3] = 1.0;
  list.line(vp, {0, 0, 1}, {0.5, 0, 1}, {1, 1, 1, 1});
  list.line(vp, {0, 0, 1}, {0.5, 0, -1}, {1, 1, 1, 1});
  list.box_edges(vp, {-0.5, -0.5, 0.5}, {1, 1, 1}, {1, 1, 1, 1});   // in front: 12 edges
  list.box_edges(vp, {-0.5, -0.5, -0.5}, {1, 1, 1}, {1, 1, 1, 1});  // the near face behind: only its 4 far edges
  EXPECT_EQ(list.line_vertices().size(), 2u * (1 + 12 + 4));
}

TEST(GlErrors, TakeReportsTheFirstErrorAndClearsTheRest) {
  PlatformConfig pc;
  pc.width = 32;
  pc.height = 32;
  auto p = make_egl_headless_platform(pc);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(take_gl_error(), 0u);
  glEnable(0x7fff);         // not a capability: GL_INVALID_ENUM
  glBindVertexArray(4321);  // not a vertex array name: GL_INVALID_OPERATION
  EXPECT_EQ(take_gl_error(), static_cast<uint32_t>(GL_INVALID_ENUM));
  EXPECT_EQ(take_gl_error(), 0u) << "the second error was left for the next caller";
}

}  // namespace
}  // namespace voxen::render
