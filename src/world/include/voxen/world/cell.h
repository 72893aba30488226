// A cell: one block of the world, a block id and a block state. Everything that stores or sends cells
// (sections, edits, the journal, imports, the network later) carries both.
//
// Block id: uint16, an index into the BlockRegistry (0 is always air). Ids are stable once given.
// Block state: uint8 whose bits mean, by the block's shape (the registry lists which bits a block uses):
//
//   bit:      7 6 5 4 3 2 1 0
//   facing:               . f f   bits 0-1: 0 north (-Z), 1 east (+X), 2 south (+Z), 3 west (-X)   (stairs, slope)
//   half:               h . .     bit 2: 1 = top half / upside-down                                (slab, stairs, slope)
//   axis:           a a . . .     bits 3-4: 0 = y, 1 = x, 2 = z                                    (logs)
//   level:                l l l   bits 0-2: fluid level, 0 = full (source), 7 = thinnest          (fluid)
//   falling:            F . . .   bit 3: fluid falling from above                                 (fluid)
//   age:      a a a a a a a a     bits 0-7: ticks since the cell appeared                         (gas, alone)
#pragma once

#include <compare>
#include <cstdint>

namespace voxen {

/// One block: id (registry index) and state bits. 3 bytes of payload; packs to a uint32 as id | state << 16.
struct Cell {
  uint16_t id = 0;
  uint8_t state = 0;

  constexpr uint32_t packed() const { return static_cast<uint32_t>(id) | (static_cast<uint32_t>(state) << 16); }
  static constexpr Cell from_packed(uint32_t v) { return Cell{static_cast<uint16_t>(v & 0xFFFF), static_cast<uint8_t>(v >> 16)}; }
  friend constexpr bool operator==(const Cell&, const Cell&) = default;
  friend constexpr auto operator<=>(const Cell&, const Cell&) = default;
};

inline constexpr uint16_t kAirId = 0;
inline constexpr Cell kAir{};

/// Block-state bit helpers (see the layout above).
namespace state {
inline constexpr uint8_t kFacingMask = 0x03;
inline constexpr uint8_t kHalfBit = 0x04;
inline constexpr uint8_t kAxisMask = 0x18;
inline constexpr uint8_t kLevelMask = 0x07;
inline constexpr uint8_t kFallingBit = 0x08;
inline constexpr uint8_t kAgeMask = 0xFF;

enum Facing : uint8_t { kNorth = 0, kEast = 1, kSouth = 2, kWest = 3 };

constexpr int facing(uint8_t s) { return s & kFacingMask; }
constexpr bool top_half(uint8_t s) { return (s & kHalfBit) != 0; }
constexpr int axis(uint8_t s) { return (s & kAxisMask) >> 3; }
constexpr int fluid_level(uint8_t s) { return s & kLevelMask; }
constexpr bool fluid_falling(uint8_t s) { return (s & kFallingBit) != 0; }
constexpr uint8_t make_facing(int facing, bool top) { return static_cast<uint8_t>((facing & 3) | (top ? kHalfBit : 0)); }
constexpr uint8_t make_fluid(int level, bool falling) { return static_cast<uint8_t>((level & 7) | (falling ? kFallingBit : 0)); }
constexpr uint8_t make_axis(int axis) { return static_cast<uint8_t>((axis & 3) << 3); }
}  // namespace state

/// Light of one cell, 16 bits: sky light and red, green and blue block light, 4 bits each (0..15).
///   bits 12-15 sky | bits 8-11 red | bits 4-7 green | bits 0-3 blue
/// Kept apart from the cells (see LightSection); the lighting module fills it.
using Light = uint16_t;
constexpr int light_sky(Light l) { return l >> 12; }
constexpr int light_r(Light l) { return (l >> 8) & 15; }
constexpr int light_g(Light l) { return (l >> 4) & 15; }
constexpr int light_b(Light l) { return l & 15; }
constexpr Light make_light(int sky, int r, int g, int b) {
  return static_cast<Light>((sky << 12) | (r << 8) | (g << 4) | b);
}

}  // namespace voxen
