// The culling stages after the frustum (docs/ARCHITECTURE.md, "Visibility"): cave culling's search over the
// section graph of a cull::VisibilityStore, then software occlusion of the sections left and of the far pass's LOD
// sections. One per Renderer (and one per benchmark); called on the main thread, it runs its steps there and on the
// free workers of CullingParams::pool (ARCHITECTURE, "Visibility", *Threads*).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/cull/occlusion.h"
#include "voxen/cull/store.h"
#include "voxen/cull/visibility.h"
#include "voxen/render/camera.h"
#include "voxen/render/renderer.h"

namespace voxen::render {

class FrameCuller {
 public:
  /// A section drawn unless culled: its position and min corner (camera-relative blocks).
  struct Candidate {
    SectionPos pos;
    glm::dvec3 min;
  };
  /// Culls `candidates` (the sections with meshes left after the frustum and the fog, nearest first) by the stages
  /// `mode` asks for, writing keep[i] = 0 for those hidden, and fills the stage counts and times of `st`.
  /// `cam` has the frame's aspect; `frustum` is its frustum; the fog ends `fog_end` blocks away (horizontally).
  void cull(const CullingParams& params, const Camera& cam, int width, int height, const Frustum& frustum,
            double fog_end, std::span<const Candidate> candidates, std::vector<uint8_t>& keep, FrameStats& st);
  /// After cull() with occlusion on: whether the box [min, min + size] (camera-relative) is covered by near occluders
  /// wherever it could show (a far-pass LOD section, which the near passes draw over). False when occlusion was off.
  bool lod_covered(const glm::dvec3& min, const glm::dvec3& size) const {
    return m_occlusion_on && m_buffer.covered(min, size);
  }
  /// The last cull()'s occlusion buffer; null when occlusion did not run.
  const cull::OcclusionBuffer* buffer() const { return m_occlusion_on ? &m_buffer : nullptr; }
  /// The renderer's scratch for the candidates of a frame.
  std::vector<Candidate> candidates;

 private:
  // The horizontal distance from the eye within which every column in view (its full-height box in the frustum)
  // is meshed (in the store).
  double complete_radius(const cull::VisibilityStore& store, const Camera& cam, const Frustum& frustum,
                         double fog_end) const;

  cull::SectionGraph m_graph;
  uint64_t m_graph_version = ~0ull;
  std::vector<SectionPos> m_found;
  std::vector<uint8_t> m_seen;  // per slot of m_graph: found by the search
  struct Occluder {
    double distance;  // from the eye to its nearest point
    glm::dvec3 min, size;
  };
  // Appends the box [bmin, bmin + bsize] (camera-relative) when it lies wholly within `limit` blocks horizontally.
  static void add_occluder(std::vector<Occluder>& out, double limit, const glm::dvec3& bmin, const glm::dvec3& bsize);
  std::vector<Occluder> m_occluders;
  std::vector<cull::OcclusionBuffer::ProjectedBox> m_projected;  // m_occluders projected, same order
  std::vector<std::vector<Occluder>> m_chunk_occluders;  // per chunk of candidates
  std::vector<uint32_t> m_band_boxes, m_chunk_hidden;    // per band: boxes drawn; per chunk: sections hidden
  cull::OcclusionBuffer m_buffer;
  bool m_occlusion_on = false;
};

}  // namespace voxen::render
