// The far view's scheduler (stream/far_view.h): the throttle's quota, selection that tiles the far disc with no
// overlap and no gap, covers while children are missing, determinism for any pool size, replays of live counts,
// and eviction. Its meshes go to a LodSink that records what it holds (no GL needed).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "voxen/gen/generator.h"
#include "voxen/light/light.h"
#include "voxen/store/world_store.h"
#include "voxen/stream/far_view.h"
#include "voxen/stream/lod_record.h"

namespace voxen::stream {
namespace {

const BlockRegistry& registry() {
  static const BlockRegistry reg = BlockRegistry::load_default().value();
  return reg;
}

/// Keeps the quads of every LOD section it holds.
class RecordingSink final : public LodSink {
 public:
  void set_lod_section(const lod::LodSectionPos& pos, std::span<const mesh::LodQuad> quads) override {
    held[pos] = std::vector<mesh::LodQuad>(quads.begin(), quads.end());
    ++sets;
  }
  void remove_lod_section(const lod::LodSectionPos& pos) override { held.erase(pos); }
  std::map<lod::LodSectionPos, std::vector<mesh::LodQuad>> held;
  int sets = 0;
};

render::Camera camera_at(int64_t x, int64_t y, int64_t z, double yaw = 0, double pitch = -5) {
  render::Camera cam = render::Camera::at(BlockPos{x, y, z}, {0.5, 0.5, 0.5});
  cam.yaw_deg = yaw;
  cam.pitch_deg = pitch;
  cam.aspect = 16.0 / 9.0;
  return cam;
}

/// The (level, x, z) nodes of a draw list.
std::set<std::array<int64_t, 3>> nodes_of(std::span<const lod::LodSectionPos> draw) {
  std::set<std::array<int64_t, 3>> out;
  for (const auto& p : draw) out.insert({p.level, p.x, p.z});
  return out;
}

/// How many drawn nodes cover world block (x, z).
int coverage(const std::set<std::array<int64_t, 3>>& nodes, int64_t x, int64_t z) {
  int n = 0;
  for (const auto& [level, nx, nz] : nodes) {
    const int64_t s = int64_t{32} << level;
    n += floor_div(x, s) == nx && floor_div(z, s) == nz;
  }
  return n;
}

TEST(FarRequestQuota, FollowsVoxysFormula) {
  EXPECT_EQ(far_request_quota(0), 50u);
  EXPECT_EQ(far_request_quota(2000), 13u);  // ceil(0.25 * 50)
  EXPECT_EQ(far_request_quota(1000), 29u);  // ceil(0.5625 * 50) = ceil(28.125)
  EXPECT_EQ(far_request_quota(3999), 1u);
  EXPECT_EQ(far_request_quota(4000), 0u);
  EXPECT_EQ(far_request_quota(100000), 0u);
}

/// Whether the sink holds a quad with a cell in blocks [x0, x1) x [z0, z1) at or above block y `y_min`.
bool quad_in(const RecordingSink& sink, int64_t x0, int64_t x1, int64_t z0, int64_t z1, int64_t y_min) {
  for (const auto& [pos, quads] : sink.held)
    for (const mesh::LodQuad& q : quads) {
      const mesh::LodQuadFields f = mesh::unpack_lod_quad(q);
      const BlockPos b = pos.min_block();
      const int64_t x = b.x + (int64_t{f.x} << pos.level), y = b.y + (int64_t{f.y} << pos.level),
                    z = b.z + (int64_t{f.z} << pos.level), cell = int64_t{1} << pos.level;
      if (x + cell > x0 && x < x1 && z + cell > z0 && z < z1 && y >= y_min) return true;
    }
  return false;
}

/// Columns (43..45, -1..1) generated and lit, with a stone pillar y 100..252 at block (710, y, 6) in column (44, 0):
/// far above the ground there, where the coarse terrain has nothing.
World pillar_world(const gen::Generator& g) {
  World world;
  std::vector<ColumnPos> positions;
  for (int64_t x = 43; x <= 45; ++x)
    for (int64_t z = -1; z <= 1; ++z) positions.push_back({x, z});
  for (auto& c : gen::generate_columns(g, positions, nullptr)) world.insert(std::move(c));
  const uint16_t stone = registry().id("stone");
  for (int64_t y = 100; y <= 252; ++y) world.find({44, 0})->set(6, y, 6, Cell{stone, 0});
  const light::LightTable table(registry());
  light::light_columns(world, table, positions, nullptr);
  return world;
}

class FarViewTest : public ::testing::Test {
 protected:
  std::unique_ptr<gen::Generator> gen = gen::make_generator("default", 1, registry()).value();
};

// Batch mode: every block of the far disc that the frustum sees, outside the near columns, is covered by exactly
// one drawn node (no overlap of levels, no gap), and no drawn node lies wholly inside the near field.
TEST_F(FarViewTest, CompleteTilesTheDiscOnceOutsideTheNearField) {
  JobPool pool(2);
  RecordingSink sink;
  FarConfig fc;
  fc.far_distance = 1500;
  FarView far(*gen, registry(), pool, sink, fc);
  const render::Camera cam = camera_at(40, 120, -30, 0, -5);
  std::vector<ColumnPos> near;
  for (int64_t x = -4; x <= 4; ++x)
    for (int64_t z = -6; z <= 2; ++z) near.push_back({x, z});
  const FarFrameStats st = far.complete(cam, 180, near, /*frustum=*/false);
  EXPECT_EQ(st.nodes_missing, 0u);
  EXPECT_GT(st.sections_drawn, 0u);
  const auto nodes = nodes_of(far.draw());
  std::set<int> levels;
  for (const auto& n : nodes) levels.insert(static_cast<int>(n[0]));
  EXPECT_GE(levels.size(), 3u) << "finer levels near the eye, coarser far away";
  // Every sampled block within the disc and outside the near columns: exactly one node.
  int checked = 0;
  for (int64_t x = -1400; x <= 1400; x += 37)
    for (int64_t z = -1400; z <= 1400; z += 41) {
      const double dx = static_cast<double>(x) - 40.5, dz = static_cast<double>(z) + 29.5;
      if (std::sqrt(dx * dx + dz * dz) > 1400) continue;
      const ColumnPos c{floor_div(x, 16), floor_div(z, 16)};
      const bool is_near = c.x >= -4 && c.x <= 4 && c.z >= -6 && c.z <= 2;
      const int n = coverage(nodes, x, z);
      if (is_near) {
        EXPECT_LE(n, 1) << x << "," << z;
      } else {
        EXPECT_EQ(n, 1) << "block " << x << "," << z;
        ++checked;
      }
    }
  EXPECT_GT(checked, 1000);
  // What is drawn is what the sink holds.
  for (const auto& p : far.draw()) EXPECT_TRUE(sink.held.count(p)) << p.level << " " << p.x << " " << p.y << " " << p.z;
  // The same eye with no near columns: the former near field is covered too, exactly once (the near-field table
  // follows the near set, not only the eye's column).
  far.complete(cam, 180, {}, /*frustum=*/false);
  const auto all = nodes_of(far.draw());
  int inside = 0;
  for (int64_t x = -64; x < 80; x += 7)
    for (int64_t z = -96; z < 48; z += 7) {
      EXPECT_EQ(coverage(all, x, z), 1) << "block " << x << "," << z << " in the former near field";
      ++inside;
    }
  EXPECT_GT(inside, 300);
}

// The far view stops at kWorldReach (2^62 blocks): an eye 600 blocks short of it draws nodes on its side only (their
// blocks all below the limit), and eyes at int64's ends (where the disc's arithmetic would overflow) draw nothing
// and do not crash (seen red: without the clip the first eye drew nodes past the limit).
TEST_F(FarViewTest, TheDiscStopsAtTheWorldsReach) {
  JobPool pool(2);
  RecordingSink sink;
  FarConfig fc;
  fc.far_distance = 1500;
  FarView far(*gen, registry(), pool, sink, fc);
  const FarFrameStats st = far.complete(camera_at(kWorldReach - 600, 120, 0, 90, -5), 180, {}, /*frustum=*/false);
  EXPECT_EQ(st.nodes_missing, 0u);
  EXPECT_GT(st.sections_drawn, 0u);
  for (const auto& [level, nx, nz] : nodes_of(far.draw())) {
    const int64_t size = int64_t{32} << level;
    EXPECT_LE(nx, (kWorldReach - 1) / size) << "a level-" << level << " node past the limit";
    EXPECT_GE(nx, (kWorldReach - 600 - 1501) / size);
  }
  for (const int64_t edge : {std::numeric_limits<int64_t>::max() - 10, std::numeric_limits<int64_t>::min() + 10}) {
    const FarFrameStats at_edge = far.complete(camera_at(edge, 120, edge, 0, -5), 180, {}, /*frustum=*/false);
    EXPECT_EQ(at_edge.sections_drawn, 0u);
    EXPECT_TRUE(far.draw().empty());
  }
}

// Live mode with the throttle: no frame requests more than the quota, and after enough frames the view converges
// on the batch result (the same draw list). While children are missing, a parent covers them: no frame after the
// first built roots leaves a block of the disc uncovered.
TEST_F(FarViewTest, LiveConvergesToTheBatchViewWithinTheQuotaAndCoversWhileBuilding) {
  const render::Camera cam = camera_at(0, 110, 0, 45, -3);
  FarConfig fc;
  fc.far_distance = 1200;
  fc.deterministic = true;  // integration by frame (the assertions below do not depend on timing)
  JobPool pool(2);
  RecordingSink sink;
  FarView live(*gen, registry(), pool, sink, fc);
  bool covered_once = false;
  for (int f = 0; f < 400; ++f) {
    const FarFrameStats st = live.update(cam, 180, {});
    EXPECT_LE(st.requests, st.quota);
    EXPECT_LE(st.quota, 50u);
    const auto nodes = nodes_of(live.draw());
    if (!nodes.empty()) {
      // No overlap anywhere; once the view in front is covered it stays covered (the frustum limits the draw
      // list to the view, so only blocks within 30 degrees of the view direction count as gaps).
      int gaps = 0;
      for (int64_t x = -1000; x <= 1000; x += 97)
        for (int64_t z = -1000; z <= 1000; z += 89) {
          const int n = coverage(nodes, x, z);
          EXPECT_LE(n, 1);
          const double bearing = std::atan2(static_cast<double>(x), -static_cast<double>(z)) * 180.0 / M_PI;  // 0 north, 90 east
          if (std::abs(bearing - 45.0) < 30.0 && std::hypot(static_cast<double>(x), static_cast<double>(z)) > 64) gaps += n == 0;
        }
      if (covered_once) {
        EXPECT_EQ(gaps, 0) << "frame " << f;
      }
      covered_once = covered_once || gaps == 0;
    }
    if (st.queued == 0 && st.nodes_missing == 0) break;
  }
  EXPECT_TRUE(covered_once);
  RecordingSink sink2;
  JobPool pool2(1);
  FarView batch(*gen, registry(), pool2, sink2, fc);
  batch.complete(cam, 180, {});
  const FarFrameStats last = live.update(cam, 180, {});
  EXPECT_EQ(last.nodes_missing, 0u);
  EXPECT_EQ(nodes_of(live.draw()), nodes_of(batch.draw()));
}

// The same path with 1 and 3 workers, deterministic: the same draw list and the same quads every frame, though the
// 3 workers are always idle (all done) before a frame and the 1 worker rarely is.
TEST_F(FarViewTest, DeterministicModeIsTheSameForAnyPoolSize) {
  FarConfig fc;
  fc.far_distance = 900;
  fc.deterministic = true;
  JobPool p1(1), p3(3);
  RecordingSink s1, s3;
  FarView a(*gen, registry(), p1, s1, fc), b(*gen, registry(), p3, s3, fc);
  for (int f = 0; f < 60; ++f) {
    const render::Camera cam = camera_at(f * 24, 100, -f * 7, f * 3.0, -4);
    a.update(cam, 180, {});
    p3.wait_idle();
    b.update(cam, 180, {});
    ASSERT_EQ(std::vector<lod::LodSectionPos>(a.draw().begin(), a.draw().end()),
              std::vector<lod::LodSectionPos>(b.draw().begin(), b.draw().end()))
        << "frame " << f;
  }
  EXPECT_EQ(s1.held, s3.held);
}

// A live run's per-frame integration counts, handed back (what a recording keeps), reproduce its draw lists.
TEST_F(FarViewTest, ReplayedCountsReproduceALiveRun) {
  FarConfig fc;
  fc.far_distance = 900;
  JobPool p1(2), p2(1);
  RecordingSink s1, s2;
  FarView live(*gen, registry(), p1, s1, fc), replay(*gen, registry(), p2, s2, fc);
  std::vector<std::vector<lod::LodSectionPos>> draws;
  std::vector<uint32_t> counts;
  for (int f = 0; f < 80; ++f) {
    const render::Camera cam = camera_at(f * 30, 100, 0, 90, -4);
    const FarFrameStats st = live.update(cam, 180, {});
    counts.push_back(st.integrated);
    draws.emplace_back(live.draw().begin(), live.draw().end());
  }
  for (int f = 0; f < 80; ++f) {
    const render::Camera cam = camera_at(f * 30, 100, 0, 90, -4);
    p2.wait_idle();  // every job done: only the recorded count can give the live run's partial integration
    replay.update(cam, 180, {}, counts[static_cast<size_t>(f)]);
    ASSERT_EQ(std::vector<lod::LodSectionPos>(replay.draw().begin(), replay.draw().end()), draws[static_cast<size_t>(f)])
        << "frame " << f;
  }
  EXPECT_TRUE(replay.error().empty());
  // A count past what is in flight is a divergence, named.
  const render::Camera cam = camera_at(80 * 30, 100, 0, 90, -4);
  replay.update(cam, 180, {}, 100000);
  EXPECT_NE(replay.error().find("far-view nodes"), std::string::npos) << replay.error();
}

// A built parent whose children draw is not evicted: when the eye rises and the view turns coarser, the parents
// cover at once (no gap in the view on the first frame up, before anything new is built).
TEST_F(FarViewTest, ParentsOverDrawnChildrenStayToCoverWhenTheViewTurnsCoarser) {
  FarConfig fc;
  fc.far_distance = 1200;
  fc.deterministic = true;
  fc.evict_frames = 5;
  JobPool pool(2);
  RecordingSink sink;
  FarView far(*gen, registry(), pool, sink, fc);
  for (int f = 0; f < 60; ++f) {
    const FarFrameStats st = far.update(camera_at(0, 70, 0, 45, -3), 180, {});
    if (f > 20 && st.queued == 0 && st.nodes_missing == 0) break;
  }
  for (int f = 0; f < 20; ++f) far.update(camera_at(0, 70, 0, 45, -3), 180, {});  // past evict_frames, all drawn
  const FarFrameStats up = far.update(camera_at(0, 900, 0, 45, -45), 180, {});  // ground in view from ~160 blocks
  EXPECT_EQ(up.integrated, 0u);
  const auto nodes = nodes_of(far.draw());
  int gaps = 0, looked = 0;
  for (int64_t x = -1000; x <= 1000; x += 97)
    for (int64_t z = -1000; z <= 1000; z += 89) {
      const double bearing = std::atan2(static_cast<double>(x), -static_cast<double>(z)) * 180.0 / M_PI;
      if (std::abs(bearing - 45.0) >= 30.0 || std::hypot(static_cast<double>(x), static_cast<double>(z)) < 200) continue;
      ++looked;
      gaps += coverage(nodes, x, z) == 0;
    }
  EXPECT_GT(looked, 20);
  EXPECT_EQ(gaps, 0) << "of " << looked << " points in view (" << up.nodes_missing << " nodes missing)";
}

// Nodes not used for evict_frames frames leave the sink; what is drawn is never evicted.
TEST_F(FarViewTest, EvictsWhatTheViewLeftBehind) {
  FarConfig fc;
  fc.far_distance = 700;
  fc.deterministic = true;
  fc.evict_frames = 5;
  JobPool pool(2);
  RecordingSink sink;
  FarView far(*gen, registry(), pool, sink, fc);
  for (int f = 0; f < 40; ++f) far.update(camera_at(0, 100, 0), 180, {});
  const auto first = sink.held;
  ASSERT_FALSE(first.empty());
  uint32_t evicted = 0;
  for (int f = 0; f < 60; ++f) evicted += far.update(camera_at(100000, 100, 0), 180, {}).evicted;
  EXPECT_GT(evicted, 0u);
  for (const auto& [pos, q] : first) EXPECT_EQ(sink.held.count(pos), 0u) << "left behind and never evicted";
  for (const auto& p : far.draw()) EXPECT_TRUE(sink.held.count(p));
}

// Real columns win: a stone pillar up to y 252 in a column ~700 blocks out (levels 1-2 there; the coarse path knows
// nothing of it) shows in the far view only once the column is handed in; the nodes drawn over it are rebuilt
// (stale) by the next complete(); handing it over again unchanged rebuilds nothing. An unkept real column is
// dropped when the eye moves past real_distance (its nodes rebuilt coarse), a kept (edited) one stays.
TEST_F(FarViewTest, RealColumnsWinOverTheCoarseTerrain) {
  JobPool pool(2);
  RecordingSink sink;
  FarConfig fc;
  fc.far_distance = 1500;
  fc.real_distance = 1024;
  FarView far(*gen, registry(), pool, sink, fc);
  World world = pillar_world(*gen);

  const render::Camera cam = camera_at(0, 120, 0, 0, -5);
  far.complete(cam, 180, {}, /*frustum=*/false);
  ASSERT_FALSE(quad_in(sink, 704, 720, 0, 16, 240)) << "the coarse terrain has nothing up there";
  far.add_real_column(std::make_shared<const Column>(*world.find({44, 0})), /*keep=*/false);
  far.add_real_column(std::make_shared<const Column>(*world.find({43, 0})), /*keep=*/true);
  const FarFrameStats st = far.complete(cam, 180, {}, /*frustum=*/false);
  EXPECT_EQ(far.real_columns(), 2u);
  EXPECT_GE(st.rebuilds, 1u);
  EXPECT_TRUE(quad_in(sink, 704, 720, 0, 16, 240)) << "the pillar's top";
  EXPECT_GT(far.memory_bytes(), 2 * sizeof(lod::ColumnMips));

  // The same column handed over again changes nothing: no node is rebuilt.
  far.add_real_column(std::make_shared<const Column>(*world.find({44, 0})), /*keep=*/false);
  EXPECT_EQ(far.complete(cam, 180, {}, /*frustum=*/false).rebuilds, 0u);

  // 2,000 blocks away the unkept column goes, the kept one stays; the nodes over the dropped one are stale and
  // rebuilt coarse (both sides of it agree again).
  far.update(camera_at(2700, 120, 0), 180, {});
  EXPECT_EQ(far.real_columns(), 1u);
  EXPECT_GE(far.complete(cam, 180, {}, /*frustum=*/false).rebuilds, 1u);
  EXPECT_FALSE(quad_in(sink, 704, 720, 0, 16, 240)) << "dropped: the coarse terrain again";
}

// Storage: a view with a store writes every node it builds; a second view over the same store loads them all
// (nothing built) and holds the same quads; a record damaged in the store is reported, rebuilt to the same quads
// and rewritten, so a fourth view loads everything again.
TEST_F(FarViewTest, StoredNodesLoadBackAndADamagedOneIsRebuilt) {
  JobPool pool(2);
  store::MemoryWorldStore db;
  FarConfig fc;
  fc.far_distance = 1200;
  const render::Camera cam = camera_at(40, 120, -30, 0, -5);
  const auto run = [&](RecordingSink& sink) {
    FarView far(*gen, registry(), pool, sink, fc);
    far.set_store(&db);
    return far.complete(cam, 180, {}, /*frustum=*/false);
  };
  RecordingSink a;
  const FarFrameStats first = run(a);
  EXPECT_GT(first.records_written, 10u);
  EXPECT_EQ(first.records_loaded, 0u);
  const auto keys = db.list(store::RecordKind::kLod);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->size(), first.records_written);

  RecordingSink b;
  const FarFrameStats second = run(b);
  EXPECT_EQ(second.records_loaded, first.records_written);
  EXPECT_EQ(second.records_written, 0u) << "nothing built";
  EXPECT_EQ(b.held, a.held);

  // Damage one record with quads in it (a flipped byte in the zstd frame).
  store::RecordKey victim;
  for (const store::RecordKey& k : *keys) {
    const auto v = db.get(k);
    if (v.ok() && *v && (*v)->size() > 100) {
      victim = k;
      std::string bad = **v;
      bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x20);
      db.poke(k, bad);
      break;
    }
  }
  ASSERT_EQ(victim.kind, store::RecordKind::kLod);
  RecordingSink c;
  FarFrameStats third;
  std::string warning;
  {
    FarView far(*gen, registry(), pool, c, fc);
    far.set_store(&db);
    third = far.complete(cam, 180, {}, /*frustum=*/false);
    warning = far.record_warning();
  }
  EXPECT_EQ(third.records_bad, 1u);
  EXPECT_EQ(third.records_written, 1u);
  EXPECT_NE(warning.find(describe_lod_node(victim.pos.y, victim.pos.x, victim.pos.z)), std::string::npos) << warning;
  EXPECT_EQ(c.held, a.held) << "rebuilt, never half-decoded";
  RecordingSink d;
  const FarFrameStats fourth = run(d);
  EXPECT_EQ(fourth.records_bad, 0u);
  EXPECT_EQ(fourth.records_loaded, first.records_written);
}

// An edit reaches the stored levels: an edited (kept) column with a pillar, handed to a view with a store, has every
// node over it built again and stored, drawn or not; a fresh view with no real columns (a reopened world that has
// not loaded that column) draws the pillar from the store.
TEST_F(FarViewTest, AnEditReachesTheStoredLevels) {
  JobPool pool(2);
  store::MemoryWorldStore db;
  FarConfig fc;
  fc.far_distance = 1500;
  World world = pillar_world(*gen);
  const render::Camera cam = camera_at(0, 120, 0, 0, -5);
  {
    RecordingSink sink;
    FarView far(*gen, registry(), pool, sink, fc);
    far.set_store(&db);
    far.complete(cam, 180, {}, /*frustum=*/false);
    ASSERT_FALSE(quad_in(sink, 704, 720, 0, 16, 240));
    far.add_real_column(std::make_shared<const Column>(*world.find({44, 0})), /*keep=*/true);
    far.complete(cam, 180, {}, /*frustum=*/false);
    EXPECT_EQ(far.queued(), 0u);
  }
  // Every level's node over the pillar is stored with it, drawn or not: levels 0..4 (a level-5 cell spans 2 x 2
  // columns and takes real cells only when all four are real, overlay_columns).
  for (int level = 0; level < 5; ++level) {
    const int64_t span = int64_t{32} << level;
    const int64_t nx = floor_div(int64_t{710}, span), nz = floor_div(int64_t{6}, span);
    const auto value = db.get(lod_record_key(level, nx, nz));
    ASSERT_TRUE(value.ok() && value->has_value()) << "no record at level " << level;
    const auto rec = decode_lod_record(**value, level, nx, nz);
    ASSERT_TRUE(rec.ok()) << rec.error().to_string();
    RecordingSink stored;
    for (const auto& [y, quads] : rec->sections) stored.set_lod_section({level, nx, y, nz}, quads);
    EXPECT_TRUE(quad_in(stored, 704, 720, 0, 16, 240)) << "the pillar in the stored level " << level;
  }
  RecordingSink reopened;
  FarView far(*gen, registry(), pool, reopened, fc);
  far.set_store(&db);
  const FarFrameStats st = far.complete(cam, 180, {}, /*frustum=*/false);
  EXPECT_EQ(st.records_written, 0u) << "everything from the store";
  EXPECT_TRUE(quad_in(reopened, 704, 720, 0, 16, 240)) << "the pillar, from the stored levels";
}

}  // namespace
}  // namespace voxen::stream
