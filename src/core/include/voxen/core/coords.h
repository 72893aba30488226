// Integer world coordinates and the column/section arithmetic every module shares.
//
// Space: world blocks, int64, Y up. X grows east, Z grows south, so "north" is -Z.
// A column is 16 x 16 blocks in x and z and spans y in [kMinY, kMaxY] (384 blocks), made of 24 sections of
// 16^3. Columns are keyed by (x >> 4, z >> 4): an arithmetic shift, which is floor division by 16 for negative
// coordinates too (C++20 defines >> on negative signed values as arithmetic). Column-local x and z are x & 15,
// z & 15 (0..15 for every x, negative included). Nothing is keyed by pointer identity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace voxen {

inline constexpr int kColumnWidth = 16;        // blocks in x and in z
inline constexpr int kSectionSize = 16;        // a section is 16^3 cells
inline constexpr int kSectionVolume = 16 * 16 * 16;
inline constexpr int kMinY = -128;             // lowest world y (bedrock floor)
inline constexpr int kMaxY = 255;              // highest world y
inline constexpr int kColumnHeight = kMaxY - kMinY + 1;  // 384
inline constexpr int kSectionsPerColumn = kColumnHeight / kSectionSize;  // 24
inline constexpr int kSeaLevel = 62;           // water fills oceans and lakes up to this y
/// The world's reach in x and z, blocks: 2^62, half of int64, so that block arithmetic near its edge (the few
/// blocks a player moves per frame, a far view's disc and padded borders) cannot overflow. A teleport may name
/// |x|, |z| up to it (play/recording.h); the far view builds nodes in [-kWorldReach, kWorldReach) (stream/far_view.h).
inline constexpr int64_t kWorldReach = int64_t{1} << 62;

/// Floor division (rounds toward negative infinity), b > 0. floor_div(-1, 16) == -1.
constexpr int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/// Floor modulo, always in [0, b) for b > 0. floor_mod(-1, 16) == 15.
constexpr int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

/// Column coordinate of a world block coordinate (x or z): floor(v / 16).
constexpr int64_t column_of(int64_t v) { return v >> 4; }
/// Column-local coordinate (0..15) of a world block coordinate (x or z).
constexpr int local_of(int64_t v) { return static_cast<int>(v & 15); }
/// True if world y lies inside a column (kMinY..kMaxY).
constexpr bool y_in_range(int64_t y) { return y >= kMinY && y <= kMaxY; }
/// Section index (0..23, bottom to top) of a world y in range.
constexpr int section_of_y(int64_t y) { return static_cast<int>((y - kMinY) >> 4); }
/// World y of the bottom cell of section index s.
constexpr int section_base_y(int s) { return kMinY + s * kSectionSize; }

/// Section-local cell index, x fastest, then z, then y (YZX order): (y << 8) | (z << 4) | x, each 0..15.
constexpr int section_index(int x, int y, int z) { return (y << 8) | (z << 4) | x; }

/// A block position in world space (int64 blocks, Y up).
struct BlockPos {
  int64_t x = 0, y = 0, z = 0;
  friend constexpr bool operator==(const BlockPos&, const BlockPos&) = default;
  friend constexpr auto operator<=>(const BlockPos&, const BlockPos&) = default;
};

/// A column key: world x >> 4 and z >> 4.
struct ColumnPos {
  int64_t x = 0, z = 0;
  friend constexpr bool operator==(const ColumnPos&, const ColumnPos&) = default;
  friend constexpr auto operator<=>(const ColumnPos&, const ColumnPos&) = default;
  /// The world block x of this column's west edge (local x = 0).
  constexpr int64_t min_x() const { return x * kColumnWidth; }
  /// The world block z of this column's north edge (local z = 0).
  constexpr int64_t min_z() const { return z * kColumnWidth; }
};

/// A section key: the column (x >> 4, z >> 4) and the section index 0..23 (bottom to top) within it.
struct SectionPos {
  int64_t x = 0;  // column x
  int y = 0;      // section index 0..23; world y of its bottom cell = section_base_y(y)
  int64_t z = 0;  // column z
  friend constexpr bool operator==(const SectionPos&, const SectionPos&) = default;
  friend constexpr auto operator<=>(const SectionPos&, const SectionPos&) = default;
  constexpr ColumnPos column() const { return {x, z}; }
};

/// Hash for unordered containers keyed by section.
struct SectionPosHash {
  size_t operator()(const SectionPos& s) const noexcept {
    uint64_t h = static_cast<uint64_t>(s.x) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(s.z) * 0xC2B2AE3D27D4EB4Full ^
                 static_cast<uint64_t>(s.y) * 0x165667B19E3779F9ull;
    h ^= h >> 31;
    return static_cast<size_t>(h * 0xBF58476D1CE4E5B9ull);
  }
};

/// a - b for int64 world coordinates, well defined even where the subtraction would overflow (it wraps; for
/// coordinates of one world the true difference always fits).
constexpr int64_t coord_delta(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

/// The section holding a world block position (y must be in range).
constexpr SectionPos section_pos_of(const BlockPos& p) { return {column_of(p.x), section_of_y(p.y), column_of(p.z)}; }

/// The column holding a world block position.
constexpr ColumnPos column_pos_of(const BlockPos& p) { return {column_of(p.x), column_of(p.z)}; }

/// Hash for unordered containers keyed by column (a mix of both coordinates; never a pointer).
struct ColumnPosHash {
  size_t operator()(const ColumnPos& c) const noexcept {
    uint64_t h = static_cast<uint64_t>(c.x) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(c.z) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    return static_cast<size_t>(h * 0xBF58476D1CE4E5B9ull);
  }
};

}  // namespace voxen
