// The mesh arena against the GL's limits, in-process on the headless EGL platform (320x180, llvmpipe): with a
// lowered per-buffer limit the arena spreads over several GL buffers (one draw call each) and the picture is the
// one the unlimited arena draws, on both render paths, with no GL buffer larger than the limit (sizes read back
// from GL); a mesh larger than a buffer is reported and skipped; and when most sections leave, the arena gives
// its memory back at the next frame and still draws the same picture.
#include <epoxy/gl.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/render/platform.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"
#include "gl_suite.h"

using namespace voxen;
using namespace voxen::render;

namespace {

using render_test::kHeight;
using render_test::kWidth;

render_test::GlSuite* g_shared = nullptr;  // the default world's generator

class ArenaLimit : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { g_shared = render_test::make_gl_suite("default").release(); }
  static void TearDownTestSuite() {
    delete g_shared;
    g_shared = nullptr;
  }
  void SetUp() override { ASSERT_NE(g_shared, nullptr); }

  // The coast of the default world (beach, shallow and deep water, hills), seen from above.
  static Camera coast_camera() {
    Camera c = Camera::at({-1735, 80, -1920}, {0.5, 0.5, 0.5});
    c.yaw_deg = 15;
    c.pitch_deg = -20;
    c.aspect = static_cast<double>(kWidth) / kHeight;
    c.far_plane = 600;
    return c;
  }
  static constexpr double kRadius = 6 * 16.0;

  std::unique_ptr<Renderer> make(uint64_t limit_bytes) {
    RendererOptions ro;
    ro.max_arena_buffer_bytes = limit_bytes;
    ro.log = [this](const std::string& line) { log.push_back(line); };
    auto r = Renderer::create(*g_shared->platform, g_shared->registry, ro);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? std::move(r).value() : nullptr;
  }
  // Loads every column within the radius of the camera into `renderer` (the world is generated once).
  void load(Renderer& renderer, const Camera& cam) {
    stream::GeneratedSource source(*g_shared->generator);
    stream::ColumnStreamer streamer(world, renderer, source, *g_shared->light, *g_shared->baked, *g_shared->pool);
    ASSERT_TRUE(streamer.load_view(stream::columns_for_view(cam, kRadius, false), nullptr, &cam).ok());
  }
  static Image draw(Renderer& renderer, const Camera& cam, FrameStats* stats = nullptr) {
    FrameParams fp;
    fp.camera = cam;
    fp.fog_end = kRadius;
    const FrameStats st = renderer.render(fp);
    if (stats) *stats = st;
    return renderer.read_pixels();
  }
  static size_t differing(const Image& a, const Image& b) {
    size_t n = 0;
    for (size_t i = 0; i < a.pixel_count(); ++i) n += std::memcmp(&a.pixels[i * 4], &b.pixels[i * 4], 4) != 0;
    return n;
  }
  // Every GL buffer of both arenas, as GL reports its size.
  static std::vector<uint64_t> buffer_sizes(const Renderer& r) {
    std::vector<uint64_t> sizes;
    for (const ArenaBuffer* arena : {&r.opaque_arena(), &r.translucent_arena()})
      for (uint64_t s : arena->gl_buffer_sizes())
        if (s) sizes.push_back(s);
    return sizes;
  }

  World world;
  std::vector<std::string> log;
};

TEST_F(ArenaLimit, ALoweredLimitSpreadsTheArenaOverBuffersAndDrawsTheSamePicture) {
  const Camera cam = coast_camera();
  auto unlimited = make(0);
  auto limited = make(64 * 1024);
  ASSERT_TRUE(unlimited && limited);
  load(*unlimited, cam);
  load(*limited, cam);
  EXPECT_EQ(limited->arena_limits().buffer_bytes, 64u * 1024);
  EXPECT_GT(unlimited->arena_limits().buffer_bytes, 64u * 1024) << "the GL limits (llvmpipe: 128 MiB)";

  // Several buffers in each arena, none larger than the limit (as GL reports their sizes).
  EXPECT_GT(limited->opaque_arena().live_buffer_count(), 4u);
  EXPECT_GT(limited->translucent_arena().live_buffer_count(), 1u);
  EXPECT_EQ(unlimited->opaque_arena().live_buffer_count(), 1u);
  for (uint64_t size : buffer_sizes(*limited)) EXPECT_LE(size, 64u * 1024);
  EXPECT_EQ(limited->arena_used_bytes(), unlimited->arena_used_bytes());

  for (RenderPath path : {RenderPath::kMultiDrawIndirect, RenderPath::kPerChunk}) {
    SCOPED_TRACE(std::string(to_string(path)));
    ASSERT_TRUE(unlimited->set_path(path));
    ASSERT_TRUE(limited->set_path(path));
    FrameStats one, many;
    const Image a = draw(*unlimited, cam, &one);
    const Image b = draw(*limited, cam, &many);
    EXPECT_EQ(differing(a, b), 0u) << "of " << a.pixel_count();
    EXPECT_EQ(many.quads_drawn, one.quads_drawn);
    if (path == RenderPath::kMultiDrawIndirect) {
      EXPECT_EQ(one.draw_calls, 2u);
      // One call per opaque buffer in view and one per run of far-first translucent meshes in one buffer.
      EXPECT_GT(many.draw_calls, limited->opaque_arena().live_buffer_count() / 2 + 1);
    } else {
      EXPECT_EQ(many.draw_calls, one.draw_calls);
    }
  }
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  EXPECT_TRUE(log.empty()) << log.front();
}

TEST_F(ArenaLimit, AMeshLargerThanABufferIsReportedAndNotDrawn) {
  auto r = make(64 * 1024);
  ASSERT_TRUE(r);
  // 5,000 opaque quads (80,000 bytes) in one section: more than a 64 KiB buffer holds (4,096 quads).
  std::vector<mesh::Quad> big(5000);
  for (size_t i = 0; i < big.size(); ++i) {
    mesh::QuadFields f;
    f.x = static_cast<int>(i % 32), f.y = static_cast<int>(i / 32 % 32), f.z = 4;
    f.w = f.h = 1;
    f.face = kFacePosZ;
    big[i] = mesh::pack_quad(f);
  }
  r->set_section({3, 12, -2}, big, {});
  EXPECT_FALSE(r->opaque_span({3, 12, -2}).has_value());
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("section 3,12,-2: 5000 opaque quads (80000 bytes) exceed the arena's buffer limit of 65536 bytes"),
            std::string::npos)
      << log[0];
  // A mesh that fits still goes in, and frames draw.
  big.resize(100);
  r->set_section({3, 12, -2}, big, {});
  EXPECT_TRUE(r->opaque_span({3, 12, -2}).has_value());
  draw(*r, coast_camera());
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  // An override below 64 KiB is refused when the renderer is made.
  RendererOptions tiny;
  tiny.max_arena_buffer_bytes = 4096;
  auto refused = Renderer::create(*g_shared->platform, g_shared->registry, tiny);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("below the least of 65536 bytes"), std::string::npos) << refused.error().message;
}

TEST_F(ArenaLimit, WhenMostSectionsLeaveTheArenaGivesItsMemoryBackAndDrawsTheSame) {
  const Camera cam = coast_camera();
  auto r = make(0);
  ASSERT_TRUE(r);
  load(*r, cam);
  draw(*r, cam);
  const uint64_t full_capacity = r->arena_capacity_bytes(), full_used = r->arena_used_bytes();
  // Keep the sections of the 3 x 3 columns round the eye, drop the rest (a long flight leaves that behind).
  const ColumnPos eye = column_pos_of(cam.block);
  std::vector<SectionPos> gone;
  for (const ColumnPos& c : world.positions())
    if (std::abs(c.x - eye.x) > 1 || std::abs(c.z - eye.z) > 1)
      for (int s = 0; s < kSectionsPerColumn; ++s) gone.push_back({c.x, s, c.z});
  for (const SectionPos& s : gone) r->remove_section(s);
  const uint64_t used = r->arena_used_bytes();
  ASSERT_LT(used * 4, full_used) << "the test needs most of the arena freed";
  EXPECT_EQ(r->arena_capacity_bytes(), full_capacity) << "nothing is given back outside a frame";

  FrameStats st;
  const Image trimmed = draw(*r, cam, &st);
  EXPECT_GT(st.arena_spans_moved, 0u);
  EXPECT_GT(r->opaque_arena().compact_count(), 0);
  // Each arena is at most four times its live bytes, or its first size.
  for (const ArenaBuffer* arena : {&r->opaque_arena(), &r->translucent_arena()}) {
    const uint64_t initial = arena == &r->opaque_arena() ? RendererOptions{}.initial_opaque_quads.value * 16
                                                        : RendererOptions{}.initial_translucent_quads.value * 20;
    EXPECT_LE(arena->capacity_bytes().value, std::max(initial, 4 * arena->used_bytes().value));
    for (uint32_t b = 0; b < arena->buffer_count(); ++b)
      EXPECT_EQ(arena->gl_buffer_sizes()[b], arena->buffer(b) ? arena->buffer_capacity_bytes(b).value : 0u);
  }
  EXPECT_LT(r->arena_capacity_bytes(), full_capacity / 2);

  // The same picture as a renderer that only ever held the remaining sections (no trim moved anything in it), on
  // both paths, looking down at what remains.
  auto fresh = make(0);
  ASSERT_TRUE(fresh);
  std::vector<ColumnPos> kept;
  for (int64_t dx = -1; dx <= 1; ++dx)
    for (int64_t dz = -1; dz <= 1; ++dz) kept.push_back({eye.x + dx, eye.z + dz});
  stream::GeneratedSource source(*g_shared->generator);
  stream::ColumnStreamer streamer(world, *fresh, source, *g_shared->light, *g_shared->baked, *g_shared->pool);
  ASSERT_TRUE(streamer.load_view(kept, nullptr, &cam).ok());
  ASSERT_EQ(fresh->section_count(), r->section_count());
  // From above the eye's column, straight down: the nine columns fill the frame.
  Camera down = Camera::at({eye.x * 16 + 8, 150, eye.z * 16 + 8}, {0.0, 0.0, 0.0});
  down.pitch_deg = -89.9;
  down.aspect = cam.aspect;
  down.far_plane = 600;
  for (RenderPath path : {RenderPath::kMultiDrawIndirect, RenderPath::kPerChunk}) {
    ASSERT_TRUE(r->set_path(path) && fresh->set_path(path));
    FrameStats seen, fresh_seen;
    const Image a = draw(*r, down, &seen), b = draw(*fresh, down, &fresh_seen);
    EXPECT_GT(seen.sections_visible, 9u);
    EXPECT_EQ(fresh_seen.arena_spans_moved, 0u);
    EXPECT_EQ(differing(a, b), 0u) << to_string(path);
  }
  // Edits after the trim still write only their own spans (the next trim finds nothing to do).
  draw(*r, cam, &st);
  EXPECT_EQ(st.arena_spans_moved, 0u);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
}

}  // namespace
