// What culling knows of the sections a renderer draws: per meshed section its face links (cave culling,
// visibility.h) and occluder boxes (occlusion.h), computed from the mesher's padded input in the same job as the
// mesh, and kept beside the meshes by whoever uploads them (stream::ColumnStreamer), so a frame culls with the
// meshes it draws. A section not in the store is not meshed: sight passes through it (cave culling) and nothing
// is known of its cells (the near-plane rule, clear_around).
// Threads: one owner thread; section_visibility runs on any thread.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/core/coords.h"
#include "voxen/cull/occlusion.h"
#include "voxen/cull/visibility.h"
#include "voxen/mesh/input.h"

namespace voxen::cull {

/// One meshed section's culling data.
struct SectionVisibility {
  FaceLinks links{FaceLinks::kAll};
  uint16_t full_layers = 0;            // bit y: the section's layer y (256 cells) is all opaque (column slabs)
  std::vector<OccluderBox> occluders;  // find_occluders' order: larger cubes first
  friend bool operator==(const SectionVisibility&, const SectionVisibility&) = default;
};

/// The culling data of the section at the centre of a padded mesher input (mesh/input.h): face links from its 16^3
/// cells, occluders with the ring of neighbour cells deciding which opaque cells have a face in view. A section the
/// mesher skips is SectionVisibility{} when uniform air (all linked, no occluders) and buried() when buried in
/// opaque cells. Cost: one pass over the 4,096
/// cells, a flood fill when 256 or more of them block sight and some do not, the mip chain.
SectionVisibility section_visibility(const mesh::SectionInput& input, const SightTable& sight);
/// A section of opaque cells only (the mesher's buried sections): no links, every layer full, no occluder boxes
/// (none of its cells shows a face; the column slabs cover it).
inline SectionVisibility buried_section() { return SectionVisibility{FaceLinks{0}, 0xFFFF, {}}; }

/// Culling data by section position, with a version that changes whenever anything in it does.
class VisibilityStore {
 public:
  /// Section `pos` (y 0..23) has `v` now.
  void set(const SectionPos& pos, SectionVisibility v);
  /// Every section of column `pos` leaves (its meshes were dropped).
  void erase_column(ColumnPos pos);
  void clear();
  const SectionVisibility* find(const SectionPos& pos) const;
  /// Bit y: section y of the column is in the store (0: the column is not meshed).
  uint32_t sections_of(ColumnPos pos) const;
  /// A column's sections in the store: bit y of `sections` (sections_of), and each one's full_layers (0 where absent).
  struct ColumnEntry {
    uint32_t sections = 0;
    std::array<uint16_t, kSectionsPerColumn> full_layers{};
  };
  /// Columns with sections in the store, sorted.
  const std::map<ColumnPos, ColumnEntry>& columns() const { return m_columns; }
  size_t size() const { return m_sections.size(); }
  uint64_t version() const { return m_version; }

  /// Whether every cell within `radius` blocks of the eye (world block `eye` plus `frac`, each in [0, 1)) in the
  /// sections `in_view` accepts is known to let sight through: those sections that reach that close are all in the
  /// store, and none has an occluder box (exposed or enclosed: they cover every opaque cell) that does. The culling
  /// stages run only when this holds for the near plane's reach within the frustum (a face the near plane clips
  /// shows what lies behind the rock; only a cell in the frustum can have a face there). Sections above or below
  /// the world hold no cells.
  bool clear_around(const BlockPos& eye, const glm::dvec3& frac, double radius,
                    const std::function<bool(const SectionPos&)>& in_view) const;

 private:
  std::unordered_map<SectionPos, SectionVisibility, SectionPosHash> m_sections;
  std::map<ColumnPos, ColumnEntry> m_columns;
  uint64_t m_version = 0;
};

}  // namespace voxen::cull
