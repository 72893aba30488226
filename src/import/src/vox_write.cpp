// The .vox writer (layout in vox_write.h): two passes over the region, one for the palette of distinct cells,
// one per 256^3 tile (MagicaVoxel axes) that becomes a model.
#include "voxen/import/vox_write.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>

#include "voxen/import/vox_file.h"
#include "voxen/import/vox_scene.h"

namespace voxen::import {
namespace {

class ByteWriter {
 public:
  std::vector<uint8_t> bytes;
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void u8(uint8_t v) { bytes.push_back(v); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void dict(const VoxDict& d) {
    u32(static_cast<uint32_t>(d.size()));
    for (const auto& [k, v] : d) {
      str(k);
      str(v);
    }
  }
  /// Appends a chunk without children whose content is `content`.
  void chunk(uint32_t id, const std::vector<uint8_t>& content) {
    u32(id);
    u32(static_cast<uint32_t>(content.size()));
    u32(0);
    bytes.insert(bytes.end(), content.begin(), content.end());
  }
};

std::string format_float(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

/// Calls fn(pos, cell) for every non-air cell of the world inside [lo, hi] (y already clamped), column by
/// column (x, then z), sections bottom to top.
template <class Fn>
void for_each_cell(const World& world, const BlockPos& lo, const BlockPos& hi, Fn&& fn) {
  uint32_t buf[kSectionVolume];
  for (int64_t cx = column_of(lo.x); cx <= column_of(hi.x); ++cx) {
    for (int64_t cz = column_of(lo.z); cz <= column_of(hi.z); ++cz) {
      const Column* col = world.find({cx, cz});
      if (!col) continue;
      const int64_t x0 = std::max(lo.x, cx * 16), x1 = std::min(hi.x, cx * 16 + 15);
      const int64_t z0 = std::max(lo.z, cz * 16), z1 = std::min(hi.z, cz * 16 + 15);
      for (int s = section_of_y(lo.y); s <= section_of_y(hi.y); ++s) {
        const Section& sec = col->section(s);
        if (sec.is_empty()) continue;
        const int64_t base = section_base_y(s);
        const int64_t y0 = std::max(lo.y, base), y1 = std::min(hi.y, base + 15);
        sec.unpack(buf);
        for (int64_t y = y0; y <= y1; ++y)
          for (int64_t z = z0; z <= z1; ++z)
            for (int64_t x = x0; x <= x1; ++x) {
              const uint32_t v = buf[section_index(local_of(x), static_cast<int>(y - base), local_of(z))];
              if (Cell::from_packed(v).id != kAirId) fn(BlockPos{x, y, z}, v);
            }
      }
    }
  }
}

bool fits_i32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

}  // namespace

Result<std::vector<uint8_t>> write_vox(const World& world, const BlockRegistry& registry, const BlockPos& from,
                                       const BlockPos& to, VoxWriteStats* stats, uint64_t max_voxels) {
  BlockPos lo{std::min(from.x, to.x), std::max<int64_t>(std::min(from.y, to.y), kMinY), std::min(from.z, to.z)};
  BlockPos hi{std::max(from.x, to.x), std::min<int64_t>(std::max(from.y, to.y), kMaxY), std::max(from.z, to.z)};
  // MagicaVoxel axes of the region: x = x, y = -z - 1, z = y; every coordinate must fit int32.
  for (int64_t v : {lo.x, hi.x, -lo.z - 1, -hi.z - 1, hi.x - lo.x, hi.z - lo.z})
    if (!fits_i32(v)) return Error{"the region's coordinates do not fit the .vox int32 range"};

  // Pass 1: the palette of distinct cells, sorted by packed value.
  std::vector<uint32_t> distinct;
  uint64_t non_air = 0;
  if (lo.y <= hi.y) {
    std::unordered_map<uint32_t, bool> seen;
    for_each_cell(world, lo, hi, [&](const BlockPos&, uint32_t v) {
      ++non_air;
      if (seen.emplace(v, true).second) distinct.push_back(v);
    });
  }
  // Every cell becomes one voxel of one instance: past the importer's cap the file could not be read back.
  if (non_air > max_voxels)
    return Error{"the region holds " + std::to_string(non_air) + " non-air cells; a .vox file voxen can read back "
                 "holds at most " + std::to_string(max_voxels) + " (choose a smaller region)"};
  if (distinct.size() > 255)
    return Error{"the region holds " + std::to_string(distinct.size()) +
                 " distinct blocks (block id and state); a .vox palette holds at most 255"};
  std::sort(distinct.begin(), distinct.end());
  std::unordered_map<uint32_t, uint8_t> index_of;
  for (size_t i = 0; i < distinct.size(); ++i) index_of.emplace(distinct[i], static_cast<uint8_t>(i + 1));

  // Pass 2: one model per 256^3 tile in MagicaVoxel axes.
  ByteWriter children;
  std::vector<std::array<int32_t, 3>> translations;
  uint64_t voxels = 0;
  if (lo.y <= hi.y) {
    const std::array<int64_t, 3> vmin{lo.x, -hi.z - 1, lo.y};
    const std::array<int64_t, 3> vmax{hi.x, -lo.z - 1, hi.y};
    for (int64_t tz = vmin[2]; tz <= vmax[2]; tz += 256)
      for (int64_t ty = vmin[1]; ty <= vmax[1]; ty += 256)
        for (int64_t tx = vmin[0]; tx <= vmax[0]; tx += 256) {
          const std::array<int64_t, 3> t0{tx, ty, tz};
          const std::array<int64_t, 3> t1{std::min(tx + 255, vmax[0]), std::min(ty + 255, vmax[1]),
                                          std::min(tz + 255, vmax[2])};
          // The tile in voxen axes: x = vx, y = vz, z = -vy - 1.
          const BlockPos wlo{t0[0], t0[2], -t1[1] - 1};
          const BlockPos whi{t1[0], t1[2], -t0[1] - 1};
          struct V {
            std::array<int64_t, 3> p;
            uint8_t color;
          };
          std::vector<V> cells;
          for_each_cell(world, wlo, whi, [&](const BlockPos& p, uint32_t v) {
            cells.push_back(V{voxen_to_vox(p), index_of.at(v)});
          });
          if (cells.empty()) continue;
          std::array<int64_t, 3> mn = cells[0].p, mx = cells[0].p;
          for (const V& c : cells)
            for (size_t i = 0; i < 3; ++i) {
              mn[i] = std::min(mn[i], c.p[i]);
              mx[i] = std::max(mx[i], c.p[i]);
            }
          std::sort(cells.begin(), cells.end(), [](const V& a, const V& b) {
            return a.p[2] != b.p[2] ? a.p[2] < b.p[2] : a.p[1] != b.p[1] ? a.p[1] < b.p[1] : a.p[0] < b.p[0];
          });
          std::array<uint32_t, 3> size{};
          std::array<int32_t, 3> t{};
          for (size_t i = 0; i < 3; ++i) {
            size[i] = static_cast<uint32_t>(mx[i] - mn[i] + 1);
            const int64_t ti = mn[i] + size[i] / 2;  // identity placement: t + v - floor(s/2) = min + v
            if (!fits_i32(ti)) return Error{"a model translation does not fit the .vox int32 range"};
            t[i] = static_cast<int32_t>(ti);
          }
          ByteWriter sz;
          for (uint32_t s : size) sz.u32(s);
          children.chunk(chunk_id('S', 'I', 'Z', 'E'), sz.bytes);
          ByteWriter xyzi;
          xyzi.u32(static_cast<uint32_t>(cells.size()));
          for (const V& c : cells) {
            for (size_t i = 0; i < 3; ++i) xyzi.u8(static_cast<uint8_t>(c.p[i] - mn[i]));
            xyzi.u8(c.color);
          }
          children.chunk(chunk_id('X', 'Y', 'Z', 'I'), xyzi.bytes);
          translations.push_back(t);
          voxels += cells.size();
        }
  }

  // Scene graph: root transform 0 -> group 1 -> (transform 2+2k -> shape 3+2k) per model k.
  const auto model_count = static_cast<uint32_t>(translations.size());
  {
    ByteWriter n;
    n.u32(0);
    n.dict({});
    n.u32(1);
    n.i32(-1);
    n.i32(-1);
    n.u32(1);
    n.dict({});
    children.chunk(chunk_id('n', 'T', 'R', 'N'), n.bytes);
  }
  {
    ByteWriter n;
    n.u32(1);
    n.dict({});
    n.u32(model_count);
    for (uint32_t k = 0; k < model_count; ++k) n.u32(2 + 2 * k);
    children.chunk(chunk_id('n', 'G', 'R', 'P'), n.bytes);
  }
  for (uint32_t k = 0; k < model_count; ++k) {
    const auto& t = translations[k];
    ByteWriter tr;
    tr.u32(2 + 2 * k);
    tr.dict({});
    tr.u32(3 + 2 * k);
    tr.i32(-1);
    tr.i32(0);
    tr.u32(1);
    tr.dict({{"_t", std::to_string(t[0]) + " " + std::to_string(t[1]) + " " + std::to_string(t[2])}});
    children.chunk(chunk_id('n', 'T', 'R', 'N'), tr.bytes);
    ByteWriter sh;
    sh.u32(3 + 2 * k);
    sh.dict({});
    sh.u32(1);
    sh.u32(k);
    sh.dict({});
    children.chunk(chunk_id('n', 'S', 'H', 'P'), sh.bytes);
  }
  {
    ByteWriter l;
    l.i32(0);
    l.dict({{"_name", "voxen"}});
    l.i32(-1);
    children.chunk(chunk_id('L', 'A', 'Y', 'R'), l.bytes);
  }
  {
    ByteWriter rgba;
    for (size_t i = 0; i < 256; ++i) {
      // Chunk entry i is colour index i + 1.
      uint32_t argb = 0xFF000000u;
      if (i < distinct.size()) argb = registry[Cell::from_packed(distinct[i]).id].face_color[kFacePosY];
      rgba.u8(static_cast<uint8_t>(argb >> 16));
      rgba.u8(static_cast<uint8_t>(argb >> 8));
      rgba.u8(static_cast<uint8_t>(argb));
      rgba.u8(i < distinct.size() ? static_cast<uint8_t>(argb >> 24) : 255);
    }
    children.chunk(chunk_id('R', 'G', 'B', 'A'), rgba.bytes);
  }
  for (size_t i = 0; i < distinct.size(); ++i) {
    const Cell cell = Cell::from_packed(distinct[i]);
    const BlockDef& def = registry[cell.id];
    VoxDict props;
    if (def.transparency == Transparency::kTranslucent) {
      props.emplace_back("_type", "_glass");
      props.emplace_back("_trans", format_float(1.0 - (def.face_color[kFacePosY] >> 24) / 255.0));
    } else if (def.emits()) {
      props.emplace_back("_type", "_emit");
      const int brightest = std::max({def.emission[0], def.emission[1], def.emission[2]});
      props.emplace_back("_emit", format_float(brightest / 15.0));
      props.emplace_back("_flux", "0");
    } else {
      props.emplace_back("_type", "_diffuse");
    }
    props.emplace_back("_voxen_block", cell.state ? def.name + ":" + std::to_string(cell.state) : def.name);
    ByteWriter m;
    m.u32(static_cast<uint32_t>(i + 1));
    m.dict(props);
    children.chunk(chunk_id('M', 'A', 'T', 'L'), m.bytes);
  }

  if (children.bytes.size() > std::numeric_limits<uint32_t>::max())
    return Error{"the region's .vox data (" + std::to_string(children.bytes.size()) +
                 " bytes) exceeds the format's 4 GiB chunk size"};
  ByteWriter out;
  out.u32(chunk_id('V', 'O', 'X', ' '));
  out.u32(150);
  out.u32(chunk_id('M', 'A', 'I', 'N'));
  out.u32(0);
  out.u32(static_cast<uint32_t>(children.bytes.size()));
  out.bytes.insert(out.bytes.end(), children.bytes.begin(), children.bytes.end());
  if (stats) {
    stats->models = model_count;
    stats->voxels = voxels;
    stats->palette = static_cast<uint32_t>(distinct.size());
  }
  return std::move(out.bytes);
}

}  // namespace voxen::import
