// Columns and the world map: cells at negative and huge coordinates land in the right column and cell; edits are
// values applied by one function.
#include <gtest/gtest.h>

#include <memory>

#include "voxen/world/world.h"

namespace voxen {
namespace {

std::unique_ptr<Column> column_at(int64_t cx, int64_t cz) { return std::make_unique<Column>(ColumnPos{cx, cz}); }

TEST(Column, GetSetAcrossSectionsAndOutOfRange) {
  Column c({0, 0});
  c.set(0, -128, 0, Cell{3, 0});
  c.set(15, 255, 15, Cell{7, 2});
  c.set(4, 0, 9, Cell{1, 0});
  c.set(4, -1, 9, Cell{2, 0});
  EXPECT_EQ(c.get(0, -128, 0), (Cell{3, 0}));
  EXPECT_EQ(c.get(15, 255, 15), (Cell{7, 2}));
  EXPECT_EQ(c.get(4, 0, 9), (Cell{1, 0}));
  EXPECT_EQ(c.get(4, -1, 9), (Cell{2, 0}));
  EXPECT_EQ(c.section(section_of_y(0)).get(4, 0, 9), (Cell{1, 0}));
  EXPECT_EQ(c.section(section_of_y(-1)).get(4, 15, 9), (Cell{2, 0}));
  EXPECT_EQ(c.get(0, 256, 0), kAir);
  EXPECT_EQ(c.get(0, -129, 0), kAir);
  EXPECT_EQ(light_sky(c.light(0, 256, 0)), 15);
  EXPECT_EQ(c.light(0, -129, 0), 0);
}

TEST(Column, ContentHashSeesIdStateAndPosition) {
  Column a({0, 0}), b({0, 0});
  EXPECT_EQ(a.content_hash(), b.content_hash());
  a.set(1, 10, 1, Cell{1, 0});
  EXPECT_NE(a.content_hash(), b.content_hash());
  b.set(1, 10, 1, Cell{1, 1});
  EXPECT_NE(a.content_hash(), b.content_hash());  // state differs
  b.set(1, 10, 1, Cell{1, 0});
  EXPECT_EQ(a.content_hash(), b.content_hash());
  b.set_light(0, 0, 0, make_light(0, 1, 0, 0));
  EXPECT_EQ(a.content_hash(), b.content_hash());
  EXPECT_NE(a.content_hash(true), b.content_hash(true));
}

TEST(World, CellsAtNegativeAndHugeCoordinates) {
  const int64_t far = int64_t{1} << 40;
  const BlockPos points[] = {{-1, 64, -1},        {0, 64, -1},          {-16, 0, -17},           {15, -128, 16},
                             {30'000'000, 70, -30'000'000}, {-30'000'001, 255, 29'999'999}, {far, 1, far},
                             {-far - 1, 2, -far}};
  World w;
  for (const auto& p : points) {
    if (!w.find(column_pos_of(p))) w.insert(column_at(column_of(p.x), column_of(p.z)));
  }
  uint16_t id = 1;
  for (const auto& p : points) {
    auto e = w.make_edit(p, Cell{id++, 3});
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->before, kAir);
    EXPECT_TRUE(w.apply(*e));
  }
  id = 1;
  for (const auto& p : points) {
    EXPECT_EQ(w.get(p), (Cell{id++, 3})) << p.x << "," << p.y << "," << p.z;
    // The cell is in the column keyed by floor division and at the floor-mod local position.
    const Column* c = w.find(ColumnPos{floor_div(p.x, 16), floor_div(p.z, 16)});
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->get(static_cast<int>(floor_mod(p.x, 16)), p.y, static_cast<int>(floor_mod(p.z, 16))).id, w.get(p).id);
  }
  // Neighbouring blocks across the border are untouched.
  EXPECT_EQ(w.get({-2, 64, -1}), kAir);
  EXPECT_EQ(w.get({1, 64, -1}), kAir);
}

TEST(World, EditsCarrySequenceAndBeforeCell) {
  World w;
  w.insert(column_at(0, 0));
  auto e1 = w.make_edit({3, 10, 3}, Cell{1, 0});
  ASSERT_TRUE(e1);
  w.apply(*e1);
  auto e2 = w.make_edit({3, 10, 3}, Cell{2, 5});
  ASSERT_TRUE(e2);
  EXPECT_EQ(e2->before, (Cell{1, 0}));
  EXPECT_GT(e2->seq, e1->seq);
  w.apply(*e2);
  EXPECT_EQ(w.get({3, 10, 3}), (Cell{2, 5}));
  // Unloaded column or y out of range: no edit.
  EXPECT_FALSE(w.make_edit({100, 10, 3}, Cell{1, 0}).has_value());
  EXPECT_FALSE(w.make_edit({3, 256, 3}, Cell{1, 0}).has_value());
  EXPECT_FALSE(w.apply(Edit{{100, 10, 3}, kAir, Cell{1, 0}, 99}));
}

TEST(World, PositionsAreSortedAndRemoveUnloads) {
  World w;
  w.insert(column_at(1, 0));
  w.insert(column_at(-1, 5));
  w.insert(column_at(-1, -5));
  const auto pos = w.positions();
  ASSERT_EQ(pos.size(), 3u);
  EXPECT_EQ(pos[0], (ColumnPos{-1, -5}));
  EXPECT_EQ(pos[1], (ColumnPos{-1, 5}));
  EXPECT_EQ(pos[2], (ColumnPos{1, 0}));
  auto c = w.remove({-1, 5});
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(w.column_count(), 2u);
  EXPECT_EQ(w.find({-1, 5}), nullptr);
  EXPECT_EQ(w.get({-16, 3, 80}), kAir);
}

}  // namespace
}  // namespace voxen
