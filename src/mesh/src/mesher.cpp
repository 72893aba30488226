// The fast mesher. Data flow per section:
//   1. classify: one class byte per padded cell (baked.h CellClass; a row of one block id takes one lookup), bit
//      rows along x of occluders and of cover shapes (18 bits per padded row) and of simple cubes (16 bits per inner
//      row), and per direction the rows whose simple cubes are not all buried on that side (the only rows step 2
//      visits); general cells with the sides that may show a face;
//   2. per face direction: visible faces of simple cubes by bit operations on neighbouring rows, each face's
//      corners (AO and smooth light) from its 3 x 3 front-layer cells through a 512-entry table; the general path
//      (shapes, fluids, crosses, translucent cubes, and cube faces partly covered by a shape) per cell;
//   3. per face direction: greedy merge of the mergeable unit faces in each 16 x 16 slice (boundary planes and
//      mid-cell planes), emitting merged quads.
// The reference mesher (reference.cpp) states the same rules plainly; tests require equal unit faces.
#include "voxen/mesh/mesher.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "voxen/mesh/shapes.h"

namespace voxen::mesh {

namespace {

constexpr int kStep[6] = {1, -1, kPaddedArea, -kPaddedArea, kPadded, -kPadded};
constexpr int kAxisStep[3] = {1, kPaddedArea, kPadded};  // padded index step along x, y, z
constexpr int kCornerSign[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};  // (U, V) side of corners 0..3

constexpr int pos9(int du, int dv) { return (du + 1) + 3 * (dv + 1); }
constexpr int kShapeCount = static_cast<int>(Shape::kFluid) + 1;

struct Rect {
  uint8_t a, b, w, h;  // in half-blocks on the side's (U, V), 0..2
};

// Tables built once (thread-safe static initialisation).
struct Tables {
  uint32_t lut[512];       // per occluder mask of those cells: AO (2 bits per corner) | contributors << 8
  uint64_t lit[512];       // per occluder mask: 0xFFFF in corner k's light lane when some cell contributes to it
  uint8_t corner_pos[4][4];  // positions (pos9) of front, side U, side V, diagonal for each corner
  uint8_t boundary_sq[256][6];  // per occupancy and face: squares on the cell side
  uint8_t mid_sq[256][6];       // per occupancy and face: squares of faces on the mid-cell plane
  Rect part[16][3];             // partition of a square set into rectangles
  uint8_t part_count[16];
  // Per shape, state (facing and half bits) and side: the squares the shape covers (shapes.h side_cover) and, per
  // half-block column, the floor and ceiling of the band it leaves open (side_band; [column][end]).
  uint8_t cover[kShapeCount][8][6];
  int8_t band_floor[kShapeCount][8][6][2][2];
  int8_t band_ceiling[kShapeCount][8][6][2][2];
};

Tables make_tables() {
  Tables t{};
  for (int k = 0; k < 4; ++k) {
    const int su = kCornerSign[k][0], sv = kCornerSign[k][1];
    t.corner_pos[k][0] = static_cast<uint8_t>(pos9(0, 0));
    t.corner_pos[k][1] = static_cast<uint8_t>(pos9(su, 0));
    t.corner_pos[k][2] = static_cast<uint8_t>(pos9(0, sv));
    t.corner_pos[k][3] = static_cast<uint8_t>(pos9(su, sv));
  }
  for (uint32_t mask = 0; mask < 512; ++mask) {
    uint32_t e = 0;
    for (int k = 0; k < 4; ++k) {
      const auto occ = [&](int p) { return static_cast<int>((mask >> p) & 1); };
      const int fr = occ(t.corner_pos[k][0]), s1 = occ(t.corner_pos[k][1]), s2 = occ(t.corner_pos[k][2]),
                dg = occ(t.corner_pos[k][3]);
      const int ao = (s1 && s2) ? 0 : 3 - (s1 + s2 + dg);
      uint32_t flags = 0;
      if (!fr) flags |= 1;
      if (!s1) flags |= 2;
      if (!s2) flags |= 4;
      if (!dg && (!s1 || !s2)) flags |= 8;
      e |= static_cast<uint32_t>(ao) << (2 * k);
      e |= flags << (8 + 4 * k);
      if (flags) t.lit[mask] |= uint64_t{0xFFFF} << (16 * k);
    }
    t.lut[mask] = e;
  }
  for (int occ = 0; occ < 256; ++occ)
    for (int d = 0; d < 6; ++d) {
      const FaceAxes& fa = kFaceAxes[d];
      const int outer = fa.sign > 0 ? 1 : 0, inner = 1 - outer;
      uint8_t bsq = 0, msq = 0;
      for (int b = 0; b < 2; ++b)
        for (int a = 0; a < 2; ++a) {
          int ho[3], hi[3];
          ho[fa.axis] = outer;
          hi[fa.axis] = inner;
          ho[fa.u] = hi[fa.u] = a;
          ho[fa.v] = hi[fa.v] = b;
          const bool o = occ & (1 << subcell_bit(ho[0], ho[1], ho[2]));
          const bool i = occ & (1 << subcell_bit(hi[0], hi[1], hi[2]));
          if (o) bsq = static_cast<uint8_t>(bsq | 1 << (a | b << 1));
          if (i && !o) msq = static_cast<uint8_t>(msq | 1 << (a | b << 1));
        }
      t.boundary_sq[occ][d] = bsq;
      t.mid_sq[occ][d] = msq;
    }
  for (int s = 0; s < 16; ++s) {
    int used = 0, n = 0;
    for (int b = 0; b < 2; ++b)
      for (int a = 0; a < 2; ++a) {
        const auto has = [&](int aa, int bb) { return ((s & ~used) >> (aa | bb << 1)) & 1; };
        if (!has(a, b)) continue;
        int w = 1;
        if (a == 0 && has(1, b)) w = 2;
        int h = 1;
        if (b == 0 && has(a, 1) && (w == 1 || has(a + 1, 1))) h = 2;
        for (int bb = b; bb < b + h; ++bb)
          for (int aa = a; aa < a + w; ++aa) used |= 1 << (aa | bb << 1);
        t.part[s][n++] = Rect{static_cast<uint8_t>(a), static_cast<uint8_t>(b), static_cast<uint8_t>(w),
                              static_cast<uint8_t>(h)};
      }
    t.part_count[s] = static_cast<uint8_t>(n);
  }
  for (int shape = 0; shape < kShapeCount; ++shape)
    for (int st = 0; st < 8; ++st)
      for (int face = 0; face < 6; ++face) {
        t.cover[shape][st][face] = side_cover(static_cast<Shape>(shape), static_cast<uint8_t>(st), face);
        for (int col = 0; col < 2; ++col) {
          const SideBand band = side_band(static_cast<Shape>(shape), static_cast<uint8_t>(st), face, col);
          for (int e = 0; e < 2; ++e) {
            t.band_floor[shape][st][face][col][e] = static_cast<int8_t>(band.floor[e]);
            t.band_ceiling[shape][st][face][col][e] = static_cast<int8_t>(band.ceiling[e]);
          }
        }
      }
  return t;
}

const Tables& tables() {
  static const Tables t = make_tables();
  return t;
}

// Light arithmetic: a Light spread to one byte per channel (blue, red, green, sky), so four can be summed.
inline uint32_t spread8(Light l) { return (l & 0x0F0Fu) | ((static_cast<uint32_t>(l) & 0xF0F0u) << 12); }
inline Light unspread8(uint32_t s) { return static_cast<Light>((s & 0x0F0Fu) | ((s >> 12) & 0xF0F0u)); }
// Per-lane (sum + n / 2) / n for lane sums of up to n cells of 0..15.
inline uint32_t mean_lanes(uint32_t s, int n) {
  switch (n) {
    case 1: return s;
    case 2: return ((s + 0x01010101u) >> 1) & 0x0F0F0F0Fu;
    case 3: {
      // floor((x + 1) / 3) == floor((x + 1) * 171 / 512) for x + 1 <= 46; two lanes per 16-bit half at a time.
      const uint32_t t = s + 0x01010101u;
      const uint32_t e = (((t & 0x00FF00FFu) * 171u) >> 9) & 0x000F000Fu;
      const uint32_t o = ((((t >> 8) & 0x00FF00FFu) * 171u) >> 9) & 0x000F000Fu;
      return e | (o << 8);
    }
    case 4: return ((s + 0x02020202u) >> 2) & 0x0F0F0F0Fu;
    default: return 0;
  }
}

constexpr int kPop4[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

// Four corners' values packed in registers (no byte arrays: building those per face and reading them back whole
// stalls store forwarding): AO 2 bits per corner, corner k at bits 2k (quad.h's AO field order); light 16 bits per
// corner, corner k at bits 16k (quad.h's light words).
constexpr uint32_t ao_at(uint32_t ao, int k) { return (ao >> (2 * k)) & 3u; }
constexpr Light light_at(uint64_t light, int k) { return static_cast<Light>(light >> (16 * k)); }
constexpr uint64_t kLightLanes = 0x0001000100010001ull;

// The quad's flip bit: split along corners 1-3 when the default diagonal 0-2 joins the darker corners (AO first,
// then the brightness, the sum of the four light channels).
inline bool flip_rule(uint32_t ao, uint64_t light) {
  const uint32_t a02 = ao_at(ao, 0) + ao_at(ao, 2), a13 = ao_at(ao, 1) + ao_at(ao, 3);
  if (a02 != a13) return a02 < a13;
  // Per 16-bit lane: the sum of its four nibbles.
  uint64_t t = (light & 0x0F0F0F0F0F0F0F0Full) + ((light >> 4) & 0x0F0F0F0F0F0F0F0Full);
  t = (t & 0x00FF00FF00FF00FFull) + ((t >> 8) & 0x00FF00FF00FF00FFull);
  const auto lane = [&](int k) { return static_cast<int>((t >> (16 * k)) & 0xFFFFu); };
  return lane(0) + lane(2) < lane(1) + lane(3);
}

// Corner values of a full face (packed as above).
struct Corners {
  uint32_t ao = 0;
  uint64_t light = 0;
  bool uniform() const { return ao == (ao & 3u) * 0x55u && light == (light & 0xFFFFu) * kLightLanes; }
};

// Slice key bits (a mergeable unit face's attributes; equal keys merge).
constexpr int kKeyAo = 16, kKeyTex = 18, kKeyFlow = 28, kKeyHLow = 32, kKeyHHigh = 39, kKeyList = 46;
constexpr uint64_t kKeyBottomOrigin = uint64_t{1} << 48;  // fluid top: origin plane at the cell's bottom
constexpr uint64_t kKeyNoVMerge = uint64_t{1} << 49;      // heights differ along V: merge along U only
constexpr uint64_t kKeyValid = uint64_t{1} << 63;
constexpr uint64_t kKeyLightingBits = (uint64_t{1} << kKeyTex) - 1;  // light and AO

}  // namespace

struct MeshScratch::Impl {
  uint8_t cls[kPaddedVolume];
  uint32_t occ_row[kPaddedArea];    // bit px of row (py, pz): occluder
  uint32_t cov_row[kPaddedArea];    // bit px of row (py, pz): cover shape
  uint16_t simple_row[256];         // bit x of inner row (y, z): simple cube
  uint16_t face_rows[6][16];        // [d] bit z of layer y: row (y, z) has a simple cube not hidden by an occluder on side d
  uint16_t face_layers[6];          // [d] bit y: face_rows[d][y] != 0
  struct General {
    uint16_t index;    // padded index
    uint8_t x, y, z;   // section-local
    uint8_t state;     // masked by the block's state_mask
    uint16_t id;
    uint8_t dirs;      // bit d: side d may have a face (cleared where it certainly has none)
  };
  General general[kSectionVolume];  // general cells that may have a face
  int general_count = 0;
  // Greedy slices of the current direction: [0] the cells' boundary planes, [1] their mid-cell planes.
  uint64_t key[2][16][256];
  uint16_t used[2][16][16];         // bit u of row v of each slice: a face waits there
  uint16_t rows_used[2][16];        // bit v: row v of that slice has a face
  uint16_t layers_used[2];          // bit layer: that slice has a face
  uint8_t attr_ao[2][16][256];      // corner values for merges that ignore lighting
  uint64_t attr_light[2][16][256];  // 16 bits per corner (corner k at bits 16k)
};

// make_unique value-initialises Impl: every array starts zeroed (the greedy slices rely on it).
MeshScratch::MeshScratch() : m_impl(std::make_unique<Impl>()) {}
MeshScratch::~MeshScratch() = default;

bool operator==(const SectionMesh& a, const SectionMesh& b) {
  const auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0);
  };
  return same(a.opaque, b.opaque) && same(a.cutout, b.cutout) && same(a.translucent, b.translucent);
}

namespace {

class Mesher {
 public:
  Mesher(const BakedBlocks& blocks, const uint32_t* cells, const Light* light, const MeshOptions& options,
         MeshScratch::Impl& s, SectionMesh& out)
      : m_blocks(blocks),
        m_tex(blocks.texture_table()),
        m_cells(cells),
        m_light(light),
        m_opt(options),
        m_s(s),
        m_out(out),
        m_t(tables()) {}

  void run() {
    if (!classify()) return;
    // Keep the output's capacity across calls; the first sections of a scratch reserve a typical amount.
    if (m_out.opaque.capacity() < 1024) m_out.opaque.reserve(1024);
    for (int d = 0; d < 6; ++d) {
      m_d = d;
      // `used` is all zero here: merging consumes every bit it marks (and the scratch starts zeroed).
      std::memset(m_s.rows_used, 0, sizeof(m_s.rows_used));
      std::memset(m_s.layers_used, 0, sizeof(m_s.layers_used));
      switch (d) {
        case 0: simple_faces_t<0>(); break;
        case 1: simple_faces_t<1>(); break;
        case 2: simple_faces_t<2>(); break;
        case 3: simple_faces_t<3>(); break;
        case 4: simple_faces_t<4>(); break;
        default: simple_faces_t<5>(); break;
      }
      for (int i = 0; i < m_s.general_count; ++i)
        if ((m_s.general[i].dirs >> d) & 1) general_faces(m_s.general[i]);
      if (m_opt.greedy && (m_s.layers_used[0] | m_s.layers_used[1])) {
        switch (d) {
          case 0: merge_slices<0>(); break;
          case 1: merge_slices<1>(); break;
          case 2: merge_slices<2>(); break;
          case 3: merge_slices<3>(); break;
          case 4: merge_slices<4>(); break;
          default: merge_slices<5>(); break;
        }
      }
    }
  }

 private:
  // --- classification -------------------------------------------------------------------------------------------

  // One padded row's occluder and cover-shape bits (bit px of its 18 cells).
  struct RowClasses {
    uint32_t occ, cov;
  };

  // Bit `bit` of 16 consecutive class bytes, as a 16-bit mask (byte i -> bit i).
  static uint32_t row_bits(const uint8_t* p, int bit) {
#if defined(__SSE2__)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Shift the wanted bit to each byte's top bit (16-bit lanes: the low byte's bits stay in the low byte's top
    // bit, the high byte's reach bit 15), then gather the top bits.
    __m128i t;
    switch (bit) {
      case 0: t = _mm_slli_epi16(v, 7); break;
      case 1: t = _mm_slli_epi16(v, 6); break;
      case 2: t = _mm_slli_epi16(v, 5); break;
      default: t = _mm_slli_epi16(v, 4); break;
    }
    return static_cast<uint32_t>(_mm_movemask_epi8(t)) & 0xFFFFu;
#else
    uint32_t m = 0;
    for (int i = 0; i < 16; ++i) m |= static_cast<uint32_t>((p[i] >> bit) & 1) << i;
    return m;
#endif
  }

  // Writes the class bytes of the 18 cells of padded row r and returns their bit rows.
  RowClasses classify_row(const uint8_t* __restrict table, int r) {
    const uint32_t* __restrict c = m_cells + r * kPadded;
    uint8_t* __restrict out = m_s.cls + r * kPadded;
#if defined(__SSE2__)
    // Rows of one block id (air, rock) are most of a section: such a row takes one lookup.
    const __m128i idm = _mm_set1_epi32(0xFFFF);
    const auto load = [&](int i) { return _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c + i)), idm); };
    const __m128i a = load(0);
    const __m128i first = _mm_shuffle_epi32(a, 0);
    const __m128i eq = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi32(a, first), _mm_cmpeq_epi32(load(4), first)),
                                     _mm_and_si128(_mm_cmpeq_epi32(load(8), first), _mm_cmpeq_epi32(load(12), first)));
    const uint32_t id = c[0] & 0xFFFFu;
    if (_mm_movemask_epi8(eq) == 0xFFFF && (c[16] & 0xFFFFu) == id && (c[17] & 0xFFFFu) == id) {
      const uint8_t k = table[id];
      // 16 bytes then 2: the 16-byte store of the last row ends at byte 5,830, inside the array.
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_set1_epi8(static_cast<char>(k)));
      out[16] = out[17] = k;
      return {(k & kClassOccluder) ? 0x3FFFFu : 0u, (k & kClassCoverShape) ? 0x3FFFFu : 0u};
    }
    // Mixed row: the 16 first class bytes are gathered in registers (storing them one by one and reading them back
    // as one vector would stall store forwarding).
    uint64_t lo = 0, hi = 0;
    for (int j = 0; j < 8; ++j) lo |= uint64_t{table[c[j] & 0xFFFFu]} << (8 * j);
    for (int j = 0; j < 8; ++j) hi |= uint64_t{table[c[8 + j] & 0xFFFFu]} << (8 * j);
    const uint32_t k16 = table[c[16] & 0xFFFFu], k17 = table[c[17] & 0xFFFFu];
    std::memcpy(out, &lo, 8);
    std::memcpy(out + 8, &hi, 8);
    out[16] = static_cast<uint8_t>(k16);
    out[17] = static_cast<uint8_t>(k17);
    const __m128i v = _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo));
    // Bit b of the 16 bytes: shift it to each byte's top bit (16-bit lanes: the low byte's bit stays in the low
    // byte), then gather the top bits.
    const uint32_t b0 = static_cast<uint32_t>(_mm_movemask_epi8(_mm_slli_epi16(v, 7))) & 0xFFFFu;
    const uint32_t b1 = static_cast<uint32_t>(_mm_movemask_epi8(_mm_slli_epi16(v, 6))) & 0xFFFFu;
    return {b0 | (k16 & 1u) << 16 | (k17 & 1u) << 17, b1 | ((k16 >> 1) & 1u) << 16 | ((k17 >> 1) & 1u) << 17};
#else
    RowClasses rc{0, 0};
    for (int j = 0; j < kPadded; ++j) {
      const uint8_t k = table[c[j] & 0xFFFFu];
      out[j] = k;
      rc.occ |= static_cast<uint32_t>(k & 1) << j;
      rc.cov |= static_cast<uint32_t>((k >> 1) & 1) << j;
    }
    return rc;
#endif
  }

  // Classifies every padded cell (class bytes, occluder and cover rows), then the inner rows (simple rows, general
  // cells in YZX order). False when nothing in the section is drawable.
  bool classify() {
    const uint8_t* __restrict table = m_blocks.class_table();
    m_s.general_count = 0;
    uint32_t any = 0;
    for (int r = 0; r < kPaddedArea; ++r) {
      const RowClasses rc = classify_row(table, r);
      m_s.occ_row[r] = rc.occ;
      m_s.cov_row[r] = rc.cov;
    }
    for (int y = 0; y < 16; ++y)
      for (int z = 0; z < 16; ++z) {
        const int base = padded_index(0, y, z);
        const uint32_t simple = row_bits(&m_s.cls[base], 2);
        uint32_t general = row_bits(&m_s.cls[base], 3);
        while (general) {
          const int x = std::countr_zero(general);
          general &= general - 1;
          add_general(base + x, x, y, z);
        }
        m_s.simple_row[y * 16 + z] = static_cast<uint16_t>(simple);
        any |= simple;
      }
    if (any) face_rows();
    else std::memset(m_s.face_layers, 0, sizeof(m_s.face_layers));
    return any != 0 || m_s.general_count > 0;
  }

  // Per direction d, the inner rows holding a simple cube whose side d is not against an occluder (the only rows
  // where simple_faces_t<d> finds a face): buried rows of rock are then skipped in every direction.
  void face_rows() {
    uint32_t layers[6] = {0, 0, 0, 0, 0, 0};
    for (int y = 0; y < 16; ++y) {
      uint32_t rows[6] = {0, 0, 0, 0, 0, 0};
#if defined(__SSE2__)
      const __m128i zero = _mm_setzero_si128();
      for (int q = 0; q < 4; ++q) {
        // Lanes: rows z = 4q .. 4q + 3.
        const __m128i sv = _mm_unpacklo_epi16(
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(&m_s.simple_row[y * 16 + 4 * q])), zero);
        const uint32_t* o = &m_s.occ_row[(y + 1) * kPadded + 4 * q + 1];
        const auto load = [](const uint32_t* a) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(a)); };
        const __m128i same = load(o);
        const __m128i n[6] = {_mm_srli_epi32(same, 2), same, _mm_srli_epi32(load(o + kPadded), 1),
                              _mm_srli_epi32(load(o - kPadded), 1), _mm_srli_epi32(load(o + 1), 1),
                              _mm_srli_epi32(load(o - 1), 1)};
        for (int d = 0; d < 6; ++d) {
          const __m128i empty = _mm_cmpeq_epi32(_mm_andnot_si128(n[d], sv), zero);
          rows[d] |= static_cast<uint32_t>(~_mm_movemask_ps(_mm_castsi128_ps(empty)) & 0xF) << (4 * q);
        }
      }
#else
      for (int z = 0; z < 16; ++z) {
        const uint32_t sv = m_s.simple_row[y * 16 + z];
        const int r = (y + 1) * kPadded + z + 1;
        const uint32_t n[6] = {m_s.occ_row[r] >> 2,      m_s.occ_row[r],
                               m_s.occ_row[r + kPadded] >> 1, m_s.occ_row[r - kPadded] >> 1,
                               m_s.occ_row[r + 1] >> 1,  m_s.occ_row[r - 1] >> 1};
        for (int d = 0; d < 6; ++d) rows[d] |= ((sv & ~n[d]) != 0 ? 1u : 0u) << z;
      }
#endif
      for (int d = 0; d < 6; ++d) {
        m_s.face_rows[d][y] = static_cast<uint16_t>(rows[d]);
        layers[d] |= (rows[d] != 0 ? 1u : 0u) << y;
      }
    }
    for (int d = 0; d < 6; ++d) m_s.face_layers[d] = static_cast<uint16_t>(layers[d]);
  }

  // Notes a general cell with the sides that may have a face: a cross draws only from +Y; a fluid has no face
  // against its own fluid, nor on a side against an occluder (fluid_face's first tests, taken once here). A cell
  // with no such side is left out (a fluid under and among its own fluid, say). Needs every class byte.
  void add_general(int i, int x, int y, int z) {
    const uint32_t cell = m_cells[i];
    const auto id = static_cast<uint16_t>(cell & 0xFFFF);
    const BakedBlock& b = m_blocks[id];
    uint32_t dirs = 0x3F;
    if (b.shape == Shape::kFluid) {
      dirs = 0;
      for (int d = 0; d < 6; ++d) {
        const int n = i + kStep[d];
        const bool none = (m_cells[n] & 0xFFFF) == id || (d != kFacePosY && (m_s.cls[n] & kClassOccluder));
        dirs |= (none ? 0u : 1u) << d;
      }
      if (!dirs) return;
    } else if (b.shape == Shape::kCross) {
      dirs = 1u << kFacePosY;
    }
    m_s.general[m_s.general_count++] = {static_cast<uint16_t>(i),  static_cast<uint8_t>(x),
                                        static_cast<uint8_t>(y),  static_cast<uint8_t>(z),
                                        static_cast<uint8_t>((cell >> 16) & b.state_mask), id,
                                        static_cast<uint8_t>(dirs)};
  }

  // --- corner values ----------------------------------------------------------------------------------------------

  // Occluder bits of the 3 x 3 front-layer cells of the full face of inner cell (x, y, z) facing d, bit pos9(du, dv)
  // for the cell at (du, dv) along the face's U and V from the front cell. Y and Z faces read three bit rows
  // (U = +X runs along a row); X faces read the class bytes.
  template <int d>
  uint32_t front_mask(int f, int x, int y, int z) const {
    const int px = x + 1, py = y + 1, pz = z + 1;
    const auto rows = [&](int r0, int r1, int r2) {
      const int sh = px - 1;
      return ((m_s.occ_row[r0] >> sh) & 7u) | ((m_s.occ_row[r1] >> sh) & 7u) << 3 | ((m_s.occ_row[r2] >> sh) & 7u) << 6;
    };
    if constexpr (d == kFacePosY) {
      const int r = (py + 1) * kPadded + pz;
      return rows(r - 1, r, r + 1);
    } else if constexpr (d == kFaceNegY) {
      const int r = (py - 1) * kPadded + pz;
      return rows(r - 1, r, r + 1);
    } else if constexpr (d == kFacePosZ) {
      const int r = py * kPadded + pz + 1;
      return rows(r - kPadded, r, r + kPadded);
    } else if constexpr (d == kFaceNegZ) {
      const int r = py * kPadded + pz - 1;
      return rows(r - kPadded, r, r + kPadded);
    } else {
      (void)rows;
      constexpr FaceAxes fa = kFaceAxes[d];
      constexpr int su = kAxisStep[fa.u], sv = kAxisStep[fa.v];
      uint32_t mask = 0;
      for (int dv = -1; dv <= 1; ++dv)
        for (int du = -1; du <= 1; ++du)
          mask |= static_cast<uint32_t>(m_s.cls[f + du * su + dv * sv] & kClassOccluder) << pos9(du, dv);
      return mask;
    }
  }

  // AO and smooth light of the corners of the full face of inner cell (x, y, z) (padded index c) facing d.
  Corners face_corners(int c, int d, int x, int y, int z) const {
    switch (d) {
      case 0: return face_corners_t<0>(c, x, y, z);
      case 1: return face_corners_t<1>(c, x, y, z);
      case 2: return face_corners_t<2>(c, x, y, z);
      case 3: return face_corners_t<3>(c, x, y, z);
      case 4: return face_corners_t<4>(c, x, y, z);
      default: return face_corners_t<5>(c, x, y, z);
    }
  }

  // `front_open`: the caller knows the front cell is not an occluder (a visible simple-cube face).
  template <int d, bool front_open = false>
  Corners face_corners_t(int c, int x, int y, int z) const {
    constexpr FaceAxes fa = kFaceAxes[d];
    constexpr int su = kAxisStep[fa.u], sv = kAxisStep[fa.v];
    const int f = c + kStep[d];
    const uint32_t mask = front_mask<d>(f, x, y, z);
    Light l[9];
    for (int dv = -1; dv <= 1; ++dv)
      for (int du = -1; du <= 1; ++du) l[pos9(du, dv)] = m_light[f + du * su + dv * sv];
    Corners out;
    // When every open cell holds the same light (open sky, dark caves, deep rock: most faces), each corner's mean
    // is that light, or 0 where no cell contributes; only the AO needs the table.
    bool same = true;
    Light ref;
#if defined(__SSE2__)
    if constexpr (front_open) {
      // The front cell (position 4) is open, so it is the reference; the other eight compare in one vector.
      ref = l[4];
      const __m128i v = _mm_setr_epi16(static_cast<short>(l[0]), static_cast<short>(l[1]), static_cast<short>(l[2]),
                                       static_cast<short>(l[3]), static_cast<short>(l[5]), static_cast<short>(l[6]),
                                       static_cast<short>(l[7]), static_cast<short>(l[8]));
      const __m128i eq = _mm_cmpeq_epi16(v, _mm_set1_epi16(static_cast<short>(ref)));
      const auto eq8 = static_cast<uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(eq, eq))) & 0xFFu;
      const uint32_t occ8 = (mask & 0xFu) | ((mask >> 5) << 4);
      same = (eq8 | occ8) == 0xFFu;
    } else
#endif
    {
      ref = l[std::countr_zero(~mask | 0x200u) % 9];
      for (int p = 0; p < 9; ++p) same &= (l[p] == ref) | (((mask >> p) & 1) != 0);
    }
    if (same) {
      out.ao = m_t.lut[mask] & 0xFFu;
      out.light = (ref * kLightLanes) & m_t.lit[mask];
      return out;
    }
    if (mask == 0) {
      // All nine open: every corner averages its four cells.
      out.ao = 0xFFu;
      uint32_t L[9];
      for (int p = 0; p < 9; ++p) L[p] = spread8(l[p]);
      for (int k = 0; k < 4; ++k) {
        const uint8_t* cp = m_t.corner_pos[k];
        const uint32_t sum = L[cp[0]] + L[cp[1]] + L[cp[2]] + L[cp[3]];
        out.light |= static_cast<uint64_t>(unspread8(((sum + 0x02020202u) >> 2) & 0x0F0F0F0Fu)) << (16 * k);
      }
      return out;
    }
    uint32_t L[9];
    for (int p = 0; p < 9; ++p) L[p] = spread8(l[p]);
    const uint32_t e = m_t.lut[mask];
    out.ao = e & 0xFFu;
    for (int k = 0; k < 4; ++k) {
      const uint32_t flags = (e >> (8 + 4 * k)) & 15;
      const uint8_t* cp = m_t.corner_pos[k];
      uint32_t sum = 0;
      sum += L[cp[0]] & (0u - (flags & 1));
      sum += L[cp[1]] & (0u - ((flags >> 1) & 1));
      sum += L[cp[2]] & (0u - ((flags >> 2) & 1));
      sum += L[cp[3]] & (0u - ((flags >> 3) & 1));
      out.light |= static_cast<uint64_t>(unspread8(mean_lanes(sum, kPop4[flags]))) << (16 * k);
    }
    return out;
  }

  // --- emission ---------------------------------------------------------------------------------------------------

  struct Piece {
    int pos[3];  // origin, half-blocks
    int w = 2, h = 2;
    int face = 0;
    QuadKind kind = QuadKind::kAxis;
    int texture = 0;
    int flow = kFlowStill;
    MeshList list = kListOpaque;
    uint32_t ao = 0;     // 2 bits per corner (Corners)
    uint64_t light = 0;  // 16 bits per corner (Corners)
    uint8_t height[4] = {0, 0, 0, 0};
  };

  void emit(const Piece& p) {
    const bool flip = flip_rule(p.ao, p.light);
    const uint32_t w0 = static_cast<uint32_t>(p.pos[0]) | static_cast<uint32_t>(p.pos[1]) << 6 |
                        static_cast<uint32_t>(p.pos[2]) << 12 | static_cast<uint32_t>(p.w - 1) << 18 |
                        static_cast<uint32_t>(p.h - 1) << 23 | static_cast<uint32_t>(p.face) << 28 |
                        (flip ? 1u << 31 : 0u);
    const uint32_t w1 = static_cast<uint32_t>(p.texture) | static_cast<uint32_t>(p.kind) << 10 |
                        (p.ao & 0xFFu) << 13 | static_cast<uint32_t>(p.flow) << 21;
    const auto w2 = static_cast<uint32_t>(p.light), w3 = static_cast<uint32_t>(p.light >> 32);
    if (p.list == kListTranslucent) {
      const uint32_t w4 = static_cast<uint32_t>(p.height[0]) | static_cast<uint32_t>(p.height[1]) << 7 |
                          static_cast<uint32_t>(p.height[2]) << 14 | static_cast<uint32_t>(p.height[3]) << 21;
      m_out.translucent.push_back(FluidQuad{{w0, w1, w2, w3, w4}});
    } else {
      (p.list == kListOpaque ? m_out.opaque : m_out.cutout).push_back(Quad{{w0, w1, w2, w3}});
    }
  }

  // A full unit face (2 x 2 half-blocks on the cell's boundary or mid plane, plane 0 / 1): into the greedy slice
  // when it may merge, else emitted at once. `bottom_origin` marks a fluid top (origin plane at the cell bottom).
  void full_face(int d, int x, int y, int z, int plane, const Corners& cr, int texture, MeshList list, int flow,
                 const uint8_t height[4], bool bottom_origin) {
    const bool heights_along_u = height[0] == height[1] && height[2] == height[3];
    if (m_opt.greedy && heights_along_u && (!m_opt.merge_requires_equal_lighting || cr.uniform())) {
      const FaceAxes& fa = kFaceAxes[d];
      const int xyz[3] = {x, y, z};
      const int layer = xyz[fa.axis], u = xyz[fa.u], v = xyz[fa.v];
      uint64_t key = kKeyValid | static_cast<uint64_t>(texture) << kKeyTex | static_cast<uint64_t>(flow) << kKeyFlow |
                     static_cast<uint64_t>(height[0]) << kKeyHLow | static_cast<uint64_t>(height[3]) << kKeyHHigh |
                     static_cast<uint64_t>(list) << kKeyList;
      if (bottom_origin) key |= kKeyBottomOrigin;
      if (height[0] != height[3]) key |= kKeyNoVMerge;
      if (m_opt.merge_requires_equal_lighting) {
        key |= (cr.light & 0xFFFFu) | static_cast<uint64_t>(cr.ao & 3u) << kKeyAo;
      } else {
        m_s.attr_ao[plane][layer][v * 16 + u] = static_cast<uint8_t>(cr.ao);
        m_s.attr_light[plane][layer][v * 16 + u] = cr.light;
      }
      m_s.key[plane][layer][v * 16 + u] = key;
      mark_used(plane, layer, u, v);
      return;
    }
    Piece p = piece_of(d, x, y, z, plane, bottom_origin, 0, 0, texture, list, flow, cr);
    std::memcpy(p.height, height, 4);
    emit(p);
  }

  // A 2 x 2 piece of cell (x, y, z) on face d at offset (a, b) (set_origin) with these fields and corner values.
  static Piece piece_of(int d, int x, int y, int z, int plane, bool bottom_origin, int a, int b, int texture,
                        MeshList list, int flow, const Corners& values) {
    Piece p;
    set_origin(p, d, x, y, z, plane, bottom_origin, a, b);
    p.face = d;
    p.texture = texture;
    p.list = list;
    p.flow = flow;
    p.ao = values.ao;
    p.light = values.light;
    return p;
  }

  // Origin of a piece of cell (x, y, z) on face d: plane 0 = the cell's side, 1 = the mid-cell plane; (a, b) the
  // piece's offset in half-blocks along the face's U and V.
  static void set_origin(Piece& p, int d, int x, int y, int z, int plane, bool bottom_origin, int a, int b) {
    const FaceAxes& fa = kFaceAxes[d];
    const int xyz[3] = {x, y, z};
    int along = 2 * xyz[fa.axis];
    if (plane == 1) along += 1;
    else if (fa.sign > 0 && !bottom_origin) along += 2;
    p.pos[fa.axis] = along;
    p.pos[fa.u] = 2 * xyz[fa.u] + a;
    p.pos[fa.v] = 2 * xyz[fa.v] + b;
  }

  void mark_used(int plane, int layer, int u, int v) {
    m_s.used[plane][layer][v] = static_cast<uint16_t>(m_s.used[plane][layer][v] | 1u << u);
    m_s.rows_used[plane][layer] = static_cast<uint16_t>(m_s.rows_used[plane][layer] | 1u << v);
    m_s.layers_used[plane] = static_cast<uint16_t>(m_s.layers_used[plane] | 1u << layer);
  }

  // Greedy merge of direction d's two slice sets (the cells' boundary planes, then their mid-cell planes).
  template <int d>
  void merge_slices() {
    merge_plane<d>(0);
    merge_plane<d>(1);
  }

  template <int d>
  void merge_plane(int plane) {
    constexpr FaceAxes fa = kFaceAxes[d];
    for (uint32_t layers = m_s.layers_used[plane]; layers; layers &= layers - 1) {
      const int layer = std::countr_zero(layers);
      uint16_t* used = m_s.used[plane][layer];
      const uint64_t* keys = m_s.key[plane][layer];
      for (uint32_t rows = m_s.rows_used[plane][layer]; rows; rows &= rows - 1) {
        const int v = std::countr_zero(rows);
        while (used[v]) {
          const int u = std::countr_zero(static_cast<unsigned>(used[v]));
          const uint64_t key = keys[v * 16 + u];
          int w = 1;
          while (u + w < 16 && ((used[v] >> (u + w)) & 1) && keys[v * 16 + u + w] == key) ++w;
          const uint32_t run = ((1u << w) - 1) << u;
          int h = 1;
          if (!(key & kKeyNoVMerge)) {
            while (v + h < 16 && (used[v + h] & run) == run) {
              bool same = true;
              for (int i = 0; i < w && same; ++i) same = keys[(v + h) * 16 + u + i] == key;
              if (!same) break;
              ++h;
            }
          }
          for (int i = 0; i < h; ++i) used[v + i] = static_cast<uint16_t>(used[v + i] & ~run);
          Piece p;
          int xyz[3];
          xyz[fa.axis] = layer;
          xyz[fa.u] = u;
          xyz[fa.v] = v;
          set_origin(p, d, xyz[0], xyz[1], xyz[2], plane, (key & kKeyBottomOrigin) != 0, 0, 0);
          p.w = 2 * w;
          p.h = 2 * h;
          p.face = d;
          p.texture = static_cast<int>((key >> kKeyTex) & 1023);
          p.flow = static_cast<int>((key >> kKeyFlow) & 15);
          p.list = static_cast<MeshList>((key >> kKeyList) & 3);
          const auto hl = static_cast<uint8_t>((key >> kKeyHLow) & 127), hh = static_cast<uint8_t>((key >> kKeyHHigh) & 127);
          p.height[0] = p.height[1] = hl;
          p.height[2] = p.height[3] = hh;
          if (m_opt.merge_requires_equal_lighting) {
            p.ao = static_cast<uint32_t>((key >> kKeyAo) & 3) * 0x55u;
            p.light = (key & 0xFFFFu) * kLightLanes;
          } else {
            p.ao = m_s.attr_ao[plane][layer][v * 16 + u];
            p.light = m_s.attr_light[plane][layer][v * 16 + u];
          }
          emit(p);
        }
      }
    }
  }

  // --- simple cubes -----------------------------------------------------------------------------------------------

  template <int d>
  void simple_faces_t() {
    for (uint32_t ys = m_s.face_layers[d]; ys; ys &= ys - 1) {
      const int y = std::countr_zero(ys);
      for (uint32_t zs = m_s.face_rows[d][y]; zs; zs &= zs - 1) {
        const int z = std::countr_zero(zs);
        const uint32_t s = m_s.simple_row[y * 16 + z];
        const int r = (y + 1) * kPadded + (z + 1);
        uint32_t on, cn;
        if constexpr (d == kFacePosX) {
          on = m_s.occ_row[r] >> 2;
          cn = m_s.cov_row[r] >> 2;
        } else if constexpr (d == kFaceNegX) {
          on = m_s.occ_row[r];
          cn = m_s.cov_row[r];
        } else {
          constexpr int kRowStep[6] = {0, 0, kPadded, -kPadded, 1, -1};
          on = m_s.occ_row[r + kRowStep[d]] >> 1;
          cn = m_s.cov_row[r + kRowStep[d]] >> 1;
        }
        uint32_t vis = s & ~on & ~cn & 0xFFFFu;
        uint32_t part = s & cn & ~on & 0xFFFFu;
        const int base = padded_index(0, y, z);
        while (vis) {
          const int x = std::countr_zero(vis);
          vis &= vis - 1;
          cube_face<d>(base + x, x, y, z);
        }
        while (part) {
          const int x = std::countr_zero(part);
          part &= part - 1;
          const uint32_t cell = m_cells[base + x];
          const auto id = static_cast<uint16_t>(cell & 0xFFFF);
          box_face(base + x, x, y, z, id, static_cast<uint8_t>(cell >> 16), m_blocks[id], 0xFF);
        }
      }
    }
  }

  // A whole visible face of a simple cube: the common case, kept short.
  template <int d>
  void cube_face(int c, int x, int y, int z) {
    const uint32_t cell = m_cells[c];
    const int tex = m_tex[(cell & 0xFFFF) * 24 + ((cell >> 19) & 3) * 6 + d];
    const MeshList list = (m_s.cls[c] & kClassCutout) ? kListCutout : kListOpaque;
    const Corners cr = face_corners_t<d, true>(c, x, y, z);
    if (m_opt.greedy && !m_opt.merge_requires_equal_lighting) {
      static constexpr uint8_t kNoHeight[4] = {0, 0, 0, 0};
      full_face(d, x, y, z, 0, cr, tex, list, kFlowStill, kNoHeight, false);
      return;
    }
    if (m_opt.greedy && cr.uniform()) {
      constexpr FaceAxes fa = kFaceAxes[d];
      const int xyz[3] = {x, y, z};
      const int layer = xyz[fa.axis], u = xyz[fa.u], v = xyz[fa.v];
      m_s.key[0][layer][v * 16 + u] = kKeyValid | static_cast<uint64_t>(tex) << kKeyTex |
                                      static_cast<uint64_t>(kFlowStill) << kKeyFlow |
                                      static_cast<uint64_t>(list) << kKeyList | (cr.light & 0xFFFFu) |
                                      static_cast<uint64_t>(cr.ao & 3u) << kKeyAo;
      mark_used(0, layer, u, v);
      return;
    }
    // A unit quad, packed directly.
    constexpr FaceAxes fa = kFaceAxes[d];
    int pos[3] = {2 * x, 2 * y, 2 * z};
    if constexpr (fa.sign > 0) pos[fa.axis] += 2;
    const uint32_t w0 = static_cast<uint32_t>(pos[0]) | static_cast<uint32_t>(pos[1]) << 6 |
                        static_cast<uint32_t>(pos[2]) << 12 | 1u << 18 | 1u << 23 | static_cast<uint32_t>(d) << 28 |
                        (flip_rule(cr.ao, cr.light) ? 1u << 31 : 0u);
    const uint32_t w1 = static_cast<uint32_t>(tex) | (cr.ao & 0xFFu) << 13 | static_cast<uint32_t>(kFlowStill) << 21;
    const Quad q{{w0, w1, static_cast<uint32_t>(cr.light), static_cast<uint32_t>(cr.light >> 32)}};
    (list == kListOpaque ? m_out.opaque : m_out.cutout).push_back(q);
  }

  // --- general cells ----------------------------------------------------------------------------------------------

  // Squares of this cell's side d hidden by its neighbour: what an opaque neighbour covers, or, when this block is
  // translucent, what a translucent neighbour ranking at least as high covers (shapes.h seam_rank: the same id or
  // a higher one).
  uint8_t hidden_squares(int c, int d, uint16_t id, const BakedBlock& b) const {
    const int n = c + kStep[d];
    const uint8_t ncls = m_s.cls[n];
    if (ncls & kClassOccluder) return 0xF;
    if (!(ncls & kClassCoverShape) && b.transparency != Transparency::kTranslucent) return 0;
    const uint32_t ncell = m_cells[n];
    const auto nid = static_cast<uint16_t>(ncell & 0xFFFF);
    const BakedBlock& nb = m_blocks[nid];
    if (!(ncls & kClassCoverShape) &&
        (nb.transparency != Transparency::kTranslucent || seam_rank(nb.transparency, nid) < seam_rank(b.transparency, id)))
      return 0;
    return side_cover(nb.shape, static_cast<uint8_t>((ncell >> 16) & nb.state_mask), opposite_face(d));
  }

  // Value at half-block point (pu, pv) of a full face (0..2 each) from its corner values: the corners, the mean of
  // two at an edge's middle, of four at the centre (integers, rounding half up).
  static Corners interpolate(const Corners& f, const Rect& r) {
    Corners out;
    const int pts[4][2] = {{r.a, r.b}, {r.a + r.w, r.b}, {r.a + r.w, r.b + r.h}, {r.a, r.b + r.h}};
    for (int k = 0; k < 4; ++k) {
      const int pu = pts[k][0], pv = pts[k][1];
      // Full-face corner at (u, v) in {0, 2}: 0 = (0,0), 1 = (2,0), 2 = (2,2), 3 = (0,2).
      const auto corner = [](int u, int v) { return v == 0 ? (u == 0 ? 0 : 1) : (u == 0 ? 3 : 2); };
      int idx[4], n = 0;
      for (int v : {0, 2})
        for (int u : {0, 2})
          if ((pu == 1 || pu == u) && (pv == 1 || pv == v)) idx[n++] = corner(u, v);
      int ao = 0;
      uint32_t sum = 0;
      for (int i = 0; i < n; ++i) {
        ao += static_cast<int>(ao_at(f.ao, idx[i]));
        sum += spread8(light_at(f.light, idx[i]));
      }
      out.ao |= static_cast<uint32_t>((ao + n / 2) / n) << (2 * k);
      out.light |= static_cast<uint64_t>(unspread8(mean_lanes(sum, n))) << (16 * k);
    }
    return out;
  }

  // Pieces of an axis face made of squares `sq` of the full face on plane 0/1 of cell (x, y, z); `flow` is a
  // fluid bottom's flow (kFlowStill for everything else).
  void square_pieces(int x, int y, int z, int plane, uint8_t sq, const Corners& cr, int texture, MeshList list,
                     int flow = kFlowStill) {
    if (sq == 0xF) {
      static constexpr uint8_t kNoHeight[4] = {0, 0, 0, 0};
      full_face(m_d, x, y, z, plane, cr, texture, list, flow, kNoHeight, false);
      return;
    }
    for (int i = 0; i < m_t.part_count[sq]; ++i) emit(rect_piece(x, y, z, plane, m_t.part[sq][i], cr, texture, list, flow));
  }

  // The axis piece of rectangle r (half-blocks on the face's U and V) of the full face of cell (x, y, z) facing m_d
  // on plane 0/1, its corner values interpolated from the full face's.
  Piece rect_piece(int x, int y, int z, int plane, const Rect& r, const Corners& cr, int texture, MeshList list,
                   int flow) const {
    Piece p = piece_of(m_d, x, y, z, plane, false, r.a, r.b, texture, list, flow, interpolate(cr, r));
    p.w = r.w;
    p.h = r.h;
    return p;
  }

  // Faces on side d of a box-built cell (occupancy `occ`): the side's squares not hidden by the neighbour, and the
  // mid-cell plane's squares.
  void box_face(int c, int x, int y, int z, uint16_t id, uint8_t state, const BakedBlock& b, uint8_t occ) {
    const int d = m_d;
    const uint8_t bsq = m_t.boundary_sq[occ][d], msq = m_t.mid_sq[occ][d];
    const uint8_t sq = bsq ? static_cast<uint8_t>(bsq & ~hidden_squares(c, d, id, b)) : 0;
    if (!sq && !msq) return;
    const Corners cr = face_corners(c, d, x, y, z);
    const int tex = m_blocks.texture(id, state, d);
    if (sq) square_pieces(x, y, z, 0, sq, cr, tex, b.list);
    if (msq) square_pieces(x, y, z, 1, msq, cr, tex, b.list);
  }

  void general_faces(const MeshScratch::Impl::General& g) {
    const int d = m_d;
    const int c = g.index, x = g.x, y = g.y, z = g.z;
    const uint16_t id = g.id;
    const uint8_t state = g.state;
    const BakedBlock& b = m_blocks[id];
    switch (b.shape) {
      case Shape::kCube:
      case Shape::kSlab:
      case Shape::kStairs: box_face(c, x, y, z, id, state, b, box_occupancy(b.shape, state)); break;
      case Shape::kSlope: slope_face(c, x, y, z, id, state, b); break;
      case Shape::kCross:
        if (d == kFacePosY) cross_quads(c, x, y, z, id, state, b);
        break;
      case Shape::kFluid: fluid_face(c, x, y, z, id, state, b); break;
      case Shape::kNone: break;
    }
  }

  void slope_face(int c, int x, int y, int z, uint16_t id, uint8_t state, const BakedBlock& b) {
    const int d = m_d;
    const SlopeInfo si = slope_info(state);
    switch (slope_side(si, d)) {
      case SlopeSide::kFull: {
        const uint8_t sq = static_cast<uint8_t>(0xF & ~hidden_squares(c, d, id, b));
        if (sq) square_pieces(x, y, z, 0, sq, face_corners(c, d, x, y, z), m_blocks.texture(id, state, d), b.list);
        break;
      }
      case SlopeSide::kTriangle: {
        const uint8_t touched = slope_triangle_touched(si);
        if ((hidden_squares(c, d, id, b) & touched) == touched) break;
        const Corners cr = face_corners(c, d, x, y, z);
        Piece p;
        set_origin(p, d, x, y, z, 0, false, 0, 0);
        p.face = d;
        p.kind = QuadKind::kTriangle;
        p.flow = slope_triangle_removed_corner(si);
        p.texture = m_blocks.texture(id, state, d);
        p.list = b.list;
        p.ao = cr.ao;
        p.light = cr.light;
        emit(p);
        break;
      }
      case SlopeSide::kNone: break;
    }
    if (d == kFacePosY) {
      // The sloped surface, lit like the top (bottom when upside-down) of a cube in this cell.
      const int lit = si.upside_down ? kFaceNegY : kFacePosY;
      const Corners cr = face_corners(c, lit, x, y, z);
      Piece p;
      p.pos[0] = 2 * x;
      p.pos[1] = 2 * y;
      p.pos[2] = 2 * z;
      p.face = si.back_face;
      p.kind = QuadKind::kSlope;
      p.flow = si.upside_down ? 1 : 0;
      p.texture = m_blocks.texture(id, state, lit);
      p.list = b.list;
      p.ao = cr.ao;
      p.light = cr.light;
      emit(p);
    }
  }

  void cross_quads(int c, int x, int y, int z, uint16_t id, uint8_t state, const BakedBlock& b) {
    const Light own = m_light[c];
    for (QuadKind kind : {QuadKind::kCrossA, QuadKind::kCrossB}) {
      Piece p;
      p.pos[0] = 2 * x;
      p.pos[1] = 2 * y;
      p.pos[2] = 2 * z;
      p.face = kFacePosY;
      p.kind = kind;
      p.texture = m_blocks.texture(id, state, kFacePosX);
      p.list = b.list;
      p.ao = 0xFFu;
      p.light = own * kLightLanes;
      emit(p);
    }
  }

  // Surface height (1/64) of fluid cell i of block `id`: full when the same fluid lies above.
  int fluid_surface(int i, uint16_t id, const BakedBlock& b) const {
    if ((m_cells[i + kPaddedArea] & 0xFFFF) == id) return kFluidFull;
    return fluid_level_height(state::fluid_level(static_cast<uint8_t>((m_cells[i] >> 16) & b.state_mask)));
  }

  // Heights (1/64) of the four top corners of fluid cell c (quad.h +Y corner order): the mean, rounded half up,
  // of the surface heights of the cells of the same fluid among the four around each vertical edge.
  void fluid_corner_heights(int c, uint16_t id, const BakedBlock& b, int h[4]) const {
    // Surface heights of the 3 x 3 cells around c in its layer (-1: not this fluid), each read once.
    int s9[9];
    for (int dz = -1; dz <= 1; ++dz)
      for (int dx = -1; dx <= 1; ++dx) {
        const int i = c + dx + dz * kPadded;
        s9[pos9(dx, dz)] = (m_cells[i] & 0xFFFF) == id ? fluid_surface(i, id, b) : -1;
      }
    for (int k = 0; k < 4; ++k) {
      const int sx = kCornerSign[k][0], sz = kCornerSign[k][1];
      const int cells[4] = {pos9(0, 0), pos9(sx, 0), pos9(0, sz), pos9(sx, sz)};
      int sum = 0, n = 0;
      for (int p : cells)
        if (s9[p] >= 0) {
          sum += s9[p];
          ++n;
        }
      // n is 1..4 (the cell itself counts): constant divisors instead of a hardware division.
      switch (n) {
        case 1: h[k] = sum; break;
        case 2: h[k] = (sum + 1) / 2; break;
        case 3: h[k] = (sum + 1) / 3; break;
        default: h[k] = (sum + 2) / 4; break;
      }
    }
  }

  // Height (1/64) of fluid `id`'s surface at the vertical edge under top corner k of cell c, for a fluid that is
  // not c's own (a neighbour's across one of c's sides, sharing the edge): the mean, rounded half up, of the surface
  // heights of the cells of that fluid among the four around the edge (fluid_corner_heights' rule).
  int fluid_edge_height(int c, int k, uint16_t id, const BakedBlock& b) const {
    const int su = kCornerSign[k][0], sz = kCornerSign[k][1] * kPadded;
    int sum = 0, n = 0;
    for (const int i : {c, c + su, c + sz, c + su + sz})
      if ((m_cells[i] & 0xFFFF) == id) {
        sum += fluid_surface(i, id, b);
        ++n;
      }
    return (sum + n / 2) / n;
  }

  // A fluid cell's face d: the top unless the same fluid lies above; no side or bottom against the same fluid or
  // an occluder; elsewhere the bottom and sides only where the neighbour's face on that plane does not lie, and a
  // side against a different fluid that ranks higher only above that fluid's surface.
  void fluid_face(int c, int x, int y, int z, uint16_t id, uint8_t state, const BakedBlock& b) {
    const int d = m_d;
    const int n = c + kStep[d];
    const bool full = (m_cells[c + kPaddedArea] & 0xFFFF) == id;
    int nshape = 0, nstate = 0;
    uint8_t cover = 0;
    bool under_fluid = false;  // the neighbour is a different fluid that ranks higher (shapes.h seam_rank)
    if (d == kFacePosY) {
      if (full) return;
    } else {
      if ((m_cells[n] & 0xFFFF) == id || (m_s.cls[n] & kClassOccluder)) return;
      const uint32_t ncell = m_cells[n];
      const auto nid = static_cast<uint16_t>(ncell & 0xFFFF);
      const BakedBlock& nb = m_blocks[nid];
      nshape = static_cast<int>(nb.shape);
      nstate = static_cast<int>((ncell >> 16) & nb.state_mask & 7);
      cover = m_t.cover[nshape][nstate][opposite_face(d)];
      if (cover == 0xF) return;  // glass, leaves, a slope's back: the neighbour's face covers the whole side
      // (Not below: a fluid's top never reaches its cell's top plane, so the one below shares no plane with it.)
      under_fluid = d != kFaceNegY && nb.shape == Shape::kFluid &&
                    seam_rank(nb.transparency, nid) > seam_rank(b.transparency, id);
    }
    int h[4];
    fluid_corner_heights(c, id, b, h);
    const int flow = state::fluid_falling(state) ? kFlowFalling : fluid_flow_from_heights(h);
    // Side corners 3 and 2 are the top corners at the side's U-low and U-high ends (quad.h corner order).
    static constexpr int kTop[6][2] = {{1, 2}, {0, 3}, {0, 0}, {0, 0}, {3, 2}, {0, 1}};
    const int top_lo = full ? kFluidFull : h[kTop[d][0]], top_hi = full ? kFluidFull : h[kTop[d][1]];
    int floor_lo = 0, floor_hi = 0;
    if (under_fluid) {
      // The other fluid's side stays whole; this side is drawn only above its top edge, the other fluid's surface
      // over the same two vertical edges (full when that fluid lies above its cell too).
      const auto nid = static_cast<uint16_t>(m_cells[n] & 0xFFFF);
      const BakedBlock& nb = m_blocks[nid];
      const bool nfull = (m_cells[n + kPaddedArea] & 0xFFFF) == nid;
      floor_lo = nfull ? kFluidFull : fluid_edge_height(c, kTop[d][0], nid, nb);
      floor_hi = nfull ? kFluidFull : fluid_edge_height(c, kTop[d][1], nid, nb);
      if (floor_lo >= top_lo && floor_hi >= top_hi) return;
    }
    const Corners cr = face_corners(c, d, x, y, z);
    const int tex = m_blocks.texture(id, state, d);
    if (d == kFacePosY) {
      const uint8_t height[4] = {static_cast<uint8_t>(h[0]), static_cast<uint8_t>(h[1]), static_cast<uint8_t>(h[2]),
                                 static_cast<uint8_t>(h[3])};
      full_face(d, x, y, z, 0, cr, tex, b.list, flow, height, true);
      return;
    }
    if (d == kFaceNegY) {
      // The squares the neighbour below does not cover with its top side.
      square_pieces(x, y, z, 0, static_cast<uint8_t>(0xF & ~cover), cr, tex, b.list, flow);
      return;
    }
    if (cover == 0) {
      // Nothing on the plane (air, a plant, a slope's open front), or a different fluid: the whole side under the
      // surface, plain when full; above the other fluid's surface when that fluid ranks higher (both edges are
      // straight across the side: one piece, its end pulled in where the two surfaces cross).
      const uint8_t height[4] = {static_cast<uint8_t>(floor_lo), static_cast<uint8_t>(floor_hi),
                                 static_cast<uint8_t>(full && !under_fluid ? 0 : top_hi),
                                 static_cast<uint8_t>(full && !under_fluid ? 0 : top_lo)};
      full_face(d, x, y, z, 0, cr, tex, b.list, flow, height, false);
      return;
    }
    fluid_side(x, y, z, cr, tex, b.list, flow, top_lo, top_hi, m_t.band_floor[nshape][nstate][opposite_face(d)],
               m_t.band_ceiling[nshape][nstate][opposite_face(d)]);
  }

  // The pieces of a fluid side inside the band the neighbour's touching side leaves open (shapes.h side_band;
  // reference.cpp fluid_side states the rule): per half-block column, from the band's floor to the lower of the
  // surface and the band's ceiling at the column's ends; one piece over the side when both lines run straight
  // across, else one per column (the surface's middle rounded down). Heights are 1/64 block above the cell bottom.
  void fluid_side(int x, int y, int z, const Corners& cr, int tex, MeshList list, int flow, int top_lo, int top_hi,
                  const int8_t (&floor)[2][2], const int8_t (&ceiling)[2][2]) {
    const int d = m_d;
    // Doubled heights of each column's floor and top at its ends ([column][end]; the surface at U = 0, 1 and 2
    // half-blocks, doubled, is exact).
    int f2[2][2], t2[2][2];
    const int s2[3] = {2 * top_lo, top_lo + top_hi, 2 * top_hi};
    for (int col = 0; col < 2; ++col)
      for (int e = 0; e < 2; ++e) {
        f2[col][e] = 2 * floor[col][e];
        t2[col][e] = std::min(s2[col + e], 2 * ceiling[col][e]);
      }
    const bool straight = f2[0][1] == f2[1][0] && t2[0][1] == t2[1][0] && 2 * f2[0][1] == f2[0][0] + f2[1][1] &&
                          2 * t2[0][1] == t2[0][0] + t2[1][1];
    // One piece over U = a .. a + w half-blocks, from its floor (f) to its top (t) at its two ends.
    const auto piece = [&](int a, int w, int f_lo, int f_hi, int t_lo, int t_hi) {
      if (t_lo <= f_lo && t_hi <= f_hi) return;  // nothing between floor and top
      uint8_t height[4] = {static_cast<uint8_t>(f_lo), static_cast<uint8_t>(f_hi), static_cast<uint8_t>(t_hi),
                           static_cast<uint8_t>(t_lo)};
      if (f_lo == 0 && f_hi == 0 && t_lo == kFluidFull && t_hi == kFluidFull) std::memset(height, 0, 4);  // plain
      if (w == 2) {
        full_face(d, x, y, z, 0, cr, tex, list, flow, height, false);  // may merge with its neighbours
        return;
      }
      Piece p = rect_piece(x, y, z, 0, Rect{static_cast<uint8_t>(a), 0, 1, 2}, cr, tex, list, flow);
      std::memcpy(p.height, height, 4);
      emit(p);
    };
    if (straight) {
      piece(0, 2, f2[0][0] / 2, f2[1][1] / 2, t2[0][0] / 2, t2[1][1] / 2);
      return;
    }
    for (int col = 0; col < 2; ++col) piece(col, 1, f2[col][0] / 2, f2[col][1] / 2, t2[col][0] / 2, t2[col][1] / 2);
  }

  const BakedBlocks& m_blocks;
  const uint16_t* m_tex;
  const uint32_t* m_cells;
  const Light* m_light;
  const MeshOptions& m_opt;
  MeshScratch::Impl& m_s;
  SectionMesh& m_out;
  const Tables& m_t;
  int m_d = 0;
};

}  // namespace

void mesh_section(const BakedBlocks& blocks, const uint32_t* cells, const Light* light, const MeshOptions& options,
                  MeshScratch& scratch, SectionMesh& out) {
  out.clear();
  Mesher(blocks, cells, light, options, scratch.impl(), out).run();
}

bool section_is_buried(const BakedBlocks& blocks, const World& world, SectionPos pos) {
  const auto occluder = [&](const SectionPos& p) {
    if (p.y < 0 || p.y >= kSectionsPerColumn) return false;
    const Column* c = world.find(p.column());
    if (!c) return false;
    const Section& s = c->section(p.y);
    return s.is_uniform() && (blocks.cls(Cell::from_packed(s.palette()[0]).id) & kClassOccluder);
  };
  if (!occluder(pos)) return false;
  for (const FaceAxes& fa : kFaceAxes) {
    SectionPos n = pos;
    if (fa.axis == 0) n.x += fa.sign;
    if (fa.axis == 1) n.y += fa.sign;
    if (fa.axis == 2) n.z += fa.sign;
    if (!occluder(n)) return false;
  }
  return true;
}

void mesh_world_section(const BakedBlocks& blocks, const World& world, SectionPos pos, const MeshOptions& options,
                        SectionInput& input, MeshScratch& scratch, SectionMesh& out) {
  out.clear();
  if (section_is_skippable(world, pos) || section_is_buried(blocks, world, pos)) return;
  build_section_input(world, pos, input);
  mesh_section(blocks, input, options, scratch, out);
}

}  // namespace voxen::mesh
