// The NBT reader (voxen/import/nbt.h): every tag type from bytes written by a small encoder here (independent of
// the reader), Java's modified UTF-8, and each limit: nesting depth, lengths negative, 0x7FFFFFFF or past the end,
// unknown type ids, a List of End with items, and every truncation of a valid file.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/import/nbt.h"

namespace voxen {
namespace {

using import::NbtType;

// Big-endian NBT bytes, written field by field.
struct Bytes {
  std::vector<uint8_t> b;
  Bytes& u8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Bytes& be(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& str(const std::string& s) {  // raw bytes as the string's content (ASCII in these tests)
    be(s.size(), 2);
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Bytes& raw(std::initializer_list<uint8_t> v) {
    b.insert(b.end(), v);
    return *this;
  }
  Bytes& named(NbtType t, const std::string& name) { return u8(static_cast<uint8_t>(t)).str(name); }
};

// A root compound "root" holding one tag of every type.
Bytes every_type() {
  Bytes x;
  x.named(NbtType::kCompound, "root");
  x.named(NbtType::kByte, "byte").u8(0xFE);                                    // -2
  x.named(NbtType::kShort, "short").be(0x8001, 2);                             // -32767
  x.named(NbtType::kInt, "int").be(0xFFFFFFFFu, 4);                            // -1
  x.named(NbtType::kLong, "long").be(0x8000000000000000ull, 8);                // int64 min
  x.named(NbtType::kFloat, "float").be(std::bit_cast<uint32_t>(1.5f), 4);
  x.named(NbtType::kDouble, "double").be(std::bit_cast<uint64_t>(-0.25), 8);
  x.named(NbtType::kByteArray, "bytes").be(3, 4).raw({1, 0x80, 0x7F});
  x.named(NbtType::kString, "string").str("minecraft:stone");
  x.named(NbtType::kList, "list").u8(static_cast<uint8_t>(NbtType::kShort)).be(2, 4).be(7, 2).be(0xFFFF, 2);
  x.named(NbtType::kList, "empty").u8(0).be(0, 4);  // an empty list of End, as Minecraft writes them
  x.named(NbtType::kCompound, "inner").named(NbtType::kInt, "x").be(42, 4).u8(0);
  x.named(NbtType::kIntArray, "ints").be(2, 4).be(1, 4).be(0x80000000u, 4);
  x.named(NbtType::kLongArray, "longs").be(1, 4).be(0x0123456789ABCDEFull, 8);
  x.u8(0);  // end of root
  return x;
}

TEST(Nbt, ReadsEveryTagType) {
  const Bytes x = every_type();
  const auto r = import::read_nbt(x.b, "test.nbt");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->name, "root");
  const import::NbtTag& t = r->tag;
  ASSERT_EQ(t.type, NbtType::kCompound);
  EXPECT_EQ(t.compound()->tags.size(), 13u);
  EXPECT_EQ(t.compound()->names.size(), 13u);
  EXPECT_EQ(*t.get("byte", NbtType::kByte)->integer(), -2);
  EXPECT_EQ(*t.get("short", NbtType::kShort)->integer(), -32767);
  EXPECT_EQ(*t.get("int", NbtType::kInt)->integer(), -1);
  EXPECT_EQ(*t.get("long", NbtType::kLong)->integer(), INT64_MIN);
  EXPECT_EQ(*t.get("float", NbtType::kFloat)->real(), 1.5);
  EXPECT_EQ(*t.get("double", NbtType::kDouble)->real(), -0.25);
  EXPECT_EQ(*t.get("bytes", NbtType::kByteArray)->bytes(), (std::vector<int8_t>{1, -128, 127}));
  EXPECT_EQ(*t.get("string", NbtType::kString)->string(), "minecraft:stone");
  const import::NbtList* list = t.get("list", NbtType::kList)->list();
  ASSERT_EQ(list->element, NbtType::kShort);
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(*list->items[0].integer(), 7);
  EXPECT_EQ(*list->items[1].integer(), -1);
  EXPECT_TRUE(t.get("empty", NbtType::kList)->list()->items.empty());
  EXPECT_EQ(*t.get("inner", NbtType::kCompound)->get("x", NbtType::kInt)->integer(), 42);
  EXPECT_EQ(*t.get("ints", NbtType::kIntArray)->ints(), (std::vector<int32_t>{1, INT32_MIN}));
  EXPECT_EQ(*t.get("longs", NbtType::kLongArray)->longs(), (std::vector<int64_t>{0x0123456789ABCDEFll}));
  EXPECT_EQ(t.get("int", NbtType::kLong), nullptr);  // another type
  EXPECT_EQ(t.get("absent", NbtType::kInt), nullptr);
}

// Every prefix of a valid file is an error naming an offset inside it (never a crash or a read past the end).
TEST(Nbt, EveryTruncationIsAnErrorInsideTheInput) {
  const Bytes x = every_type();
  for (size_t n = 0; n < x.b.size(); ++n) {
    const auto r = import::read_nbt(std::span<const uint8_t>(x.b.data(), n), "cut.nbt");
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes";
    EXPECT_GE(r.error().offset, 0);
    EXPECT_LE(r.error().offset, static_cast<int64_t>(n)) << r.error().to_string();
    EXPECT_NE(r.error().to_string().find("cut.nbt"), std::string::npos);
  }
}

TEST(Nbt, ModifiedUtf8BecomesUtf8) {
  Bytes x;
  x.named(NbtType::kString, "");
  // "a", U+0000 as C0 80, U+00E9, U+20AC, U+1F600 as the surrogates D83D DE00 (ED A0 BD ED B8 80), a lone
  // surrogate DC00 (ED B0 80).
  const std::initializer_list<uint8_t> s = {'a', 0xC0, 0x80, 0xC3, 0xA9, 0xE2, 0x82, 0xAC,
                                            0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, 0xED, 0xB0, 0x80};
  x.be(s.size(), 2).raw(s);
  const auto r = import::read_nbt(x.b, "utf.nbt");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(*r->tag.string(), std::string("a\0\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBD", 14));
  // A byte that cannot start a character, a bad continuation byte, a character cut by the string's end: errors at
  // those bytes (the string's content starts at byte 5: type, name length, length).
  for (const auto& [bad, at] : {std::pair<std::vector<uint8_t>, int64_t>{{'a', 0xF0, 0x9F}, 6},
                                {{0xC3, 0x41}, 6}, {{0xE2, 0x82}, 5}}) {
    Bytes y;
    y.named(NbtType::kString, "").be(bad.size(), 2);
    y.b.insert(y.b.end(), bad.begin(), bad.end());
    const auto e = import::read_nbt(y.b, "bad.nbt");
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().offset, at) << e.error().to_string();
  }
}

// Edge cases of the payloads: zero-length arrays and strings, an overlong modified UTF-8 form (Java's readUTF takes
// C1 81 as 'A'), a lone high surrogate at the string's end (U+FFFD), a continuation byte where a character starts.
TEST(Nbt, EmptyPayloadsAndUtf8EdgeCases) {
  Bytes x;
  x.named(NbtType::kCompound, "");
  x.named(NbtType::kByteArray, "b").be(0, 4);
  x.named(NbtType::kIntArray, "i").be(0, 4);
  x.named(NbtType::kLongArray, "l").be(0, 4);
  x.named(NbtType::kString, "s").be(0, 2);
  x.named(NbtType::kString, "overlong").be(2, 2).raw({0xC1, 0x81});
  x.named(NbtType::kString, "high").be(4, 2).raw({'z', 0xED, 0xA0, 0xBD});
  x.u8(0);
  const auto r = import::read_nbt(x.b, "edge.nbt");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->tag.get("b", NbtType::kByteArray)->bytes()->empty());
  EXPECT_TRUE(r->tag.get("i", NbtType::kIntArray)->ints()->empty());
  EXPECT_TRUE(r->tag.get("l", NbtType::kLongArray)->longs()->empty());
  EXPECT_EQ(*r->tag.get("s", NbtType::kString)->string(), "");
  EXPECT_EQ(*r->tag.get("overlong", NbtType::kString)->string(), "A");
  EXPECT_EQ(*r->tag.get("high", NbtType::kString)->string(), "z\xEF\xBF\xBD");
  Bytes y;
  y.named(NbtType::kString, "").be(1, 2).u8(0x80);
  const auto e = import::read_nbt(y.b, "edge.nbt");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().offset, 5);
}

// Lists nested in their first items, each claiming nearly the whole input as its length: what a read allocates
// follows the items it reads, not the lengths (allocating by length let each of the 256 levels claim the whole
// 1 MiB again: about 16 GiB). The input is valid NBT up to where the innermost list runs out of bytes.
TEST(Nbt, NestedListLengthsDoNotMultiplyTheAllocation) {
  constexpr size_t kSize = size_t{1} << 20;
  Bytes x;
  for (int i = 0; i < 256; ++i)
    x.u8(static_cast<uint8_t>(NbtType::kList)).be(0, 2).u8(static_cast<uint8_t>(NbtType::kCompound)).be(kSize - 8 * (i + 1), 4);
  x.b.resize(kSize, 0);
  const auto r = import::read_nbt(x.b, "nested.nbt");
  ASSERT_FALSE(r.ok());  // the outer lists' remaining items find no bytes left
  EXPECT_LE(r.error().offset, static_cast<int64_t>(kSize));
}

// Nesting: 512 lists and compounds read, 513 refused with an error (not a stack overflow), and a deep file of
// 100,000 nested lists is refused at the limit.
TEST(Nbt, NestingDeeperThanTheLimitIsRefused) {
  const auto nested = [](int depth) {
    Bytes x;
    x.named(NbtType::kList, "");
    for (int i = 1; i < depth; ++i) x.u8(static_cast<uint8_t>(NbtType::kList)).be(1, 4);
    x.u8(0).be(0, 4);  // the innermost: an empty list
    return x;
  };
  EXPECT_TRUE(import::read_nbt(nested(512).b, "deep.nbt").ok());
  const auto r = import::read_nbt(nested(513).b, "deep.nbt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nested deeper than 512"), std::string::npos) << r.error().to_string();
  const auto huge = import::read_nbt(nested(100000).b, "deep.nbt");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().offset, 3 + 512 * 5) << huge.error().to_string();
  import::NbtLimits tight;
  tight.max_depth = 3;
  EXPECT_TRUE(import::read_nbt(nested(3).b, "deep.nbt", tight).ok());
  EXPECT_FALSE(import::read_nbt(nested(4).b, "deep.nbt", tight).ok());
}

// Lengths are checked against the bytes left before anything is allocated, and the error names the field's path.
TEST(Nbt, BadLengthsAreRefusedBeforeAllocating) {
  struct Case {
    NbtType type;
    uint32_t length;
    uint8_t element;  // for lists
    const char* says;
  };
  for (const Case& c : {Case{NbtType::kByteArray, 0x7FFFFFFFu, 0, "TAG_Byte_Array's length 2147483647"},
                        Case{NbtType::kIntArray, 0xFFFFFFFFu, 0, "TAG_Int_Array's length is negative"},
                        Case{NbtType::kLongArray, 2, 0, "TAG_Long_Array's length 2 needs at least 16 bytes"},
                        Case{NbtType::kList, 0x7FFFFFFFu, static_cast<uint8_t>(NbtType::kCompound), "TAG_List's length"},
                        Case{NbtType::kList, 0x80000000u, static_cast<uint8_t>(NbtType::kByte), "is negative"},
                        Case{NbtType::kList, 3, 0, "TAG_List of TAG_End holds 3 items"},
                        Case{NbtType::kList, 1, 13, "element type 13 is not a tag type"}}) {
    Bytes x;
    x.named(NbtType::kCompound, "Level").named(NbtType::kCompound, "Sections").named(c.type, "BlockStates");
    if (c.type == NbtType::kList) x.u8(c.element);
    x.be(c.length, 4).raw({0, 0, 0, 0, 0, 0, 0, 0});
    const auto r = import::read_nbt(x.b, "r.0.0.mca chunk (1, 2)");
    ASSERT_FALSE(r.ok()) << c.says;
    const std::string msg = r.error().to_string();
    EXPECT_NE(msg.find(c.says), std::string::npos) << msg;
    EXPECT_NE(msg.find("Level.Sections.BlockStates"), std::string::npos) << msg;
    EXPECT_NE(msg.find("r.0.0.mca chunk (1, 2)"), std::string::npos) << msg;
    EXPECT_LE(r.error().offset, static_cast<int64_t>(x.b.size()));
  }
  // Unknown tag types inside a compound and at the root.
  Bytes x;
  x.named(NbtType::kCompound, "").u8(13).str("x");
  const auto r = import::read_nbt(x.b, "t.nbt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().offset, 3);
  EXPECT_FALSE(import::read_nbt(std::vector<uint8_t>{0}, "t.nbt").ok());
  EXPECT_FALSE(import::read_nbt(std::vector<uint8_t>{200, 0, 0}, "t.nbt").ok());
}

// A list of compounds names the item in the path.
TEST(Nbt, ErrorsNameTheListItem) {
  Bytes x;
  x.named(NbtType::kCompound, "").named(NbtType::kList, "sections").u8(static_cast<uint8_t>(NbtType::kCompound)).be(2, 4);
  x.u8(0);                                                       // item 0: empty
  x.named(NbtType::kLongArray, "data").be(0x7FFFFFFF, 4);        // item 1: a bad long array
  const auto r = import::read_nbt(x.b, "c.nbt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("sections[1].data"), std::string::npos) << r.error().to_string();
}

// NbtLimits::max_tags counts compound members and list items: at the limit a tree reads, one past it is refused.
TEST(Nbt, TagsPastTheLimitAreRefused) {
  Bytes x;  // a root compound of one list of three empty compounds: 4 tags
  x.named(NbtType::kCompound, "").named(NbtType::kList, "l").u8(static_cast<uint8_t>(NbtType::kCompound)).be(3, 4);
  x.u8(0).u8(0).u8(0).u8(0);
  import::NbtLimits limits;
  limits.max_tags = 4;
  EXPECT_TRUE(import::read_nbt(x.b, "t.nbt", limits).ok());
  limits.max_tags = 3;
  const auto r = import::read_nbt(x.b, "t.nbt", limits);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(), "t.nbt @ byte 14: NBT (root).l: more than 3 tags");  // at item 2
}

}  // namespace
}  // namespace voxen
