// The stream module's contract (voxen/stream/source.h, streamer.h): a saved world with no saved cells loads exactly
// the generated cells; command-line edits are placed by the source as their column is made, before any light; an
// edit applied through ColumnStreamer::apply_edit on a saved world is journaled (a fresh open reads it back); and
// the batch mode (load_view) and the incremental mode (update, run until the view is complete) draw the same
// sections with the same quads and the same pixels.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "../render/gl_suite.h"
#include "../store/store_test_util.h"
#include "voxen/light/light.h"
#include "voxen/light/oracle.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/saved_world.h"
#include "voxen/stream/source.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"

namespace voxen::stream {
namespace {

using render::render_test::GlSuite;
using render::render_test::kHeight;
using render::render_test::kWidth;

const BlockRegistry& registry() {
  static const BlockRegistry reg = BlockRegistry::load_default().value();
  return reg;
}

std::unique_ptr<SavedWorld> open_world(const std::filesystem::path& dir, std::optional<uint64_t> seed,
                                       const std::string& generator) {
  store::OpenOptions o;
  o.dir = dir;
  o.create_seed = seed;
  o.create_generator = generator;
  auto w = SavedWorld::open(o, registry());
  if (!w) {
    ADD_FAILURE() << w.error().to_string();
    return nullptr;
  }
  return std::move(w).value();
}

const std::vector<ColumnPos> kColumns = {{0, 0}, {1, 0}, {-1, 2}, {5, -3}};

TEST(ColumnSourceContract, ASavedWorldWithNoSavedCellsLoadsExactlyTheGeneratedCells) {
  voxen::testing::TempDir dir;
  auto saved = open_world(dir.path() / "w", 7, "default");
  ASSERT_TRUE(saved);
  auto gen = gen::make_generator("default", 7, registry());
  ASSERT_TRUE(gen.ok());
  GeneratedSource generated(**gen);
  JobPool pool(2);
  auto a = saved->load(kColumns, &pool);
  auto b = generated.load(kColumns, &pool);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), kColumns.size());
  ASSERT_EQ(b->size(), kColumns.size());
  for (size_t i = 0; i < kColumns.size(); ++i) {
    EXPECT_EQ((*a)[i]->pos(), kColumns[i]);
    EXPECT_EQ((*a)[i]->content_hash(), (*b)[i]->content_hash()) << "column " << kColumns[i].x << "," << kColumns[i].z;
  }
  for (auto& c : *a) ASSERT_TRUE(saved->unload(std::move(c)).ok());
  ASSERT_TRUE(saved->close().ok());
}

TEST(ColumnSourceContract, EditsArePlacedAsTheirColumnIsMadeBeforeAnyLight) {
  auto gen = gen::make_generator("flat", 1, registry());
  ASSERT_TRUE(gen.ok());
  GeneratedSource source(**gen);
  const Cell glow{registry().id("glowstone"), 0};
  const BlockPos at{3, 1, 3};  // on the flat world's ground (y = 0)
  source.add_edits({{at, glow}});
  World world;
  std::vector<ColumnPos> ring;
  for (int64_t x = -1; x <= 1; ++x)
    for (int64_t z = -1; z <= 1; ++z) ring.push_back({x, z});
  auto cols = source.load(ring);
  ASSERT_TRUE(cols.ok());
  for (auto& c : *cols) world.insert(std::move(c));
  const BlockPos above{at.x, at.y + 1, at.z};
  const auto block_light = [&](const BlockPos& p) {
    const Light l = world.light(p);
    return light_r(l) + light_g(l) + light_b(l);
  };
  EXPECT_EQ(world.get(at), glow);    // placed in the cells as the column was made
  EXPECT_EQ(block_light(above), 0);  // and nothing lit yet
  const light::LightTable table(registry());
  light::light_columns(world, table, ring, nullptr);
  EXPECT_GT(block_light(above), 0);  // the light is made with the edit in place
  const light::LightDiff diff = light::verify_light(world, table);
  EXPECT_TRUE(diff.equal()) << diff.to_string();
}

class StreamGl : public render::render_test::SharedGlTest<render::render_test::kNoGenerator> {};

render::Camera camera_at(BlockPos eye, glm::dvec3 frac) {
  render::Camera c = render::Camera::at(eye, frac);
  c.yaw_deg = 30;
  c.pitch_deg = -25;
  c.aspect = static_cast<double>(kWidth) / kHeight;
  c.far_plane = 400;
  return c;
}

TEST_F(StreamGl, AnEditAppliedOnASavedWorldIsJournaledAndReadBackByAFreshOpen) {
  voxen::testing::TempDir dir;
  const Cell glow{registry().id("glowstone"), 0};
  const BlockPos at{3, 1, 3};
  {
    auto saved = open_world(dir.path() / "w", 1, "flat");
    ASSERT_TRUE(saved);
    auto r = render::Renderer::create(*s_shared->platform, s_shared->registry);
    ASSERT_TRUE(r.ok());
    World world;
    ColumnStreamer streamer(world, **r, *saved, *s_shared->light, *s_shared->baked, *s_shared->pool);
    const render::Camera cam = camera_at({8, 10, 8}, {0.5, 0.5, 0.5});
    ASSERT_TRUE(streamer.load_view(columns_for_view(cam, 32.0, false), nullptr, &cam).ok());
    auto edit = world.make_edit(at, glow);
    ASSERT_TRUE(edit.has_value());
    const EditReport rep = streamer.apply_edit(*edit);
    ASSERT_TRUE(rep.applied);
    EXPECT_FALSE(rep.remeshed.empty());
    ASSERT_TRUE(saved->commit().ok());
    ASSERT_TRUE(saved->close().ok());
  }
  auto again = open_world(dir.path() / "w", std::nullopt, "flat");
  ASSERT_TRUE(again);
  auto cols = again->load({column_pos_of(at)});
  ASSERT_TRUE(cols.ok());
  ASSERT_EQ(cols->size(), 1u);
  EXPECT_EQ((*cols)[0]->get(at.x, at.y, at.z), glow);
}

TEST_F(StreamGl, TheBatchAndTheIncrementalModeDrawTheSameSectionsAndPixels) {
  auto gen = gen::make_generator("default", 3, s_shared->registry);
  ASSERT_TRUE(gen.ok());
  const BlockPos eye{40, 90, -20};
  const glm::dvec3 frac{0.25, 0.5, 0.75};
  const render::Camera cam = camera_at(eye, frac);
  constexpr int kDistance = 2;
  const double radius = render::render_radius_blocks(kDistance);

  GeneratedSource source_a(**gen), source_b(**gen);
  World world_a, world_b;
  auto ra = render::Renderer::create(*s_shared->platform, s_shared->registry);
  auto rb = render::Renderer::create(*s_shared->platform, s_shared->registry);
  ASSERT_TRUE(ra.ok() && rb.ok());
  {
    ColumnStreamer batch(world_a, **ra, source_a, *s_shared->light, *s_shared->baked, *s_shared->pool);
    ASSERT_TRUE(batch.load_view(columns_for_view(cam, radius, false), nullptr, &cam).ok());
  }
  StreamConfig sc;
  sc.render_distance = kDistance;
  sc.deterministic = true;
  sc.mesh_floor = false;  // every section of a drawn column, as the batch mode meshes them
  ColumnStreamer inc(world_b, **rb, source_b, *s_shared->light, *s_shared->baked, *s_shared->pool, sc);
  const glm::dvec3 forward{0.0, 0.0, -1.0};
  uint64_t frame = 0;
  for (; frame < 400; ++frame) {
    inc.update(frame, eye, frac, forward);
    if (inc.view_complete() && inc.gen_in_flight() == 0 && inc.mesh_in_flight() == 0 && inc.gen_waiting() == 0 &&
        inc.mesh_waiting() == 0)
      break;
  }
  ASSERT_TRUE(inc.view_complete()) << "after " << frame << " frames";

  const std::vector<ColumnPos> draw = columns_for_view(cam, radius, false);
  EXPECT_EQ(inc.drawn_count(), draw.size());
  EXPECT_EQ((*ra)->section_count(), (*rb)->section_count());
  size_t sections = 0;
  for (const ColumnPos& c : with_neighbour_ring(draw))
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const SectionPos sp{c.x, s, c.z};
      const auto oa = (*ra)->opaque_span(sp), ob = (*rb)->opaque_span(sp);
      const auto ta = (*ra)->translucent_span(sp), tb = (*rb)->translucent_span(sp);
      ASSERT_EQ(oa.has_value(), ob.has_value()) << sp.x << "," << sp.y << "," << sp.z;
      ASSERT_EQ(ta.has_value(), tb.has_value()) << sp.x << "," << sp.y << "," << sp.z;
      if (oa) {
        EXPECT_EQ(oa->count.value, ob->count.value);
      }
      if (ta) {
        EXPECT_EQ(ta->count.value, tb->count.value);
      }
      sections += oa || ta;
    }
  EXPECT_GT(sections, 20u);
  render::FrameParams fp;
  fp.camera = cam;
  fp.fog_end = radius;
  (*ra)->render(fp);
  const render::Image a = (*ra)->read_pixels();
  (*rb)->render(fp);
  const render::Image b = (*rb)->read_pixels();
  ASSERT_EQ(a.pixels.size(), b.pixels.size());
  EXPECT_TRUE(a.pixels == b.pixels);
}

}  // namespace
}  // namespace voxen::stream
