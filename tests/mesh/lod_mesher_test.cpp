// The far view's LOD mesher (voxen/mesh/lod_mesher.h): the quad's bit layout, the block classes and textures, and the
// greedy mesher against its one-quad-per-face reference on hand-made, random and generated (Pyramid) sections: the
// greedy quads, expanded into 1x1 faces, must be exactly the reference's faces (same cell, face, texture and light).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../lod/lod_test_util.h"
#include "voxen/core/hash.h"
#include "voxen/lod/pyramid.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/lod_mesher.h"

namespace voxen::mesh {
namespace {

using lod::LodCell;
using lod::PaddedLodSection;

const BlockRegistry& reg() { return lodtest::registry(); }
const LodMeshTables& tables() {
  static const LodMeshTables t(reg());
  return t;
}
const BakedBlocks& baked() {
  static const BakedBlocks b = [] {
    auto r = BakedBlocks::bake(reg());
    if (!r) std::abort();
    return std::move(r).value();
  }();
  return b;
}
uint16_t id_of(const char* name) { return reg().id(name); }
LodCell cell(const char* name, uint8_t state = 0, Light light = 0) {
  return LodCell::make(Cell{id_of(name), state}, light);
}

// The face's U and V axes as cell steps (the header's table).
constexpr int kU[6][3] = {{0, 0, 1}, {0, 0, 1}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}};
constexpr int kV[6][3] = {{0, 1, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}};

// Every quad as its 1x1 faces, sorted; a quad that leaves the section, exceeds 16 cells or sets a reserved bit
// fails the test.
std::vector<LodQuad> expand(const LodMesh& mesh) {
  std::vector<LodQuad> out;
  for (const LodQuad q : mesh.quads) {
    EXPECT_EQ(q.bits >> 52, 0u) << "reserved bits set";
    const LodQuadFields f = unpack_lod_quad(q);
    EXPECT_LE(f.face, 5);
    EXPECT_TRUE(f.w >= 1 && f.w <= 16 && f.h >= 1 && f.h <= 16);
    for (int j = 0; j < f.h; ++j)
      for (int i = 0; i < f.w; ++i) {
        LodQuadFields g = f;
        g.x = f.x + i * kU[f.face][0] + j * kV[f.face][0];
        g.y = f.y + i * kU[f.face][1] + j * kV[f.face][1];
        g.z = f.z + i * kU[f.face][2] + j * kV[f.face][2];
        g.w = g.h = 1;
        EXPECT_TRUE(g.x >= 0 && g.x < 32 && g.y >= 0 && g.y < 32 && g.z >= 0 && g.z < 32)
            << "quad leaves the section: " << f.x << ',' << f.y << ',' << f.z << " face " << f.face << ' ' << f.w << 'x'
            << f.h;
        out.push_back(pack_lod_quad(g));
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string describe(LodQuad q) {
  const LodQuadFields f = unpack_lod_quad(q);
  return "cell " + std::to_string(f.x) + "," + std::to_string(f.y) + "," + std::to_string(f.z) + " face " +
         std::to_string(f.face) + " texture " + std::to_string(f.texture) + " light " + std::to_string(f.light);
}

// Greedy and reference meshes of `in`: the same unit faces (no face twice), and the greedy quad count reported.
::testing::AssertionResult same_faces(const PaddedLodSection& in, size_t* greedy_quads = nullptr,
                                      size_t* faces = nullptr) {
  LodMesh fast, ref;
  mesh_lod_section(in, tables(), fast);
  mesh_lod_section_reference(in, tables(), ref);
  const std::vector<LodQuad> a = expand(fast);
  std::vector<LodQuad> b = ref.quads;
  std::sort(b.begin(), b.end());
  if (greedy_quads) *greedy_quads = fast.quads.size();
  if (faces) *faces = b.size();
  if (std::adjacent_find(a.begin(), a.end()) != a.end())
    return ::testing::AssertionFailure() << "greedy quads overlap at "
                                         << describe(*std::adjacent_find(a.begin(), a.end()));
  if (a == b) return ::testing::AssertionSuccess();
  std::vector<LodQuad> only_a, only_b;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_a));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(only_b));
  auto r = ::testing::AssertionFailure();
  r << "greedy covers " << a.size() << " faces, reference " << b.size() << "; " << only_a.size() << " only in greedy, "
    << only_b.size() << " only in reference";
  for (size_t i = 0; i < only_a.size() && i < 5; ++i) r << "\n  greedy only: " << describe(only_a[i]);
  for (size_t i = 0; i < only_b.size() && i < 5; ++i) r << "\n  reference only: " << describe(only_b[i]);
  return r;
}

bool is_edge(int x, int y, int z) {
  const int out = (x < 0 || x > 31) + (y < 0 || y > 31) + (z < 0 || z > 31);
  return out >= 2;
}

// A padded section whose every inner and border cell is fn(x, y, z) (edges and corners stay air).
template <class Fn>
PaddedLodSection make_section(Fn fn) {
  PaddedLodSection p;
  for (int y = -1; y <= 32; ++y)
    for (int z = -1; z <= 32; ++z)
      for (int x = -1; x <= 32; ++x)
        if (!is_edge(x, y, z)) p.set(x, y, z, fn(x, y, z));
  return p;
}

// --- the quad ---------------------------------------------------------------------------------------------------

TEST(LodQuad, PackUnpackRoundTripsEveryFieldAtItsLimits) {
  for (int x : {0, 31})
    for (int y : {0, 31})
      for (int z : {0, 31})
        for (int face = 0; face < 6; ++face)
          for (int w : {1, 16})
            for (int h : {1, 16})
              for (int texture : {0, 1023})
                for (int light : {0, 0xFFFF}) {
                  LodQuadFields f;
                  f.x = x, f.y = y, f.z = z, f.face = face, f.w = w, f.h = h, f.texture = texture;
                  f.light = static_cast<uint16_t>(light);
                  const LodQuad q = pack_lod_quad(f);
                  ASSERT_EQ(unpack_lod_quad(q), f);
                  ASSERT_EQ(q.bits >> 52, 0u);
                }
}

TEST(LodQuad, FieldsSitAtTheDocumentedBits) {
  LodQuadFields f;
  f.x = 31;
  EXPECT_EQ(pack_lod_quad(f).bits, 31ull);
  f = {};
  f.y = 31;
  EXPECT_EQ(pack_lod_quad(f).bits, 31ull << 5);
  f = {};
  f.z = 31;
  EXPECT_EQ(pack_lod_quad(f).bits, 31ull << 10);
  f = {};
  f.face = 5;
  EXPECT_EQ(pack_lod_quad(f).bits, 5ull << 15);
  f = {};
  f.w = 16;
  EXPECT_EQ(pack_lod_quad(f).bits, 15ull << 18);
  f = {};
  f.h = 16;
  EXPECT_EQ(pack_lod_quad(f).bits, 15ull << 22);
  f = {};
  f.texture = 1023;
  EXPECT_EQ(pack_lod_quad(f).bits, 1023ull << 26);
  f = {};
  f.light = 0xFFFF;
  EXPECT_EQ(pack_lod_quad(f).bits, 0xFFFFull << 36);
}

// --- the tables ---------------------------------------------------------------------------------------------------

TEST(LodMeshTables, ClassesFollowTheRegistry) {
  const LodMeshTables& t = tables();
  EXPECT_EQ(t.cls(kAirId), LodMeshTables::kAirClass);
  for (const char* solid : {"stone", "grass_block", "oak_leaves", "glass", "ice", "tall_grass", "torch", "stone_slab",
                            "stone_stairs", "grass_slope", "oak_log"})
    EXPECT_EQ(t.cls(id_of(solid)), LodMeshTables::kSolidClass) << solid;
  EXPECT_EQ(t.cls(id_of("water")), LodMeshTables::kFluidClass);
  EXPECT_EQ(t.cls(id_of("lava")), LodMeshTables::kFluidClass);
  EXPECT_EQ(t.cls(65535), LodMeshTables::kAirClass);  // past the registry
}

TEST(LodMeshTables, TexturesAreTheNearMeshersWithTheAxisTurn) {
  for (size_t id = 1; id < reg().size(); ++id) {
    if (tables().cls(static_cast<uint16_t>(id)) == LodMeshTables::kAirClass) continue;
    for (int axis = 0; axis < 4; ++axis)
      for (int face = 0; face < 6; ++face) {
        const uint8_t state = static_cast<uint8_t>(axis << 3);
        ASSERT_EQ(tables().texture(static_cast<uint16_t>(id), state, face),
                  baked().texture(static_cast<uint16_t>(id), state, face))
            << reg()[static_cast<uint16_t>(id)].name << " axis " << axis << " face " << face;
      }
  }
  // A lying log shows its end texture on the faces along its axis, and so do its LOD quads.
  const uint16_t log = id_of("oak_log");
  const BlockDef& def = reg()[log];
  ASSERT_NE(def.face_texture_index[kFacePosY], def.face_texture_index[kFacePosX]);
  PaddedLodSection p;
  p.set(5, 5, 5, cell("oak_log", 1 << 3));  // axis x
  LodMesh m;
  mesh_lod_section(p, tables(), m);
  ASSERT_EQ(m.quads.size(), 6u);
  for (const LodQuad q : m.quads) {
    const LodQuadFields f = unpack_lod_quad(q);
    const bool end = f.face == kFacePosX || f.face == kFaceNegX;
    EXPECT_EQ(f.texture, end ? def.face_texture_index[kFacePosY] : baked().texture(log, 1 << 3, f.face)) << f.face;
  }
}

TEST(LodMeshTables, TooManyTexturesIsAClearError) {
  BlockRegistry r = reg();
  for (int i = 0; i < 1100; ++i) {
    BlockDef d;
    d.name = "many_" + std::to_string(i);
    d.shape = Shape::kCube;
    d.opacity = 15;
    d.face_texture.fill("many_texture_" + std::to_string(i));
    ASSERT_TRUE(r.add(d).ok());
  }
  try {
    LodMeshTables t(r);
    FAIL() << "no error for " << r.textures().size() << " textures";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("10-bit texture field"), std::string::npos) << e.what();
  }
}

// --- hand-made sections -------------------------------------------------------------------------------------------

TEST(LodMesher, UniformSectionsWithLikeBordersGiveNoQuads) {
  LodMesh m;
  const PaddedLodSection air;
  mesh_lod_section(air, tables(), m);
  EXPECT_TRUE(m.quads.empty());
  const PaddedLodSection stone = make_section([](int, int, int) { return cell("stone"); });
  mesh_lod_section(stone, tables(), m);
  EXPECT_TRUE(m.quads.empty());
  mesh_lod_section_reference(stone, tables(), m);
  EXPECT_TRUE(m.quads.empty());
  const PaddedLodSection water = make_section([](int, int, int) { return cell("water"); });
  mesh_lod_section(water, tables(), m);
  EXPECT_TRUE(m.quads.empty());
  // Water against lava, and water inside stone: no face (fluid against fluid, fluid against solid).
  const PaddedLodSection lava_border = make_section([](int x, int y, int z) {
    return x < 0 || x > 31 || y < 0 || y > 31 || z < 0 || z > 31 ? cell("lava") : cell("water");
  });
  mesh_lod_section(lava_border, tables(), m);
  EXPECT_TRUE(m.quads.empty());
}

TEST(LodMesher, AStoneCubeInAirIs24QuadsOf16By16) {
  const Light lit = make_light(15, 0, 0, 0);
  const PaddedLodSection p = make_section([&](int x, int y, int z) {
    return x < 0 || x > 31 || y < 0 || y > 31 || z < 0 || z > 31 ? LodCell::make(kAir, lit) : cell("stone");
  });
  LodMesh m;
  mesh_lod_section(p, tables(), m);
  ASSERT_EQ(m.quads.size(), 24u);
  for (const LodQuad q : m.quads) {
    const LodQuadFields f = unpack_lod_quad(q);
    EXPECT_EQ(f.w, 16);
    EXPECT_EQ(f.h, 16);
    EXPECT_EQ(f.light, lit);
  }
  EXPECT_TRUE(same_faces(p));
}

TEST(LodMesher, StoneShowsAFaceToWaterAndWaterToAirOnly) {
  // A stone at (3, 3, 3) in water at (4, 3, 3) with air around: stone has 6 faces (5 to air, 1 to water), the water
  // 5 (not the one against the stone).
  PaddedLodSection p;
  p.set(3, 3, 3, cell("stone"));
  p.set(4, 3, 3, cell("water"));
  LodMesh m;
  mesh_lod_section_reference(p, tables(), m);
  EXPECT_EQ(m.quads.size(), 11u);
  mesh_lod_section(p, tables(), m);
  EXPECT_EQ(m.quads.size(), 11u);
  EXPECT_TRUE(same_faces(p));
}

TEST(LodMesher, FacesAgainstTheBorderFollowTheNeighboursCells) {
  // A floor of stone filling layer 0 of every axis side, for every class of border beyond it: the outer faces
  // exist exactly where the border is air (or fluid, for stone), and take the border cell's light.
  const std::array<LodCell, 4> borders = {LodCell::make(kAir, make_light(9, 1, 2, 3)), cell("stone"),
                                          cell("water", 0, make_light(4, 0, 0, 0)), cell("oak_leaves")};
  for (int face = 0; face < 6; ++face)
    for (const LodCell inner : {cell("stone"), cell("water"), cell("oak_log", 2 << 3)})
      for (const LodCell border : borders) {
        const int axis = face >> 1;
        const int layer = (face & 1) ? 0 : 31;  // the inner layer the face's border touches
        const PaddedLodSection p = make_section([&](int x, int y, int z) {
          const int c[3] = {x, y, z};
          if (c[axis] == layer) return inner;
          if (c[axis] == ((face & 1) ? -1 : 32)) return border;
          return LodCell::make(kAir, make_light(15, 0, 0, 0));
        });
        size_t quads = 0, faces = 0;
        ASSERT_TRUE(same_faces(p, &quads, &faces)) << "face " << face << " border " << border.bits;
        LodMesh ref;
        mesh_lod_section_reference(p, tables(), ref);
        size_t outer = 0;
        for (const LodQuad q : ref.quads) {
          const LodQuadFields f = unpack_lod_quad(q);
          if (f.face != face) continue;
          ++outer;
          EXPECT_EQ(f.light, border.light());
        }
        const auto ic = tables().cls(inner.id()), bc = tables().cls(border.id());
        const bool shown =
            ic == LodMeshTables::kSolidClass ? bc != LodMeshTables::kSolidClass : bc == LodMeshTables::kAirClass;
        EXPECT_EQ(outer, shown ? 1024u : 0u) << "face " << face;
        if (shown) {
          EXPECT_GE(quads, 8u);  // the 32 x 32 layer on each side as 2 x 2 quads of 16 x 16
        }
      }
}

// Skirts (append_lod_skirts): ground of stone up to cell y 9 with lit air above (sky 15 at y 10, 14 at y 11, ...), the
// border the same ground. The greedy mesh has only the top; the skirts are the side faces of every cell under the
// air (y 0..9) on the four outer x/z faces, lit by the nearest air cell above them, y 10 (sky 15), merged greedily:
// two 16 x 10 quads a face. Where the border is air the face rule already draws the face, so no skirt doubles it;
// water and the ground under it get skirts too; a cave's air lights the cells under it; a section without air gets
// none, unless the sections above it in its stack leave its columns open.
TEST(LodMesher, SkirtsCloseEveryHiddenCellUnderTheAirOnTheSectionsOuterSidesOnly) {
  auto ground = [](int, int y, int) {
    return y <= 9 ? cell("stone") : LodCell::make(kAir, make_light(static_cast<uint8_t>(std::max(0, 25 - y)), 0, 0, 0));
  };
  const PaddedLodSection p = make_section(ground);
  LodMesh m;
  mesh_lod_section(p, tables(), m);
  const size_t top = m.quads.size();
  append_lod_skirts(p, tables(), m);
  ASSERT_GT(m.quads.size(), top);
  LodMesh skirts;
  skirts.quads.assign(m.quads.begin() + static_cast<ptrdiff_t>(top), m.quads.end());
  const std::vector<LodQuad> faces = expand(skirts);
  std::vector<LodQuad> want;
  const uint16_t stone = id_of("stone");
  for (const int face : {0, 1, 4, 5})
    for (int y = 0; y <= 9; ++y)
      for (int u = 0; u < 32; ++u) {
        LodQuadFields f;
        const int fixed = (face == 0 || face == 4) ? 31 : 0;
        f.x = face < 2 ? fixed : u, f.y = y, f.z = face < 2 ? u : fixed, f.face = face;
        f.texture = tables().texture(stone, 0, face);
        f.light = make_light(15, 0, 0, 0);  // the air at y 10
        want.push_back(pack_lod_quad(f));
      }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(faces, want);
  EXPECT_EQ(skirts.quads.size(), 4u * 2u);  // 16 x 10 each
  for (const LodQuad q : skirts.quads) EXPECT_EQ(unpack_lod_quad(q).h, 10);

  // Border air on +X: the face rule draws those faces; the skirts add none there.
  const PaddedLodSection open_x = make_section([&](int x, int y, int z) { return x == 32 ? LodCell::make(kAir, 0) : ground(x, y, z); });
  LodMesh a;
  append_lod_skirts(open_x, tables(), a);
  for (const LodQuad q : a.quads) EXPECT_NE(unpack_lod_quad(q).face, 0) << describe(q);
  EXPECT_EQ(a.quads.size(), 3u * 2u);

  // A sea: stone to y 5, water 6..9, air above. Skirts on every cell under the air, water and stone (a finer
  // neighbour's water may lie lower or end at a cliff): per face a 16 x 4 water quad and a 16 x 6 stone quad twice.
  const PaddedLodSection sea = make_section([](int, int y, int) {
    return y <= 5 ? cell("stone") : y <= 9 ? cell("water") : LodCell::make(kAir, make_light(15, 0, 0, 0));
  });
  LodMesh w;
  append_lod_skirts(sea, tables(), w);
  EXPECT_EQ(w.quads.size(), 4u * 4u);
  for (const LodQuad q : w.quads) {
    const LodQuadFields f = unpack_lod_quad(q);
    const bool water = f.y >= 6;
    EXPECT_EQ(f.y, water ? 6 : 0) << describe(q);
    EXPECT_EQ(f.h, water ? 4 : 6) << describe(q);
    EXPECT_EQ(f.texture, tables().texture(id_of(water ? "water" : "stone"), 0, f.face)) << describe(q);
    EXPECT_EQ(f.light, make_light(15, 0, 0, 0)) << describe(q);
  }

  // A stack meshed from the top down (LodSkirtColumns): a section of stone throughout, no air in it, gets no
  // skirts alone; under the ground section above (stone to y 9: its columns leave 10 cells below their air) its top
  // 6 rows get skirts (cells 10..15 below the air: lod_skirt_depth(0) = 16), lit by that air, and the next section of
  // rock under it none (42 cells down); under a closed state none.
  const PaddedLodSection rock = make_section([](int, int, int) { return cell("stone"); });
  LodSkirtColumns state;
  LodMesh upper;
  append_lod_skirts(p, tables(), upper, &state);
  for (const auto& face : state.depth)
    for (const uint8_t d : face) EXPECT_EQ(d, 10);
  LodMesh lower;
  append_lod_skirts(rock, tables(), lower, &state);
  const std::vector<LodQuad> lower_faces = expand(lower);
  EXPECT_EQ(lower_faces.size(), 4u * 32u * 6u);
  for (const LodQuad q : lower_faces) {
    EXPECT_GE(unpack_lod_quad(q).y, 26) << describe(q);
    EXPECT_EQ(unpack_lod_quad(q).light, make_light(15, 0, 0, 0)) << describe(q);
  }
  LodMesh lowest;
  append_lod_skirts(rock, tables(), lowest, &state);
  EXPECT_TRUE(lowest.quads.empty());
  LodSkirtColumns closed;
  LodMesh none;
  append_lod_skirts(rock, tables(), none, &closed);
  EXPECT_TRUE(none.quads.empty());

  // Stone to y 20 with a cave (dark air, block light 9 red) at y 5..6: skirts at y 7..20 lit by the sky above,
  // at y 0..4 by the cave's air.
  const Light cave_light = make_light(0, 9, 0, 0);
  const PaddedLodSection cave = make_section([&](int, int y, int) {
    return y == 5 || y == 6 ? LodCell::make(kAir, cave_light) : y <= 20 ? cell("stone") : LodCell::make(kAir, make_light(15, 0, 0, 0));
  });
  LodMesh c;
  append_lod_skirts(cave, tables(), c);
  size_t sky_lit = 0, cave_lit = 0;
  for (const LodQuad q : expand(c)) {
    const LodQuadFields f = unpack_lod_quad(q);
    ASSERT_TRUE(f.y <= 4 || (f.y >= 7 && f.y <= 20)) << describe(q);
    EXPECT_EQ(f.light, f.y <= 4 ? cave_light : make_light(15, 0, 0, 0)) << describe(q);
    (f.y <= 4 ? cave_lit : sky_lit) += 1;
  }
  EXPECT_EQ(sky_lit, 4u * 32u * 14u);
  EXPECT_EQ(cave_lit, 4u * 32u * 5u);

  // At level 5 (cells of 32 blocks) skirts reach 2 cells down (lod_skirt_depth: at most 64 blocks), at level 3 8.
  PaddedLodSection coarse = p;
  coarse.pos.level = 5;
  LodMesh c5;
  append_lod_skirts(coarse, tables(), c5);
  for (const LodQuad q : expand(c5)) EXPECT_GE(unpack_lod_quad(q).y, 8) << describe(q);
  EXPECT_EQ(expand(c5).size(), 4u * 32u * 2u);
  coarse.pos.level = 3;
  LodMesh c3;
  append_lod_skirts(coarse, tables(), c3);
  EXPECT_EQ(expand(c3).size(), 4u * 32u * 8u);

  // Uniform sections: nothing (all air: no cell; all stone: no air in its column, the padding above is stone too).
  LodMesh u;
  append_lod_skirts(PaddedLodSection{}, tables(), u);
  append_lod_skirts(make_section([](int, int, int) { return cell("stone"); }), tables(), u);
  EXPECT_TRUE(u.quads.empty());
}

TEST(LodMesher, GarbageInTheBordersEdgesIsIgnored) {
  PaddedLodSection p = make_section([](int x, int y, int z) {
    return (hash3(7, x, y, z) & 1) ? cell("stone")
                                   : LodCell::make(kAir, static_cast<Light>(hash3(8, x, y, z) & 0xF000));
  });
  LodMesh before, after;
  mesh_lod_section(p, tables(), before);
  for (int y = -1; y <= 32; ++y)
    for (int z = -1; z <= 32; ++z)
      for (int x = -1; x <= 32; ++x)
        if (is_edge(x, y, z)) p.set(x, y, z, (hash3(9, x, y, z) & 1) ? cell("water") : cell("stone"));
  mesh_lod_section(p, tables(), after);
  EXPECT_EQ(before.quads, after.quads);
}

TEST(LodMesherDeathTest, AWronglySizedSectionStopsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  PaddedLodSection p;
  p.cells.resize(100);
  LodMesh m;
  EXPECT_DEATH(mesh_lod_section(p, tables(), m), "assertion failed");
  EXPECT_DEATH(mesh_lod_section_reference(p, tables(), m), "assertion failed");
}

// --- random sections ----------------------------------------------------------------------------------------------

struct Mix {
  const char* name;
  std::vector<LodCell> blocks;  // chosen uniformly among non-air cells
};

TEST(LodMesher, RandomSectionsMatchTheReference) {
  const std::vector<Mix> mixes = {
      {"stone", {cell("stone")}},
      {"water next to stone", {cell("stone"), cell("water"), cell("water", 3)}},
      {"water next to water and lava", {cell("water"), cell("lava")}},
      {"logs and leaves",
       {cell("oak_log"), cell("oak_log", 1 << 3), cell("oak_log", 2 << 3), cell("oak_log", 3 << 3), cell("oak_leaves"),
        cell("birch_leaves")}},
      {"everything",
       {cell("stone"), cell("dirt"), cell("grass_block"), cell("water"), cell("lava"), cell("glass"), cell("torch"),
        cell("stone_slab", 2), cell("oak_log", 2 << 3), cell("snow")}},
  };
  // Light: none, one value, a sky gradient along y, or random (every face its own).
  const int kLightModes = 4;
  size_t total_quads = 0, total_faces = 0;
  for (size_t mi = 0; mi < mixes.size(); ++mi)
    for (double density : {0.05, 0.3, 0.6, 0.95})
      for (int lm = 0; lm < kLightModes; ++lm) {
        const uint64_t seed = hash3(42, static_cast<int64_t>(mi), static_cast<int64_t>(density * 100), lm);
        const Mix& mix = mixes[mi];
        const PaddedLodSection p = make_section([&](int x, int y, int z) {
          const uint64_t h = hash3(seed, x, y, z);
          Light light = 0;
          switch (lm) {
            case 1: light = make_light(12, 3, 0, 1); break;
            case 2: light = make_light((y + 1) / 3, 0, 0, 0); break;
            case 3: light = static_cast<Light>(hash3(seed + 1, x, y, z) & 0xFFFF); break;
            default: break;
          }
          if (hash_to_unit(h) >= density) return LodCell::make(kAir, light);
          const LodCell b = mix.blocks[(h >> 40) % mix.blocks.size()];
          return LodCell::make(b.cell(), light);
        });
        size_t quads = 0, faces = 0;
        ASSERT_TRUE(same_faces(p, &quads, &faces)) << mix.name << " density " << density << " light mode " << lm;
        total_quads += quads;
        total_faces += faces;
      }
  EXPECT_LT(total_quads, total_faces);  // something merged
}

// --- generated terrain --------------------------------------------------------------------------------------------

// The level-L section at `pos` of `pyramid` with its border read from the same-level neighbours (Pyramid::get).
PaddedLodSection padded_from(const lod::Pyramid& pyramid, const lod::LodSectionPos& pos) {
  PaddedLodSection p;
  p.pos = pos;
  const int64_t bx = pos.x * 32, by = pos.y * 32, bz = pos.z * 32;
  for (int y = -1; y <= 32; ++y)
    for (int z = -1; z <= 32; ++z)
      for (int x = -1; x <= 32; ++x)
        if (!is_edge(x, y, z)) p.set(x, y, z, pyramid.get(pos.level, bx + x, by + y, bz + z));
  return p;
}

TEST(LodMesher, GeneratedTerrainSectionsAtLevels0To5MatchTheReference) {
  // 8 x 8 columns of the default terrain (seed 1) around the origin, lit, in a pyramid of levels 0..5.
  const World world = lodtest::generated_world(1, -4, 3, -4, 3);
  const lod::Pyramid pyramid = lodtest::pyramid_of(world, 6);
  std::array<size_t, 6> sections{}, quads{}, faces{};
  size_t fluid_faces = 0;
  for (const lod::LodSectionPos& pos : pyramid.positions()) {
    const PaddedLodSection p = padded_from(pyramid, pos);
    size_t q = 0, f = 0;
    ASSERT_TRUE(same_faces(p, &q, &f)) << "level " << pos.level << " section " << pos.x << ',' << pos.y << ',' << pos.z;
    ++sections[static_cast<size_t>(pos.level)];
    quads[static_cast<size_t>(pos.level)] += q;
    faces[static_cast<size_t>(pos.level)] += f;
    LodMesh m;
    mesh_lod_section(p, tables(), m);
    for (const LodQuad qq : m.quads) {
      const LodQuadFields fl = unpack_lod_quad(qq);
      if (tables().cls(p.get(fl.x, fl.y, fl.z).id()) == LodMeshTables::kFluidClass) ++fluid_faces;
    }
  }
  for (int level = 0; level < 6; ++level) {
    EXPECT_GT(sections[static_cast<size_t>(level)], 0u) << level;
    EXPECT_GT(faces[static_cast<size_t>(level)], 0u) << level;
    EXPECT_LT(quads[static_cast<size_t>(level)], faces[static_cast<size_t>(level)]) << level;
  }
  EXPECT_GT(fluid_faces, 0u) << "the area should hold some water";
}

TEST(LodMesher, QuadsComeInTheDocumentedOrder) {
  // Face 0..5, then the slice along the face's axis, then V, then U, each ascending.
  const PaddedLodSection p = make_section([](int x, int y, int z) {
    const uint64_t h = hash3(77, x, y, z);
    return hash_to_unit(h) < 0.4 ? cell((h >> 40) & 1 ? "stone" : "water") : LodCell{};
  });
  LodMesh m;
  mesh_lod_section(p, tables(), m);
  ASSERT_GT(m.quads.size(), 100u);
  const auto order_key = [](LodQuad q) {
    const LodQuadFields f = unpack_lod_quad(q);
    const int c[3] = {f.x, f.y, f.z};
    const int axis = f.face >> 1;
    const int u = axis == 0 ? f.z : f.x, v = axis == 1 ? f.z : f.y;
    return std::array<int, 4>{f.face, c[axis], v, u};
  };
  for (size_t i = 1; i < m.quads.size(); ++i)
    ASSERT_LT(order_key(m.quads[i - 1]), order_key(m.quads[i])) << "quad " << i;
}

// --- determinism --------------------------------------------------------------------------------------------------

TEST(LodMesher, DeterministicAcrossCallsAndThreads) {
  std::vector<PaddedLodSection> sections;
  for (int i = 0; i < 8; ++i)
    sections.push_back(make_section([&](int x, int y, int z) {
      const uint64_t h = hash3(100 + static_cast<uint64_t>(i), x, y, z);
      const Light light = make_light(y / 3, 0, 0, 0);
      if (hash_to_unit(h) < 0.5 - 0.05 * i) return LodCell::make(kAir, light);
      return (h >> 40) & 1 ? cell("water", 0, light) : cell("grass_block", 0, light);
    }));
  std::vector<LodMesh> single(sections.size());
  for (size_t i = 0; i < sections.size(); ++i) mesh_lod_section(sections[i], tables(), single[i]);
  // Again into a used mesh (cleared first), and on four threads at once.
  LodMesh again;
  again.quads.resize(5, LodQuad{123});
  mesh_lod_section(sections[0], tables(), again);
  EXPECT_EQ(again.quads, single[0].quads);
  std::vector<LodMesh> parallel(sections.size());
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = t; i < sections.size(); i += 4) mesh_lod_section(sections[i], tables(), parallel[i]);
    });
  for (auto& th : threads) th.join();
  for (size_t i = 0; i < sections.size(); ++i) EXPECT_EQ(parallel[i].quads, single[i].quads) << i;
}

// Seams between two sources (mesh_lod_section_seams; the far view's real columns beside the coarse terrain): a
// stone slab y 0..9 whose columns x < 16 are source 1 and the rest source 0 gets, besides the plain mesh's faces, the
// wall on both sides of the seam (x faces of the 10 x 32 cells either side: 640 unit faces), lit by full sky, and
// nothing else; with one source throughout it is the plain mesh, quad for quad.
TEST(LodMesher, SeamsBetweenSourcesGetTheirWallsAndNothingElse) {
  const LodCell stone = cell("stone");
  const PaddedLodSection in = make_section([&](int, int y, int) { return y >= 0 && y < 10 ? stone : LodCell{}; });
  std::vector<uint8_t> source(static_cast<size_t>(PaddedLodSection::kSide) * PaddedLodSection::kSide, 0);
  PaddedLodSection scratch;
  LodMesh plain, seams;
  mesh_lod_section(in, tables(), plain);
  mesh_lod_section_seams(in, source, tables(), seams, scratch);
  EXPECT_EQ(seams.quads, plain.quads) << "one source: the plain mesh";
  for (int z = -1; z <= 32; ++z)
    for (int x = -1; x < 16; ++x) source[static_cast<size_t>((z + 1) * PaddedLodSection::kSide + x + 1)] = 1;
  mesh_lod_section_seams(in, source, tables(), seams, scratch);
  const std::vector<LodQuad> a = expand(plain), b = expand(seams);
  std::vector<LodQuad> added, lost;
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(added));
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(lost));
  EXPECT_TRUE(lost.empty()) << lost.size() << " faces lost, e.g. " << describe(lost[0]);
  ASSERT_EQ(added.size(), 640u);
  for (const LodQuad q : added) {
    const LodQuadFields f = unpack_lod_quad(q);
    EXPECT_TRUE((f.face == 0 && f.x == 15) || (f.face == 1 && f.x == 16)) << describe(q);
    EXPECT_LT(f.y, 10) << describe(q);
    EXPECT_EQ(f.light, make_light(15, 0, 0, 0)) << describe(q);
  }
  // A seam on the section's own +X face (its border column of the other source), skirts on: each face once (a skirt
  // of the whole section would lie on the wall the seam draws there).
  std::fill(source.begin(), source.end(), uint8_t{0});
  for (int z = 0; z < 32; ++z) source[static_cast<size_t>((z + 1) * PaddedLodSection::kSide + 33)] = 1;
  mesh_lod_section_seams(in, source, tables(), seams, scratch, /*skirts=*/true);
  const std::vector<LodQuad> c = expand(seams);
  EXPECT_EQ(std::adjacent_find(c.begin(), c.end()), c.end()) << "a face drawn twice";
  size_t wall = 0;
  for (const LodQuad q : c) wall += unpack_lod_quad(q).face == 0 && unpack_lod_quad(q).x == 31;
  EXPECT_EQ(wall, 320u) << "the +X wall of the 10 x 32 cells at x = 31";
}

}  // namespace
}  // namespace voxen::mesh
