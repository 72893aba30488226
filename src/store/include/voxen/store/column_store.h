// The ColumnStore: loaded columns kept in memory, those far from the viewer packed (after VoxelBlox's
// packed column storage, which reaches 181 MB from 1,114 MB raw with zlib; here zstd).
//
// A packed column is two byte strings, each one envelope (codec.h) with a single zstd frame (level 1, no checksum:
// memory, not disk) over the 24 section payloads back to back:
//   cells: 24 whole-section payloads (palette + bit-packed indices; a uniform section is 5 bytes)
//   light: 24 light payloads (palette of 16-bit Light values + bit-packed indices; uniform: 4 bytes)
// Light is recomputable, but resident light still counts, so it is packed too. Packing and unpacking are exact:
// unpack(pack(c)) has the same cells, states and light as c (tests/store/column_store_test.cpp).
//
// Hot columns (within the unpacked radius of the focus, Chebyshev distance in columns) stay as Columns, ready for
// editing and meshing; the rest are packed, and unpacked again on access.
// Threads: pack_column/unpack_column are pure (any thread; the mem command packs on a JobPool). A ColumnStore is
// used by one thread (the main thread).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/world/column.h"

namespace voxen::store {

/// One column, packed.
struct PackedColumn {
  ColumnPos pos;
  std::string cells;  // envelope of kind kColumnCells
  std::string light;  // envelope of kind kColumnLight
};

/// Packs a column's cells and light (zstd level `level`, 1 by default).
PackedColumn pack_column(const Column& column, int level = 1);
/// Unpacks a packed column. Errors (only for damaged bytes) name the column and what is wrong.
Result<std::unique_ptr<Column>> unpack_column(const PackedColumn& packed);

class ColumnStore {
 public:
  /// Resident bytes, split as `voxen mem` reports them.
  struct Bytes {
    size_t cells = 0;  // hot columns: Column::cell_bytes(); packed: the cells string and the entry itself
    size_t light = 0;  // hot columns: Column::light_bytes(); packed: the light string
  };

  /// Columns within `unpacked_radius` columns (Chebyshev) of `center` are kept unpacked; -1 packs everything.
  /// Applies at once: columns that move out are packed, columns that move in are unpacked.
  void set_focus(ColumnPos center, int unpacked_radius);
  /// Adds (or replaces) a column, packed unless it is within the unpacked radius.
  void insert(std::unique_ptr<Column> column);
  /// Adds (or replaces) an already packed column (packed on a worker), unpacked if within the radius.
  void insert_packed(PackedColumn packed);
  /// The column at pos, unpacked (kept unpacked until the next set_focus moves it out); nullptr if absent.
  Column* get(ColumnPos pos);
  /// Removes and returns a column, unpacked; nullptr if absent.
  std::unique_ptr<Column> take(ColumnPos pos);
  bool contains(ColumnPos pos) const { return m_hot.count(pos) || m_packed.count(pos); }
  size_t size() const { return m_hot.size() + m_packed.size(); }
  size_t unpacked_count() const { return m_hot.size(); }
  size_t packed_count() const { return m_packed.size(); }
  /// Bytes held now (both tiers).
  Bytes resident_bytes() const;

 private:
  bool near(ColumnPos pos) const;
  std::unordered_map<ColumnPos, std::unique_ptr<Column>, ColumnPosHash> m_hot;
  std::unordered_map<ColumnPos, PackedColumn, ColumnPosHash> m_packed;
  ColumnPos m_center{};
  int m_radius = -1;
};

}  // namespace voxen::store
