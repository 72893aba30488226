// One contract, two WorldStores: the same typed tests run on MemoryWorldStore and RocksWorldStore. Not found is a
// normal outcome; batches read back in batch; deletes delete; kinds and columns never mix; keys sort by (x, z)
// numerically across negative and huge coordinates; kept-aside values are never overwritten; the metadata copy reads
// back what was put.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "pg_test_server.h"
#include "store_test_util.h"
#include "voxen/store/pg_store.h"
#include "voxen/store/rocks_store.h"
#include "voxen/store/world_store.h"

namespace voxen::store {
namespace {

struct MemoryFactory {
  std::unique_ptr<WorldStore> make() { return std::make_unique<MemoryWorldStore>(); }
};

struct RocksFactory {
  testing::TempDir dir;
  std::unique_ptr<WorldStore> make() {
    auto s = RocksWorldStore::open(dir.path() / "db", dir.path() / "corrupt", true);
    EXPECT_TRUE(s.ok()) << testing::message(s.error());
    return std::move(s).value();
  }
};

struct PgFactory {
  std::unique_ptr<WorldStore> make() {
    if (!testing::pg_server().ok()) {
      ADD_FAILURE() << "no PostgreSQL test server: " << testing::pg_server().error();
      return std::make_unique<MemoryWorldStore>();
    }
    auto url = parse_database_url(testing::pg_world_url());
    EXPECT_TRUE(url.ok()) << testing::message(url.error());
    auto s = PgWorldStore::open(*url, PgWorldStore::PgCreate{"format_version = 1\n", std::nullopt});
    EXPECT_TRUE(s.ok()) << testing::message(s.error());
    if (!s) return std::make_unique<MemoryWorldStore>();
    return std::move(s).value();
  }
};

template <class F>
class WorldStoreContract : public ::testing::Test {
 protected:
  F factory;
  std::unique_ptr<WorldStore> store = factory.make();
};

using Stores = ::testing::Types<MemoryFactory, RocksFactory, PgFactory>;
TYPED_TEST_SUITE(WorldStoreContract, Stores);

RecordKey jkey(int64_t x, int s, int64_t z) { return {RecordKind::kJournal, SectionPos{x, s, z}}; }

TYPED_TEST(WorldStoreContract, NotFoundIsAnEmptyResult) {
  const std::vector<ColumnPos> cols = {{0, 0}, {-5, 7}};
  auto r = this->store->load_columns(RecordKind::kJournal, cols);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].pos, (ColumnPos{0, 0}));
  EXPECT_EQ((*r)[1].pos, (ColumnPos{-5, 7}));
  EXPECT_TRUE((*r)[0].sections.empty());
  EXPECT_TRUE((*r)[1].sections.empty());
  auto g = this->store->get(jkey(1, 2, 3));
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(g->has_value());
}

TYPED_TEST(WorldStoreContract, BatchWritesReadBackPerColumnSortedBySection) {
  std::vector<WriteOp> ops = {
      {jkey(1, 5, 2), "a"}, {jkey(1, 0, 2), "b"}, {jkey(1, 23, 2), "c"}, {jkey(2, 5, 1), "d"}, {jkey(-1, 5, 2), "e"}};
  ASSERT_TRUE(this->store->write(ops, false).ok());
  const std::vector<ColumnPos> cols = {{1, 2}, {2, 1}, {9, 9}, {-1, 2}};
  auto r = this->store->load_columns(RecordKind::kJournal, cols);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ((*r)[0].sections.size(), 3u);
  EXPECT_EQ((*r)[0].sections[0].section, 0);
  EXPECT_EQ((*r)[0].sections[0].value, "b");
  EXPECT_EQ((*r)[0].sections[1].section, 5);
  EXPECT_EQ((*r)[0].sections[2].section, 23);
  EXPECT_EQ((*r)[0].sections[2].value, "c");
  ASSERT_EQ((*r)[1].sections.size(), 1u);
  EXPECT_EQ((*r)[1].sections[0].value, "d");
  EXPECT_TRUE((*r)[2].sections.empty());
  ASSERT_EQ((*r)[3].sections.size(), 1u);
  EXPECT_EQ((*r)[3].sections[0].value, "e");
}

TYPED_TEST(WorldStoreContract, DeletesAndOverwritesInOneBatchApplyInOrder) {
  ASSERT_TRUE(this->store->write(std::vector<WriteOp>{{jkey(0, 1, 0), "old"}, {jkey(0, 2, 0), "gone"}}, false).ok());
  ASSERT_TRUE(this->store->write(std::vector<WriteOp>{{jkey(0, 1, 0), "new"}, {jkey(0, 2, 0), std::nullopt},
                                                      {jkey(0, 3, 0), "x"}, {jkey(0, 3, 0), std::nullopt}},
                                 true)
                  .ok());
  EXPECT_EQ(**this->store->get(jkey(0, 1, 0)), "new");
  EXPECT_FALSE(this->store->get(jkey(0, 2, 0))->has_value());
  EXPECT_FALSE(this->store->get(jkey(0, 3, 0))->has_value());
}

TYPED_TEST(WorldStoreContract, KindsAndNeighbouringColumnsNeverMix) {
  ASSERT_TRUE(this->store->write(std::vector<WriteOp>{{jkey(3, 1, 4), "journal"},
                                                      {RecordKey{RecordKind::kSection, SectionPos{3, 1, 4}}, "section"},
                                                      {jkey(3, 1, 5), "z+1"}, {jkey(4, 1, 4), "x+1"}},
                                 false)
                  .ok());
  const std::vector<ColumnPos> one = {{3, 4}};
  auto j = this->store->load_columns(RecordKind::kJournal, one);
  auto s = this->store->load_columns(RecordKind::kSection, one);
  ASSERT_EQ((*j)[0].sections.size(), 1u);
  EXPECT_EQ((*j)[0].sections[0].value, "journal");
  ASSERT_EQ((*s)[0].sections.size(), 1u);
  EXPECT_EQ((*s)[0].sections[0].value, "section");
}

TYPED_TEST(WorldStoreContract, ListIsSortedByColumnNumericallyAcrossSignAndMagnitude) {
  const int64_t big = int64_t{1} << 40;
  std::vector<WriteOp> ops;
  for (int64_t x : {big, int64_t{-1}, int64_t{0}, -big, int64_t{1}})
    for (int64_t z : {int64_t{3}, int64_t{-3}}) ops.push_back({jkey(x, 0, z), "v"});
  ASSERT_TRUE(this->store->write(ops, false).ok());
  auto keys = this->store->list(RecordKind::kJournal);
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys->size(), 10u);
  for (size_t i = 1; i < keys->size(); ++i) {
    const auto& a = (*keys)[i - 1].pos;
    const auto& b = (*keys)[i].pos;
    EXPECT_TRUE(std::pair(a.x, a.z) < std::pair(b.x, b.z)) << a.x << "," << a.z << " then " << b.x << "," << b.z;
  }
  EXPECT_EQ(keys->front().pos.x, -big);
  EXPECT_EQ(keys->back().pos.x, big);
}

TYPED_TEST(WorldStoreContract, KeptAsideValuesAreNeverOverwritten) {
  const RecordKey k = jkey(-2, 7, 9);
  auto a = this->store->keep_aside(k, "first bytes");
  auto b = this->store->keep_aside(k, "second bytes");
  auto a2 = this->store->keep_aside(k, "first bytes");
  ASSERT_TRUE(a.ok() && b.ok() && a2.ok());
  EXPECT_NE(*a, *b);
  EXPECT_EQ(*a, *a2);  // the same bytes are not copied twice
}

// The metadata copy: absent in a new store, replaced by each put, never one of the records.
TYPED_TEST(WorldStoreContract, MetaRecordIsAbsentUntilPutAndReadsBackTheLastPut) {
  auto none = this->store->get_meta_record();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(this->store->put_meta_record("first", false).ok());
  ASSERT_TRUE(this->store->put_meta_record("second", true).ok());
  auto got = this->store->get_meta_record();
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(**got, "second");
  EXPECT_TRUE(this->store->list(RecordKind::kJournal)->empty());
  EXPECT_TRUE(this->store->list(RecordKind::kSection)->empty());
}

// Values are bytes, not text: every byte value (NUL included) and the empty value read back exactly; columns at the
// ends of the int64 range keep their place; a batch of thousands of records is one batch.
TYPED_TEST(WorldStoreContract, ValuesAreExactBytesAndExtremeColumnsAndLargeBatchesWork) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  std::vector<WriteOp> ops = {{jkey(INT64_MIN, 0, INT64_MAX), all}, {jkey(INT64_MAX, 23, INT64_MIN), ""}};
  for (int i = 0; i < 5000; ++i) ops.push_back({jkey(i % 71 - 35, i % 24, i / 71), std::string(1 + i % 300, static_cast<char>(i))});
  ASSERT_TRUE(this->store->write(ops, false).ok());
  auto a = this->store->get(jkey(INT64_MIN, 0, INT64_MAX));
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ(**a, all);
  auto e = this->store->get(jkey(INT64_MAX, 23, INT64_MIN));
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ(**e, "");
  auto keys = this->store->list(RecordKind::kJournal);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->size(), 5002u);
  EXPECT_EQ(keys->front().pos.x, INT64_MIN);
  EXPECT_EQ(keys->back().pos.x, INT64_MAX);
  const std::vector<ColumnPos> cols = {{0, 10}, {INT64_MAX, INT64_MIN}};
  auto r = this->store->load_columns(RecordKind::kJournal, cols);
  ASSERT_TRUE(r.ok());
  size_t expected = 0;
  for (int i = 0; i < 5000; ++i) expected += (i % 71 - 35 == 0 && i / 71 == 10);
  EXPECT_EQ((*r)[0].sections.size(), expected);
  ASSERT_EQ((*r)[1].sections.size(), 1u);
  EXPECT_EQ((*r)[1].sections[0].section, 23);
}

TEST(RecordKeys, RoundTripAndDescribe) {
  for (int64_t x : {int64_t{0}, int64_t{-1}, int64_t{1} << 60, -(int64_t{1} << 60), INT64_MIN, INT64_MAX}) {
    const RecordKey k{RecordKind::kSection, SectionPos{x, 23, -(x / 2)}};
    const std::string e = encode_key(k);
    ASSERT_EQ(e.size(), kKeySize);
    auto d = decode_key(e);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(*d, k);
  }
  EXPECT_FALSE(decode_key("short").has_value());
  std::string bad = encode_key(RecordKey{});
  bad[17] = 24;
  EXPECT_FALSE(decode_key(bad).has_value());
  EXPECT_EQ(describe(SectionPos{-3, 8, 4}), "column (-3, 4) section 8 (y 0..15)");
}

}  // namespace
}  // namespace voxen::store
