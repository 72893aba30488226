// The ray-march record (trace/section_record.h): a quad is listed in the cells the documented owner rule names; a
// record built from a real section's mesh and cells lists, in every cell, exactly the quads whose cells include it,
// sets the hit bit exactly there, carries the cells' shadow layer bit for bit, keeps every quad's words, and loses
// no quad (a quad listed in no cell could never be hit).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "voxen/mesh/baked.h"
#include "voxen/mesh/input.h"
#include "voxen/mesh/mesher.h"
#include "voxen/trace/occupancy.h"
#include "voxen/trace/section_record.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/column.h"
#include "voxen/world/world.h"

namespace voxen::trace {
namespace {

const BlockRegistry& registry() {
  static const BlockRegistry reg = BlockRegistry::load_default().value();
  return reg;
}
const mesh::BakedBlocks& baked() {
  static const mesh::BakedBlocks b = mesh::BakedBlocks::bake(registry()).value();
  return b;
}
Cell block(const char* name) { return Cell{*registry().find(name), 0}; }

std::vector<uint16_t> cells_of(const mesh::QuadFields& f) {
  const mesh::Quad q = mesh::pack_quad(f);
  std::vector<uint16_t> out;
  quad_cells(q.w, false, out);
  return out;
}
uint16_t cell(int x, int y, int z) { return static_cast<uint16_t>(y << 8 | z << 4 | x); }

TEST(SectionRecord, AQuadLiesInTheCellsItFacesOutOf) {
  mesh::QuadFields f;
  // The +X side of cell (3, 2, 3): the plane x = 8 half-blocks, one cell in U (+Z) and V (+Y).
  f.x = 8, f.y = 4, f.z = 6, f.face = kFacePosX;
  EXPECT_EQ(cells_of(f), std::vector<uint16_t>{cell(3, 2, 3)});
  f.face = kFaceNegX;  // the same plane seen from the other side: the -X side of cell (4, 2, 3)
  EXPECT_EQ(cells_of(f), std::vector<uint16_t>{cell(4, 2, 3)});
  // A bottom slab's top: +Y at half a block (y = 1) lies inside cell 0.
  f = {};
  f.x = 2, f.y = 1, f.z = 2, f.face = kFacePosY;
  EXPECT_EQ(cells_of(f), std::vector<uint16_t>{cell(1, 0, 1)});
  // A greedy top over the whole section at its ceiling (y = 32): the 256 cells of layer 15.
  f = {};
  f.y = 32, f.w = 32, f.h = 32, f.face = kFacePosY;
  const std::vector<uint16_t> top = cells_of(f);
  ASSERT_EQ(top.size(), 256u);
  for (const uint16_t c : top) EXPECT_EQ(c >> 8, 15);
  // Half a cell wide (a stair's quarter): one cell.
  f = {};
  f.x = 3, f.y = 2, f.z = 0, f.w = 1, f.h = 1, f.face = kFaceNegZ;
  EXPECT_EQ(cells_of(f), std::vector<uint16_t>{cell(1, 1, 0)});
  // A plant's diagonal plane through cell (1, 2, 3).
  f = {};
  f.x = 2, f.y = 4, f.z = 6, f.kind = mesh::QuadKind::kCrossA, f.face = kFacePosY;
  EXPECT_EQ(cells_of(f), std::vector<uint16_t>{cell(1, 2, 3)});
}

// Ground with a scatter of every shape above it, over 3 x 3 columns (the middle one's sections are meshed with all
// their neighbours loaded).
std::unique_ptr<World> scattered_world() {
  auto w = std::make_unique<World>();
  const char* kinds[] = {"stone", "oak_leaves", "glass", "water", "stone_slab", "stone_stairs", "poppy", "grass_slope", "sand"};
  uint64_t h = 12345;
  auto next = [&h] {
    h = h * 6364136223846793005ull + 1442695040888963407ull;  // a fixed sequence (the test's own, not a global one)
    return h >> 33;
  };
  for (int64_t cx = -1; cx <= 1; ++cx)
    for (int64_t cz = -1; cz <= 1; ++cz) {
      auto c = std::make_unique<Column>(ColumnPos{cx, cz});
      for (int x = 0; x < 16; ++x)
        for (int z = 0; z < 16; ++z) {
          for (int64_t y = 0; y <= 20; ++y) c->set(x, y, z, block("stone"));
          for (int64_t y = 21; y < 48; ++y)
            if (next() % 100 < 22) {
              Cell k = block(kinds[next() % 9]);
              k.state = static_cast<uint8_t>(next() % 8) & registry()[k.id].state_mask;
              c->set(x, y, z, k);
            }
        }
      w->insert(std::move(c));
    }
  return w;
}

TEST(SectionRecord, EveryCellListsExactlyTheQuadsInItAndItsShadowBits) {
  const auto world = scattered_world();
  const OccupancyTable table(registry());
  mesh::SectionInput in;
  mesh::MeshScratch scratch;
  size_t quads_seen = 0, shadow_cells = 0;
  for (int s = 1; s <= 2; ++s) {  // y 16..31 and 32..47: ground, surface and the scatter
    const SectionPos sp{0, s + 8, 0};  // section index from y = -128: 9 is y 16..31
    mesh::SectionMesh m;
    mesh::mesh_world_section(baked(), *world, sp, {}, in, scratch, m);
    std::vector<mesh::Quad> opaque = m.opaque;
    opaque.insert(opaque.end(), m.cutout.begin(), m.cutout.end());
    ASSERT_FALSE(opaque.empty());
    const SectionOccupancy occ = build_section(world->find({0, 0})->section(sp.y), table);
    const std::vector<uint32_t> words = build_section_record(opaque, m.translucent, &occ);
    const SectionRecordView view(words);
    // The oracle: each quad's own cells.
    std::map<uint16_t, std::vector<uint16_t>> expect;
    const size_t n = opaque.size() + m.translucent.size();
    ASSERT_EQ(view.quad_count(), n);
    for (size_t i = 0; i < n; ++i) {
      std::vector<uint16_t> cs;
      const bool translucent = i >= opaque.size();
      const uint32_t* w = translucent ? m.translucent[i - opaque.size()].w : opaque[i].w;
      quad_cells(w, translucent, cs);
      ASSERT_FALSE(cs.empty()) << "quad " << i << " lies in no cell";
      for (const uint16_t c : cs) expect[c].push_back(static_cast<uint16_t>(i));
      const auto got = view.quad(static_cast<uint32_t>(i));
      EXPECT_EQ(got[0], w[0]);
      EXPECT_EQ(got[1], w[1] | (translucent ? kRecordTranslucentBit : 0u));
      EXPECT_EQ(got[4], translucent ? w[4] : 0u);
    }
    quads_seen += n;
    for (int y = 0; y < 16; ++y)
      for (int z = 0; z < 16; ++z)
        for (int x = 0; x < 16; ++x) {
          auto it = expect.find(cell(x, y, z));
          const std::vector<uint16_t> want = it == expect.end() ? std::vector<uint16_t>{} : it->second;
          ASSERT_EQ(view.hit(x, y, z), !want.empty()) << x << "," << y << "," << z;
          ASSERT_EQ(view.quads(x, y, z), want) << x << "," << y << "," << z;
          ASSERT_EQ(view.shadow(x, y, z), occ.at(Layer::kShadow, x, y, z)) << x << "," << y << "," << z;
          shadow_cells += view.shadow(x, y, z);
        }
  }
  EXPECT_GT(quads_seen, 1000u);
  EXPECT_GT(shadow_cells, 1280u);  // the 5 stone layers of y 16..20 and the scatter
}

TEST(SectionRecord, ASectionWhollyShadowingSaysSo) {
  const OccupancyTable table(registry());
  Section stone;
  stone.fill(block("stone"));
  const SectionOccupancy occ = build_section(stone, table);
  mesh::QuadFields f;
  f.y = 32, f.w = 32, f.h = 32, f.face = kFacePosY;
  const mesh::Quad top = mesh::pack_quad(f);
  EXPECT_TRUE(SectionRecordView(build_section_record({&top, 1}, {}, &occ)).shadow_full());
  Section leaves;
  leaves.fill(block("glass"));  // translucent: casts no shadow
  const SectionOccupancy none = build_section(leaves, table);
  EXPECT_FALSE(SectionRecordView(build_section_record({&top, 1}, {}, &none)).shadow_full());
  EXPECT_FALSE(SectionRecordView(build_section_record({&top, 1}, {}, nullptr)).shadow_full());
}

}  // namespace
}  // namespace voxen::trace
