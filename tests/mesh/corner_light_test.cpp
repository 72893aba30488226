// Smooth light at a vertex that is a column corner and a section border at once (diagonal in x, y and z): the four
// column meshes whose faces share it must give it the same light (a Luanti bug of this kind stood for years), seen
// from the section below the border (a floor's top faces) and from the section above it (a roof's bottom faces).
// Real light from the lighting module; real meshes from the fast mesher.
#include <gtest/gtest.h>

#include <string>

#include "mesh_test_util.h"
#include "voxen/mesh/quad_geometry.h"

namespace voxen::mesh {
namespace {

using namespace testing;

// Builds a 4 x 4 column world around world (0, 0): a stone floor at y = floor_y, a stone roof at y = roof_y over
// x, z in -6..5 (so sky light is not uniform), a torch and coloured lamps placed off-centre (glass beside them),
// then lights it with the lighting module.
std::unique_ptr<World> corner_world(BlockPos torch, int floor_y, int roof_y) {
  auto world = empty_world(-2, -2, 4);
  for (int64_t x = -32; x < 32; ++x)
    for (int64_t z = -32; z < 32; ++z) {
      world->apply({{x, floor_y, z}, kAir, cell_of("stone"), 0});
      if (x >= -6 && x <= 5 && z >= -6 && z <= 5) world->apply({{x, roof_y, z}, kAir, cell_of("stone"), 0});
    }
  world->apply({torch, kAir, cell_of("torch"), 0});
  world->apply({{-3, floor_y + 2, 1}, kAir, cell_of("red_lamp"), 0});
  world->apply({{1, floor_y + 1, -4}, kAir, cell_of("blue_lamp"), 0});
  world->apply({{-1, floor_y + 1, -1}, kAir, cell_of("glass"), 0});
  const light::LightTable table(registry());
  const auto positions = world->positions();
  light::light_columns(*world, table, positions, nullptr);
  return world;
}

struct Seen {
  Light light;
  uint8_t ao;
};

// The corner at world vertex (0, vy, 0) of the `face` (kFacePosY or kFaceNegY) of cell (cx, cy, cz), as the fast
// mesher gives it in the mesh of the section holding that cell. The corner is found by position (quad_corners),
// not by a corner index.
Seen corner_seen(const World& world, BlockPos cell, int face, int64_t vy, bool greedy) {
  const SectionPos sp = section_pos_of(cell);
  SectionInput in;
  MeshScratch scratch;
  SectionMesh mesh;
  mesh_world_section(baked(), world, sp, {greedy, true}, in, scratch, mesh);
  const int lx = local_of(cell.x), lz = local_of(cell.z), ly = static_cast<int>(cell.y - section_base_y(sp.y));
  // The vertex in the section's local 1/64-block units: x and z = 0 lie at local 16 for a cell at x or z = -1.
  const Corner64 vertex{cell.x < 0 ? 16.0 * 64 : 0.0, static_cast<double>(vy - section_base_y(sp.y)) * 64,
                        cell.z < 0 ? 16.0 * 64 : 0.0};
  const int plane_y = face == kFacePosY ? 2 * ly + 2 : 2 * ly;
  for (const FaceRecord& r : unit_faces(mesh)) {
    if (r.f.face != face || r.f.x != 2 * lx || r.f.z != 2 * lz || r.f.y != plane_y) continue;
    const auto corners = quad_corners(r.f, false);
    for (int k = 0; k < 4; ++k)
      if (corners[static_cast<size_t>(k)] == vertex) return {r.f.light[k], r.f.ao[k]};
    ADD_FAILURE() << "face of cell " << cell.x << "," << cell.y << "," << cell.z << " has no corner at the vertex";
    return {0, 0};
  }
  ADD_FAILURE() << "no face " << face << " for cell " << cell.x << "," << cell.y << "," << cell.z;
  return {0, 0};
}

// The four faces (one per column around x = z = 0) at the vertex (0, vy, 0) see the same light and AO, equal to
// the rounded mean of the four cells in front of the vertex at y = front_y (none an opaque cube), per channel.
void expect_four_columns_agree(const World& world, int64_t cell_y, int face, int64_t vy, int64_t front_y, bool greedy) {
  const Seen a = corner_seen(world, {-1, cell_y, -1}, face, vy, greedy);
  const Seen b = corner_seen(world, {0, cell_y, -1}, face, vy, greedy);
  const Seen c = corner_seen(world, {-1, cell_y, 0}, face, vy, greedy);
  const Seen d = corner_seen(world, {0, cell_y, 0}, face, vy, greedy);
  EXPECT_EQ(a.light, b.light);
  EXPECT_EQ(a.light, c.light);
  EXPECT_EQ(a.light, d.light);
  EXPECT_EQ(a.ao, b.ao);
  EXPECT_EQ(a.ao, c.ao);
  EXPECT_EQ(a.ao, d.ao);
  EXPECT_EQ(a.ao, 3);  // the classic rule: no occluder among the three cells around the corner
  const Light l[4] = {world.light({-1, front_y, -1}), world.light({0, front_y, -1}), world.light({-1, front_y, 0}),
                      world.light({0, front_y, 0})};
  int ch[4] = {0, 0, 0, 0};
  for (Light v : l) {
    ch[0] += light_sky(v);
    ch[1] += light_r(v);
    ch[2] += light_g(v);
    ch[3] += light_b(v);
  }
  EXPECT_EQ(a.light, make_light((ch[0] + 2) / 4, (ch[1] + 2) / 4, (ch[2] + 2) / 4, (ch[3] + 2) / 4));
  // The four cells really differ (the test would prove little otherwise).
  EXPECT_NE(l[0], l[3]);
  EXPECT_GT(light_r(a.light) + light_g(a.light) + light_b(a.light), 0);
}

TEST(MeshCornerLight, FourColumnsSeeTheSameLightAtASharedSectionBorderCorner) {
  // From below the border: the floor's top faces (cells at y = -1 or 15, the top of sections 7 and 8) meet at the
  // vertex on the section border y = 0 or 16 and read the light of the cells above it, in the next section.
  for (int floor_y : {-1, 15}) {
    for (bool greedy : {false, true}) {
      SCOPED_TRACE("floor at y " + std::to_string(floor_y) + (greedy ? " greedy" : " culled"));
      auto world = corner_world({0, floor_y + 1, 0}, floor_y, floor_y + 5);
      expect_four_columns_agree(*world, floor_y, kFacePosY, floor_y + 1, floor_y + 1, greedy);
    }
  }
  // From above the border: the roof's bottom faces (cells at y = 0 or 16, the bottom of sections 8 and 9) meet at
  // the same kind of vertex and read the light of the cells below it, in the section under the border.
  for (int roof_y : {0, 16}) {
    for (bool greedy : {false, true}) {
      SCOPED_TRACE("roof at y " + std::to_string(roof_y) + (greedy ? " greedy" : " culled"));
      auto world = corner_world({0, roof_y - 1, 0}, roof_y - 5, roof_y);
      expect_four_columns_agree(*world, roof_y, kFaceNegY, roof_y, roof_y - 1, greedy);
    }
  }
}

}  // namespace
}  // namespace voxen::mesh
