// The block registry: every block type's properties, loaded at start from a data file (data/blocks.toml).
//
// After godot_voxel's blocky_baked_library split: load() parses and validates the editable file once; the
// result is an immutable, flat table indexed by block id (BlockDef per id) that meshing, lighting and
// generation threads read without locks. Ids are given in the file and stable once given; id 0 is air.
//
// File format (TOML), one [[block]] table per block:
//   [[block]]
//   name = "torch"              # unique, [a-z0-9_]+
//   id = 29                     # unique, 0..65535; 0 must be "air"
//   opacity = 0                 # 0..15: light lost passing into this cell on top of 1 per step (15 = opaque)
//   transparency = "cutout"     # "opaque" | "cutout" (alpha-tested, e.g. leaves) | "translucent" (blended)
//   shape = "cross"             # "cube" | "slab" | "stairs" | "slope" | "cross" | "fluid" | "none" (air)
//   emission = [14, 12, 8]      # block light emitted, red green blue, 0..15 each (optional, default 0)
//   color = "#ffd080"           # all faces; or color_top / color_side / color_bottom (optional)
//   texture = "torch"           # all faces; or texture_top / texture_side / texture_bottom
//   states = ["facing", "half"] # state bits used: "facing", "half", "axis", "level", "falling", "age" (optional;
//                               # "age" takes the whole state byte and goes alone)
//   solid = true                # collides with the player (optional: default true unless fluid/cross/air)
//   physics = "fluid"           # moved by the simulation (src/sim): "fluid" (shape fluid, states level + falling),
//                               # "granular" (falls), "gas" (states ["age"]: rises, spreads, dissipates) (optional)
//   flow_drop = 1               # fluid: levels lost per block of sideways flow, 1..7 (default 1)
//   flow_every = 1              # fluid: it moves on ticks that are multiples of this, 1..20 (default 1)
//   flow_slope = 4              # fluid: how far sideways it looks for a drop to flow towards, 0..8 (default 4)
//   renews = true               # fluid: a cell beside two sources, on solid ground or a source, becomes one
//   quench = { source = "obsidian", flowing = "cobblestone", below = "stone" }
//                               # fluid: what it turns into where another fluid (one without quench) touches it from
//                               # above or the side, as a source or flowing; and what that other fluid turns into
//                               # right under it (block names; each optional)
//   life = 100                  # gas: ticks before a cell of it dissipates, 1..255
// Errors name the file, the line and the field (toml++ keeps each node's source position).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/world/cell.h"

namespace voxen {

enum class Transparency : uint8_t { kOpaque, kCutout, kTranslucent };
enum class Shape : uint8_t { kNone, kCube, kSlab, kStairs, kSlope, kCross, kFluid };

/// The one direction enum, used everywhere (light, meshing, textures, picking): the six faces of a cell, world axes
/// (X east, Y up, Z south), in the order +X, -X, +Y (top), -Y (bottom), +Z, -Z. A face names the direction out of
/// the cell through it, so the neighbour across kFacePosX is at x + 1.
enum Face : uint8_t { kFacePosX = 0, kFaceNegX = 1, kFacePosY = 2, kFaceNegY = 3, kFacePosZ = 4, kFaceNegZ = 5 };
/// The face on the other side of the shared plane: +X <-> -X, +Y <-> -Y, +Z <-> -Z.
constexpr Face opposite(Face f) { return static_cast<Face>(f ^ 1); }
/// The unit step {dx, dy, dz} out of each face, in blocks.
inline constexpr int kFaceStep[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
/// The four horizontal faces (towards the neighbouring columns) in Face order: +X, -X, +Z, -Z.
inline constexpr Face kHorizontalFaces[4] = {kFacePosX, kFaceNegX, kFacePosZ, kFaceNegZ};

/// State bits a block may use (BlockDef::state_mask is the OR of the bits they cover in Cell::state).
enum StateKind : uint8_t {
  kStateFacing = 1, kStateHalf = 2, kStateAxis = 4, kStateLevel = 8, kStateFalling = 16, kStateAge = 32
};

/// How the simulation (src/sim) moves a block: not at all, as a fluid (levels, flow), as a granular block (falls)
/// or as a gas (rises, spreads under ceilings, dissipates).
enum class Physics : uint8_t { kNone, kFluid, kGranular, kGas };

/// A fluid's flow parameters (BlockDef::fluid; meaningful when physics is kFluid). After Minecraft's and Luanti's
/// fluids: water drops 1 level a block, looks 4 blocks for a drop and renews; lava drops 2, looks 2 and moves every
/// 3rd tick.
struct FluidDef {
  uint8_t drop = 1;    // levels lost per block of sideways flow, 1..7
  uint8_t every = 1;   // moves on ticks that are multiples of this, 1..20
  uint8_t slope = 4;   // blocks it looks sideways for a drop, 0..8
  bool renews = false; // a cell between two of its sources (on solid ground or a source) becomes a source
  uint16_t quench_source = 0;   // what a source of it becomes where another fluid touches it (0: nothing happens)
  uint16_t quench_flowing = 0;  // what a flowing cell of it becomes there
  uint16_t quench_below = 0;    // what another fluid's cell right under it becomes
};

/// One block type's properties, plain data. Colours are 0xAARRGGBB (sRGB).
struct BlockDef {
  std::string name;
  uint16_t id = 0;
  uint8_t opacity = 0;                      // 0..15
  Transparency transparency = Transparency::kOpaque;
  Shape shape = Shape::kNone;
  std::array<uint8_t, 3> emission{};        // red, green, blue block light, 0..15
  std::array<uint32_t, 6> face_color{};     // per Face (0xAARRGGBB)
  std::array<std::string, 6> face_texture;  // per Face, texture names
  std::array<uint16_t, 6> face_texture_index{};  // per Face, index into BlockRegistry::textures()
  uint8_t states = 0;                       // OR of StateKind
  uint8_t state_mask = 0;                   // bits of Cell::state this block may set
  bool solid = false;                       // collides with the player
  Physics physics = Physics::kNone;         // how the simulation moves it
  FluidDef fluid;                           // physics == kFluid: its flow
  uint8_t life = 0;                         // physics == kGas: ticks a cell lasts, 1..255
  /// Drawn as a plain white texture (alpha: the face colour's) times its texture layer's tint on the GPU, which the
  /// renderer starts at face_color's rgb (render::Renderer::set_layer_tint): recolouring the block is then one
  /// texel write, no remesh. Set for .vox palette colour blocks (import::vox_block_def: MagicaVoxel draws palette
  /// colours flat); the registry file cannot set it (added at runtime only).
  bool tinted = false;
  bool defined = false;                     // false for ids the file leaves unused

  bool is_air() const { return shape == Shape::kNone; }
  bool emits() const { return emission[0] | emission[1] | emission[2]; }
  /// True if the block fills its cell and hides neighbours' faces (opaque full cube).
  bool is_opaque_cube() const { return transparency == Transparency::kOpaque && shape == Shape::kCube; }
};

class BlockRegistry {
 public:
  /// Parses and validates a registry file. Errors: unreadable file, TOML syntax, unknown or missing field,
  /// bad value, duplicate name or id, id 0 not "air": each names the file, line and field.
  static Result<BlockRegistry> load(const std::string& path);
  /// Same, from text (path is used in error messages only).
  static Result<BlockRegistry> parse(std::string_view text, const std::string& path);
  /// Loads the default registry: $VOXEN_DATA_DIR/blocks.toml if that variable is set, else the source tree's
  /// data/blocks.toml (compiled in), else data/blocks.toml next to the executable's working directory.
  static Result<BlockRegistry> load_default();

  /// Block by id; ids past the table or unused return the air definition's shape with defined == false.
  const BlockDef& operator[](uint16_t id) const { return id < m_blocks.size() ? m_blocks[id] : m_undefined; }
  /// Id of a named block, if any.
  std::optional<uint16_t> find(std::string_view name) const;
  /// Id of a named block; aborts if missing (for names the engine itself relies on, e.g. "stone").
  uint16_t id(std::string_view name) const;
  /// One past the highest id in use.
  size_t size() const { return m_blocks.size(); }
  /// Names of all textures referenced, index = BlockDef::face_texture_index.
  const std::vector<std::string>& textures() const { return m_textures; }
  /// Parses "name" or "name:state" into a cell; errors name the unknown block or bad state.
  Result<Cell> parse_cell(std::string_view text) const;

  /// Adds a block at runtime (imports give palette colours blocks). Returns the new id; errors on a duplicate
  /// name or a full id space.
  Result<uint16_t> add(BlockDef def);

 private:
  std::vector<BlockDef> m_blocks;
  std::unordered_map<std::string, uint16_t> m_by_name;
  std::vector<std::string> m_textures;
  std::unordered_map<std::string, uint16_t> m_texture_index;
  BlockDef m_undefined;
  uint16_t texture_index(const std::string& name);
};

}  // namespace voxen
