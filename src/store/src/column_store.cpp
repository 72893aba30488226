#include "voxen/store/column_store.h"

#include <cstdlib>
#include <vector>

#include "voxen/store/codec.h"

namespace voxen::store {

PackedColumn pack_column(const Column& column, int level) {
  PackedColumn p;
  p.pos = column.pos();
  std::string payload;
  payload.reserve(16384);
  for (int s = 0; s < kSectionsPerColumn; ++s) encode_section(column.section(s), payload);
  const SealOptions seal_options{level, false};
  p.cells = seal(PayloadKind::kColumnCells, payload, seal_options);
  payload.clear();
  for (int s = 0; s < kSectionsPerColumn; ++s) encode_light(column.light_section(s), payload);
  p.light = seal(PayloadKind::kColumnLight, payload, seal_options);
  return p;
}

Result<std::unique_ptr<Column>> unpack_column(const PackedColumn& packed) {
  const std::string where = "packed column (" + std::to_string(packed.pos.x) + ", " + std::to_string(packed.pos.z) + ")";
  auto cells = unseal(packed.cells, PayloadKind::kColumnCells);
  if (!cells) return Error{where + " cells: " + cells.error().to_string()};
  auto light = unseal(packed.light, PayloadKind::kColumnLight);
  if (!light) return Error{where + " light: " + light.error().to_string()};
  auto col = std::make_unique<Column>(packed.pos);
  size_t pos = 0;
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    auto sec = decode_section(*cells, pos);
    if (!sec) return Error{where + " section " + std::to_string(s) + ": " + sec.error().to_string()};
    col->section(s) = std::move(*sec);
  }
  if (pos != cells->size()) return Error{where + ": trailing bytes after 24 sections"};
  pos = 0;
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    auto ls = decode_light(*light, pos);
    if (!ls) return Error{where + " light section " + std::to_string(s) + ": " + ls.error().to_string()};
    col->light_section(s) = std::move(*ls);
  }
  if (pos != light->size()) return Error{where + ": trailing bytes after 24 light sections"};
  return col;
}

namespace {
/// Heap bytes of a string's buffer (0 while it fits the small-string buffer inside the object).
size_t heap_bytes(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; }
}  // namespace

bool ColumnStore::near(ColumnPos pos) const {
  if (m_radius < 0) return false;
  return std::llabs(pos.x - m_center.x) <= m_radius && std::llabs(pos.z - m_center.z) <= m_radius;
}

void ColumnStore::set_focus(ColumnPos center, int unpacked_radius) {
  m_center = center;
  m_radius = unpacked_radius;
  std::vector<ColumnPos> out, in;
  for (const auto& [pos, col] : m_hot)
    if (!near(pos)) out.push_back(pos);
  for (const auto& [pos, packed] : m_packed)
    if (near(pos)) in.push_back(pos);
  for (const ColumnPos& p : out) {
    m_packed[p] = pack_column(*m_hot.at(p));
    m_hot.erase(p);
  }
  for (const ColumnPos& p : in) get(p);
}

void ColumnStore::insert(std::unique_ptr<Column> column) {
  const ColumnPos p = column->pos();
  m_packed.erase(p);
  m_hot.erase(p);
  if (near(p)) m_hot.emplace(p, std::move(column));
  else m_packed.emplace(p, pack_column(*column));
}

void ColumnStore::insert_packed(PackedColumn packed) {
  const ColumnPos p = packed.pos;
  m_hot.erase(p);
  m_packed[p] = std::move(packed);
  if (near(p)) get(p);
}

Column* ColumnStore::get(ColumnPos pos) {
  if (auto it = m_hot.find(pos); it != m_hot.end()) return it->second.get();
  auto it = m_packed.find(pos);
  if (it == m_packed.end()) return nullptr;
  auto col = unpack_column(it->second);
  VOXEN_ASSERT(col.ok());  // the store packed these bytes itself; a failure is a bug, not bad input
  m_packed.erase(it);
  return m_hot.emplace(pos, std::move(col).value()).first->second.get();
}

std::unique_ptr<Column> ColumnStore::take(ColumnPos pos) {
  if (!get(pos)) return nullptr;
  auto it = m_hot.find(pos);
  auto col = std::move(it->second);
  m_hot.erase(it);
  return col;
}

ColumnStore::Bytes ColumnStore::resident_bytes() const {
  // Per map entry: the node (key, value, next pointer, cached hash) plus its bucket pointer.
  constexpr size_t kPackedEntry = sizeof(ColumnPos) + sizeof(PackedColumn) + 2 * sizeof(void*) + sizeof(size_t);
  constexpr size_t kHotEntry = sizeof(ColumnPos) + sizeof(std::unique_ptr<Column>) + 2 * sizeof(void*) + sizeof(size_t);
  Bytes b;
  for (const auto& [pos, col] : m_hot) {
    b.cells += kHotEntry + col->cell_bytes();
    b.light += col->light_bytes();
  }
  for (const auto& [pos, packed] : m_packed) {
    b.cells += kPackedEntry + heap_bytes(packed.cells);
    b.light += heap_bytes(packed.light);
  }
  return b;
}

}  // namespace voxen::store
