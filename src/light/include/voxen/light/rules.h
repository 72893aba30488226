// The light rules shared by the fast flood fill and the oracle, and the per-block table they read.
//
// Light (voxen/world/cell.h) is 16 bits per cell: sky << 12 | red << 8 | green << 4 | blue, 4 bits each (0..15).
// The rules (lead's design for issue 3; the loss model is Minecraft's block/sky light with per-block opacity):
//   - A cell's light is, per channel, the maximum of its own source and, over its 6 face neighbours n,
//     L(n) - 1 - opacity(cell), clamped at 0. The opacity of the *receiving* cell counts.
//   - Block-light sources: the block's emission triple (red, green, blue) from the registry. An opaque emitter
//     (opacity 15) keeps its emission and receives nothing (every candidate is <= L - 16 < 0).
//   - Sky light: the cell above y = 255 counts as sky 15. A cell with opacity 0 directly below a cell with sky 15
//     gets 15 (no loss straight down); everything else follows the same rule as block light. So the top cell of
//     an (x, z) column is a sky source of 15 when its opacity is 0.
//   - Unloaded columns are dark and opaque: no light enters or leaves through them.
// Every step except "sky 15 straight down" loses at least 1, so a value is justified by a path from a source on
// which it strictly decreases (or stays 15 going straight down): the least fixed point of these equations is the
// only one, and any flood order that runs to completion reaches it (docs/ARCHITECTURE.md, Lighting).
//
// The per-channel arithmetic is SWAR: a Light is spread to one byte per channel in a uint32 (sky in the top
// byte), subtracted and compared lane by lane with a guard bit so no lane borrows from the next.
// Threads: everything here is const or constexpr; LightTable is immutable after construction.
#pragma once

#include <cstdint>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"

namespace voxen::light {

inline constexpr Light kSkyFull = make_light(15, 0, 0, 0);  // sky 15, no block light
inline constexpr Light kSkyMask = 0xF000;
inline constexpr Light kBlockMask = 0x0FFF;
inline constexpr int kOpaque = 15;  // opacity at which a cell receives no light

/// Spreads a Light's four 4-bit channels to the four bytes of a uint32 (sky in bits 24-27, blue in bits 0-3).
constexpr uint32_t spread(Light l) {
  return (l & 0xFu) | ((l & 0xF0u) << 4) | ((l & 0xF00u) << 8) | ((l & 0xF000u) << 12);
}
/// Inverse of spread(); only the low nibble of each byte is read.
constexpr Light unspread(uint32_t v) {
  return static_cast<Light>((v & 0xFu) | ((v >> 4) & 0xF0u) | ((v >> 8) & 0xF00u) | ((v >> 12) & 0xF000u));
}
/// Per byte lane: max(0, lane - d), lanes 0..15, d in 0..16.
constexpr uint32_t sub_sat_lanes(uint32_t s, uint32_t d) {
  const uint32_t t = (s | 0x10101010u) - d * 0x01010101u;  // 16 + lane - d in [0, 31]: never borrows
  const uint32_t keep = ((t >> 4) & 0x01010101u) * 0x0Fu;  // 0x0F where lane >= d
  return t & keep;
}
/// Per byte lane: max(a, b), lanes 0..15.
constexpr uint32_t max_lanes(uint32_t a, uint32_t b) {
  const uint32_t t = (a | 0x10101010u) - b;                // 16 + a - b in [1, 31]
  const uint32_t a_ge = ((t >> 4) & 0x01010101u) * 0x0Fu;  // 0x0F where a >= b
  return (a & a_ge) | (b & ~a_ge & 0x0F0F0F0Fu);
}
/// Per-channel maximum of two Light values.
constexpr Light light_max(Light a, Light b) { return unspread(max_lanes(spread(a), spread(b))); }
/// True if some channel of `a` is greater than the same channel of `b`.
constexpr bool any_greater(Light a, Light b) { return light_max(a, b) != b; }

/// The light a cell of opacity `opacity` (0..15) receives from a face neighbour holding `from`:
/// per channel max(0, from - 1 - opacity); `down` (the neighbour is directly above) keeps sky 15 at 15 when
/// opacity is 0.
constexpr Light propagate(Light from, int opacity, bool down) {
  if (opacity >= kOpaque) return 0;
  Light c = unspread(sub_sat_lanes(spread(from), static_cast<uint32_t>(1 + opacity)));
  if (down && opacity == 0 && (from & kSkyMask) == kSkyMask) c |= kSkyMask;
  return c;
}

/// Opacity and emission per block id, baked from a BlockRegistry for the flood fill's inner loops.
/// Build it once (after the registry is final; rebuild after BlockRegistry::add) and share it read-only.
class LightTable {
 public:
  /// Reads opacity (clamped to 0..15) and emission (each channel clamped to 0..15) of every id the registry
  /// defines; ids past registry.size() read as the registry's undefined block (opacity 0, no emission).
  explicit LightTable(const BlockRegistry& registry);

  /// Opacity 0..15 of a block id (15 stops light).
  uint8_t opacity(uint16_t id) const { return id < m_opacity.size() ? m_opacity[id] : m_undefined_opacity; }
  /// Block light emitted by a block id, as a Light with sky 0.
  Light emission(uint16_t id) const { return id < m_emission.size() ? m_emission[id] : m_undefined_emission; }
  /// The light a cell has whatever its neighbours in the world hold: its emission, plus, for the top cell of the
  /// world (y = kMaxY), what it receives from the sky 15 above the world (15 when opacity is 0, else
  /// 14 - opacity, clamped at 0).
  Light source(uint16_t id, int64_t y) const {
    const Light e = emission(id);
    return y == kMaxY ? light_max(e, propagate(kSkyFull, opacity(id), true)) : e;
  }
  /// Number of ids with their own entry (registry.size() when built).
  size_t size() const { return m_opacity.size(); }

 private:
  std::vector<uint8_t> m_opacity;
  std::vector<Light> m_emission;
  uint8_t m_undefined_opacity = 0;
  Light m_undefined_emission = 0;
};

}  // namespace voxen::light
