// Minecraft's Named Binary Tag format (NBT), as Java Edition writes it (level.dat, region chunks): the reader that
// Anvil import starts from (issue 17). Format (minecraft.wiki "NBT format"; wiki.vg "NBT"), big-endian throughout:
//   named tag  type id (u8), name (string), payload; the file's root is one named tag (a compound, name often "")
//   payloads   0 End (none: closes a compound)   1 Byte i8   2 Short i16   3 Int i32   4 Long i64
//              5 Float IEEE-754 binary32   6 Double binary64   7 Byte_Array: i32 length, length i8
//              8 String: u16 byte length, Java's modified UTF-8   9 List: element type id (u8), i32 length, length
//              payloads of that type (an empty list may say End)   10 Compound: named tags until an End
//              11 Int_Array: i32 length, length i32   12 Long_Array: i32 length, length i64
//   strings    modified UTF-8 (java.io.DataInput.readUTF): U+0000 as C0 80, characters above U+FFFF as two
//              3-byte surrogates; read into standard UTF-8 (a lone surrogate becomes U+FFFD).
// Limits (bad or hostile input never crashes, overflows the stack or allocates past the input's size): nesting
// depth (compounds and lists) at most NbtLimits::max_depth (512, as Minecraft's own reader); every array and list
// length is checked against the bytes left before anything is allocated (negative lengths, 0x7FFFFFFF, and lengths
// whose smallest encoding runs past the end are refused); strings are at most 65,535 bytes by their u16 length.
// Errors name the byte offset of the bad field and the path to it (e.g. "Level.Sections[3].BlockStates").
// Threads: read_nbt is a pure function; the tags are plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "voxen/core/error.h"

namespace voxen::import {

/// NBT tag type ids (the byte the format writes).
enum class NbtType : uint8_t {
  kEnd = 0,
  kByte = 1,
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kFloat = 5,
  kDouble = 6,
  kByteArray = 7,
  kString = 8,
  kList = 9,
  kCompound = 10,
  kIntArray = 11,
  kLongArray = 12,
};

/// The format's name of a type ("TAG_Long_Array"), or "unknown".
std::string_view nbt_type_name(NbtType type);

struct NbtTag;

/// A List's payload: its element type and items (each of that type). An empty list may say End.
struct NbtList {
  NbtType element = NbtType::kEnd;
  std::vector<NbtTag> items;
};

/// A Compound's named tags in file order, names[i] naming tags[i] (two vectors: a vector of an incomplete type is
/// allowed, a pair of one is not). The format does not forbid a repeated name; find() returns the first.
struct NbtCompound {
  std::vector<std::string> names;
  std::vector<NbtTag> tags;
  /// The first tag named `name`, or nullptr.
  const NbtTag* find(std::string_view name) const;
};

/// One tag: its type and payload, held as the variant alternative for that type: int64_t for Byte, Short, Int and
/// Long (sign-extended), double for Float (widened exactly) and Double, std::string for String (UTF-8), the three
/// arrays as vectors of their element type, NbtList, NbtCompound. 64 bytes a tag (libstdc++), and every tag costs
/// at least one input byte, so what a read allocates stays a small multiple of its input.
struct NbtTag {
  using Value = std::variant<std::monostate, int64_t, double, std::string, std::vector<int8_t>, std::vector<int32_t>,
                             std::vector<int64_t>, NbtList, NbtCompound>;
  NbtType type = NbtType::kEnd;
  Value value;

  /// The payload if the tag is of that kind, else nullptr (integer: Byte, Short, Int or Long; real: Float or Double).
  const int64_t* integer() const { return std::get_if<int64_t>(&value); }
  const double* real() const { return std::get_if<double>(&value); }
  const std::string* string() const { return std::get_if<std::string>(&value); }
  const std::vector<int8_t>* bytes() const { return std::get_if<std::vector<int8_t>>(&value); }
  const std::vector<int32_t>* ints() const { return std::get_if<std::vector<int32_t>>(&value); }
  const std::vector<int64_t>* longs() const { return std::get_if<std::vector<int64_t>>(&value); }
  const NbtList* list() const { return std::get_if<NbtList>(&value); }
  const NbtCompound* compound() const { return std::get_if<NbtCompound>(&value); }
  /// For chunk readers: the member `name` of this Compound when it has type `type`, else nullptr.
  const NbtTag* get(std::string_view name, NbtType type) const;
};

/// The file's root: its name and tag.
struct NbtRoot {
  std::string name;
  NbtTag tag;
};

struct NbtLimits {
  int max_depth = 512;  // compounds and lists nested deeper are refused (the root compound is depth 1)
  /// Tags (compound members and list items) past this many are refused: each costs at least one input byte but 64
  /// in the tree, so this bounds the tree of a large input (Anvil import: 2^21, about 130 MiB a chunk at most).
  size_t max_tags = SIZE_MAX;
};

/// Reads one named root tag from `bytes` (uncompressed NBT). `source` names the input in errors (a file path, or
/// "r.0.-1.mca chunk (3, 4)"). Bytes after the root are ignored. Errors: a truncated field, an unknown type id, a
/// negative or oversized length, a List of End with items, invalid modified UTF-8, nesting past the limit: the
/// Error's offset is the bad field's byte offset and its message names the field's path.
Result<NbtRoot> read_nbt(std::span<const uint8_t> bytes, std::string_view source, const NbtLimits& limits = {});

}  // namespace voxen::import
