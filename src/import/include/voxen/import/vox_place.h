// Placing an evaluated .vox scene into a voxen World: palette colours become blocks, voxels become cells.
//
// Colours -> blocks. Each colour index the scene uses gets a block registered at runtime with
// BlockRegistry::add (id = next free id), described by vox_block_def():
//   shape cube, face_color = the palette colour (0xAARRGGBB) on every face, texture = the block's own name on
//   every face, tinted (BlockDef::tinted): the renderer paints that texture plain white (alpha: the colour's) and
//   multiplies it by its layer's tint, which starts as the colour, so each imported colour gets its own texture
//   layer (at most 1024 in all, quad.h; BakedBlocks::bake reports more) and a recolour is a write of that tint
//   (plan_vox_recolour below);
//   opaque (opacity 15) unless the material is _glass or _blend: then translucent, opacity 0, and the colour's
//   alpha = round(255 * (1 - transparency)) clamped to 48..255 (transparency = _trans, else _alpha, else for
//   _glass the old files' _weight, else 0.5), so glass stays visible;
//   _media (MagicaVoxel's fog and cloud volumes) is a thin translucent volume: see media_look for its alpha and
//   light opacity; not solid (walked through); and every media colour of one look (alpha, light opacity) used
//   by the scene becomes ONE block whose colour is the mean of those colours weighted by their cells, so a
//   cloud painted in several shades has no faces inside it (the mesher hides faces between translucent blocks
//   of one id) and is drawn as its outer surface;
//   emission (block light, 0..15 per channel) for _emit materials: strength = clamp(_emit * 2^_flux, 0, 1)
//   (_emit defaults to 1 when absent), channel = round(15 * strength * colour channel / 255), at least 1 in the
//   brightest channel when strength > 0. MagicaVoxel's physically based emission has no block-light
//   equivalent; this keeps the hue and makes a full-strength white emitter a level-15 light.
// The block's name encodes exactly those properties: "vox_rrggbb" (opaque), "vox_rrggbb_tAA" (translucent with
// alpha AA), "vox_rrggbb_mAAk" (media: alpha AA, light opacity k, both hex), "vox_rrggbb_eRGB" (emission levels
// as hex digits), e.g. "vox_ffcc00_efc0", "vox_e6e6eb_m540". A name already in the
// registry is reused, so one colour and material always gets the same id within a world (a registry), across
// imports. metal/roughness/specular stay in VoxMaterial (the registry has no fields for them).
// A material whose dictionary has "_voxen_block" = "name[:state]" naming a block of the registry maps to that
// cell instead: files written by write_vox read back to the very cells they were written from.
//
// No partial world: plan_vox_placement computes every cell first and checks the scene fits the world's height;
// apply_vox_placement then checks the columns and the id space before it registers a block or writes a cell.
// Threads: main thread; BlockRegistry::add must not run while other threads read the registry.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/import/vox_file.h"
#include "voxen/import/vox_scene.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::import {

/// A _media block's face seen from outside stands for this many blocks of the medium: the mesher draws a volume
/// of one block id as its outer faces only, so a view ray crosses two faces however deep the cloud is.
inline constexpr double kMediaFaceDepth = 8.0;

/// How a _media colour is drawn and lit, from its density d = _d (extinction per block; 0.05 when absent;
/// negative or NaN is 0, at most 100):
///   alpha = round(255 * (1 - exp(-kMediaFaceDepth * d))) clamped to 16..255: the opacity of 8 blocks of the
///           medium (MagicaVoxel's thin clouds, d 0.03..0.05, give 54..84; d 0.5 and more is nearly opaque);
///   light_opacity = round(d / ln 1.25) clamped to 0..15: one block transmits exp(-d) of the light, and one light
///           level is about a factor 1.25 of brightness near full light (the shader's curve l / (4 - 3 l)), so
///           thin clouds (d below 0.11) let sky and block light through unchanged and d = 1 takes 4 levels.
struct MediaLook {
  uint8_t alpha = 0;
  uint8_t light_opacity = 0;
  friend bool operator==(const MediaLook&, const MediaLook&) = default;
};
MediaLook media_look(const VoxMaterial& material);

/// The block an imported colour index becomes (see above; a _media colour alone, before grouping). `name` is
/// set; `id` is 0 (add() assigns one).
BlockDef vox_block_def(const VoxRgba& color, const VoxMaterial& material);

/// Where the scene goes.
enum class VoxAnchor : uint8_t {
  kScene,         // scene coordinates as they are (voxen axes), plus `origin`
  kGroundCentre,  // the scene's bounds centred on origin.x/origin.z (floor), its lowest cell at origin.y
};

struct VoxPlaceOptions {
  BlockPos origin{0, 0, 0};
  VoxAnchor anchor = VoxAnchor::kScene;
  bool create_columns = true;        // missing columns are created empty (air); false: a missing column is an error
  uint64_t max_voxels = kMaxSceneVoxels;  // cap on voxels placed over all instances (hostile files)
};

/// The placed scene in world coordinates, computed before anything is written.
struct VoxPlacement {
  EvaluatedScene scene;     // cells relative to the scene origin (voxen axes)
  BlockPos offset{};        // world position of scene (0, 0, 0)
  BlockPos min{}, max{};    // inclusive world bounds of the placed cells (min > max when nothing is placed)
  bool empty() const { return scene.voxels.empty(); }
};

/// Evaluates the scene and positions it. Errors: as evaluate_scene; a scene whose cells would fall outside the
/// int64 range in x or z ("the scene does not fit the world's x range", computed without overflow: an origin
/// at the edge of the world does not wrap around); or outside y kMinY..kMaxY (the message gives the scene's
/// height and the y range it would need).
Result<VoxPlacement> plan_vox_placement(const VoxFile& file, const VoxPlaceOptions& options);

/// Columns (sorted) that hold any of the placement's cells: what a caller generates before applying.
std::vector<ColumnPos> placement_columns(const VoxPlacement& placement);

/// What an import did.
struct VoxImportStats {
  uint64_t models = 0;          // SIZE/XYZI pairs in the file
  uint64_t voxels = 0;          // sum of the file's XYZI counts
  uint64_t placed_voxels = 0;   // distinct cells written into the world
  uint64_t instance_voxels = 0; // voxels placed counting every visible instance
  uint32_t instances = 0;       // visible instances
  uint32_t hidden_instances = 0;
  uint32_t blocks_added = 0;    // blocks newly registered for colours
  BlockPos min{}, max{};        // inclusive world bounds of the written cells
  std::array<Cell, 256> cells{};  // the cell each colour index became (air for unused indices)
  std::array<uint64_t, 256> cell_counts{};  // the scene's cells of each colour index (media groups are weighted by them)
};

/// Registers (or finds) the block of every colour index with a non-zero count in `cell_counts` (the scene's
/// cells of each colour index: they weigh the mean colour of media groups); returns the cell per index (air for
/// unused ones). New blocks are added in colour index order. Errors: the id space cannot hold the new blocks
/// (checked before any is added).
Result<std::array<Cell, 256>> register_vox_blocks(BlockRegistry& registry, const VoxFile& file,
                                                  const std::array<uint64_t, 256>& cell_counts);

/// Writes a planned placement into `world`. Errors (nothing changed): a missing column when
/// create_columns is false (named), or the id space full.
Result<VoxImportStats> apply_vox_placement(World& world, BlockRegistry& registry, const VoxFile& file,
                                           const VoxPlacement& placement, bool create_columns);

/// The texture layers (BlockRegistry::textures() indices, ascending, each once) of the block that palette colour
/// `index` (0..255) became in an import, `cells` being that import's VoxImportStats::cells: what the renderer's
/// Renderer::set_layer_tint recolours. Empty for an index the scene does not use (air). The layers are the block's,
/// so every cell of that block in the world shows the tint (another palette index or scene with the same colour and
/// material included).
std::vector<uint16_t> vox_palette_layers(const BlockRegistry& registry, const std::array<Cell, 256>& cells, uint8_t index);

/// A palette entry's new colour (sRGB bytes; the entry's alpha byte and material stay as they are).
struct VoxRecolour {
  uint8_t index = 0;  // 1..255
  uint8_t r = 0, g = 0, b = 0;
};

/// One layer tint to write (Renderer::set_layer_tint): the texture layer and its colour 0xFFRRGGBB.
struct VoxLayerTint {
  uint16_t layer = 0;
  uint32_t argb = 0;
  friend bool operator==(const VoxLayerTint&, const VoxLayerTint&) = default;
};

/// Recolours palette entries of an imported file as tint writes, no remesh: the colour blocks of the file with the
/// entries' new colours are computed exactly as an import computes them (vox_block_def, media groups' mean colours),
/// and the tints returned give every block whose colour changes its new colour (ordered by layer). `file` and
/// `stats` are the import's (`stats.cells` and `stats.cell_counts`), `registry` the one it registered into.
/// The picture then equals a fresh import of the recoloured file, byte for byte, when the scene's colour blocks
/// were added by its own import (as `voxen view` does): each block then keeps its id (ids follow the colour index
/// order of the blocks' first entries) and differs in its colour alone. Errors, naming the entry (nothing to write):
///   an index of 0 or given twice, or one the scene does not use;
///   an entry mapped to a registry block (a `_voxen_block` material): it has no tint;
///   a new colour that changes more than the colour (an _emit material's light levels follow its colour: that
///   needs a relight and a remesh);
///   a change of which entries share a block: entries sharing one (the same colour and material, or one media
///   look) recoloured apart, or a new colour that makes the block of another entry (the two would merge), or a
///   block name the registry already holds for a block that is not one of the scene's colour blocks.
Result<std::vector<VoxLayerTint>> plan_vox_recolour(const BlockRegistry& registry, const VoxFile& file,
                                                     const VoxImportStats& stats, std::span<const VoxRecolour> recolours);

/// read_vox_file + plan_vox_placement + apply_vox_placement.
Result<VoxImportStats> import_vox_file(World& world, BlockRegistry& registry, const std::string& path,
                                       const VoxPlaceOptions& options);

}  // namespace voxen::import
