#include "voxen/store/world_store.h"

namespace voxen::store {
namespace {

void put_be64_flipped(std::string& out, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
}
int64_t get_be64_flipped(std::string_view s) {
  uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u = u << 8 | static_cast<uint8_t>(s[static_cast<size_t>(i)]);
  return static_cast<int64_t>(u ^ (uint64_t{1} << 63));
}

}  // namespace

std::string column_prefix(RecordKind kind, ColumnPos column) {
  std::string k;
  k.reserve(kKeySize);
  k.push_back(static_cast<char>(kind));
  put_be64_flipped(k, column.x);
  put_be64_flipped(k, column.z);
  return k;
}

std::string encode_key(const RecordKey& key) {
  std::string k = column_prefix(key.kind, key.pos.column());
  k.push_back(static_cast<char>(key.pos.y));
  return k;
}

std::optional<RecordKey> decode_key(std::string_view key) {
  if (key.size() != kKeySize) return std::nullopt;
  const char kind = key[0];
  if (kind != static_cast<char>(RecordKind::kJournal) && kind != static_cast<char>(RecordKind::kSection) &&
      kind != static_cast<char>(RecordKind::kLod) && kind != static_cast<char>(RecordKind::kSimulation) &&
      kind != static_cast<char>(RecordKind::kEditLog) && kind != static_cast<char>(RecordKind::kCreatures))
    return std::nullopt;
  const int s = static_cast<uint8_t>(key[17]);
  if (s >= kSectionsPerColumn) return std::nullopt;
  if (kind == static_cast<char>(RecordKind::kLod) && s > 8) return std::nullopt;  // a LOD level, 0..8
  RecordKey k;
  k.kind = static_cast<RecordKind>(kind);
  k.pos = SectionPos{get_be64_flipped(key.substr(1, 8)), s, get_be64_flipped(key.substr(9, 8))};
  return k;
}

std::string describe(const SectionPos& pos) {
  const int y0 = section_base_y(pos.y);
  return "column (" + std::to_string(pos.x) + ", " + std::to_string(pos.z) + ") section " + std::to_string(pos.y) +
         " (y " + std::to_string(y0) + ".." + std::to_string(y0 + kSectionSize - 1) + ")";
}

// ---- MemoryWorldStore ------------------------------------------------------------------------------------------

Result<std::vector<ColumnRecords>> MemoryWorldStore::load_columns(RecordKind kind, std::span<const ColumnPos> columns) {
  std::lock_guard lock(m_mu);
  std::vector<ColumnRecords> out;
  out.reserve(columns.size());
  for (const ColumnPos& c : columns) {
    ColumnRecords rec{c, {}};
    const std::string prefix = column_prefix(kind, c);
    for (auto it = m_records.lower_bound(prefix); it != m_records.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
      rec.sections.push_back({static_cast<uint8_t>(it->first[kColumnPrefixSize]), it->second});
    out.push_back(std::move(rec));
  }
  return out;
}

Result<std::optional<std::string>> MemoryWorldStore::get(const RecordKey& key) {
  std::lock_guard lock(m_mu);
  auto it = m_records.find(encode_key(key));
  if (it == m_records.end()) return std::optional<std::string>{};
  return std::optional<std::string>{it->second};
}

Status MemoryWorldStore::write(std::span<const WriteOp> ops, bool /*sync*/) {
  std::lock_guard lock(m_mu);
  for (const WriteOp& op : ops) {
    if (op.value) m_records[encode_key(op.key)] = *op.value;
    else m_records.erase(encode_key(op.key));
  }
  ++m_batches;
  return Ok{};
}

Result<std::vector<RecordKey>> MemoryWorldStore::list(RecordKind kind) {
  std::lock_guard lock(m_mu);
  std::vector<RecordKey> out;
  const std::string prefix(1, static_cast<char>(kind));
  for (auto it = m_records.lower_bound(prefix); it != m_records.end() && it->first[0] == prefix[0]; ++it)
    if (auto k = decode_key(it->first)) out.push_back(*k);
  return out;
}

Result<std::string> MemoryWorldStore::keep_aside(const RecordKey& key, std::string_view value) {
  std::lock_guard lock(m_mu);
  const std::string name = std::string(1, static_cast<char>(key.kind)) + "." + std::to_string(key.pos.x) + "." +
                           std::to_string(key.pos.z) + "." + std::to_string(key.pos.y);
  for (const auto& [n, v] : m_aside)
    if (n.rfind(name, 0) == 0 && v == value) return "memory:" + n;
  const std::string unique = name + "." + std::to_string(m_aside.size());
  m_aside.emplace_back(unique, std::string(value));
  return "memory:" + unique;
}

Result<std::optional<std::string>> MemoryWorldStore::get_meta_record() {
  std::lock_guard lock(m_mu);
  return m_meta;
}

Status MemoryWorldStore::put_meta_record(std::string_view value, bool /*sync*/) {
  std::lock_guard lock(m_mu);
  m_meta = std::string(value);
  return Ok{};
}

std::vector<std::pair<std::string, std::string>> MemoryWorldStore::aside() const {
  std::lock_guard lock(m_mu);
  return m_aside;
}

uint64_t MemoryWorldStore::batches_written() const {
  std::lock_guard lock(m_mu);
  return m_batches;
}

void MemoryWorldStore::poke(const RecordKey& key, std::string value) {
  std::lock_guard lock(m_mu);
  m_records[encode_key(key)] = std::move(value);
}

}  // namespace voxen::store
