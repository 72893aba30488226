// The far view's mesher: a LOD section's 32^3 cells (with its one-cell border) to 8-byte quads
// (docs/formats/lod_quad.md; docs/ARCHITECTURE.md, "Far view (LOD)"). After Voxy's RenderDataFactory: the same
// face rules as the near mesher, every non-air cell drawn as a cube of 2^level blocks, greedy where the packed
// quads agree.
//
// LodQuad, one uint64 (after Voxy's 64-bit quad: position, face, size-1 in 4 bits each, model, light):
//   bits  0- 4  x     the quad's first cell, LOD-section-local cell coordinates 0..31
//   bits  5- 9  y
//   bits 10-14  z
//   bits 15-17  face  0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z (world::Face); the quad lies on that face of its cells
//   bits 18-21  w-1   extent along the face's U axis, cells (1..16)
//   bits 22-25  h-1   extent along the face's V axis, cells (1..16)
//                     (U, V as the near quads: +X/-X: U = +Z, V = +Y; +Y/-Y: U = +X, V = +Z; +Z/-Z: U = +X, V = +Y)
//   bits 26-35  texture layer (the block's face texture, as the near mesher picks it)
//   bits 36-51  light: the 16-bit Light (cell.h: sky << 12 | r << 8 | g << 4 | b) of the cell the face looks into
//   bits 52-63  reserved (0)
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "voxen/lod/coarse.h"
#include "voxen/world/block_registry.h"

namespace voxen::mesh {

/// 8 bytes: one far-view quad (layout in the file comment).
struct LodQuad {
  uint64_t bits = 0;
  friend constexpr bool operator==(const LodQuad&, const LodQuad&) = default;
  friend constexpr auto operator<=>(const LodQuad&, const LodQuad&) = default;
};
static_assert(sizeof(LodQuad) == 8);

/// The fields of a LodQuad, unpacked.
struct LodQuadFields {
  int x = 0, y = 0, z = 0;  // first cell, 0..31
  int face = 0;             // 0..5
  int w = 1, h = 1;         // cells, 1..16
  int texture = 0;          // 0..1023
  uint16_t light = 0;
  friend constexpr bool operator==(const LodQuadFields&, const LodQuadFields&) = default;
};

/// Packs the fields (layout in the file comment). Each must lie in its range (x, y, z 0..31, face 0..5, w, h 1..16,
/// texture 0..1023): the mesher only makes such quads, and a value out of range would spill into its neighbour field.
constexpr LodQuad pack_lod_quad(const LodQuadFields& f) {
  return LodQuad{static_cast<uint64_t>(f.x) | static_cast<uint64_t>(f.y) << 5 | static_cast<uint64_t>(f.z) << 10 |
                 static_cast<uint64_t>(f.face) << 15 | static_cast<uint64_t>(f.w - 1) << 18 |
                 static_cast<uint64_t>(f.h - 1) << 22 | static_cast<uint64_t>(f.texture) << 26 |
                 static_cast<uint64_t>(f.light) << 36};
}
/// The fields of a quad; unpack_lod_quad(pack_lod_quad(f)) == f for every f in range.
constexpr LodQuadFields unpack_lod_quad(LodQuad q) {
  LodQuadFields f;
  f.x = static_cast<int>(q.bits & 31);
  f.y = static_cast<int>((q.bits >> 5) & 31);
  f.z = static_cast<int>((q.bits >> 10) & 31);
  f.face = static_cast<int>((q.bits >> 15) & 7);
  f.w = static_cast<int>((q.bits >> 18) & 15) + 1;
  f.h = static_cast<int>((q.bits >> 22) & 15) + 1;
  f.texture = static_cast<int>((q.bits >> 26) & 1023);
  f.light = static_cast<uint16_t>((q.bits >> 36) & 0xFFFF);
  return f;
}

/// One LOD section's quads (the far view draws them all in one opaque pass).
struct LodMesh {
  std::vector<LodQuad> quads;
};

struct LodSkirtColumns;  // below, with append_lod_skirts

/// Per block id, what the LOD mesher needs (baked once from the registry; immutable, share between workers).
///   - class: air (shape none, and ids past the registry or unused); fluid (shape fluid: water, lava); solid (every
///     other block, whatever its shape or transparency: cubes, slabs, stairs, slopes, crosses, leaves, glass), drawn
///     as a full cube of 2^level blocks, since the Mipper ranks cutout blocks opaque.
///   - texture layer per (id, axis state, face): the near mesher's selection (BakedBlocks::texture: the block's
///     face_texture_index per world::Face, turned for blocks with the "axis" state: axis x puts the top texture on
///     +X/-X, axis z on +Z/-Z; axis bits 3 read as y). The LodCell's state (bits 16-23) carries the axis.
/// Errors: a texture index past the quad's 10-bit field (more than 1024 textures) throws std::invalid_argument
/// naming the block (BakedBlocks::bake's message; a registry that bakes for the near mesher never throws here).
class LodMeshTables {
 public:
  /// Bakes the tables from `registry` (copied: the registry need not outlive them). Throws as above.
  explicit LodMeshTables(const BlockRegistry& registry);
  /// The class of a block id: kAirClass, kSolidClass or kFluidClass (ids past the registry: kAirClass).
  enum Class : uint8_t { kAirClass = 0, kSolidClass = 1, kFluidClass = 2 };
  Class cls(uint16_t id) const { return static_cast<Class>(m_class[id]); }
  /// The texture layer of face `face` (world::Face) of a block with `id` and `state`. Only for ids whose class is not
  /// kAirClass.
  uint16_t texture(uint16_t id, uint8_t state, int face) const {
    return m_texture[static_cast<size_t>(id) * 24 + static_cast<size_t>(((state >> 3) & 3) * 6 + face)];
  }
  /// A 64-bit hash (FNV-1a) of every class and texture: equal tables mesh equal cells to equal quads (a stored
  /// node's record names the tables it was meshed with, stream/lod_record.h).
  uint64_t signature() const;

 private:
  friend void mesh_lod_section(const lod::PaddedLodSection&, const LodMeshTables&, LodMesh&);
  friend void mesh_lod_section_reference(const lod::PaddedLodSection&, const LodMeshTables&, LodMesh&);
  friend void append_lod_skirts(const lod::PaddedLodSection&, const LodMeshTables&, LodMesh&, LodSkirtColumns*);
  std::vector<uint8_t> m_class;     // 65,536 entries (every id), Class
  std::vector<uint16_t> m_texture;  // registry.size() * 24: id * 24 + axis bits * 6 + face (BakedBlocks layout)
};

/// Greedy LOD meshing of one padded section into `out` (cleared first). Face rule: a face of a non-air cell is drawn
/// where the cell it looks into (the border for the outer faces) is air, or is fluid while the cell is solid; faces
/// between two fluid cells and a fluid's faces against solid cells are not. Quads merge along U then V while face,
/// texture and light agree, up to 16 cells per side. Output order is deterministic (face 0..5, slice along the face's
/// axis, V, U). Any thread. `in.cells` must hold 34^3 cells (a resized vector is a programmer error: VOXEN_ASSERT).
/// The 12 edges and 8 corners of the border are never read.
void mesh_lod_section(const lod::PaddedLodSection& in, const LodMeshTables& tables, LodMesh& out);

/// Skirts (appended to `out`, nothing cleared): the far view draws neighbouring nodes at different levels, and the
/// same-level border hides the side faces a coarser node shows the finer neighbour: where the finer ground beside
/// the boundary lies lower (a cell's surface is its highest block, up to one cell of its level above the finer
/// one's; a cliff or ravine wall within the neighbouring cell's footprint, many cells lower) the eye would look
/// into the coarser node's solid volume and through it to the sky. On the section's four outer x/z faces (x = 0,
/// x = 31, z = 0, z = 31: a node's boundary), a face is added for each non-air cell that the face rule left hidden
/// (the border cell across it is solid, or both are fluid) and that lies less than lod_skirt_depth cells below the
/// nearest air cell of its column: within the section or the padded cell above it, or, with `above`, in the
/// sections above it in its stack (fluid cells between included: a finer neighbour's water may lie lower, or end
/// at a cliff). Its light is the nearest such air cell's (the face would otherwise look into a dark solid cell); its texture the cell's face texture. Merged
/// greedily per face as mesh_lod_section merges a slice (16 x 16 cells at most). Deterministic order (face +X, -X,
/// +Z, -Z; y; u). Between nodes of one level a skirt lies against the neighbour's solid cells, behind its surface;
/// where the neighbour is drawn lower it closes the step. (Only the top 2 cells of a column before 2026-12: a
/// ravine or cliff beside a boundary showed the sky; the comparison against full columns in docs/PERFORMANCE.md
/// found 42 such pixels.)
/// `above`: the state of a stack meshed from the top down (LodSkirtColumns); read as the columns' state above this
/// section's padded top cell, and left as the state below its bottom row for the next section down.
struct LodSkirtColumns {
  static constexpr uint8_t kClosed = 255;
  /// Per outer face (+X, -X, +Z, -Z in that order) and cell u along it (+Z on the x faces, +X on the z faces): the
  /// cells from the nearest air cell above down to the bottom row (kClosed: no air above), and that air's light.
  std::array<std::array<uint8_t, 32>, 4> depth = [] {
    std::array<std::array<uint8_t, 32>, 4> d;
    for (auto& f : d) f.fill(kClosed);
    return d;
  }();
  std::array<std::array<uint16_t, 32>, 4> light{};
  bool carried = false;  // set by append_lod_skirts: the next section down starts from this state
};
/// How far below the nearest air cell of its column a hidden cell gets a skirt, in cells of level `level`: 16
/// cells, at most 64 blocks, at least 2 cells (levels 0..2: 16, 32, 64 blocks; 3: 8 cells; 4: 4; 5 and up: 2, the
/// step one level makes). A cliff beside a node is rarely deeper than 64 blocks, and deeper skirts at the coarse
/// levels are tall walls behind the terrain that llvmpipe shades before the depth test (the far pass discards).
constexpr int lod_skirt_depth(int level) { return level >= 6 ? 2 : std::max(2, std::min(16, 64 >> level)); }
void append_lod_skirts(const lod::PaddedLodSection& in, const LodMeshTables& tables, LodMesh& out,
                       LodSkirtColumns* above = nullptr);

/// Greedy LOD meshing across a seam between two sources of cells (the far view: real columns beside the coarse
/// terrain, stream/far_view.h): as mesh_lod_section, except that an x or z face between cells of different sources
/// is drawn as if the other cell were air lit by full sky: the two terrains disagree there (a LOD cell rounds the
/// real ground up to its top block, water lies one block apart), and the step must show ground, not the sky through
/// it. The walls run the seam's whole height (below the surfaces they cost quads, not pixels: the terrain in front
/// hides them). `source_xz` (34 x 34 values 0 or 1, index (z + 1) * 34 + x + 1 for padded x, z -1..32) names each
/// padded column's source; every y of a column shares it. Built as two meshes, each with the other source's cells
/// made air, appended in order (source 0, then 1) into `out` (cleared first): faces inside one source are
/// mesh_lod_section's; only the seam adds faces. With `skirts`, each of the two meshes gets append_lod_skirts of
/// its own cells (a skirt never doubles a seam wall). `scratch` is a reusable copy. Any thread.
void mesh_lod_section_seams(const lod::PaddedLodSection& in, std::span<const uint8_t> source_xz,
                            const LodMeshTables& tables, LodMesh& out, lod::PaddedLodSection& scratch,
                            bool skirts = false);

/// The reference: one 1x1 quad per visible face, the same rule, written plainly; the oracle of the tests (the
/// greedy quads cover exactly the same faces with the same texture and light).
void mesh_lod_section_reference(const lod::PaddedLodSection& in, const LodMeshTables& tables, LodMesh& out);

}  // namespace voxen::mesh
