#include <epoxy/gl.h>

#include "trace_store.h"

#include <algorithm>

#include "voxen/trace/section_record.h"

namespace voxen::render {

namespace {
constexpr uint64_t kInitialWords = 1u << 18;  // 1 MiB of records before the first growth
constexpr uint64_t kSpanWords = 64;
}  // namespace

TraceStore::TraceStore(const BlockRegistry& registry, bool dsa, uint64_t max_buffer_bytes,
                       std::function<void(const std::string&)> log)
    : m_table(registry),
      m_log(std::move(log)),
      m_arena(std::make_unique<ArenaBuffer>(4, ElemCount{kInitialWords}, ElemCount{kSpanWords}, dsa, ByteSize{max_buffer_bytes})),
      m_slots(kTableWords, 0) {
  glGenBuffers(1, &m_table_buffer);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, m_table_buffer);
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(kTableWords * 4), m_slots.data(), GL_DYNAMIC_DRAW);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

TraceStore::~TraceStore() {
  m_arena.reset();
  if (m_table_buffer) glDeleteBuffers(1, &m_table_buffer);
}

size_t TraceStore::slot(const SectionPos& pos) {
  const size_t x = static_cast<size_t>(pos.x & (kTableSide - 1)), z = static_cast<size_t>(pos.z & (kTableSide - 1));
  return ((z * kTableSide + x) * kSectionsPerColumn + static_cast<size_t>(pos.y)) * 2;
}

uint32_t TraceStore::tag(const SectionPos& pos) {
  return static_cast<uint32_t>((pos.x >> 7) & 0xFFFF) | static_cast<uint32_t>((pos.z >> 7) & 0xFFFF) << 16;
}

void TraceStore::write_slot(const SectionPos& pos, uint32_t value) {
  const size_t s = slot(pos);
  m_slots[s] = value;
  m_slots[s + 1] = value ? tag(pos) : 0;
  m_dirty_lo = std::min(m_dirty_lo, s);
  m_dirty_hi = std::max(m_dirty_hi, s + 2);
}

void TraceStore::set_cells(const SectionPos& pos, const Section& cells) {
  m_cells[pos] = trace::build_section(cells, m_table);
}

void TraceStore::set_section(const SectionPos& pos, std::span<const mesh::Quad> opaque,
                             std::span<const mesh::FluidQuad> translucent) {
  if (pos.y < 0 || pos.y >= kSectionsPerColumn) return;
  if (opaque.empty() && translucent.empty()) return remove_section(pos);
  auto occ = m_cells.find(pos);
  std::vector<uint32_t> words = trace::build_section_record(opaque, translucent, occ == m_cells.end() ? nullptr : &occ->second);
  if (occ != m_cells.end()) m_cells.erase(occ);
  auto [it, fresh] = m_sections.try_emplace(pos);
  Entry& e = it->second;
  const std::optional<Span> got = fresh ? m_arena->allocate(words.data(), ElemCount{words.size()})
                                        : m_arena->replace(e.span, words.data(), ElemCount{words.size()});
  if (!got || got->buffer != 0) {
    if (got) m_arena->free(*got);
    if (m_not_traced++ == 0)
      m_log("section " + std::to_string(pos.x) + "," + std::to_string(pos.y) + "," + std::to_string(pos.z) + ": its " +
            std::to_string(words.size() * 4) + "-byte ray-march record does not fit the store's buffer (" +
            std::to_string(m_arena->max_buffer_elements().value * 4 >> 20) +
            " MiB, the GL's storage block limit): it and any further such sections are not traced (counted in "
            "Renderer::trace_bytes; a lower render distance fits)");
    m_sections.erase(it);
    if (m_slots[slot(pos) + 1] == tag(pos)) write_slot(pos, 0);
    return;
  }
  e.span = *got;
  e.words = std::move(words);
  const size_t s = slot(pos);
  if (m_slots[s] != 0 && m_slots[s + 1] != tag(pos) && !m_collision_logged) {
    m_log("two drawn sections 128 columns apart share a ray-march table slot: the later one is traced");
    m_collision_logged = true;
  }
  write_slot(pos, static_cast<uint32_t>(e.span.offset.value) + 1);
}

void TraceStore::remove_section(const SectionPos& pos) {
  m_cells.erase(pos);
  auto it = m_sections.find(pos);
  if (it == m_sections.end()) return;
  m_arena->free(it->second.span);
  m_sections.erase(it);
  const size_t s = slot(pos);
  if (m_slots[s + 1] == tag(pos)) write_slot(pos, 0);
}

void TraceStore::clear() {
  while (!m_sections.empty()) remove_section(m_sections.begin()->first);
  m_cells.clear();
}

void TraceStore::prepare() {
  const auto moves = m_arena->trim();
  if (!moves.empty()) {
    std::unordered_map<uint64_t, Span> to;
    for (const ArenaBuffer::Move& m : moves) to.emplace(m.from.offset.value, m.to);
    for (auto& [pos, e] : m_sections)
      if (auto t = to.find(e.span.offset.value); t != to.end() && e.span.buffer == 0) {
        e.span = t->second;
        write_slot(pos, static_cast<uint32_t>(e.span.offset.value) + 1);
      }
  }
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, m_table_buffer);
  if (m_dirty_lo < m_dirty_hi) {
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(m_dirty_lo * 4),
                    static_cast<GLsizeiptr>((m_dirty_hi - m_dirty_lo) * 4), m_slots.data() + m_dirty_lo);
    m_table_bytes_uploaded += (m_dirty_hi - m_dirty_lo) * 4;
    m_dirty_lo = SIZE_MAX;
    m_dirty_hi = 0;
  }
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  if (!m_arena->buffer(0)) {
    const uint32_t none = 0;  // an empty store still binds a buffer
    m_arena->free(*m_arena->allocate(&none, ElemCount{1}));
  }
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, m_arena->buffer(0));
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, m_table_buffer);
}

std::span<const uint32_t> TraceStore::record(const SectionPos& pos) const {
  auto it = m_sections.find(pos);
  if (it == m_sections.end()) return {};
  return it->second.words;
}

}  // namespace voxen::render
