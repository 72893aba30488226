// The far view's stored nodes: their key, payload and sealed value (lod_record.h; docs/formats/world_store_v1.md).
#include "voxen/stream/lod_record.h"

#include <cstring>

#include "voxen/core/coords.h"
#include "voxen/core/hash.h"
#include "voxen/lod/cell.h"
#include "voxen/store/codec.h"

namespace voxen::stream {

namespace {

constexpr uint64_t kRecordVersion = 7;  // bumps the signature when the quads' meaning or the coarse path's output changes (3: the deep skirts; 4: skirts down a stack and under fluids; 5: their depth by level; 6: level 5 sampled every 4 blocks; 7: structures in the coarse cells)
constexpr size_t kHeader = 27;
constexpr uint32_t kMaxQuads = 32 * 32 * 32 * 6;

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t get_le(std::string_view in, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in[pos + static_cast<size_t>(i)])) << (8 * i);
  return v;
}

// The LOD sections of a level-`level` node's stack: y from floor(kMinY / S) to floor(kMaxY / S), S = 32 << level.
int64_t stack_lo(int level) { return floor_div(kMinY, int64_t{32} << level); }
int64_t stack_hi(int level) { return floor_div(kMaxY, int64_t{32} << level); }

// The face's U and V axes as steps along x, y, z (lod_mesher.h's table).
constexpr int kU[6][3] = {{0, 0, 1}, {0, 0, 1}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}};
constexpr int kV[6][3] = {{0, 1, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}};

}  // namespace

store::RecordKey lod_record_key(int level, int64_t x, int64_t z) {
  return store::RecordKey{store::RecordKind::kLod, SectionPos{x, level, z}};
}

std::string describe_lod_node(int level, int64_t x, int64_t z) {
  return "LOD node level " + std::to_string(level) + " at (" + std::to_string(x) + ", " + std::to_string(z) + ")";
}

std::string encode_lod_payload(const LodNodeRecord& r) {
  std::string out;
  size_t quads = 0;
  for (const auto& [y, q] : r.sections) quads += q.size();
  out.reserve(kHeader + r.sections.size() * 12 + quads * 8);
  put_le(out, r.signature, 8);
  put_le(out, static_cast<uint64_t>(r.level), 1);
  put_le(out, static_cast<uint64_t>(r.x), 8);
  put_le(out, static_cast<uint64_t>(r.z), 8);
  put_le(out, r.sections.size(), 2);
  for (const auto& [y, q] : r.sections) {
    put_le(out, static_cast<uint64_t>(y), 8);
    put_le(out, q.size(), 4);
    for (const mesh::LodQuad quad : q) put_le(out, quad.bits, 8);
  }
  return out;
}

std::string seal_lod_payload(std::string_view payload) {
  return store::seal(store::PayloadKind::kLodNode, payload, store::SealOptions{1, true});
}

std::string encode_lod_record(const LodNodeRecord& r) { return seal_lod_payload(encode_lod_payload(r)); }

Result<LodNodeRecord> decode_lod_payload(std::string_view in, int level, int64_t x, int64_t z) {
  const auto fail = [](const std::string& what, size_t at) {
    Error e{what};
    e.offset = static_cast<int64_t>(at);
    return e;
  };
  if (in.size() < kHeader) return fail("truncated header (" + std::to_string(in.size()) + " of 27 bytes)", in.size());
  LodNodeRecord r;
  r.signature = get_le(in, 0, 8);
  r.level = static_cast<int>(get_le(in, 8, 1));
  r.x = static_cast<int64_t>(get_le(in, 9, 8));
  r.z = static_cast<int64_t>(get_le(in, 17, 8));
  if (r.level != level) return fail("level " + std::to_string(r.level) + ", the key says " + std::to_string(level), 8);
  if (r.x != x || r.z != z)
    return fail("node (" + std::to_string(r.x) + ", " + std::to_string(r.z) + "), the key says (" + std::to_string(x) +
                    ", " + std::to_string(z) + ")",
                9);
  if (level < 0 || level >= lod::kMaxLevels) return fail("level " + std::to_string(level) + " is not 0..8", 8);
  const uint64_t n = get_le(in, 25, 2);
  const int64_t lo = stack_lo(level), hi = stack_hi(level);
  if (n > static_cast<uint64_t>(hi - lo + 1))
    return fail(std::to_string(n) + " sections, a level-" + std::to_string(level) + " node has " + std::to_string(hi - lo + 1), 25);
  size_t pos = kHeader;
  for (uint64_t s = 0; s < n; ++s) {
    if (in.size() - pos < 12) return fail("section " + std::to_string(s) + ": truncated", in.size());
    const auto y = static_cast<int64_t>(get_le(in, pos, 8));
    if (y < lo || y > hi) return fail("section y " + std::to_string(y) + " outside the stack " + std::to_string(lo) + ".." + std::to_string(hi), pos);
    if (!r.sections.empty() && y <= r.sections.back().first) return fail("section y " + std::to_string(y) + " does not ascend", pos);
    const uint64_t q = get_le(in, pos + 8, 4);
    if (q == 0 || q > kMaxQuads) return fail("section y " + std::to_string(y) + ": " + std::to_string(q) + " quads (1..196608)", pos + 8);
    pos += 12;
    if ((in.size() - pos) / 8 < q) return fail("section y " + std::to_string(y) + ": truncated quads", in.size());
    std::vector<mesh::LodQuad> quads(static_cast<size_t>(q));
    for (uint64_t i = 0; i < q; ++i, pos += 8) {
      const mesh::LodQuad quad{get_le(in, pos, 8)};
      const mesh::LodQuadFields f = mesh::unpack_lod_quad(quad);
      if ((quad.bits >> 52) != 0) return fail("quad " + std::to_string(i) + ": reserved bits set", pos);
      if (f.face > 5) return fail("quad " + std::to_string(i) + ": face " + std::to_string(f.face), pos);
      const int at[3] = {f.x, f.y, f.z};
      for (int a = 0; a < 3; ++a)
        if (at[a] + (f.w - 1) * kU[f.face][a] + (f.h - 1) * kV[f.face][a] > 31)
          return fail("quad " + std::to_string(i) + ": leaves the section", pos);
      quads[static_cast<size_t>(i)] = quad;
    }
    r.sections.emplace_back(y, std::move(quads));
  }
  if (pos != in.size()) return fail(std::to_string(in.size() - pos) + " bytes after the last section", pos);
  return r;
}

Result<LodNodeRecord> decode_lod_record(std::string_view value, int level, int64_t x, int64_t z) {
  auto payload = store::unseal(value, store::PayloadKind::kLodNode);
  const auto named = [&](Error e) {
    e.message = describe_lod_node(level, x, z) + ": " + e.message;
    return e;
  };
  if (!payload.ok()) return named(payload.error());
  auto r = decode_lod_payload(*payload, level, x, z);
  if (!r.ok()) return named(r.error());
  return r;
}

uint64_t lod_sources_signature(std::string_view generator, uint64_t seed, int levels, const mesh::LodMeshTables& tables) {
  uint64_t h = fnv1a_u64(kFnv1aOffset, kRecordVersion);
  for (const char c : generator) h = fnv1a_u64(h, static_cast<uint8_t>(c));  // each name byte as 8 (kept as written)
  h = fnv1a_u64(h, generator.size());
  h = fnv1a_u64(h, seed);
  h = fnv1a_u64(h, static_cast<uint64_t>(levels));
  return fnv1a_u64(h, tables.signature());
}

}  // namespace voxen::stream
