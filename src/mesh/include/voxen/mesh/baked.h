// The block table the mesher's hot loop reads: per block id, a class byte and the few properties meshing needs,
// baked once from the BlockRegistry so the mesher never touches strings or the registry's larger records
// (after godot_voxel's baked library).
//
// Rules baked here (docs/ARCHITECTURE.md, Meshing):
//   - occluder: an opaque full cube (BlockDef::is_opaque_cube). It hides every face against it, darkens ambient
//     occlusion and adds nothing to smooth light.
//   - opaque-material shapes (transparency "opaque", shape slab / stairs / slope) hide the parts of neighbours'
//     faces they cover (shapes.h side_cover), square by square.
//   - lists: opaque blocks draw into the opaque list, cutout blocks into the cutout list (alpha-tested), and
//     translucent blocks and every fluid (lava too: its quads carry surface heights) into the translucent list.
//   - textures: BlockDef::face_texture_index per face; blocks with the "axis" state are turned so their top and
//     bottom textures face along the axis (axis x: rotated a quarter turn about Z, +Y texture on +X; axis z:
//     about X, +Y texture on +Z).
// Ids past the registry read as the registry's undefined block: air (no faces, hides nothing).
// Threads: immutable after bake(); share it read-only between workers.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/world/block_registry.h"

namespace voxen::mesh {

/// Which list a quad goes to (SectionMesh).
enum MeshList : uint8_t { kListOpaque = 0, kListCutout = 1, kListTranslucent = 2 };

/// Class bits of a block id, read per cell by the fast mesher.
enum CellClass : uint8_t {
  kClassOccluder = 1,   // opaque full cube
  kClassCoverShape = 2, // opaque-material slab, stairs or slope: hides what it covers of neighbours' faces
  kClassSimple = 4,     // a full cube drawn by the bitwise fast path: opaque or cutout cube
  kClassGeneral = 8,    // drawn by the general path: other shapes, fluids, crosses, translucent cubes
  kClassCutout = 16,    // drawn into the cutout list
};

/// One block id's meshing properties.
struct BakedBlock {
  uint8_t cls = 0;                       // CellClass bits (0 for air)
  Shape shape = Shape::kNone;
  Transparency transparency = Transparency::kOpaque;
  MeshList list = kListOpaque;
  uint8_t state_mask = 0;                // bits of Cell::state the block uses (others are ignored)
  bool has_axis = false;                 // textures turn with state::axis
  std::array<std::array<uint16_t, 6>, 3> texture{};  // [axis 0 y / 1 x / 2 z][Face]: texture layer
};

class BakedBlocks {
 public:
  /// Bakes the table. Errors: a texture index past quad.h's 10-bit field (more than 1024 textures), naming the
  /// block.
  static Result<BakedBlocks> bake(const BlockRegistry& registry);

  /// The entry of a block id (ids past the table read as air).
  const BakedBlock& operator[](uint16_t id) const { return id < m_blocks.size() ? m_blocks[id] : m_air; }
  /// Class byte of a block id (0 for ids past the table).
  uint8_t cls(uint16_t id) const { return m_class[id]; }
  /// The class bytes of all 65,536 ids (0 past the registry): the hot loop indexes it without a bounds check and
  /// touches only the cache lines of the ids in use.
  const uint8_t* class_table() const { return m_class.data(); }
  /// Texture layer of a cell's face, with the axis turn applied.
  uint16_t texture(uint16_t id, uint8_t state, int face) const {
    const BakedBlock& b = (*this)[id];
    const int axis = b.has_axis ? state::axis(state) % 3 : 0;
    return b.texture[static_cast<size_t>(axis)][static_cast<size_t>(face)];
  }
  /// Texture layers of every (id, axis bits, face), flat: entry id * 24 + ((state >> 3) & 3) * 6 + face, with the
  /// axis turn applied (axis value 3, unused, reads as y; blocks without the axis state repeat their textures).
  /// Ids must be below size().
  const uint16_t* texture_table() const { return m_texture.data(); }
  /// Number of ids with an entry.
  size_t size() const { return m_blocks.size(); }

 private:
  std::vector<BakedBlock> m_blocks;
  std::vector<uint8_t> m_class;  // 65,536 entries
  std::vector<uint16_t> m_texture;  // size() * 24
  BakedBlock m_air;
};

}  // namespace voxen::mesh
