// Placement of an evaluated scene into a World and the colour -> block mapping (rules in vox_place.h).
#include "voxen/import/vox_place.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace voxen::import {
namespace {

std::string hex2(unsigned v) {
  char buf[4];
  std::snprintf(buf, sizeof buf, "%02x", v & 0xFF);
  return buf;
}

bool is_translucent(const VoxMaterial& m) {
  return m.present && (m.type == VoxMaterialType::kGlass || m.type == VoxMaterialType::kBlend);
}

bool is_media(const VoxMaterial& m) { return m.present && m.type == VoxMaterialType::kMedia; }

// What each used colour index (cell_counts > 0) becomes with palette `palette`: a registry cell (a _voxen_block
// material naming one) in cells[i], else the colour block described in defs[i] (vox_block_def; media colours of one
// look share one block of their mean colour, weighted by cells). Unused indices: neither.
struct PaletteBlocks {
  std::array<Cell, 256> cells{};
  std::array<std::optional<BlockDef>, 256> defs;
};

PaletteBlocks palette_blocks(const BlockRegistry& registry, const std::array<VoxRgba, 256>& palette,
                             const std::array<VoxMaterial, 256>& materials, const std::array<uint64_t, 256>& cell_counts) {
  PaletteBlocks out;
  // Media colours of one look (alpha and light opacity) become one block of their mean colour, weighted by
  // cells, so a cloud painted in several shades has no faces inside (translucent blocks of one id hide each
  // other).
  struct MediaGroup {
    MediaLook look;
    uint64_t r = 0, g = 0, b = 0, cells = 0;
    size_t first = 0;  // the first colour index of the group: its material gives the look
  };
  std::vector<MediaGroup> media;
  std::array<size_t, 256> group_of{};
  for (size_t i = 1; i < 256; ++i) {
    if (cell_counts[i] == 0) continue;
    const VoxMaterial& mat = materials[i];
    if (const std::string* named = dict_find(mat.properties, "_voxen_block")) {
      // A block of this registry (never air: a voxel is solid); anything else falls back to a colour block.
      if (auto cell = registry.parse_cell(*named); cell && cell->id != kAirId) {
        out.cells[i] = *cell;
        continue;
      }
    }
    if (is_media(mat)) {
      const MediaLook look = media_look(mat);
      auto g = std::find_if(media.begin(), media.end(), [&](const MediaGroup& m) { return m.look == look; });
      if (g == media.end()) g = media.insert(media.end(), MediaGroup{look, 0, 0, 0, 0, i});
      const VoxRgba& c = palette[i];
      const uint64_t n = cell_counts[i];
      g->r += c.r * n;
      g->g += c.g * n;
      g->b += c.b * n;
      g->cells += n;
      group_of[i] = static_cast<size_t>(g - media.begin());
      continue;
    }
    out.defs[i] = vox_block_def(palette[i], mat);
  }
  for (size_t i = 1; i < 256; ++i) {
    if (cell_counts[i] == 0 || out.cells[i].id != kAirId || out.defs[i]) continue;
    const MediaGroup& g = media[group_of[i]];
    auto mean = [&](uint64_t sum) { return static_cast<uint8_t>((sum + g.cells / 2) / g.cells); };
    out.defs[i] = vox_block_def(VoxRgba{mean(g.r), mean(g.g), mean(g.b), 255}, materials[g.first]);
  }
  return out;
}

}  // namespace

MediaLook media_look(const VoxMaterial& material) {
  float d = material.density;
  if (!(d > 0.0f)) d = 0.0f;  // negative, zero or NaN: no medium
  d = std::min(d, 100.0f);     // and +inf
  MediaLook look;
  look.alpha = static_cast<uint8_t>(
      std::clamp(std::lround(255.0 * (1.0 - std::exp(-kMediaFaceDepth * static_cast<double>(d)))), 16L, 255L));
  look.light_opacity =
      static_cast<uint8_t>(std::clamp(std::lround(static_cast<double>(d) / std::log(1.25)), 0L, 15L));
  return look;
}

BlockDef vox_block_def(const VoxRgba& color, const VoxMaterial& material) {
  BlockDef d;
  d.shape = Shape::kCube;
  d.solid = true;
  uint32_t alpha = 255;
  std::string name = "vox_" + hex2(color.r) + hex2(color.g) + hex2(color.b);
  if (is_media(material)) {
    const MediaLook look = media_look(material);
    alpha = look.alpha;
    d.transparency = Transparency::kTranslucent;
    d.opacity = look.light_opacity;
    d.solid = false;  // fog and cloud: walked through
    static constexpr char kHex[] = "0123456789abcdef";
    name += "_m" + hex2(alpha) + kHex[look.light_opacity];
  } else if (is_translucent(material)) {
    const float t = material.trans > 0.0f ? std::min(material.trans, 1.0f) : 0.5f;
    alpha = static_cast<uint32_t>(std::clamp(std::lround(255.0f * (1.0f - t)), 48L, 255L));
    d.transparency = Transparency::kTranslucent;
    d.opacity = 0;
    name += "_t" + hex2(alpha);
  } else {
    d.transparency = Transparency::kOpaque;
    d.opacity = 15;
  }
  if (material.present && material.type == VoxMaterialType::kEmit) {
    const float flux = std::clamp(material.flux, 0.0f, 8.0f);
    const float strength = std::clamp(material.emit * std::exp2(flux), 0.0f, 1.0f);
    if (strength > 0.0f) {
      const uint8_t rgb[3] = {color.r, color.g, color.b};
      int brightest = 0;
      for (int i = 1; i < 3; ++i)
        if (rgb[i] > rgb[brightest]) brightest = i;
      for (int i = 0; i < 3; ++i)
        d.emission[static_cast<size_t>(i)] =
            static_cast<uint8_t>(std::clamp(std::lround(15.0f * strength * static_cast<float>(rgb[i]) / 255.0f), 0L, 15L));
      if (d.emission[static_cast<size_t>(brightest)] == 0) d.emission[static_cast<size_t>(brightest)] = 1;
      static constexpr char kHex[] = "0123456789abcdef";
      name += "_e";
      for (int i = 0; i < 3; ++i) name += kHex[d.emission[static_cast<size_t>(i)]];
    }
  }
  const uint32_t argb = alpha << 24 | static_cast<uint32_t>(color.r) << 16 | static_cast<uint32_t>(color.g) << 8 |
                        static_cast<uint32_t>(color.b);
  d.face_color.fill(argb);
  d.face_texture.fill(name);
  d.tinted = true;  // drawn flat in its colour, as MagicaVoxel draws palette colours; recoloured by its tint
  d.name = std::move(name);
  return d;
}

Result<std::array<Cell, 256>> register_vox_blocks(BlockRegistry& registry, const VoxFile& file,
                                                  const std::array<uint64_t, 256>& cell_counts) {
  PaletteBlocks blocks = palette_blocks(registry, file.palette, file.materials, cell_counts);
  std::array<Cell, 256>& cells = blocks.cells;
  const std::array<std::optional<BlockDef>, 256>& defs = blocks.defs;  // used colour indices not mapped to a cell
  std::unordered_map<std::string, size_t> planned;  // name -> first colour index adding it
  size_t new_blocks = 0;
  for (size_t i = 1; i < 256; ++i)
    if (defs[i] && !registry.find(defs[i]->name) && planned.emplace(defs[i]->name, i).second) ++new_blocks;
  if (registry.size() + new_blocks > 65535)
    return Error{"the block registry cannot hold " + std::to_string(new_blocks) + " more blocks for the palette (" +
                 std::to_string(registry.size()) + " of 65535 ids in use)"};
  for (size_t i = 1; i < 256; ++i) {  // in colour index order, so the ids do not depend on hashing
    if (!defs[i]) continue;
    auto it = planned.find(defs[i]->name);
    if (it == planned.end() || it->second != i) continue;
    auto id = registry.add(*defs[i]);
    if (!id) return id.error();  // not reached: names were checked free and the id space large enough
  }
  for (size_t i = 1; i < 256; ++i) {
    if (!defs[i]) continue;  // unused, or resolved to a registry cell (never air) above
    auto id = registry.find(defs[i]->name);
    VOXEN_ASSERT(id.has_value());
    cells[i] = Cell{*id, 0};
  }
  return cells;
}

Result<VoxPlacement> plan_vox_placement(const VoxFile& file, const VoxPlaceOptions& options) {
  auto scene = evaluate_scene(file, options.max_voxels);
  if (!scene) return scene.error();
  VoxPlacement p;
  p.scene = std::move(scene).value();
  p.offset = options.origin;
  if (p.empty()) {
    p.min = {0, 0, 0};
    p.max = {-1, -1, -1};
    return p;
  }
  const auto& lo = p.scene.min;
  const auto& hi = p.scene.max;
  // Checked arithmetic: the origin may be anywhere in int64 and the scene reaches +-2^31 from it, so the offset
  // and the bounds are checked against the int64 world before any is used (a scene never wraps across its edge).
  const int64_t origin[3] = {options.origin.x, options.origin.y, options.origin.z};
  static constexpr const char* kAxis[3] = {"x", "y", "z"};
  int64_t offset[3], wmin[3], wmax[3];
  for (size_t a = 0; a < 3; ++a) {
    int64_t shift = 0;  // what the anchor subtracts from the origin
    if (options.anchor == VoxAnchor::kGroundCentre) shift = a == 1 ? lo[1] : floor_div(int64_t{lo[a]} + hi[a], 2);
    if (__builtin_sub_overflow(origin[a], shift, &offset[a]) || __builtin_add_overflow(offset[a], int64_t{lo[a]}, &wmin[a]) ||
        __builtin_add_overflow(offset[a], int64_t{hi[a]}, &wmax[a]))
      return Error{std::string("the scene does not fit the world's ") + kAxis[a] + " range: it is " +
                   std::to_string(int64_t{hi[a]} - lo[a] + 1) + " blocks wide along " + kAxis[a] +
                   " and placed at " + std::to_string(origin[a]) + ", it would reach past the int64 world's edge"};
  }
  p.offset = {offset[0], offset[1], offset[2]};
  p.min = {p.offset.x + lo[0], p.offset.y + lo[1], p.offset.z + lo[2]};
  p.max = {p.offset.x + hi[0], p.offset.y + hi[1], p.offset.z + hi[2]};
  if (!y_in_range(p.min.y) || !y_in_range(p.max.y))
    return Error{"the scene spans world y " + std::to_string(p.min.y) + ".." + std::to_string(p.max.y) + " (" +
                 std::to_string(p.max.y - p.min.y + 1) + " blocks tall); the world holds y " + std::to_string(kMinY) +
                 ".." + std::to_string(kMaxY)};
  return p;
}

std::vector<ColumnPos> placement_columns(const VoxPlacement& placement) {
  std::vector<ColumnPos> cols;
  ColumnPos last{INT64_MIN, INT64_MIN};
  for (const auto& v : placement.scene.voxels) {
    const ColumnPos c{column_of(placement.offset.x + v.x), column_of(placement.offset.z + v.z)};
    if (c == last) continue;
    cols.push_back(c);
    last = c;
  }
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  return cols;
}

Result<VoxImportStats> apply_vox_placement(World& world, BlockRegistry& registry, const VoxFile& file,
                                           const VoxPlacement& placement, bool create_columns) {
  VoxImportStats stats;
  stats.models = file.models.size();
  stats.voxels = file.voxel_count();
  stats.instance_voxels = placement.scene.instance_voxels;
  stats.instances = placement.scene.instances;
  stats.hidden_instances = placement.scene.hidden_instances;
  stats.min = placement.min;
  stats.max = placement.max;
  const auto columns = placement_columns(placement);
  if (!create_columns) {
    for (const ColumnPos& c : columns)
      if (!world.find(c))
        return Error{"column (" + std::to_string(c.x) + ", " + std::to_string(c.z) + ") (world x " +
                     std::to_string(c.min_x()) + ".." + std::to_string(c.min_x() + 15) + ", z " +
                     std::to_string(c.min_z()) + ".." + std::to_string(c.min_z() + 15) +
                     ") under the scene is not loaded"};
  }
  std::array<uint64_t, 256> counts{};
  for (const auto& v : placement.scene.voxels) ++counts[v.color];
  const size_t before = registry.size();
  auto cells = register_vox_blocks(registry, file, counts);
  if (!cells) return cells.error();
  stats.cells = *cells;
  stats.cell_counts = counts;
  stats.blocks_added = static_cast<uint32_t>(registry.size() - before);
  for (const ColumnPos& c : columns)
    if (!world.find(c)) world.insert(std::make_unique<Column>(c));
  Column* col = nullptr;
  ColumnPos col_pos{INT64_MIN, INT64_MIN};
  for (const auto& v : placement.scene.voxels) {
    const BlockPos p{placement.offset.x + v.x, placement.offset.y + v.y, placement.offset.z + v.z};
    const ColumnPos cp = column_pos_of(p);
    if (!(cp == col_pos)) {
      col = world.find(cp);
      col_pos = cp;
    }
    VOXEN_ASSERT(col != nullptr);
    col->set(local_of(p.x), p.y, local_of(p.z), (*cells)[v.color]);
  }
  stats.placed_voxels = placement.scene.voxels.size();
  return stats;
}

std::vector<uint16_t> vox_palette_layers(const BlockRegistry& registry, const std::array<Cell, 256>& cells, uint8_t index) {
  std::vector<uint16_t> layers;
  if (cells[index].id == kAirId) return layers;
  for (const uint16_t layer : registry[cells[index].id].face_texture_index) layers.push_back(layer);
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  return layers;
}

Result<std::vector<VoxLayerTint>> plan_vox_recolour(const BlockRegistry& registry, const VoxFile& file,
                                                     const VoxImportStats& stats, std::span<const VoxRecolour> recolours) {
  const auto entry = [](size_t i) { return "palette index " + std::to_string(i); };
  std::array<VoxRgba, 256> palette = file.palette;
  std::array<bool, 256> recoloured{};
  for (const VoxRecolour& r : recolours) {
    if (r.index == 0) return Error{"palette index 0 is not a colour (the colours are 1..255)"};
    if (recoloured[r.index]) return Error{entry(r.index) + " is recoloured twice"};
    recoloured[r.index] = true;
    if (stats.cell_counts[r.index] == 0 || stats.cells[r.index].id == kAirId)
      return Error{entry(r.index) + " is not used by the scene (no voxel has that colour)"};
    const BlockDef& def = registry[stats.cells[r.index].id];
    if (!def.tinted)
      return Error{entry(r.index) + " is the registry's block '" + def.name +
                   "' (its material's _voxen_block), not a palette colour: it has no tint"};
    palette[r.index].r = r.r;
    palette[r.index].g = r.g;
    palette[r.index].b = r.b;
  }
  // The blocks a fresh import of the recoloured file would make, entry by entry, against what the import made.
  const PaletteBlocks now = palette_blocks(registry, palette, file.materials, stats.cell_counts);
  std::unordered_set<uint16_t> scene_blocks;  // the scene's colour blocks (as imported)
  for (size_t i = 1; i < 256; ++i)
    if (now.defs[i]) scene_blocks.insert(stats.cells[i].id);
  std::unordered_map<uint16_t, size_t> first_of_block;    // imported block id -> its first entry
  std::unordered_map<std::string, size_t> first_of_name;  // new block name -> its first entry
  const auto shares = [&](size_t i) { return is_media(file.materials[i]) ? "one media look" : "the same colour and material"; };
  for (size_t i = 1; i < 256; ++i) {
    if (!now.defs[i]) continue;  // unused, or a registry cell (its material names it: no colour involved)
    const uint16_t id = stats.cells[i].id;
    const BlockDef& was = registry[id];
    const BlockDef& will = *now.defs[i];
    const size_t j = first_of_block.emplace(id, i).first->second;
    if (j != i && now.defs[j]->name != will.name)
      return Error{entry(j) + " and " + entry(i) + " share the block '" + was.name + "' (" + shares(i) +
                   "): recoloured apart they would be two blocks, which is a remesh; give them one colour"};
    const size_t k = first_of_name.emplace(will.name, i).first->second;
    if (k != i && stats.cells[k].id != id) {
      const size_t who = recoloured[i] ? i : k, other = recoloured[i] ? k : i;
      return Error{entry(who) + "'s new colour makes the block '" + will.name + "', which " + entry(other) +
                   " has too: the two blocks would merge into one, which is a remesh"};
    }
    if (auto held = registry.find(will.name); held && !scene_blocks.count(*held))
      return Error{entry(i) + "'s new colour makes the block '" + will.name + "', which the registry already holds (id " +
                   std::to_string(*held) + ") apart from this scene: an import would use that block, which is a remesh"};
    if (will.emission != was.emission)
      return Error{entry(i) + " is an _emit colour whose light follows its colour (block light " +
                   std::to_string(was.emission[0]) + "," + std::to_string(was.emission[1]) + "," +
                   std::to_string(was.emission[2]) + " would become " + std::to_string(will.emission[0]) + "," +
                   std::to_string(will.emission[1]) + "," + std::to_string(will.emission[2]) +
                   "): that is a relight and a remesh, not a tint"};
    if (!was.tinted || will.transparency != was.transparency || will.opacity != was.opacity || will.solid != was.solid ||
        will.shape != was.shape || (will.face_color[0] >> 24) != (was.face_color[0] >> 24))
      return Error{entry(i) + "'s block '" + was.name + "' would change beyond its colour (as '" + will.name +
                   "'): not a tint"};
  }
  // The new colour of each block holding a recoloured entry, on each of its layers.
  std::vector<VoxLayerTint> tints;
  for (size_t i = 1; i < 256; ++i) {
    if (!now.defs[i]) continue;
    bool touched = false;
    for (size_t m = 1; m < 256 && !touched; ++m) touched = recoloured[m] && stats.cells[m].id == stats.cells[i].id;
    if (!touched || first_of_block.at(stats.cells[i].id) != i) continue;
    const uint32_t argb = 0xFF000000u | (now.defs[i]->face_color[0] & 0xFFFFFFu);
    for (const uint16_t layer : vox_palette_layers(registry, stats.cells, static_cast<uint8_t>(i))) tints.push_back({layer, argb});
  }
  std::sort(tints.begin(), tints.end(), [](const VoxLayerTint& a, const VoxLayerTint& b) { return a.layer < b.layer; });
  return tints;
}

Result<VoxImportStats> import_vox_file(World& world, BlockRegistry& registry, const std::string& path,
                                       const VoxPlaceOptions& options) {
  auto file = read_vox_file(path);
  if (!file) return file.error();
  auto placement = plan_vox_placement(*file, options);
  if (!placement) {
    Error e = placement.error();
    if (e.file.empty()) e.file = path;
    return e;
  }
  auto stats = apply_vox_placement(world, registry, *file, *placement, options.create_columns);
  if (!stats) {
    Error e = stats.error();
    if (e.file.empty()) e.file = path;
    return e;
  }
  return stats;
}

}  // namespace voxen::import
