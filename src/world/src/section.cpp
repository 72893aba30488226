#include "voxen/world/section.h"

#include <algorithm>
#include <bit>
#include <unordered_map>

#include "voxen/core/error.h"

namespace voxen {
namespace {
int bits_for(size_t palette_size) {
  if (palette_size <= 1) return 0;
  return std::max(1, static_cast<int>(std::bit_width(palette_size - 1)));
}
size_t words_for(int bits) { return bits == 0 ? 0 : (static_cast<size_t>(kSectionVolume) * static_cast<size_t>(bits) + 63) / 64 + 1; }
}  // namespace

Section::Section(Cell fill) : m_palette{fill.packed()} {}

void Section::write_index(int index, uint32_t value) {
  const uint64_t bit = static_cast<uint64_t>(index) * static_cast<uint64_t>(m_bits);
  const uint64_t w = bit >> 6;
  const unsigned s = static_cast<unsigned>(bit & 63);
  const uint64_t mask = (uint64_t{1} << m_bits) - 1;
  m_words[w] = (m_words[w] & ~(mask << s)) | (static_cast<uint64_t>(value) << s);
  if (s + static_cast<unsigned>(m_bits) > 64) {
    const unsigned spill = 64 - s;
    m_words[w + 1] = (m_words[w + 1] & ~(mask >> spill)) | (static_cast<uint64_t>(value) >> spill);
  }
}

void Section::resize_bits(int new_bits) {
  if (new_bits == m_bits) return;
  std::vector<uint32_t> idx(kSectionVolume);
  for (int i = 0; i < kSectionVolume; ++i) idx[static_cast<size_t>(i)] = palette_index(i);
  m_bits = new_bits;
  m_words.assign(words_for(new_bits), 0);
  if (m_bits > 0)
    for (int i = 0; i < kSectionVolume; ++i) write_index(i, idx[static_cast<size_t>(i)]);
}

int Section::find_or_add(uint32_t packed) {
  for (size_t i = 0; i < m_palette.size(); ++i)
    if (m_palette[i] == packed) return static_cast<int>(i);
  m_palette.push_back(packed);
  const int need = bits_for(m_palette.size());
  if (need > m_bits) resize_bits(need);
  return static_cast<int>(m_palette.size() - 1);
}

void Section::set(int index, Cell c) {
  const uint32_t packed = c.packed();
  if (m_bits == 0 && m_palette[0] == packed) return;
  const int pi = find_or_add(packed);
  write_index(index, static_cast<uint32_t>(pi));
}

void Section::fill(Cell c) {
  m_palette.assign(1, c.packed());
  m_words.clear();
  m_words.shrink_to_fit();
  m_bits = 0;
}

void Section::unpack(uint32_t* out) const {
  if (m_bits == 0) {
    std::fill(out, out + kSectionVolume, m_palette[0]);
    return;
  }
  for (int i = 0; i < kSectionVolume; ++i) out[i] = m_palette[palette_index(i)];
}

void Section::indices(uint16_t* out) const {
  if (m_bits == 0) {
    std::fill(out, out + kSectionVolume, uint16_t{0});
    return;
  }
  for (int i = 0; i < kSectionVolume; ++i) out[i] = static_cast<uint16_t>(palette_index(i));
}

void Section::pack(const uint32_t* in) {
  // Pass 1: palette in order of first appearance (deterministic for the same input) and one index per cell.
  // Most sections have a handful of distinct cells, so a linear search behind a last-value cache beats a hash
  // map; past 32 entries a hash map takes over.
  uint16_t idx[kSectionVolume];
  std::vector<uint32_t> palette;
  palette.reserve(8);
  std::unordered_map<uint32_t, uint16_t> lookup;  // used only once the palette is large
  uint32_t last = in[0];
  uint16_t last_idx = 0;
  palette.push_back(last);
  for (int i = 0; i < kSectionVolume; ++i) {
    const uint32_t v = in[i];
    if (v != last) {
      last = v;
      if (lookup.empty()) {
        size_t k = 0;
        while (k < palette.size() && palette[k] != v) ++k;
        if (k == palette.size()) {
          palette.push_back(v);
          if (palette.size() > 32)
            for (size_t j = 0; j < palette.size(); ++j) lookup.emplace(palette[j], static_cast<uint16_t>(j));
        }
        last_idx = static_cast<uint16_t>(k);
      } else {
        auto [it, inserted] = lookup.emplace(v, static_cast<uint16_t>(palette.size()));
        if (inserted) palette.push_back(v);
        last_idx = it->second;
      }
    }
    idx[i] = last_idx;
  }
  m_palette = std::move(palette);
  store_indices(idx);
}

void Section::assign(std::vector<uint32_t> palette, const uint16_t* indices) {
  VOXEN_ASSERT(!palette.empty() && palette.size() <= static_cast<size_t>(kSectionVolume));
  m_palette = std::move(palette);
  store_indices(indices);
}

void Section::store_indices(const uint16_t* idx) {
  m_bits = bits_for(m_palette.size());
  m_words.assign(words_for(m_bits), 0);
  if (m_bits == 0) return;
  // Stream the indices into the words LSB-first (the layout write_index() and palette_index() use), without a
  // read-modify-write per cell.
  const unsigned bits = static_cast<unsigned>(m_bits);
  uint64_t acc = 0;
  unsigned filled = 0;
  size_t w = 0;
  for (int i = 0; i < kSectionVolume; ++i) {
    const uint64_t v = idx[i];
    acc |= v << filled;
    filled += bits;
    if (filled >= 64) {
      m_words[w++] = acc;
      filled -= 64;
      acc = filled ? v >> (bits - filled) : 0;
    }
  }
  if (filled) m_words[w] = acc;
}

void Section::compact() {
  if (m_bits == 0) return;
  std::vector<uint32_t> cells(kSectionVolume);
  unpack(cells.data());
  pack(cells.data());
}

size_t Section::memory_bytes() const {
  return sizeof(*this) + m_palette.capacity() * sizeof(uint32_t) + m_words.capacity() * sizeof(uint64_t);
}

bool Section::same_cells(const Section& other) const {
  if (m_bits == 0 && other.m_bits == 0) return m_palette[0] == other.m_palette[0];
  for (int i = 0; i < kSectionVolume; ++i)
    if (get(i) != other.get(i)) return false;
  return true;
}

LightSection& LightSection::operator=(const LightSection& o) {
  if (this != &o) {
    m_uniform = o.m_uniform;
    m_dense = o.m_dense;
  }
  return *this;
}

void LightSection::compact() {
  if (m_dense.empty()) return;
  const Light first = m_dense[0];
  for (Light l : m_dense)
    if (l != first) return;
  fill(first);
}

Light* LightSection::dense_mut() {
  if (m_dense.empty()) m_dense.assign(kSectionVolume, m_uniform);
  return m_dense.data();
}

bool LightSection::operator==(const LightSection& o) const {
  if (m_dense.empty() && o.m_dense.empty()) return m_uniform == o.m_uniform;
  for (int i = 0; i < kSectionVolume; ++i)
    if (get(i) != o.get(i)) return false;
  return true;
}

}  // namespace voxen
