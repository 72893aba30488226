// The fast section mesher: culled faces with per-corner ambient occlusion and smooth light, greedy-merged, for
// cubes, slabs, stairs, slopes, cross plants and fluids, written in the packed quad format (quad.h).
//
// What it emits (the full rules are in docs/ARCHITECTURE.md, Meshing; the reference mesher, reference.h, states
// each one as plain code and the tests require this mesher to equal it face for face):
//   - faces between a drawn cell and a neighbour that does not hide them: opaque blocks hide what they cover of a
//     side (a full cube all of it, a slab or stair the half-block squares it fills), of two translucent blocks the
//     one ranking lower (shapes.h seam_rank: the lower id; same id: both) is hidden where the other covers it,
//     cutout blocks never hide anything, fluids are hidden by their own kind; a fluid's side and bottom are drawn
//     only where the neighbour's face on that plane does not lie (any block with geometry there: glass, leaves,
//     slabs, stairs, slopes), the neighbour's face staying; against a different fluid ranking higher (lava beside
//     water), a fluid's side is drawn only above that fluid's surface;
//   - per corner: ambient occlusion (classic 0-3 rule from the two side cells and the diagonal in the layer in
//     front of the face: 0fps, "Ambient occlusion for Minecraft-like worlds", 2013) and smooth light (the integer
//     mean, per channel, of the up-to-four cells around the corner in that layer that are not opaque cubes, the
//     diagonal only when a side cell is open; rounding half up); the quad's `flip` bit set when the AO (then the
//     light) is anisotropic along the default diagonal;
//   - greedy merging (Mikola Lysenko, "Meshing in a Minecraft game", 0fps 2012) per face direction and plane, of
//     full unit faces whose four corners carry the same AO and the same light (Quantum's rule), same
//     texture, list, flow and fluid heights; never across the section border.
// Cost: a pass over the 18^3 input to classify cells, then work per visible face; uniform-air sections and
// sections with nothing drawable return at once.
// Threads: mesh_section is a pure function of (baked table, input, options) that writes only `scratch` and `out`:
// run one per worker with its own scratch; the output is byte-identical on any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "voxen/mesh/baked.h"
#include "voxen/mesh/input.h"
#include "voxen/mesh/quad.h"

namespace voxen::mesh {

/// How to mesh.
struct MeshOptions {
  /// Merge coplanar unit faces into rectangles (false: one quad per visible unit face, "culled" meshing).
  bool greedy = true;
  /// The merge rule: false merges faces that differ in AO or light too (each merged quad then carries its first
  /// unit face's corner values: a count for statistics only, `voxen mesh`'s greedy_quads_no_ao, not for drawing).
  bool merge_requires_equal_lighting = true;
};

/// One section's quads, section-local (quad.h). Opaque and cutout quads are 16-byte records, translucent ones
/// (glass, ice, and every fluid, which carries surface heights) 20-byte records. The renderer draws opaque, then
/// cutout with alpha test, then translucent blended.
struct SectionMesh {
  std::vector<Quad> opaque;
  std::vector<Quad> cutout;
  std::vector<FluidQuad> translucent;

  void clear() {
    opaque.clear();
    cutout.clear();
    translucent.clear();
  }
  bool empty() const { return opaque.empty() && cutout.empty() && translucent.empty(); }
  size_t quad_count() const { return opaque.size() + cutout.size() + translucent.size(); }
  /// Bytes of quad data: 16 per opaque or cutout quad, 20 per translucent quad.
  size_t bytes() const { return (opaque.size() + cutout.size()) * sizeof(Quad) + translucent.size() * sizeof(FluidQuad); }
  friend bool operator==(const SectionMesh& a, const SectionMesh& b);
};

/// Caller-owned working memory of the mesher (about 200 KB, allocated once). One per thread.
class MeshScratch {
 public:
  MeshScratch();
  ~MeshScratch();
  MeshScratch(const MeshScratch&) = delete;
  MeshScratch& operator=(const MeshScratch&) = delete;
  struct Impl;
  Impl& impl() { return *m_impl; }

 private:
  std::unique_ptr<Impl> m_impl;
};

/// Meshes one section from plain padded arrays (input.h layout: 18^3 entries, YZX order, x fastest):
/// `cells` are Cell::packed() values, `light` Light values. Replaces `out`'s contents.
void mesh_section(const BakedBlocks& blocks, const uint32_t* cells, const Light* light, const MeshOptions& options,
                  MeshScratch& scratch, SectionMesh& out);

/// Same, from a SectionInput.
inline void mesh_section(const BakedBlocks& blocks, const SectionInput& input, const MeshOptions& options,
                         MeshScratch& scratch, SectionMesh& out) {
  mesh_section(blocks, input.cells.data(), input.light.data(), options, scratch, out);
}

/// True when section `pos` is buried: uniform, of one opaque full cube (BlockClass kClassOccluder), and so are its
/// six face neighbours (all loaded, all within y 0..23), so none of its faces can be seen and its mesh is empty
/// without building its input. The one buried-section test: mesh_world_section and the column streamer's mesh jobs
/// both skip what it names. Reads the World only.
bool section_is_buried(const BakedBlocks& blocks, const World& world, SectionPos pos);

/// Meshes section `pos` of a World: skips uniform-air, unloaded (section_is_skippable) and buried
/// (section_is_buried) sections (empty mesh), otherwise builds the padded input into `input` and meshes it. Reads
/// the World only.
void mesh_world_section(const BakedBlocks& blocks, const World& world, SectionPos pos, const MeshOptions& options,
                        SectionInput& input, MeshScratch& scratch, SectionMesh& out);

}  // namespace voxen::mesh
