// The stream module's batch mode without a renderer (voxen/stream/streamer.h, mesh_sink.h, source.h), as `voxen mem`
// and a server with no GL run it: a window of rows sliding over an area (load_view of one row with the rows beside
// it as the load set, then release() of the row behind) hands a MeshSink exactly the meshes (trimmed to their
// contents for a sink that keeps them), and leaves exactly the cells and light, that loading, lighting and meshing the whole area at once by hand gives (light::light_columns,
// mesh::mesh_world_section: the oracles' path); it asks the source for each column once, hands each back once and
// keeps at most three rows loaded. And a PreparedSource lays its columns' non-air cells over its base, hands each
// out once and keeps what it is handed back whole.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/light/light.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/mesher.h"
#include "voxen/stream/mesh_sink.h"
#include "voxen/stream/source.h"
#include "voxen/stream/streamer.h"

namespace voxen::stream {
namespace {

const BlockRegistry& registry() {
  static const BlockRegistry reg = BlockRegistry::load_default().value();
  return reg;
}

/// A generator's columns, counting every column asked for and every column handed back.
class CountingSource final : public ColumnSource {
 public:
  explicit CountingSource(const gen::Generator& generator) : m_generator(generator) {}
  const gen::Generator* generator() const override { return &m_generator; }
  Status unload(std::unique_ptr<Column> column) override {
    std::lock_guard lock(m_mu);
    ++unloads[column->pos()];
    return Ok{};
  }
  std::map<ColumnPos, int> loads, unloads;

 protected:
  Result<std::vector<std::unique_ptr<Column>>> make(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                    int64_t center_x, int64_t center_z) override {
    {
      std::lock_guard lock(m_mu);
      for (const ColumnPos& p : positions) ++loads[p];
    }
    return gen::generate_columns(m_generator, positions, pool, center_x, center_z);
  }

 private:
  const gen::Generator& m_generator;
  std::mutex m_mu;
};

/// Keeps what the streamer uploads, as a renderer would hold it: the latest non-empty mesh of each section, moved
/// in when the streamer is done with it (take_section), as `voxen mem`'s sink does.
class KeepingSink final : public MeshSink {
 public:
  void set_section(const SectionPos& pos, const mesh::SectionMesh& mesh) override { take_section(pos, mesh::SectionMesh(mesh)); }
  void take_section(const SectionPos& pos, mesh::SectionMesh&& mesh) override {
    if (mesh.empty()) meshes.erase(pos);
    else meshes[pos] = std::move(mesh);
  }
  void remove_section(const SectionPos& pos) override { meshes.erase(pos); }
  bool keeps_meshes() const override { return true; }
  std::map<SectionPos, mesh::SectionMesh> meshes;
};

std::vector<ColumnPos> rows(int64_t from, int64_t to, int64_t x0, int64_t x1, int64_t z0, int64_t z1) {
  std::vector<ColumnPos> out;
  for (int64_t x = std::max(from, x0); x <= std::min(to, x1); ++x)
    for (int64_t z = z0; z <= z1; ++z) out.push_back({x, z});
  return out;
}

TEST(BatchMode, AWindowSlidingOverAnAreaMeshesAndLightsItAsTheWholeAreaAtOnce) {
  // Seed 5 around the origin: hills, water and caves; the area is 5 x 4 columns and ends at its edge.
  auto gen = gen::make_generator("default", 5, registry());
  ASSERT_TRUE(gen.ok());
  const light::LightTable light_table(registry());
  auto baked = mesh::BakedBlocks::bake(registry());
  ASSERT_TRUE(baked.ok());
  JobPool pool(2);
  constexpr int64_t x0 = -2, x1 = 2, z0 = -1, z1 = 2;
  const std::vector<ColumnPos> area = rows(x0, x1, x0, x1, z0, z1);

  // The whole area by hand: generated, lit in one batch, every section meshed.
  World whole;
  for (auto& c : gen::generate_columns(**gen, area, &pool)) whole.insert(std::move(c));
  light::light_columns(whole, light_table, area, &pool);
  std::map<ColumnPos, uint64_t> expected_columns;
  std::map<SectionPos, mesh::SectionMesh> expected_meshes;
  {
    auto input = std::make_unique<mesh::SectionInput>();
    mesh::MeshScratch scratch;
    for (const ColumnPos& c : area) {
      expected_columns[c] = whole.find(c)->content_hash(true);
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        mesh::SectionMesh m;
        mesh::mesh_world_section(*baked, whole, {c.x, s, c.z}, mesh::MeshOptions{}, *input, scratch, m);
        if (!m.empty()) expected_meshes[{c.x, s, c.z}] = m;
      }
    }
  }
  ASSERT_GT(expected_meshes.size(), 40u);

  // The window: row x drawn with rows x - 1 .. x + 1 (within the area) loaded, then row x - 1 released.
  World world;
  CountingSource source(**gen);
  KeepingSink sink;
  ColumnStreamer streamer(world, sink, source, light_table, *baked, pool);
  std::map<ColumnPos, uint64_t> got_columns;
  std::map<SectionPos, mesh::SectionMesh> got_meshes;
  for (int64_t x = x0; x <= x1; ++x) {
    const std::vector<ColumnPos> row = rows(x, x, x0, x1, z0, z1);
    auto st = streamer.load_view(row, rows(x - 1, x + 1, x0, x1, z0, z1));
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    EXPECT_EQ(st->columns_drawn, row.size());
    EXPECT_LE(world.column_count(), 3 * row.size()) << "row " << x;
    EXPECT_EQ(streamer.loaded_count(), world.column_count()) << "row " << x;
    for (const ColumnPos& c : row) {
      ASSERT_NE(world.find(c), nullptr);
      got_columns[c] = world.find(c)->content_hash(true);
      EXPECT_TRUE(streamer.drawn(c));
    }
    // The sink holds the meshes of the rows drawn and not released: row x - 1's and row x's.
    for (const auto& [sp, m] : sink.meshes) {
      EXPECT_GE(sp.x, x - 1) << "a released row's mesh is still in the sink";
      if (sp.x != x) continue;
      got_meshes[sp] = m;
      // A sink that keeps its meshes gets them trimmed to their contents (the mesher reserves 1,024 quads).
      EXPECT_EQ(m.opaque.capacity(), m.opaque.size()) << sp.x << "," << sp.y << "," << sp.z;
      EXPECT_EQ(m.cutout.capacity(), m.cutout.size()) << sp.x << "," << sp.y << "," << sp.z;
      EXPECT_EQ(m.translucent.capacity(), m.translucent.size()) << sp.x << "," << sp.y << "," << sp.z;
    }
    ASSERT_TRUE(streamer.release(rows(x - 1, x - 1, x0, x1, z0, z1)).ok());
    for (const ColumnPos& c : rows(x - 1, x - 1, x0, x1, z0, z1)) {
      EXPECT_EQ(world.find(c), nullptr);
      EXPECT_EQ(streamer.state(c), ColumnState::kAbsent);
    }
  }
  ASSERT_TRUE(streamer.release(rows(x1, x1, x0, x1, z0, z1)).ok());

  EXPECT_EQ(world.column_count(), 0u);
  EXPECT_EQ(streamer.loaded_count(), 0u);
  EXPECT_EQ(streamer.drawn_count(), 0u);
  EXPECT_TRUE(sink.meshes.empty()) << "release leaves no mesh behind";
  for (const ColumnPos& c : area) {
    EXPECT_EQ(source.loads[c], 1) << "column " << c.x << "," << c.z << " asked for once";
    EXPECT_EQ(source.unloads[c], 1) << "column " << c.x << "," << c.z << " handed back once";
  }
  EXPECT_EQ(source.loads.size(), area.size()) << "nothing past the area's edge is loaded";
  EXPECT_EQ(got_columns, expected_columns) << "cells and light as the whole area's";
  ASSERT_EQ(got_meshes.size(), expected_meshes.size());
  for (const auto& [sp, m] : expected_meshes) {
    auto it = got_meshes.find(sp);
    ASSERT_NE(it, got_meshes.end()) << "section " << sp.x << "," << sp.y << "," << sp.z << " was not uploaded";
    EXPECT_TRUE(it->second == m) << "section " << sp.x << "," << sp.y << "," << sp.z;
  }
}

TEST(PreparedSource, LaysItsColumnsOverTheBaseHandsEachOutOnceAndKeepsWhatComesBack) {
  auto gen = gen::make_generator("flat", 1, registry());
  ASSERT_TRUE(gen.ok());
  const Cell glass{registry().id("glass"), 0};
  const Cell glow{registry().id("glowstone"), 0};
  // The prepared column (0, 0): glass in the air (y 40) and glowstone in the flat world's dirt (y -2); its air
  // everywhere else does not carve the base.
  auto prepared = std::make_unique<Column>(ColumnPos{0, 0});
  prepared->set(3, 40, 4, glass);
  prepared->set(5, -2, 6, glow);
  std::vector<std::unique_ptr<Column>> columns;
  columns.push_back(std::move(prepared));
  PreparedSource source(std::move(columns), gen->get());
  EXPECT_EQ(source.held(), 1u);

  auto base = gen::generate_columns(**gen, {{0, 0}, {1, 0}}, nullptr);
  auto made = source.load({{1, 0}, {0, 0}});
  ASSERT_TRUE(made.ok());
  ASSERT_EQ(made->size(), 2u);
  EXPECT_EQ(source.held(), 0u);
  const Column& other = *(*made)[0];
  const Column& laid = *(*made)[1];
  EXPECT_EQ(other.pos(), (ColumnPos{1, 0}));
  EXPECT_EQ(other.content_hash(), base[1]->content_hash()) << "a column not prepared is the base's";
  EXPECT_EQ(laid.pos(), (ColumnPos{0, 0}));
  EXPECT_EQ(laid.get(3, 40, 4), glass);
  EXPECT_EQ(laid.get(5, -2, 6), glow);
  int differ = 0;
  for (int64_t y = kMinY; y <= kMaxY; ++y)
    for (int z = 0; z < 16; ++z)
      for (int x = 0; x < 16; ++x) differ += !(laid.get(x, y, z) == base[0]->get(x, y, z));
  EXPECT_EQ(differ, 2) << "only the prepared non-air cells differ from the base";

  // Handed out once: asked again without handing it back, the position is the base's alone.
  auto again = source.load({{0, 0}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[0]->content_hash(), base[0]->content_hash());

  // Handed back, it is kept whole: an edit that carves the base's ground stays carved when it loads again.
  std::unique_ptr<Column> edited = std::move((*made)[1]);
  edited->set(5, -2, 6, kAir);
  const uint64_t edited_hash = edited->content_hash();
  ASSERT_TRUE(source.unload(std::move(edited)).ok());
  EXPECT_EQ(source.held(), 1u);
  auto back = source.load({{0, 0}});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0]->content_hash(), edited_hash);
  EXPECT_EQ((*back)[0]->get(5, -2, 6), kAir);

  // Without a base: the prepared column as it is, and empty air elsewhere.
  auto lone = std::make_unique<Column>(ColumnPos{-3, 7});
  lone->set(0, 255, 15, glass);
  const uint64_t lone_hash = lone->content_hash();
  std::vector<std::unique_ptr<Column>> lone_columns;
  lone_columns.push_back(std::move(lone));
  PreparedSource air(std::move(lone_columns), nullptr);
  EXPECT_EQ(air.generator(), nullptr);
  auto got = air.load({{-3, 7}, {-3, 8}});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0]->content_hash(), lone_hash);
  EXPECT_EQ((*got)[1]->content_hash(), Column(ColumnPos{-3, 8}).content_hash());
}

}  // namespace
}  // namespace voxen::stream
