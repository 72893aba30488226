// The far view's cell and its downsampling rule (Voxy's Mipper), the base of the LOD pyramid (docs/ARCHITECTURE.md,
// "Far view (LOD)").
//
// Levels: a level-L cell stands for a cube of 2^L blocks on a side, aligned to 2^L in world blocks; its cell
// coordinates are the world block coordinates of any block inside it shifted right by L (floor division, so
// negative coordinates work: block x = -1 is level-3 cell x = -1). Level 0 is the world's own cells. A level-(L+1)
// cell is the downsampling (Mipper::mip) of its 8 level-L children.
//
// Child index (fixed, used for the tie-break below): child (dx, dy, dz), each 0 or 1, is
//     index = dx | dz << 1 | dy << 2
// (x fastest, then z, then y: the order of world::Section's cell index). The upper four children (dy = 1) hold the
// higher indices, so among blocks of equal opacity the upper one is kept: a far hillside shows its grass, not the
// dirt under it.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"

namespace voxen::lod {

/// Levels a Pyramid may keep, from 0 up: at least 0..4 (the levels of one section's own mip chain, 16^3 -> 1^3)
/// and at most 0..8. The cap keeps every cell wholly above the world's top or wholly at or below it: 2^8 = 256 divides
/// y = 256, the first block above the world, so background_cell() needs no mixed cells there (below the bottom the
/// background is dark, as unloaded space is, so a cell across y = -128 needs nothing special). A level-8 cell is 256
/// blocks, 16 pixels wide at 8,192 blocks in a 1280x720 view: far coarser than the far view draws.
inline constexpr int kMinLevels = 5;
inline constexpr int kMaxLevels = 9;
/// The default: levels 0..5 (1,024-block LOD sections). Why these: docs/ARCHITECTURE.md, "Far view (LOD)".
inline constexpr int kDefaultLevels = 6;

/// One LOD cell: the block (id, state) and the light it keeps, packed into 64 bits:
///
///   bits  0-15  block id (registry index, 0 = air)       } = Cell::packed(), bits 0-23
///   bits 16-23  block state (cell.h's state bits)         }
///   bits 24-39  light (cell.h's Light << 24): sky 36-39, red 32-35, green 28-31, blue 24-27
///   bits 40-63  zero (reserved: a biome or colour index for the far view's shading later)
///
/// Equal cells have equal bits, so cells compare, hash and palette as plain uint64 values.
struct LodCell {
  uint64_t bits = 0;

  static constexpr LodCell make(Cell cell, Light light) {
    return LodCell{static_cast<uint64_t>(cell.packed()) | (static_cast<uint64_t>(light) << 24)};
  }
  constexpr Cell cell() const { return Cell::from_packed(static_cast<uint32_t>(bits & 0xFFFFFFu)); }
  constexpr uint16_t id() const { return static_cast<uint16_t>(bits & 0xFFFFu); }
  constexpr uint8_t state() const { return static_cast<uint8_t>((bits >> 16) & 0xFFu); }
  constexpr Light light() const { return static_cast<Light>((bits >> 24) & 0xFFFFu); }
  constexpr bool is_air() const { return id() == kAirId; }
  friend constexpr bool operator==(const LodCell&, const LodCell&) = default;
  friend constexpr auto operator<=>(const LodCell&, const LodCell&) = default;
};

/// The child index of child (dx, dy, dz) (each 0 or 1) of a cell: dx | dz << 1 | dy << 2 (see the file comment).
constexpr int child_index(int dx, int dy, int dz) { return dx | (dz << 1) | (dy << 2); }

/// What the pyramid holds where no loaded column is: air, lit like World::light() reads outside loaded columns:
/// sky 15 for a level-`level` cell wholly above the world (its lowest block y > kMaxY), dark (0) otherwise (unloaded
/// space and below the world). `cell_y` is the cell's level-`level` y coordinate; level 0..kMaxLevels - 1.
constexpr LodCell background_cell(int level, int64_t cell_y) {
  return cell_y * (int64_t{1} << level) > kMaxY ? LodCell::make(kAir, make_light(15, 0, 0, 0)) : LodCell{};
}

/// The downsampling rule, after Voxy's Mipper: one pure function of 8 children. Built once from the registry and
/// then read-only (any thread). A registry that grows later (an import adding blocks) needs a new Mipper; ids past
/// the table read as the registry's undefined block (opacity 0, not cutout).
class Mipper {
 public:
  explicit Mipper(const BlockRegistry& registry);

  /// The opacity the rule ranks a block by: the registry's opacity (0..15), or 15 for a block whose transparency is
  /// cutout (leaves, plants, torches: Voxy ranks leaves as opaque so canopies survive the coarse levels).
  uint8_t opacity(uint16_t id) const { return id < m_opacity.size() ? m_opacity[id] : m_undefined_opacity; }

  /// The parent of 8 children given in child-index order (children[child_index(dx, dy, dz)]).
  ///   - Air children (id 0) are ignored. Among the others the child with the highest priority
  ///     opacity(id) * 16 + child index wins (ties of opacity go to the higher index), and the parent is that child
  ///     whole: its id, state and light.
  ///   - Only when all 8 are air the parent is air (state 0) with sky light the average rounded up,
  ///     ceil(sum / 8), so open air beside a partly shaded cell stays lit as levels coarsen, and each block-light
  ///     channel (red, green, blue) the average rounded down, floor(sum / 8), so a lone torch's glow fades with
  ///     distance instead of spreading over ever larger cells.
  /// Deterministic: a pure function of the 8 values and the registry.
  LodCell mip(const LodCell* children) const;
  LodCell mip(const std::array<LodCell, 8>& children) const { return mip(children.data()); }

 private:
  std::vector<uint8_t> m_opacity;  // per id
  uint8_t m_undefined_opacity = 0;
};

}  // namespace voxen::lod
