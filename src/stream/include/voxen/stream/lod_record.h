// The far view's stored nodes (docs/formats/world_store_v1.md, "LOD node records"): a built node's LOD sections'
// quads, kept in the world's database beside the columns' records, so a reopened world loads its far view instead
// of building it again, and the levels over an edited column (rebuilt with its cells) are stored as they now are.
//
// Key: store::RecordKey{kind 'l', SectionPos{node x, level, node z}} (the 18-byte key: 'l', x, z, then the level
// in the section byte). Value: store::seal(PayloadKind::kLodNode, payload) at zstd level 1 with the frame's content
// checksum (a damaged value fails to unseal: never drawn half-decoded). The payload, little-endian:
//   bytes 0-7     sources signature: what the quads were built from and with (lod_sources_signature); a record
//                 with another one is stale (another generator, seed, level count or block table, or a record
//                 version bumped by hand when the coarse path, the Mipper or the LOD mesher change what they
//                 build), rebuilt, not reported
//   byte  8       level, 0..kMaxLevels-1          } must equal the key's
//   bytes 9-16    node x (int64)                  }
//   bytes 17-24   node z (int64)                  }
//   bytes 25-26   n: LOD sections that follow (uint16, at most the node's stack: floor(kMaxY / S) - floor(kMinY / S)
//                 + 1, S = 32 << level: 12, 6, 3, 2, 2, 2, ... sections)
//   n times       y (int64: a section of the level's stack, strictly ascending), q (uint32, 1..196,608: 32^3 cells x
//                 6 faces), q quads (uint64 each, mesh::LodQuad: face <= 5, the quad inside the section along its U
//                 and V axes, bits 52-63 zero)
// Nothing follows the last section.
// Threads: pure functions, any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/lod/section.h"
#include "voxen/mesh/lod_mesher.h"
#include "voxen/store/world_store.h"

namespace voxen::stream {

/// A node's stored form: its non-empty LOD sections' quads, bottom to top.
struct LodNodeRecord {
  uint64_t signature = 0;
  int level = 0;
  int64_t x = 0, z = 0;
  std::vector<std::pair<int64_t, std::vector<mesh::LodQuad>>> sections;  // (LOD section y, its quads)
  friend bool operator==(const LodNodeRecord&, const LodNodeRecord&) = default;
};

/// The key of node (level, x, z)'s record.
store::RecordKey lod_record_key(int level, int64_t x, int64_t z);
/// "LOD node level L at (x, z)": how errors and reports name a record.
std::string describe_lod_node(int level, int64_t x, int64_t z);

/// The payload, unsealed (the layout in the file comment).
std::string encode_lod_payload(const LodNodeRecord& record);
/// The stored value of a payload: sealed at zstd level 1 with the frame's checksum.
std::string seal_lod_payload(std::string_view payload);
/// The stored value: seal_lod_payload(encode_lod_payload(record)).
std::string encode_lod_record(const LodNodeRecord& record);
/// Decodes a payload. Errors name the field and its byte offset in the payload: truncated, a level or position
/// other than the key's (level, x, z), a section y outside the stack or not ascending, a quad count out of range, a
/// quad whose face, extent or reserved bits are wrong, bytes after the last section.
Result<LodNodeRecord> decode_lod_payload(std::string_view payload, int level, int64_t x, int64_t z);
/// Unseals a stored value (store::unseal: magic, version, kind, zstd frame and its checksum) and decodes it; errors
/// as those two, prefixed with the node.
Result<LodNodeRecord> decode_lod_record(std::string_view value, int level, int64_t x, int64_t z);

/// What a record's quads depend on besides its node: the generator (its name and seed), the levels kept, the
/// record format and the LOD mesher's tables (block classes and face textures). A 64-bit hash.
uint64_t lod_sources_signature(std::string_view generator, uint64_t seed, int levels, const mesh::LodMeshTables& tables);

}  // namespace voxen::stream
