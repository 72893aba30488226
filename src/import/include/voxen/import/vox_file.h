// MagicaVoxel .vox files as plain data, and the reader that fills them.
//
// Format (ephtracy/voxel-model "MagicaVoxel-file-format-vox.txt" and "-vox-extension.txt"; the revised tables of
// huhlig/voxfile vox.md): little-endian throughout.
//   header   "VOX " (4 bytes), version u32 (150 or 200)
//   chunk    id (4 ASCII bytes), content size N u32, children size M u32, N content bytes, M bytes of child chunks
//   MAIN     the root chunk; no content; its children are every other chunk:
//     PACK   u32 number of models (optional, old files)
//     SIZE   u32 x, y, z: the next model's size in voxels, each 1..256 (model-local axes, Z up)
//     XYZI   u32 count, then count x (u8), y (u8), z (u8), colour index (u8 1..255): the model's voxels
//     RGBA   256 x (r, g, b, a) u8: entry i of the chunk is colour index i + 1 (entry 255 is unused); other
//            tools write fewer entries: the indices past them keep the default palette (a warning)
//     MATL   u32 material id (= colour index), DICT properties (_type _diffuse|_metal|_glass|_emit|_blend|_media,
//            _weight, _rough, _metal, _spec, _ior, _att, _flux, _emit, _ldr, _trans, _alpha, _d, ...)
//     MATT   deprecated material: u32 id, u32 type (0 diffuse, 1 metal, 2 glass, 3 emissive), f32 weight,
//            u32 property bits, one f32 per set bit 0..6
//     nTRN   u32 node id, DICT attributes (_name, _hidden), u32 child node id, i32 reserved (-1), i32 layer id,
//            u32 frame count, frame DICTs (_r packed rotation byte as decimal text, _t "x y z", _f frame index)
//     nGRP   u32 node id, DICT attributes, u32 child count, child node ids u32
//     nSHP   u32 node id, DICT attributes, u32 model count (>= 1), (u32 model id, DICT attributes) per model
//     LAYR   i32 layer id, DICT attributes (_name, _hidden), i32 reserved (-1)
//     rOBJ   DICT render settings          rCAM   u32 camera id, DICT camera attributes
//     NOTE   u32 count, count STRINGs (names of the palette's rows)     IMAP   256 u8 palette display order
//   STRING   u32 byte length, bytes (no terminator)        DICT   u32 pair count, (STRING key, STRING value) pairs
// Chunks voxen does not know (rLIT, rAIR, rLEN, POST, rDIS, ...) are skipped by their declared size with a
// warning. See docs/formats/vox.md for voxen's reading rules (frames, hidden nodes, materials).
//
// Errors: read_vox validates everything it reads (sizes against their parent chunk and the file, model sizes,
// voxel positions, dictionary string lengths, rotation bytes, translation text, scene-graph references, cycles)
// and returns an Error whose `offset` is the byte offset of the bad field and whose message names the chunk id,
// the chunk's own offset and what is wrong. It never reads outside `bytes` and allocates at most a small multiple
// of the input size, so any input (fuzzed included) gives a VoxFile or an Error.
// Threads: read_vox is a pure function; a VoxFile is plain data.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "voxen/core/error.h"

namespace voxen::import {

/// Four-character chunk id as the file stores it (first character in the low byte).
constexpr uint32_t chunk_id(char a, char b, char c, char d) {
  return static_cast<uint32_t>(static_cast<uint8_t>(a)) | static_cast<uint32_t>(static_cast<uint8_t>(b)) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(c)) << 16 | static_cast<uint32_t>(static_cast<uint8_t>(d)) << 24;
}
/// Printable name of a chunk id: "nTRN", or "0x........" when a byte is not printable ASCII.
std::string chunk_name(uint32_t id);

/// A palette colour, sRGB bytes.
struct VoxRgba {
  uint8_t r = 0, g = 0, b = 0, a = 0;
  friend bool operator==(const VoxRgba&, const VoxRgba&) = default;
};

/// One voxel of a model: model-local position (MagicaVoxel axes, Z up; each < the model's size) and colour
/// index 1..255 (0 would be empty; the reader keeps such entries and placement skips them with a warning).
struct VoxVoxel {
  uint8_t x = 0, y = 0, z = 0, color = 0;
};

/// A SIZE/XYZI pair. Sizes are 1..256 on each axis.
struct VoxModel {
  uint32_t size_x = 0, size_y = 0, size_z = 0;
  std::vector<VoxVoxel> voxels;  // in file order
  int64_t offset = -1;           // byte offset of the SIZE chunk
};

/// A string dictionary (DICT) in file order.
using VoxDict = std::vector<std::pair<std::string, std::string>>;
/// The value of `key` in a dictionary (first match), or nullptr.
const std::string* dict_find(const VoxDict& dict, std::string_view key);

enum class VoxMaterialType : uint8_t { kDiffuse, kMetal, kGlass, kEmit, kBlend, kMedia };

/// A palette entry's material (MATL, or the older MATT), with the properties voxen uses parsed and every
/// dictionary entry kept. Values are MagicaVoxel's (0..1 for weights; flux is MagicaVoxel's power exponent).
struct VoxMaterial {
  bool present = false;   // a MATL/MATT chunk described this colour index
  VoxMaterialType type = VoxMaterialType::kDiffuse;
  float weight = 1.0f;    // _weight: blend towards the type (MATT weight)
  float emit = 0.0f;      // _emit: emission strength 0..1 (emissive types)
  float flux = 0.0f;      // _flux: emission power exponent 0..4
  float trans = 0.0f;     // _trans, else _alpha, else (_glass only, old files) _weight: transparency 0..1 (glass,
                          // blend); 0 = not given
  float density = 0.05f;  // _d: density of a _media volume (extinction per block); 0.05 when absent
  float rough = 0.0f;     // _rough: roughness 0..1
  float metal = 0.0f;     // _metal: metalness 0..1
  float spec = 0.0f;      // _spec: specular 0..1
  float ior = 0.0f;       // _ior: index of refraction minus 1
  VoxDict properties;     // every MATL dictionary entry, in file order (empty for MATT)
  int64_t offset = -1;    // byte offset of the chunk
};

/// The packed rotation byte of nTRN frames as a signed permutation matrix (rows):
///   bits 0-1 column of row 0's non-zero entry, bits 2-3 column of row 1's, bits 4/5/6 sign of rows 0/1/2
///   (1 = negative); row 2's column is the one left. Maps model-space vectors to parent space: p' = R p.
/// The 48 valid bytes are the 24 rotations and 24 reflections of the cube.
struct VoxRotation {
  std::array<std::array<int8_t, 3>, 3> m{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};

  /// Decodes a rotation byte; nullopt if bit 7 is set, a row index is 3 or both rows use the same column.
  static std::optional<VoxRotation> decode(uint32_t bits);
  /// The packed byte (inverse of decode).
  uint8_t encode() const;
  /// +1 for rotations, -1 for reflections.
  int determinant() const;
  /// Matrix product (this applied after `rhs`).
  VoxRotation operator*(const VoxRotation& rhs) const;
  /// R v for an integer vector.
  std::array<int64_t, 3> apply(const std::array<int64_t, 3>& v) const;
  friend bool operator==(const VoxRotation&, const VoxRotation&) = default;
};

/// One nTRN frame: rotation, translation (MagicaVoxel scene space, Z up) and frame index (_f, 0 if absent).
struct VoxFrame {
  VoxRotation rotation;
  std::array<int32_t, 3> translation{0, 0, 0};
  uint32_t frame_index = 0;
  VoxDict attributes;
};

enum class VoxNodeKind : uint8_t { kTransform, kGroup, kShape };

/// One scene-graph node (nTRN, nGRP or nSHP). Fields not used by the node's kind stay empty.
struct VoxNode {
  VoxNodeKind kind = VoxNodeKind::kTransform;
  uint32_t id = 0;
  VoxDict attributes;
  int64_t offset = -1;               // byte offset of the chunk
  // nTRN
  uint32_t child = 0;
  int64_t child_offset = -1;         // byte offset of the child id field
  int32_t layer = -1;                // -1: no layer
  std::vector<VoxFrame> frames;      // frame 0 (the first listed) is the one voxen places
  std::string name;                  // _name
  bool hidden = false;               // _hidden == "1"
  // nGRP
  std::vector<uint32_t> children;
  int64_t children_offset = -1;      // byte offset of the first child id
  // nSHP: (model id, attributes); the first entry is the one voxen places
  std::vector<std::pair<uint32_t, VoxDict>> models;
  std::vector<int64_t> model_offsets;  // byte offset of each model id field
};

/// A LAYR chunk.
struct VoxLayer {
  int32_t id = 0;
  std::string name;
  bool hidden = false;  // _hidden == "1": instances on this layer are not imported
  VoxDict attributes;
};

/// An rCAM chunk (kept, not used for placement).
struct VoxCamera {
  uint32_t id = 0;
  VoxDict attributes;
};

/// Everything read from a .vox file.
struct VoxFile {
  uint32_t version = 150;
  std::vector<VoxModel> models;                 // SIZE/XYZI pairs in file order; model id = index
  std::array<VoxRgba, 256> palette{};           // by colour index (1..255; [0] is unused)
  bool has_rgba = false;                        // false: the default palette (MagicaVoxel's) is in use
  std::array<VoxMaterial, 256> materials{};     // by colour index
  std::vector<VoxNode> nodes;                   // scene graph, in file order (empty for pre-0.99 files)
  std::vector<VoxLayer> layers;
  std::vector<VoxDict> render_objects;          // rOBJ
  std::vector<VoxCamera> cameras;               // rCAM
  std::vector<std::string> notes;               // NOTE
  std::optional<std::array<uint8_t, 256>> index_map;  // IMAP (display order; does not change colours)
  std::optional<uint32_t> pack_models;          // PACK
  std::vector<Error> warnings;                  // skipped or ignored input, each with file and byte offset

  /// Sum of the XYZI counts of every model.
  uint64_t voxel_count() const;
  /// Index in `nodes` of the node with `id`, or -1.
  int64_t find_node(uint32_t id) const;
  /// The layer with `id`, or nullptr.
  const VoxLayer* find_layer(int32_t id) const;
};

/// MagicaVoxel's default palette (used when a file has no RGBA chunk), by colour index: 1..215 the 6x6x6 cube
/// of 0xFF, 0xCC, 0x99, 0x66, 0x33, 0x00 (blue fastest, then green, then red, descending, black left out),
/// 216..255 ramps of red, green, blue and grey in 0xEE, 0xDD, 0xBB, 0xAA, 0x88, 0x77, 0x55, 0x44, 0x22, 0x11.
/// Entry 0 is transparent black. Source: the default_palette table of the format specification.
const std::array<VoxRgba, 256>& default_palette();

/// Reads and validates a whole .vox file held in memory. `path_for_errors` goes into Error::file (and warnings).
Result<VoxFile> read_vox(std::span<const uint8_t> bytes, const std::string& path_for_errors);
/// Largest .vox file read_vox_file reads, in bytes (1 GiB). The biggest scene the importer places
/// (kMaxSceneVoxels voxels of 4 bytes each) is 128 MiB of XYZI data, so real files stay far below.
inline constexpr uint64_t kMaxVoxFileBytes = uint64_t{1} << 30;

/// Reads a file from disk, then read_vox. Errors (each naming the path): missing or unreadable; not a regular
/// file (a directory, a device such as /dev/zero, a FIFO), checked before reading; larger than kMaxVoxFileBytes;
/// then as read_vox.
Result<VoxFile> read_vox_file(const std::string& path);

}  // namespace voxen::import
