// The ColumnStore keeps far columns packed: packing real generated and lit columns is exact (cells, states and
// light read back identical), much smaller than the columns, a uniform column costs a few bytes, and the focus
// decides which columns are unpacked.
#include <gtest/gtest.h>

#include "store_test_util.h"
#include "voxen/light/light.h"
#include "voxen/store/codec.h"
#include "voxen/store/column_store.h"

namespace voxen::store {
namespace {

using testing::registry;

/// A 3x3 block of default-generator columns around (cx, cz), lit.
World lit_world(uint64_t seed, int64_t cx, int64_t cz) {
  auto made = gen::make_generator("default", seed, registry());
  EXPECT_TRUE(made.ok());
  const auto gen = std::move(made).value();
  std::vector<ColumnPos> pos;
  for (int64_t dx = -1; dx <= 1; ++dx)
    for (int64_t dz = -1; dz <= 1; ++dz) pos.push_back({cx + dx, cz + dz});
  World w;
  for (auto& c : gen::generate_columns(*gen, pos, nullptr)) w.insert(std::move(c));
  const light::LightTable table(registry());
  light::light_columns(w, table, pos, nullptr);
  return w;
}

TEST(ColumnStore, PackingRealLitColumnsIsExactAndSmall) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    World w = lit_world(seed, static_cast<int64_t>(seed) * 7, -3);
    for (const ColumnPos& p : w.positions()) {
      const Column& col = *w.find(p);
      const PackedColumn packed = pack_column(col);
      auto back = unpack_column(packed);
      ASSERT_TRUE(back.ok()) << testing::message(back.error());
      EXPECT_EQ((*back)->pos(), p);
      EXPECT_EQ((*back)->content_hash(true), col.content_hash(true)) << "seed " << seed;
      for (int s = 0; s < kSectionsPerColumn; ++s) EXPECT_TRUE((*back)->light_section(s) == col.light_section(s));
      EXPECT_LT(packed.cells.size() * 3, col.cell_bytes()) << "cells pack at least 3:1";
      EXPECT_LT(packed.light.size() * 3, col.light_bytes()) << "light packs at least 3:1";
    }
  }
}

TEST(ColumnStore, UniformColumnCostsAFewBytes) {
  Column air({4, 4});
  const PackedColumn p = pack_column(air);
  EXPECT_LT(p.cells.size() + p.light.size(), 80u);
  auto back = unpack_column(p);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)->content_hash(true), air.content_hash(true));
}

TEST(ColumnStore, DamagedPackedBytesGiveAnErrorNamingTheColumn) {
  Column c({-2, 9});
  c.set(1, 1, 1, Cell{5, 0});
  PackedColumn p = pack_column(c);
  p.cells[p.cells.size() / 2] = static_cast<char>(p.cells[p.cells.size() / 2] ^ 0xFF);
  p.cells.resize(p.cells.size() - 1);
  auto back = unpack_column(p);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("packed column (-2, 9)"), std::string::npos) << back.error().message;
}

TEST(ColumnStore, FocusDecidesWhatIsUnpackedAndBytesFollow) {
  World w = lit_world(5, 0, 0);
  std::map<ColumnPos, uint64_t> hashes;
  ColumnStore store;
  store.set_focus({0, 0}, 0);  // only the centre column unpacked
  for (const ColumnPos& p : w.positions()) {
    hashes[p] = w.find(p)->content_hash(true);
    store.insert(w.remove(p));
  }
  EXPECT_EQ(store.size(), 9u);
  EXPECT_EQ(store.unpacked_count(), 1u);
  EXPECT_EQ(store.packed_count(), 8u);
  const auto small = store.resident_bytes();

  store.set_focus({0, 0}, 1);  // everything unpacked
  EXPECT_EQ(store.unpacked_count(), 9u);
  const auto big = store.resident_bytes();
  EXPECT_GT(big.cells, small.cells);
  EXPECT_GT(big.light, small.light);

  store.set_focus({5, 5}, -1);  // everything packed
  EXPECT_EQ(store.packed_count(), 9u);
  Column* c = store.get(ColumnPos{1, -1});  // access unpacks
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(store.unpacked_count(), 1u);
  const uint64_t want = hashes.at(ColumnPos{1, -1});
  EXPECT_EQ(c->content_hash(true), want);
  for (const auto& [p, h] : hashes) {
    auto col = store.take(p);
    ASSERT_NE(col, nullptr);
    EXPECT_EQ(col->content_hash(true), h);
  }
  EXPECT_EQ(store.size(), 0u);
  EXPECT_EQ(store.get({0, 0}), nullptr);
}

}  // namespace
}  // namespace voxen::store
