#include "voxen/lod/section.h"

#include <algorithm>
#include <utility>

namespace voxen::lod {
namespace {

/// Index width for a palette of `size` entries: 0 (uniform), or the smallest of 1, 2, 4, 8, 16 bits that can
/// address it (a power of two, so an index never straddles two 64-bit words).
int width_for(size_t size) {
  if (size <= 1) return 0;
  if (size <= 2) return 1;
  if (size <= 4) return 2;
  if (size <= 16) return 4;
  if (size <= 256) return 8;
  return 16;
}

/// Index words of a brick at `bits` per index.
size_t words_for(int bits) { return static_cast<size_t>(LodBrick::kVolume) * static_cast<size_t>(bits) / 64; }

}  // namespace

// ---- LodBrick ----------------------------------------------------------------------------------------------------

void LodBrick::repack(std::vector<uint64_t> palette, const uint16_t* slots) {
  m_bits = static_cast<uint8_t>(width_for(palette.size()));
  m_palette_size = static_cast<uint16_t>(palette.size());
  if (m_bits == 0) {
    m_uniform = LodCell{palette[0]};
    m_data.clear();
    m_data.shrink_to_fit();
    return;
  }
  m_data = std::move(palette);
  m_data.resize(m_palette_size + words_for(m_bits), 0);
  uint64_t* words = m_data.data() + m_palette_size;
  for (int i = 0; i < kVolume; ++i) {
    const unsigned bit = static_cast<unsigned>(i) * m_bits;
    words[bit >> 6] |= static_cast<uint64_t>(slots[i]) << (bit & 63u);
  }
}

void LodBrick::read_slots(uint16_t* slots) const {
  const uint64_t mask = (uint64_t{1} << m_bits) - 1;
  for (int c = 0; c < kVolume; ++c) {
    const unsigned bit = static_cast<unsigned>(c) * m_bits;
    slots[c] = static_cast<uint16_t>((m_data[m_palette_size + (bit >> 6)] >> (bit & 63u)) & mask);
  }
}

bool LodBrick::set(int i, LodCell value) {
  const LodCell old = get(i);
  if (old == value) return false;
  if (m_bits == 0) {
    // Two values now: [old uniform, value] at 1 bit, every index 0 but this one.
    m_data.assign(2 + words_for(1), 0);
    m_data[0] = m_uniform.bits;
    m_data[1] = value.bits;
    m_palette_size = 2;
    m_bits = 1;
  } else {
    int slot = -1;
    for (int s = 0; s < m_palette_size; ++s)
      if (m_data[static_cast<size_t>(s)] == value.bits) {
        slot = s;
        break;
      }
    if (slot < 0) {
      if (m_palette_size == (1u << m_bits)) {
        // The palette outgrows its width: widen every index.
        uint16_t slots[kVolume];
        read_slots(slots);
        std::vector<uint64_t> palette(m_data.begin(), m_data.begin() + m_palette_size);
        palette.push_back(value.bits);
        repack(std::move(palette), slots);
      } else {
        m_data.insert(m_data.begin() + m_palette_size, value.bits);
        ++m_palette_size;
      }
      slot = m_palette_size - 1;
    }
    const unsigned bit = static_cast<unsigned>(i) * m_bits;
    uint64_t& word = m_data[m_palette_size + (bit >> 6)];
    const uint64_t mask = ((uint64_t{1} << m_bits) - 1) << (bit & 63u);
    word = (word & ~mask) | (static_cast<uint64_t>(slot) << (bit & 63u));
    m_nonair = static_cast<uint16_t>(m_nonair + (value.is_air() ? 0 : 1) - (old.is_air() ? 0 : 1));
    return true;
  }
  const unsigned bit = static_cast<unsigned>(i);
  m_data[2 + (bit >> 6)] |= uint64_t{1} << (bit & 63u);
  m_nonair = static_cast<uint16_t>(m_nonair + (value.is_air() ? 0 : 1) - (old.is_air() ? 0 : 1));
  return true;
}

void LodBrick::fill(LodCell value) {
  m_data.clear();
  m_data.shrink_to_fit();
  m_uniform = value;
  m_palette_size = 1;
  m_bits = 0;
  m_nonair = static_cast<uint16_t>(value.is_air() ? 0 : kVolume);
}

void LodBrick::pack(const LodCell* cells) {
  // Palette in order of first appearance (deterministic for the same input); most bricks hold a handful of values,
  // so a linear search behind a last-value cache is enough.
  uint16_t slots[kVolume];
  std::vector<uint64_t> palette;
  palette.reserve(8);
  palette.push_back(cells[0].bits);
  uint64_t last = cells[0].bits;
  uint16_t last_slot = 0;
  int nonair = 0;
  for (int i = 0; i < kVolume; ++i) {
    const uint64_t v = cells[i].bits;
    nonair += cells[i].is_air() ? 0 : 1;
    if (v != last) {
      size_t s = 0;
      while (s < palette.size() && palette[s] != v) ++s;
      if (s == palette.size()) palette.push_back(v);
      last = v;
      last_slot = static_cast<uint16_t>(s);
    }
    slots[i] = last_slot;
  }
  m_nonair = static_cast<uint16_t>(nonair);
  repack(std::move(palette), slots);
}

void LodBrick::unpack(LodCell* out) const {
  if (m_bits == 0) {
    std::fill(out, out + kVolume, m_uniform);
    return;
  }
  for (int i = 0; i < kVolume; ++i) out[i] = get(i);
}

void LodBrick::compact() {
  if (m_bits == 0) return;
  uint16_t slots[kVolume];
  read_slots(slots);
  std::vector<uint8_t> used(m_palette_size, 0);
  for (int c = 0; c < kVolume; ++c) used[slots[c]] = 1;
  std::vector<uint16_t> remap(m_palette_size, 0);
  std::vector<uint64_t> palette;
  for (int s = 0; s < m_palette_size; ++s)
    if (used[static_cast<size_t>(s)]) {
      remap[static_cast<size_t>(s)] = static_cast<uint16_t>(palette.size());
      palette.push_back(m_data[static_cast<size_t>(s)]);
    }
  if (palette.size() == m_palette_size && width_for(palette.size()) == m_bits) return;
  for (int c = 0; c < kVolume; ++c) slots[c] = remap[slots[c]];
  repack(std::move(palette), slots);
}

bool LodBrick::same_cells(const LodBrick& other) const {
  if (m_bits == 0 && other.m_bits == 0) return m_uniform == other.m_uniform;
  for (int i = 0; i < kVolume; ++i)
    if (get(i) != other.get(i)) return false;
  return true;
}

bool LodBrick::identical(const LodBrick& other) const {
  if (m_bits != other.m_bits) return false;
  if (m_bits == 0) return m_uniform == other.m_uniform;
  return m_palette_size == other.m_palette_size && m_data == other.m_data;
}

// ---- LodSection --------------------------------------------------------------------------------------------------

void LodSection::split() {
  m_bricks.assign(kBricks, LodBrick(m_uniform));
  m_dirty = 0;
}

bool LodSection::set(int x, int y, int z, LodCell value) {
  if (m_bricks.empty()) {
    if (value == m_uniform) return false;
    split();
  }
  const int b = brick_of(x, y, z);
  if (!m_bricks[static_cast<size_t>(b)].set(in_brick(x, y, z), value)) return false;
  m_dirty |= uint64_t{1} << b;
  return true;
}

void LodSection::fill(LodCell value) {
  m_bricks.clear();
  m_bricks.shrink_to_fit();
  m_uniform = value;
  m_dirty = 0;
}

uint8_t LodSection::faces_of(int x, int y, int z) {
  uint8_t f = 0;
  if (x == 0) f |= 1u << kFaceNegX;
  if (x == kSize - 1) f |= 1u << kFacePosX;
  if (y == 0) f |= 1u << kFaceNegY;
  if (y == kSize - 1) f |= 1u << kFacePosY;
  if (z == 0) f |= 1u << kFaceNegZ;
  if (z == kSize - 1) f |= 1u << kFacePosZ;
  return f;
}

LodSection::BrickChange LodSection::replace_brick(int b, LodBrick brick) {
  BrickChange change;
  if (m_bricks.empty()) {
    if (brick.is_uniform() && brick.uniform_value() == m_uniform) return change;
    split();
  }
  LodBrick& old = m_bricks[static_cast<size_t>(b)];
  const int bx = (b & 3) * 8, bz = ((b >> 2) & 3) * 8, by = (b >> 4) * 8;
  const bool on_face = bx == 0 || by == 0 || bz == 0 || bx == kSize - 8 || by == kSize - 8 || bz == kSize - 8;
  if (old.is_uniform() && brick.is_uniform()) {
    if (old.uniform_value() == brick.uniform_value()) return change;
    change.cells = LodBrick::kVolume;
    // Every cell changed, so each face the brick lies on has a changed cell: its two opposite corners name them all.
    change.faces = static_cast<uint8_t>(faces_of(bx, by, bz) | faces_of(bx + 7, by + 7, bz + 7));
  } else {
    for (int i = 0; i < LodBrick::kVolume; ++i) {
      if (old.get(i) == brick.get(i)) continue;
      ++change.cells;
      if (on_face) change.faces |= faces_of(bx + (i & 7), by + (i >> 6), bz + ((i >> 3) & 7));
    }
  }
  old = std::move(brick);
  if (change.cells > 0) m_dirty |= uint64_t{1} << b;
  return change;
}

void LodSection::compact() {
  if (m_bricks.empty() || m_dirty == 0) return;
  for (int b = 0; b < kBricks; ++b)
    if (m_dirty & (uint64_t{1} << b)) m_bricks[static_cast<size_t>(b)].compact();
  m_dirty = 0;
  const LodBrick& first = m_bricks[0];
  if (!first.is_uniform()) return;
  for (const LodBrick& brick : m_bricks)
    if (!brick.is_uniform() || brick.uniform_value() != first.uniform_value()) return;
  fill(first.uniform_value());
}

uint32_t LodSection::nonair() const {
  if (m_bricks.empty()) return m_uniform.is_air() ? 0u : static_cast<uint32_t>(kVolume);
  uint32_t n = 0;
  for (const LodBrick& brick : m_bricks) n += static_cast<uint32_t>(brick.nonair());
  return n;
}

size_t LodSection::memory_bytes() const {
  size_t bytes = sizeof(*this) + m_bricks.capacity() * sizeof(LodBrick);
  for (const LodBrick& brick : m_bricks) bytes += brick.heap_bytes();
  return bytes;
}

bool LodSection::same_cells(const LodSection& other) const {
  if (m_bricks.empty() && other.m_bricks.empty()) return m_uniform == other.m_uniform;
  const LodBrick uniform_a(m_uniform), uniform_b(other.m_uniform);
  for (size_t b = 0; b < kBricks; ++b) {
    const LodBrick& a = m_bricks.empty() ? uniform_a : m_bricks[b];
    const LodBrick& o = other.m_bricks.empty() ? uniform_b : other.m_bricks[b];
    if (!a.same_cells(o)) return false;
  }
  return true;
}

bool LodSection::identical(const LodSection& other) const {
  if (m_bricks.empty() != other.m_bricks.empty()) return false;
  if (m_bricks.empty()) return m_uniform == other.m_uniform;
  for (int b = 0; b < kBricks; ++b)
    if (!m_bricks[static_cast<size_t>(b)].identical(other.m_bricks[static_cast<size_t>(b)])) return false;
  return true;
}

// ---- the mip chain -----------------------------------------------------------------------------------------------

void mip_section(const Section& cells, const LightSection& light, const Mipper& mipper, SectionMips& out) {
  if (cells.is_uniform() && light.is_uniform()) {
    // Every level is uniform: each level's value is the rule applied to 8 copies of the level below's.
    LodCell v = LodCell::make(cells.get(0), light.uniform_value());
    for (int level = 0; level <= 4; ++level) {
      if (level > 0) {
        const std::array<LodCell, 8> same{v, v, v, v, v, v, v, v};
        v = mipper.mip(same);
      }
      std::fill(out.cells.begin() + kMipOffset[level], out.cells.begin() + kMipOffset[level + 1], v);
    }
    return;
  }
  uint32_t packed[kSectionVolume];
  cells.unpack(packed);
  const Light* dense = light.dense();
  const uint64_t uniform_light = static_cast<uint64_t>(light.uniform_value()) << 24;
  for (int i = 0; i < kSectionVolume; ++i)
    out.cells[static_cast<size_t>(i)] =
        LodCell{packed[i] | (dense ? static_cast<uint64_t>(dense[i]) << 24 : uniform_light)};
  for (int level = 1; level <= 4; ++level) {
    const int n = 16 >> level;
    for (int y = 0; y < n; ++y)
      for (int z = 0; z < n; ++z)
        for (int x = 0; x < n; ++x) {
          LodCell children[8];
          for (int c = 0; c < 8; ++c)
            children[c] = out.get(level - 1, 2 * x + (c & 1), 2 * y + (c >> 2), 2 * z + ((c >> 1) & 1));
          out.cells[static_cast<size_t>(SectionMips::index(level, x, y, z))] = mipper.mip(children);
        }
  }
}

}  // namespace voxen::lod
