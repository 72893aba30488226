// The far view's LOD mesher (lod_mesher.h; docs/formats/lod_quad.md). Data flow per padded LOD section:
//   1. classify: one class lookup per cell of the 34^3 padded volume (edges and corners skipped), into bit rows of
//      solid and of fluid cells: rows along x (bit x, 0..31) for every padded (y, z) (32 class bytes, then SSE2
//      compares), and rows along z (bit z) for every padded x and inner y (the inner ones by a 32 x 32 bit
//      transpose of each y's rows along x);
//   2. per face direction and slice (32 planes along the face's normal): each V row's visible faces as one uint32
//      over U by the face rule on the row and the neighbouring row, (cur solid & ~next solid) | (cur fluid & next
//      air); the merge key (texture | light << 10) of each visible face only;
//   3. greedy merge in the slice (after 0fps's greedy meshing, Voxy's RenderDataFactory): from the lowest V row and U
//      bit, grow along U while the key agrees, then along V while the whole run of the next row is visible with the
//      same key, at most 16 cells per side; the rectangle's bits are cleared and the quad emitted.
// Output order: face 0..5, slice, V, U ascending: a function of the input alone.
// The reference (mesh_lod_section_reference) states the same face rule cell by cell.
#include "voxen/mesh/lod_mesher.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "voxen/core/error.h"
#include "voxen/core/hash.h"
#include "voxen/mesh/baked.h"

namespace voxen::mesh {

namespace {

constexpr int kN = 32;                                  // cells per side of a LOD section
constexpr int kSide = lod::PaddedLodSection::kSide;     // 34
constexpr int kMaxRun = 16;                             // the quad's 4-bit extents
constexpr ptrdiff_t kLayer = ptrdiff_t{kSide} * kSide;  // padded index step along y
constexpr ptrdiff_t kStep[6] = {1, -1, kLayer, -kLayer, kSide, -kSide};

// Bit rows of solid (s) and fluid (f) cells.
struct Masks {
  uint32_t xs[kSide][kSide];  // [y + 1][z + 1], bit x (0..31); y, z -1..32
  uint32_t xf[kSide][kSide];
  uint32_t zs[kSide][kN];  // [x + 1][y], bit z (0..31); x -1..32, y 0..31
  uint32_t zf[kSide][kN];
};

// Transposes a 32 x 32 bit matrix in place: bit c of a[r] becomes bit r of a[c] (recursive block swaps, Hacker's
// Delight 7-3, with bit 0 as column 0).
inline void transpose32(uint32_t* a) {
  constexpr uint32_t kMask[5] = {0x0000FFFFu, 0x00FF00FFu, 0x0F0F0F0Fu, 0x33333333u, 0x55555555u};
  int mi = 0;
  for (int j = 16; j != 0; j >>= 1, ++mi) {
    for (int k = 0; k < 32; k = (k + j + 1) & ~j) {
      const uint32_t t = ((a[k] >> j) ^ a[k + j]) & kMask[mi];
      a[k] ^= t << j;
      a[k + j] ^= t;
    }
  }
}

// Bit x of `s` (`f`) set where c[x] is the solid (fluid) class, x 0..31.
inline void masks_of(const uint8_t* c, uint32_t& s, uint32_t& f) {
#if defined(__SSE2__)
  const __m128i lo = _mm_load_si128(reinterpret_cast<const __m128i*>(c));
  const __m128i hi = _mm_load_si128(reinterpret_cast<const __m128i*>(c + 16));
  const __m128i solid = _mm_set1_epi8(static_cast<char>(LodMeshTables::kSolidClass));
  const __m128i fluid = _mm_set1_epi8(static_cast<char>(LodMeshTables::kFluidClass));
  s = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(lo, solid))) |
      static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(hi, solid))) << 16;
  f = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(lo, fluid))) |
      static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(hi, fluid))) << 16;
#else
  s = f = 0;
  for (int x = 0; x < kN; ++x) {
    s |= static_cast<uint32_t>(c[x] == LodMeshTables::kSolidClass) << x;
    f |= static_cast<uint32_t>(c[x] == LodMeshTables::kFluidClass) << x;
  }
#endif
}

void classify(const lod::PaddedLodSection& in, const uint8_t* cls, Masks& m) {
  std::memset(&m, 0, sizeof(m));
  const lod::LodCell* cells = in.cells.data();
  for (int y = -1; y <= kN; ++y) {
    const bool y_in = y >= 0 && y < kN;
    for (int z = -1; z <= kN; ++z) {
      const bool z_in = z >= 0 && z < kN;
      // (A row with both y and z on the border is an edge: unused.)
      if (!y_in && !z_in) continue;
      const lod::LodCell* row = cells + lod::PaddedLodSection::index(-1, y, z);  // row[x + 1]
      // The 32 class bytes first (independent loads), then the two masks from them at once.
      alignas(16) uint8_t c[kN];
      for (int x = 0; x < kN; ++x) c[x] = cls[row[x + 1].bits & 0xFFFFu];
      uint32_t s, f;
      masks_of(c, s, f);
      m.xs[y + 1][z + 1] = s;
      m.xf[y + 1][z + 1] = f;
      if (!(y_in && z_in)) continue;
      const uint32_t zbit = uint32_t{1} << z;
      const uint8_t lo = cls[row[0].bits & 0xFFFFu], hi = cls[row[kN + 1].bits & 0xFFFFu];
      if (lo == LodMeshTables::kSolidClass) m.zs[0][y] |= zbit;
      if (lo == LodMeshTables::kFluidClass) m.zf[0][y] |= zbit;
      if (hi == LodMeshTables::kSolidClass) m.zs[kN + 1][y] |= zbit;
      if (hi == LodMeshTables::kFluidClass) m.zf[kN + 1][y] |= zbit;
    }
    if (!y_in) continue;
    // The inner rows along z: the transpose of this y's 32 x 32 bit matrix of rows along x.
    // (A layer without solid or fluid cells keeps its zeros.)
    uint32_t ts[kN], tf[kN], any_s = 0, any_f = 0;
    for (int z = 0; z < kN; ++z) {
      any_s |= ts[z] = m.xs[y + 1][z + 1];
      any_f |= tf[z] = m.xf[y + 1][z + 1];
    }
    if (any_s) {
      transpose32(ts);
      for (int x = 0; x < kN; ++x) m.zs[x + 1][y] = ts[x];
    }
    if (any_f) {
      transpose32(tf);
      for (int x = 0; x < kN; ++x) m.zf[x + 1][y] = tf[x];
    }
  }
}

// The visible faces of direction `face` in slice s, row v (bits over U): a solid cell shows a face towards any cell
// that is not solid, a fluid cell towards air.
inline uint32_t visible_row(const Masks& m, int face, int s, int v) {
  uint32_t cs, cf, ns, nf;
  const int d = (face & 1) ? -1 : 1;
  switch (face >> 1) {
    case 0:  // X: slice x, V = y, U = z
      cs = m.zs[s + 1][v], cf = m.zf[s + 1][v], ns = m.zs[s + 1 + d][v], nf = m.zf[s + 1 + d][v];
      break;
    case 1:  // Y: slice y, V = z, U = x
      cs = m.xs[s + 1][v + 1], cf = m.xf[s + 1][v + 1], ns = m.xs[s + 1 + d][v + 1], nf = m.xf[s + 1 + d][v + 1];
      break;
    default:  // Z: slice z, V = y, U = x
      cs = m.xs[v + 1][s + 1], cf = m.xf[v + 1][s + 1], ns = m.xs[v + 1][s + 1 + d], nf = m.xf[v + 1][s + 1 + d];
      break;
  }
  return (cs & ~ns) | (cf & ~(ns | nf));
}

// Local cell (x, y, z) of slice s, row v, bit u of a face direction (U, V as the near quads).
inline void cell_of(int face, int s, int v, int u, int& x, int& y, int& z) {
  switch (face >> 1) {
    case 0: x = s, y = v, z = u; break;
    case 1: x = u, y = s, z = v; break;
    default: x = u, y = v, z = s; break;
  }
}

inline uint64_t quad_bits(int x, int y, int z, int face, int w, int h, uint32_t key) {
  return static_cast<uint64_t>(x) | static_cast<uint64_t>(y) << 5 | static_cast<uint64_t>(z) << 10 |
         static_cast<uint64_t>(face) << 15 | static_cast<uint64_t>(w - 1) << 18 | static_cast<uint64_t>(h - 1) << 22 |
         static_cast<uint64_t>(key) << 26;  // key = texture | light << 10: bits 26-35 and 36-51
}

// Greedy merge of one slice's visible faces (0fps's greedy meshing): vis[v] holds the visible faces of row v as bits
// over U, keys[v][u] the merge key of each (texture | light << 10). From the lowest V row and U bit, grows along U
// while the key agrees, then along V while the whole run of the next row is visible with the same key, at most
// kMaxRun cells a side; clears the rectangle's bits and appends its quad. Order: V, then U ascending.
void merge_slice(int face, int s, uint32_t (&vis)[kN], const uint32_t (&keys)[kN][kN], std::vector<LodQuad>& out) {
  for (int v = 0; v < kN; ++v) {
    while (vis[v]) {
      const int u = std::countr_zero(vis[v]);
      const uint32_t key = keys[v][u];
      int w = 1;
      while (w < kMaxRun && u + w < kN && ((vis[v] >> (u + w)) & 1u) && keys[v][u + w] == key) ++w;
      const uint32_t mask = ((uint32_t{1} << w) - 1) << u;
      int h = 1;
      while (h < kMaxRun && v + h < kN && (vis[v + h] & mask) == mask) {
        bool same = true;
        for (int k = 0; k < w && same; ++k) same = keys[v + h][u + k] == key;
        if (!same) break;
        ++h;
      }
      for (int k = 0; k < h; ++k) vis[v + k] &= ~mask;
      int x, y, z;
      cell_of(face, s, v, u, x, y, z);
      out.push_back(LodQuad{quad_bits(x, y, z, face, w, h, key)});
    }
  }
}

}  // namespace

LodMeshTables::LodMeshTables(const BlockRegistry& registry) {
  // The near mesher's texture selection, axis turn included (baked.h), so near and far faces agree.
  Result<BakedBlocks> baked = BakedBlocks::bake(registry);
  if (!baked) throw std::invalid_argument("LOD mesher: " + baked.error().to_string());
  m_class.assign(65536, kAirClass);
  const size_t n = registry.size();
  m_texture.assign(baked->texture_table(), baked->texture_table() + n * 24);
  for (size_t id = 0; id < n; ++id) {
    const BlockDef& def = registry[static_cast<uint16_t>(id)];
    if (!def.defined || def.shape == Shape::kNone) continue;
    m_class[id] = def.shape == Shape::kFluid ? kFluidClass : kSolidClass;
  }
}

void mesh_lod_section(const lod::PaddedLodSection& in, const LodMeshTables& tables, LodMesh& out) {
  VOXEN_ASSERT(in.cells.size() == static_cast<size_t>(kSide) * kSide * kSide);
  out.quads.clear();
  Masks m;
  classify(in, tables.m_class.data(), m);
  const lod::LodCell* cells = in.cells.data();
  const uint16_t* tex = tables.m_texture.data();
  uint32_t keys[kN][kN];
  for (int face = 0; face < 6; ++face) {
    const ptrdiff_t step = kStep[face];
    for (int s = 0; s < kN; ++s) {
      uint32_t vis[kN];
      uint32_t any = 0;
      for (int v = 0; v < kN; ++v) any |= vis[v] = visible_row(m, face, s, v);
      if (!any) continue;
      // The merge key of each visible face: the cell's face texture and the light of the cell it looks into.
      for (int v = 0; v < kN; ++v) {
        for (uint32_t b = vis[v]; b; b &= b - 1) {
          const int u = std::countr_zero(b);
          int x, y, z;
          cell_of(face, s, v, u, x, y, z);
          const size_t i = lod::PaddedLodSection::index(x, y, z);
          const uint64_t c = cells[i].bits;
          const uint32_t texture = tex[(c & 0xFFFFu) * 24 + ((c >> 19) & 3) * 6 + static_cast<uint64_t>(face)];
          const uint32_t light = static_cast<uint32_t>((cells[static_cast<ptrdiff_t>(i) + step].bits >> 24) & 0xFFFFu);
          keys[v][u] = texture | light << 10;
        }
      }
      merge_slice(face, s, vis, keys, out.quads);
    }
  }
}

void append_lod_skirts(const lod::PaddedLodSection& in, const LodMeshTables& tables, LodMesh& out, LodSkirtColumns* above) {
  VOXEN_ASSERT(in.cells.size() == static_cast<size_t>(kSide) * kSide * kSide);
  // The four outer x/z faces: face, and the cell of (u, y) on it (U = +Z on the x faces, +X on the z faces).
  constexpr int kFaces[4] = {0, 1, 4, 5};
  const int max_depth = lod_skirt_depth(in.pos.level);
  for (int fi = 0; fi < 4; ++fi) {
    const int face = kFaces[fi];
    const bool x_face = face < 2;
    const int fixed = (face == 0 || face == 4) ? kN - 1 : 0;
    uint32_t vis[kN] = {};  // rows y, bits u
    uint32_t keys[kN][kN];
    for (int u = 0; u < kN; ++u) {
      const int x = x_face ? fixed : u, z = x_face ? u : fixed;
      // Down the column from the padded top (y = 32; with `above` past the first section of a stack, from y = 31 on
      // the state the section above left): the cells since the nearest air cell (kClosed: none) and its light.
      const bool carried = above != nullptr && above->carried;
      int depth = carried ? above->depth[static_cast<size_t>(fi)][static_cast<size_t>(u)] : LodSkirtColumns::kClosed;
      uint16_t open_light = carried ? above->light[static_cast<size_t>(fi)][static_cast<size_t>(u)] : uint16_t{0};
      for (int y = carried ? kN - 1 : kN; y >= 0; --y) {
        const lod::LodCell c = in.get(x, y, z);
        const LodMeshTables::Class cc = tables.cls(c.id());
        if (cc == LodMeshTables::kAirClass) {
          depth = 0;
          open_light = c.light();
          continue;
        }
        if (y < kN && depth < max_depth) {
          const lod::LodCell n = in.get(x + kFaceStep[face][0], y, z + kFaceStep[face][2]);
          const LodMeshTables::Class nc = tables.cls(n.id());
          const bool drawn =
              cc == LodMeshTables::kSolidClass ? nc != LodMeshTables::kSolidClass : nc == LodMeshTables::kAirClass;
          if (!drawn) {  // the face rule left it hidden: a skirt
            vis[y] |= uint32_t{1} << u;
            keys[y][u] = static_cast<uint32_t>(tables.texture(c.id(), c.state(), face)) | uint32_t{open_light} << 10;
          }
        }
        if (depth < LodSkirtColumns::kClosed) ++depth;
      }
      if (above != nullptr) {
        above->depth[static_cast<size_t>(fi)][static_cast<size_t>(u)] = static_cast<uint8_t>(depth);
        above->light[static_cast<size_t>(fi)][static_cast<size_t>(u)] = open_light;
      }
    }
    merge_slice(face, fixed, vis, keys, out.quads);
  }
  if (above != nullptr) above->carried = true;
}

uint64_t LodMeshTables::signature() const {
  uint64_t h = fnv1a_u64(kFnv1aOffset, m_class.size());
  for (const uint8_t c : m_class) h = fnv1a_u64(h, c);
  h = fnv1a_u64(h, m_texture.size());
  for (const uint16_t t : m_texture) h = fnv1a_u64(h, t);
  return h;
}

void mesh_lod_section_seams(const lod::PaddedLodSection& in, std::span<const uint8_t> source_xz,
                            const LodMeshTables& tables, LodMesh& out, lod::PaddedLodSection& scratch, bool skirts) {
  constexpr int kSide = lod::PaddedLodSection::kSide;
  VOXEN_ASSERT(source_xz.size() == static_cast<size_t>(kSide) * kSide);
  const lod::LodCell open = lod::LodCell::make(kAir, make_light(15, 0, 0, 0));
  out.quads.clear();
  LodMesh part;
  for (uint8_t side = 0; side < 2; ++side) {
    scratch.pos = in.pos;
    scratch.cells = in.cells;
    for (int z = -1; z <= 32; ++z)
      for (int x = -1; x <= 32; ++x)
        if (source_xz[static_cast<size_t>((z + 1) * kSide + x + 1)] != side)
          for (int y = -1; y <= 32; ++y) scratch.set(x, y, z, open);
    mesh_lod_section(scratch, tables, part);
    if (skirts) append_lod_skirts(scratch, tables, part);
    out.quads.insert(out.quads.end(), part.quads.begin(), part.quads.end());
  }
}

void mesh_lod_section_reference(const lod::PaddedLodSection& in, const LodMeshTables& tables, LodMesh& out) {
  VOXEN_ASSERT(in.cells.size() == static_cast<size_t>(kSide) * kSide * kSide);
  out.quads.clear();
  for (int y = 0; y < kN; ++y)
    for (int z = 0; z < kN; ++z)
      for (int x = 0; x < kN; ++x) {
        const lod::LodCell c = in.get(x, y, z);
        const LodMeshTables::Class cc = tables.cls(c.id());
        if (cc == LodMeshTables::kAirClass) continue;
        for (int face = 0; face < 6; ++face) {
          const lod::LodCell n = in.get(x + kFaceStep[face][0], y + kFaceStep[face][1], z + kFaceStep[face][2]);
          const LodMeshTables::Class nc = tables.cls(n.id());
          const bool drawn =
              cc == LodMeshTables::kSolidClass ? nc != LodMeshTables::kSolidClass : nc == LodMeshTables::kAirClass;
          if (!drawn) continue;
          LodQuadFields f;
          f.x = x, f.y = y, f.z = z, f.face = face, f.w = 1, f.h = 1;
          f.texture = tables.texture(c.id(), c.state(), face);
          f.light = n.light();
          out.quads.push_back(pack_lod_quad(f));
        }
      }
}

}  // namespace voxen::mesh
