// Smooth light at a vertex that is a column corner and a section border at once (diagonal in x, y and z): the four
// column meshes whose faces share it must give it the same light (a Luanti bug of this kind stood for years).
// Real light from the lighting module; real meshes from the fast mesher.
#include <gtest/gtest.h>

#include "mesh_test_util.h"

namespace voxen::mesh {
namespace {

using namespace testing;

// Builds a 4 x 4 column world around world (0, 0): a stone floor whose top is the section border y = 0 (cells at
// y = -1, section 7), a stone roof at y = 4 over x, z in -6..5 (so sky light is not uniform), a torch at (0, 0, 0)
// and coloured lamps placed off-centre, then lights it with the lighting module.
std::unique_ptr<World> corner_world(BlockPos torch, int floor_y) {
  auto world = empty_world(-2, -2, 4);
  for (int64_t x = -32; x < 32; ++x)
    for (int64_t z = -32; z < 32; ++z) {
      world->apply({{x, floor_y, z}, kAir, cell_of("stone"), 0});
      if (x >= -6 && x <= 5 && z >= -6 && z <= 5) world->apply({{x, floor_y + 5, z}, kAir, cell_of("stone"), 0});
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

// The top-face corner at world (0, floor_y + 1, 0) in the mesh of the column holding floor cell (cx, floor_y, cz).
Seen corner_seen(const World& world, int64_t cx, int64_t cz, int floor_y, bool greedy) {
  const SectionPos sp = section_pos_of({cx, floor_y, cz});
  SectionInput in;
  MeshScratch scratch;
  SectionMesh mesh;
  mesh_world_section(baked(), world, sp, {greedy, true}, in, scratch, mesh);
  const int lx = local_of(cx), lz = local_of(cz), ly = static_cast<int>(floor_y - section_base_y(sp.y));
  for (const FaceRecord& r : unit_faces(mesh)) {
    if (r.f.face != kFacePosY || r.f.x != 2 * lx || r.f.z != 2 * lz || r.f.y != 2 * ly + 2) continue;
    // Corner k of a +Y face sits at (+x if k is 1 or 2, +z if k is 2 or 3); pick the one at world x = 0, z = 0.
    const int k = (cx < 0) ? (cz < 0 ? 2 : 1) : (cz < 0 ? 3 : 0);
    return {r.f.light[k], r.f.ao[k]};
  }
  ADD_FAILURE() << "no top face for floor cell " << cx << "," << floor_y << "," << cz;
  return {0, 0};
}

TEST(MeshCornerLight, FourColumnsSeeTheSameLightAtASharedSectionBorderCorner) {
  for (int floor_y : {-1, 15}) {      // floor tops at the section borders y = 0 and y = 16
    for (bool greedy : {false, true}) {
      auto world = corner_world({0, floor_y + 1, 0}, floor_y);
      const Seen a = corner_seen(*world, -1, -1, floor_y, greedy);
      const Seen b = corner_seen(*world, 0, -1, floor_y, greedy);
      const Seen c = corner_seen(*world, -1, 0, floor_y, greedy);
      const Seen d = corner_seen(*world, 0, 0, floor_y, greedy);
      EXPECT_EQ(a.light, b.light);
      EXPECT_EQ(a.light, c.light);
      EXPECT_EQ(a.light, d.light);
      EXPECT_EQ(a.ao, b.ao);
      EXPECT_EQ(a.ao, d.ao);
      // And the value is the rounded mean of the four cells above the vertex (none is an opaque cube), per channel.
      const int y = floor_y + 1;
      const Light l[4] = {world->light({-1, y, -1}), world->light({0, y, -1}), world->light({-1, y, 0}),
                          world->light({0, y, 0})};
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
  }
}

}  // namespace
}  // namespace voxen::mesh
