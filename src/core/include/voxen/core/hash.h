// Deterministic hashing of (seed, coordinates): the only source of randomness in voxen.
// There is no global random stream: every random choice (terrain, trees, ores, test edit streams) is a pure
// function of a seed and integer coordinates, so any column regenerates identically in any order on any thread.
//
// Mixing: the splitmix64 finaliser (Steele, Lea, Flood: "Fast splittable pseudorandom number generators",
// OOPSLA 2014) applied to each coordinate folded into the state with distinct odd multipliers.
#pragma once

#include <cstdint>
#include <string_view>

namespace voxen {

/// splitmix64's finaliser: a bijective 64-bit mix with full avalanche.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Hash of a seed and one int64 coordinate.
constexpr uint64_t hash1(uint64_t seed, int64_t a) {
  return mix64(seed ^ mix64(static_cast<uint64_t>(a) + 0x9E3779B97F4A7C15ull));
}
/// Hash of a seed and two int64 coordinates (e.g. world x, z).
constexpr uint64_t hash2(uint64_t seed, int64_t a, int64_t b) {
  return mix64(hash1(seed, a) ^ (static_cast<uint64_t>(b) * 0xD6E8FEB86659FD93ull + 0x632BE59BD9B4E019ull));
}
/// Hash of a seed and three int64 coordinates (e.g. world x, y, z).
constexpr uint64_t hash3(uint64_t seed, int64_t a, int64_t b, int64_t c) {
  return mix64(hash2(seed, a, b) ^ (static_cast<uint64_t>(c) * 0xA0761D6478BD642Full + 0xE7037ED1A0B428DBull));
}
/// Derives an independent sub-seed for a named purpose (a salt such as a small constant per feature).
constexpr uint64_t derive_seed(uint64_t seed, uint64_t salt) { return mix64(seed + mix64(salt ^ 0x5851F42D4C957F2Dull)); }

/// Maps a hash to a double in [0, 1) using its top 53 bits.
constexpr double hash_to_unit(uint64_t h) { return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0); }

/// A tiny deterministic stream seeded from a hash, for choices inside one feature (a tree's branches):
/// still a pure function of (seed, coordinates) because it is created from hash3(...) at the feature's origin.
struct HashStream {
  uint64_t state;
  constexpr explicit HashStream(uint64_t seed) : state(seed) {}
  /// Next 64 random bits.
  constexpr uint64_t next() { state += 0x9E3779B97F4A7C15ull; return mix64(state); }
  /// Uniform integer in [0, n), n > 0 (the tiny modulo bias is irrelevant for world features).
  constexpr uint64_t below(uint64_t n) { return next() % n; }
  /// Uniform double in [0, 1).
  constexpr double unit() { return hash_to_unit(next()); }
};

/// FNV-1a, 64-bit (Fowler, Noll, Vo): a stable hash of names and tables, for fingerprints and signatures that must
/// not change between runs or builds (never for randomness: that is hash1..hash3). Start from kFnv1aOffset.
inline constexpr uint64_t kFnv1aOffset = 0xCBF29CE484222325ull;
/// Folds the bytes of `bytes` into `h`.
constexpr uint64_t fnv1a(uint64_t h, std::string_view bytes) {
  for (const char c : bytes) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001B3ull;
  return h;
}
/// Folds the 8 bytes of `v`, least significant first, into `h`.
constexpr uint64_t fnv1a_u64(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xFF)) * 0x100000001B3ull;
  return h;
}

}  // namespace voxen
