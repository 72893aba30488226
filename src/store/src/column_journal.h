// The in-memory journal of one loaded column of a generated world: per section, the cells that differ from
// generation, each with the generated cell beside it, so an edit back to the generated cell drops the entry
// (the journal holds exactly the cells that differ from generation, VoxelBlox's rule).
//
// Cells: `generated` is in the running registry's ids (what the generator made this run); `saved` is in the world's
// saved id space (what the record stores; it keeps a block's original id even when the registry lost its name).
// Threads: owned by the WorldSession's per-column state; used under the session's lock.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/store/codec.h"
#include "voxen/world/cell.h"

namespace voxen::store::detail {

class ColumnJournal {
 public:
  struct Entry {
    uint16_t index;  // section-local cell index
    Cell generated;  // running ids
    Cell saved;      // saved ids
  };

  /// Adds an entry read from a record (the section's journal is being loaded; indices arrive sorted).
  void load(int s, uint16_t index, Cell generated, Cell saved) { m_sections[static_cast<size_t>(s)].push_back({index, generated, saved}); }

  /// Records that cell `index` of section s changed from `before` to `after` (running ids), `after_saved` being
  /// `after` in saved ids. A cell without an entry still holds its generated cell, so `before` is that cell.
  /// Returns true if the journal changed.
  bool record(int s, uint16_t index, Cell before, Cell after, Cell after_saved) {
    auto& v = m_sections[static_cast<size_t>(s)];
    auto it = std::lower_bound(v.begin(), v.end(), index, [](const Entry& e, uint16_t i) { return e.index < i; });
    if (it != v.end() && it->index == index) {
      if (after == it->generated) {
        v.erase(it);
      } else {
        if (it->saved == after_saved) return false;
        it->saved = after_saved;
      }
      return true;
    }
    if (after == before) return false;
    v.insert(it, Entry{index, before, after_saved});
    return true;
  }

  /// The section's journal as it is stored: saved cells sorted by index.
  std::vector<JournalCell> snapshot(int s) const {
    const auto& v = m_sections[static_cast<size_t>(s)];
    std::vector<JournalCell> out;
    out.reserve(v.size());
    for (const Entry& e : v) out.push_back({e.index, e.saved});
    return out;
  }

  /// Entries of section s (sorted by index).
  const std::vector<Entry>& entries(int s) const { return m_sections[static_cast<size_t>(s)]; }
  /// Total entries over all sections.
  size_t size() const {
    size_t n = 0;
    for (const auto& v : m_sections) n += v.size();
    return n;
  }

 private:
  std::array<std::vector<Entry>, kSectionsPerColumn> m_sections;
};

}  // namespace voxen::store::detail
