// The world: the loaded columns, keyed by ColumnPos. Unloaded columns are simply absent.
//
// Space: world blocks (int64), Y up. Reads outside the loaded columns or outside y -128..255 return air
// (and the lighting module treats unloaded space as dark and opaque).
// Threads: the main thread owns the World; workers get copies or read-only views of columns they need.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/world/column.h"
#include "voxen/world/edit.h"

namespace voxen {

class World {
 public:
  /// The column at pos, or nullptr when not loaded.
  Column* find(ColumnPos pos);
  const Column* find(ColumnPos pos) const;
  /// Inserts (or replaces) a column, taking ownership; returns it.
  Column& insert(std::unique_ptr<Column> column);
  /// Unloads a column; returns it (nullptr if absent).
  std::unique_ptr<Column> remove(ColumnPos pos);
  size_t column_count() const { return m_columns.size(); }
  /// Loaded column positions, sorted (x, then z): a fixed order for hashing and reports.
  std::vector<ColumnPos> positions() const;

  /// Cell at a world position; air if unloaded or y out of range.
  Cell get(const BlockPos& p) const;
  /// Light at a world position; 0 (dark) if unloaded, full sky above the world.
  Light light(const BlockPos& p) const;

  /// Builds the edit that would place `after` at p (with the current cell as `before` and the next sequence
  /// number); nullopt if the column is not loaded or y is out of range.
  std::optional<Edit> make_edit(const BlockPos& p, Cell after);
  /// Applies an edit's `after` cell. Returns false (and changes nothing) if its column is not loaded or y is out
  /// of range. Light and meshes are updated by their own modules, which take the same Edit.
  bool apply(const Edit& e);

 private:
  std::unordered_map<ColumnPos, std::unique_ptr<Column>, ColumnPosHash> m_columns;
  uint64_t m_next_seq = 1;
};

}  // namespace voxen
