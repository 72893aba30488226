// Cave culling (voxen/cull/visibility.h). Checks: face links equal an oracle that floods from each face separately,
// on random and hand-made sections; the search hides no section a ray from the eye reaches (a DDA through the cells,
// the oracle of what can be seen) in random cave worlds from many eyes, and culls a sealed cave down to itself; the
// eye above the world starts at the top layer; sections not present or refused by the view test are not entered.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "voxen/core/hash.h"
#include "voxen/cull/visibility.h"

using namespace voxen;
using namespace voxen::cull;

namespace {

const BlockRegistry& registry() {
  static const BlockRegistry r = [] {
    auto loaded = BlockRegistry::load_default();
    if (!loaded.ok()) throw std::runtime_error(loaded.error().message);
    return std::move(loaded).value();
  }();
  return r;
}
const SightTable& sight() {
  static const SightTable t(registry());
  return t;
}
Cell block(const char* name) { return Cell{registry().id(name)}; }

// The oracle: faces a and b are linked when a flood over see-through cells from every see-through cell of face a's
// layer reaches a cell of face b's layer.
FaceLinks oracle_links(const Section& s) {
  auto see = [&](int x, int y, int z) { return !sight().blocks(s.get(x, y, z).id); };
  auto on_face = [](int f, int x, int y, int z) {
    const int c[3] = {x, y, z};
    return c[f >> 1] == ((f & 1) ? 0 : 15);
  };
  FaceLinks out;
  for (int a = 0; a < 6; ++a) {
    std::vector<uint8_t> seen(kSectionVolume, 0);
    std::vector<int> todo;
    for (int i = 0; i < kSectionVolume; ++i) {
      const int x = i & 15, z = (i >> 4) & 15, y = i >> 8;
      if (on_face(a, x, y, z) && see(x, y, z)) seen[static_cast<size_t>(i)] = 1, todo.push_back(i);
    }
    while (!todo.empty()) {
      const int i = todo.back();
      todo.pop_back();
      const int x = i & 15, z = (i >> 4) & 15, y = i >> 8;
      for (int f = 0; f < 6; ++f) {
        const int nx = x + kFaceStep[f][0], ny = y + kFaceStep[f][1], nz = z + kFaceStep[f][2];
        if (nx < 0 || ny < 0 || nz < 0 || nx > 15 || ny > 15 || nz > 15) continue;
        const int j = section_index(nx, ny, nz);
        if (seen[static_cast<size_t>(j)] || !see(nx, ny, nz)) continue;
        seen[static_cast<size_t>(j)] = 1;
        todo.push_back(j);
      }
    }
    for (int b = 0; b < 6; ++b) {
      if (b == a) continue;
      for (int i = 0; i < kSectionVolume; ++i) {
        const int x = i & 15, z = (i >> 4) & 15, y = i >> 8;
        if (seen[static_cast<size_t>(i)] && on_face(b, x, y, z)) {
          out.bits |= static_cast<uint16_t>(1u << FaceLinks::pair_index(a, b));
          break;
        }
      }
    }
  }
  return out;
}

// Caves: stone with air where a few spheres (centres and radii from the hash) cut it, plus scattered single cells
// of glass (see-through) and air; `density` of stone among the scattered cells.
Section cave_section(uint64_t seed, int spheres, double density) {
  Section s(block("stone"));
  for (int k = 0; k < spheres; ++k) {
    const uint64_t h = hash3(seed, k, 1, 2);
    const int cx = static_cast<int>(h & 15), cy = static_cast<int>((h >> 4) & 15), cz = static_cast<int>((h >> 8) & 15);
    const int r = 2 + static_cast<int>((h >> 12) % 5);
    for (int y = 0; y < 16; ++y)
      for (int z = 0; z < 16; ++z)
        for (int x = 0; x < 16; ++x)
          if ((x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz) <= r * r) s.set(x, y, z, kAir);
  }
  for (int i = 0; i < kSectionVolume; ++i) {
    const uint64_t h = hash3(seed, i, 7, 9);
    if ((h & 0xFF) < 24) s.set(i, (h >> 8) % 1000 < density * 1000 ? block("stone") : ((h >> 20) & 1) ? block("glass") : kAir);
  }
  return s;
}

TEST(FaceLinks, EqualTheFloodFromEachFaceOnRandomAndHandMadeSections) {
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const Section s = cave_section(seed, static_cast<int>(seed % 5), 0.5);
    EXPECT_EQ(face_links(s, sight()).bits, oracle_links(s).bits) << "seed " << seed;
  }
  // Uniform: air joins everything, stone nothing, glass (see-through) everything.
  EXPECT_EQ(face_links(Section(), sight()).bits, FaceLinks::kAll);
  EXPECT_EQ(face_links(Section(block("stone")), sight()).bits, 0);
  EXPECT_EQ(face_links(Section(block("glass")), sight()).bits, FaceLinks::kAll);
  // A stone wall across x = 7 with the rest air: +X and -X are apart, every other pair is joined (the faces of y
  // and z reach both halves).
  Section wall;
  for (int y = 0; y < 16; ++y)
    for (int z = 0; z < 16; ++z) wall.set(7, y, z, block("stone"));
  const FaceLinks w = face_links(wall, sight());
  EXPECT_EQ(w, oracle_links(wall));
  EXPECT_FALSE(w.linked(kFacePosX, kFaceNegX));
  EXPECT_TRUE(w.linked(kFacePosX, kFacePosY));
  EXPECT_TRUE(w.linked(kFaceNegX, kFaceNegZ));
  EXPECT_TRUE(w.linked(kFacePosY, kFaceNegY));
  // The same wall with one cell of glass in it: joined again; with one leaf cell of oak leaves: joined (cutout).
  Section holed = wall;
  holed.set(7, 3, 11, block("glass"));
  EXPECT_TRUE(face_links(holed, sight()).linked(kFacePosX, kFaceNegX));
  holed.set(7, 3, 11, block("oak_leaves"));
  EXPECT_TRUE(face_links(holed, sight()).linked(kFacePosX, kFaceNegX));
  // Stone with a closed air pocket inside: nothing joined; a pocket touching only the top face joins nothing either
  // (one face alone makes no pair).
  Section pocket(block("stone"));
  for (int y = 5; y <= 9; ++y)
    for (int z = 5; z <= 9; ++z)
      for (int x = 5; x <= 9; ++x) pocket.set(x, y, z, kAir);
  EXPECT_EQ(face_links(pocket, sight()).bits, 0);
  for (int y = 9; y <= 15; ++y) pocket.set(7, y, 7, kAir);
  EXPECT_EQ(face_links(pocket, sight()).bits, 0);
  EXPECT_EQ(oracle_links(pocket).bits, 0);
  // A tunnel from -X to +Y.
  for (int x = 0; x <= 7; ++x) pocket.set(x, 7, 7, kAir);
  EXPECT_EQ(face_links(pocket, sight()).bits, 1u << FaceLinks::pair_index(kFaceNegX, kFacePosY));
}

TEST(FaceLinks, PairIndicesAreTheFifteenBits) {
  std::set<int> seen;
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b)
      if (a != b) {
        EXPECT_EQ(FaceLinks::pair_index(a, b), FaceLinks::pair_index(b, a));
        seen.insert(FaceLinks::pair_index(a, b));
      }
  EXPECT_EQ(seen.size(), 15u);
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), 14);
}

// A small cave world: columns -2..2 in x and z (offset by `base` columns), every section of y 8..11 a cave
// section, below them stone, above them air.
struct CaveWorld {
  ColumnPos base;
  std::map<SectionPos, Section> sections;
  CaveWorld(uint64_t seed, ColumnPos b, int spheres, double density) : base(b) {
    for (int64_t dz = -2; dz <= 2; ++dz)
      for (int64_t dx = -2; dx <= 2; ++dx)
        for (int y = 0; y < kSectionsPerColumn; ++y) {
          const SectionPos p{base.x + dx, y, base.z + dz};
          if (y < 8) sections.emplace(p, Section(block("stone")));
          else if (y <= 11) sections.emplace(p, cave_section(hash3(seed, dx, y, dz), spheres, density));
          else sections.emplace(p, Section());
        }
  }
  bool blocks(const BlockPos& b) const {
    if (!y_in_range(b.y)) return false;
    auto it = sections.find(section_pos_of(b));
    if (it == sections.end()) return false;
    return sight().blocks(it->second.get(local_of(b.x), static_cast<int>((b.y - kMinY) & 15), local_of(b.z)).id);
  }
  void fill(SectionGraph& g) const {
    g.reset(base, 2);
    for (const auto& [p, s] : sections) g.set(p, face_links(s, sight()));
  }
};

// The sections a ray from `eye` (world blocks, double) along `dir` passes through, up to and including the one
// holding its first opaque cell, within `reach` blocks (Amanatides & Woo's voxel traversal over cells).
std::set<SectionPos> ray_sections(const CaveWorld& w, const double eye[3], const double dir[3], double reach) {
  std::set<SectionPos> out;
  int64_t cell[3];
  double t_max[3], t_delta[3];
  int step[3];
  for (int a = 0; a < 3; ++a) {
    cell[a] = static_cast<int64_t>(std::floor(eye[a]));
    step[a] = dir[a] > 0 ? 1 : -1;
    const double next = dir[a] > 0 ? static_cast<double>(cell[a] + 1) : static_cast<double>(cell[a]);
    t_delta[a] = dir[a] != 0 ? std::abs(1.0 / dir[a]) : INFINITY;
    t_max[a] = dir[a] != 0 ? (next - eye[a]) / dir[a] : INFINITY;
  }
  double t = 0;
  while (t <= reach) {
    const BlockPos b{cell[0], cell[1], cell[2]};
    if (!y_in_range(b.y)) break;
    if (!w.sections.count(section_pos_of(b))) break;
    out.insert(section_pos_of(b));
    if (w.blocks(b)) break;
    const int a = t_max[0] < t_max[1] ? (t_max[0] < t_max[2] ? 0 : 2) : (t_max[1] < t_max[2] ? 1 : 2);
    t = t_max[a];
    t_max[a] += t_delta[a];
    cell[a] += step[a];
  }
  return out;
}

// No false hides: in cave worlds (seeded, two densities of scattered cells), from eyes in see-through cells of the
// cave layer and above the ground, every section that any of 3,000 rays reaches (through see-through cells, up to
// its first opaque cell) is among the sections the search finds; and the search culls something in each world.
TEST(CaveCulling, EverySectionARayReachesIsFound) {
  size_t worlds = 0, eyes = 0, found_total = 0, present_total = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const ColumnPos base{seed == 3 ? int64_t{1} << 40 : -7 + static_cast<int64_t>(seed), seed == 5 ? -(int64_t{1} << 50) : 3};
    const CaveWorld w(seed, base, 3, seed % 2 ? 0.4 : 0.9);
    SectionGraph g;
    w.fill(g);
    ++worlds;
    int tries = 0;
    for (int e = 0; e < 6; ++e) {
      // An eye in a see-through cell: the cave layer (y -0..63 of sections 8..11) for the first four, above the
      // ground (y 200) for the rest.
      BlockPos eye_block;
      uint64_t h = 0;
      do {
        h = hash3(seed, e, tries++, 77);
        eye_block = {base.x * 16 - 24 + static_cast<int64_t>(h % 64), e < 4 ? int64_t{0} + static_cast<int64_t>((h >> 8) % 64) : 200,
                     base.z * 16 - 24 + static_cast<int64_t>((h >> 16) % 64)};
      } while (w.blocks(eye_block) && tries < 10000);
      ASSERT_FALSE(w.blocks(eye_block));
      const double eye[3] = {static_cast<double>(eye_block.x) + 0.25 + 0.5 * ((h >> 30) & 1),
                             static_cast<double>(eye_block.y) + 0.5, static_cast<double>(eye_block.z) + 0.625};
      std::vector<SectionPos> found;
      find_visible(g, eye_block, [](const SectionPos&) { return true; }, found);
      const std::set<SectionPos> found_set(found.begin(), found.end());
      EXPECT_EQ(found_set.size(), found.size()) << "a section listed twice";
      ++eyes;
      found_total += found.size();
      present_total += w.sections.size();
      for (int r = 0; r < 3000; ++r) {
        const uint64_t q = hash3(seed, e, r, 5);
        const double u = static_cast<double>(q & 0xFFFFF) / 0xFFFFF * 2 - 1, phi = static_cast<double>((q >> 20) & 0xFFFFF) / 0xFFFFF * 6.283185307179586;
        const double sq = std::sqrt(1 - u * u);
        const double dir[3] = {sq * std::cos(phi), u, sq * std::sin(phi)};
        for (const SectionPos& p : ray_sections(w, eye, dir, 200.0))
          ASSERT_TRUE(found_set.count(p)) << "seed " << seed << " eye " << eye_block.x << "," << eye_block.y << ","
                                          << eye_block.z << ": a ray reaches section " << p.x << "," << p.y << "," << p.z
                                          << " and the search hid it";
      }
    }
  }
  EXPECT_EQ(worlds, 6u);
  EXPECT_LT(found_total, present_total) << "the search culled nothing in any world";
}

// A sealed cave (an air pocket in stone, all sections around it stone): the search finds the eye's section and its
// six face neighbours (the eye's section is left through any face: its walls may be those neighbours' cells) and
// nothing past them. Open the pocket to a tunnel running +X into a section of air: that section and what it looks
// onto are found, the stone behind the eye two sections away is not.
TEST(CaveCulling, ASealedCaveSeesOnlyItself) {
  std::map<SectionPos, Section> sections;
  SectionGraph g;
  g.reset({0, 0}, 3);
  for (int64_t dz = -3; dz <= 3; ++dz)
    for (int64_t dx = -3; dx <= 3; ++dx)
      for (int y = 0; y < kSectionsPerColumn; ++y) sections.emplace(SectionPos{dx, y, dz}, Section(block("stone")));
  Section& home = sections[SectionPos{0, 8, 0}];
  for (int y = 4; y <= 10; ++y)
    for (int z = 4; z <= 10; ++z)
      for (int x = 4; x <= 10; ++x) home.set(x, y, z, kAir);
  auto run = [&] {
    for (const auto& [p, s] : sections) g.set(p, face_links(s, sight()));
    std::vector<SectionPos> found;
    find_visible(g, BlockPos{7, section_base_y(8) + 7, 7}, [](const SectionPos&) { return true; }, found);
    return found;
  };
  {
    const std::vector<SectionPos> sealed = run();
    EXPECT_EQ(std::set<SectionPos>(sealed.begin(), sealed.end()),
              (std::set<SectionPos>{{0, 8, 0}, {1, 8, 0}, {-1, 8, 0}, {0, 9, 0}, {0, 7, 0}, {0, 8, 1}, {0, 8, -1}}));
  }
  // The tunnel: x 10..15 of the home section at y 7, z 7, and the whole of section (1, 8, 0) air.
  for (int x = 10; x < 16; ++x) home.set(x, 7, 7, kAir);
  sections[SectionPos{1, 8, 0}] = Section();
  const std::vector<SectionPos> found = run();
  const std::set<SectionPos> set(found.begin(), found.end());
  EXPECT_TRUE(set.count({0, 8, 0}));
  EXPECT_TRUE(set.count({1, 8, 0}));
  EXPECT_TRUE(set.count({2, 8, 0}));   // the stone the open section looks onto
  EXPECT_TRUE(set.count({1, 9, 0}));   // and above it
  EXPECT_FALSE(set.count({-2, 8, 0}));  // behind the eye, walled off
  EXPECT_FALSE(set.count({3, 8, 0}));   // beyond the stone section (2, 8, 0)
  EXPECT_LT(found.size(), 16u);
}

// The eye above the world starts at the top layer (entered from above): over open sections every one the view
// accepts is found, sections never set (columns not loaded) included; the view test refuses a column and the
// search neither enters nor passes it; an eye outside the box finds nothing.
TEST(CaveCulling, AboveTheWorldAndTheViewTest) {
  SectionGraph g;
  g.reset({100, -100}, 2);
  for (int64_t dz = -2; dz <= 2; ++dz)
    for (int64_t dx = -2; dx <= 2; ++dx)
      for (int y = 0; y < kSectionsPerColumn; ++y)
        if (dx != 1) g.set(SectionPos{100 + dx, y, -100 + dz}, FaceLinks{FaceLinks::kAll});
  std::vector<SectionPos> found;
  find_visible(g, BlockPos{100 * 16 + 8, 400, -100 * 16 + 8}, [](const SectionPos&) { return true; }, found);
  EXPECT_EQ(found.size(), 25u * 24u);
  found.clear();
  find_visible(g, BlockPos{100 * 16 + 8, 400, -100 * 16 + 8}, [](const SectionPos& p) { return p.x != 99; }, found);
  for (const SectionPos& p : found) EXPECT_NE(p.x, 99);
  EXPECT_EQ(found.size(), 20u * 24u);
  // A wall of stone sections at x 101 (no links): from x 98 the search stops there, x 102 stays hidden; the same
  // wall with that column not loaded (never set): open, so x 102 is found.
  for (int64_t dz = -2; dz <= 2; ++dz)
    for (int y = 0; y < kSectionsPerColumn; ++y) g.set(SectionPos{101, y, -100 + dz}, FaceLinks{});
  found.clear();
  find_visible(g, BlockPos{98 * 16 + 8, 70, -100 * 16 + 8}, [](const SectionPos&) { return true; }, found);
  EXPECT_TRUE(std::any_of(found.begin(), found.end(), [](const SectionPos& p) { return p.x == 101; }));
  EXPECT_FALSE(std::any_of(found.begin(), found.end(), [](const SectionPos& p) { return p.x == 102; }));
  g.reset({100, -100}, 2);
  found.clear();
  find_visible(g, BlockPos{98 * 16 + 8, 70, -100 * 16 + 8}, [](const SectionPos&) { return true; }, found);
  EXPECT_TRUE(std::any_of(found.begin(), found.end(), [](const SectionPos& p) { return p.x == 102; }));
  found.clear();
  EXPECT_EQ(find_visible(g, BlockPos{0, 70, 0}, [](const SectionPos&) { return true; }, found), 0u);
  EXPECT_FALSE(g.set(SectionPos{0, 0, 0}, FaceLinks{}));
  EXPECT_FALSE(g.contains(SectionPos{100, 24, -100}));
}

}  // namespace
