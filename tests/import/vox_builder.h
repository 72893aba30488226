// Test support: builds .vox files byte by byte, independently of voxen's writer, so each reading rule is
// checked against bytes laid out by hand. Offsets returned are absolute byte offsets in the final file
// (the header is 8 bytes, MAIN's header 12, so MAIN's first child starts at byte 20).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace voxen::testing {

using Bytes = std::vector<uint8_t>;
using Dict = std::vector<std::pair<std::string, std::string>>;

inline void put_u32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void put_str(Bytes& b, const std::string& s) {
  put_u32(b, static_cast<uint32_t>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}
inline void put_dict(Bytes& b, const Dict& d) {
  put_u32(b, static_cast<uint32_t>(d.size()));
  for (const auto& [k, v] : d) {
    put_str(b, k);
    put_str(b, v);
  }
}
inline void set_u32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

struct Voxel {
  uint8_t x, y, z, c;
};

class VoxBuilder {
 public:
  static constexpr size_t kFirstChild = 20;

  /// Appends a chunk; returns its absolute offset. `children` are raw bytes of child chunks.
  size_t chunk(const char* id, const Bytes& content, const Bytes& children = {}) {
    const size_t at = kFirstChild + m_children.size();
    m_children.insert(m_children.end(), id, id + 4);
    put_u32(m_children, static_cast<uint32_t>(content.size()));
    put_u32(m_children, static_cast<uint32_t>(children.size()));
    m_children.insert(m_children.end(), content.begin(), content.end());
    m_children.insert(m_children.end(), children.begin(), children.end());
    return at;
  }
  size_t size(uint32_t x, uint32_t y, uint32_t z) {
    Bytes c;
    put_u32(c, x);
    put_u32(c, y);
    put_u32(c, z);
    return chunk("SIZE", c);
  }
  size_t xyzi(const std::vector<Voxel>& voxels) {
    Bytes c;
    put_u32(c, static_cast<uint32_t>(voxels.size()));
    for (const auto& v : voxels) c.insert(c.end(), {v.x, v.y, v.z, v.c});
    return chunk("XYZI", c);
  }
  /// A model: SIZE then XYZI; returns the SIZE offset.
  size_t model(uint32_t x, uint32_t y, uint32_t z, const std::vector<Voxel>& voxels) {
    const size_t at = size(x, y, z);
    xyzi(voxels);
    return at;
  }
  /// RGBA with entry i = colors[i] (r, g, b, a).
  size_t rgba(const std::array<std::array<uint8_t, 4>, 256>& colors) {
    Bytes c;
    for (const auto& e : colors) c.insert(c.end(), e.begin(), e.end());
    return chunk("RGBA", c);
  }
  size_t ntrn(uint32_t id, uint32_t child, int32_t layer, const Dict& frame, const Dict& attrs = {}) {
    Bytes c;
    put_u32(c, id);
    put_dict(c, attrs);
    put_u32(c, child);
    put_u32(c, 0xFFFFFFFFu);
    put_u32(c, static_cast<uint32_t>(layer));
    put_u32(c, 1);
    put_dict(c, frame);
    return chunk("nTRN", c);
  }
  size_t ngrp(uint32_t id, const std::vector<uint32_t>& children) {
    Bytes c;
    put_u32(c, id);
    put_dict(c, {});
    put_u32(c, static_cast<uint32_t>(children.size()));
    for (uint32_t ch : children) put_u32(c, ch);
    return chunk("nGRP", c);
  }
  size_t nshp(uint32_t id, uint32_t model) {
    Bytes c;
    put_u32(c, id);
    put_dict(c, {});
    put_u32(c, 1);
    put_u32(c, model);
    put_dict(c, {});
    return chunk("nSHP", c);
  }
  size_t layr(int32_t id, const Dict& attrs) {
    Bytes c;
    put_u32(c, static_cast<uint32_t>(id));
    put_dict(c, attrs);
    put_u32(c, 0xFFFFFFFFu);
    return chunk("LAYR", c);
  }
  size_t matl(uint32_t id, const Dict& props) {
    Bytes c;
    put_u32(c, id);
    put_dict(c, props);
    return chunk("MATL", c);
  }

  /// The whole file: "VOX ", version, MAIN (no content) with the chunks added as children.
  Bytes bytes(uint32_t version = 150) const {
    Bytes b = {'V', 'O', 'X', ' '};
    put_u32(b, version);
    b.insert(b.end(), {'M', 'A', 'I', 'N'});
    put_u32(b, 0);
    put_u32(b, static_cast<uint32_t>(m_children.size()));
    b.insert(b.end(), m_children.begin(), m_children.end());
    return b;
  }

 private:
  Bytes m_children;
};

}  // namespace voxen::testing
