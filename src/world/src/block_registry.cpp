#include "voxen/world/block_registry.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "voxen/world/toml_text.h"

namespace voxen {
namespace {

constexpr std::array<std::string_view, 6> kFaceSuffix = {"side", "side", "top", "bottom", "side", "side"};

Error field_error(const std::string& path, const toml::node& node, const std::string& block, std::string_view field,
                  const std::string& what) {
  Error e;
  e.file = path;
  e.line = node.source().begin.line;
  e.message = "block '" + block + "': field '" + std::string(field) + "' " + what;
  return e;
}

bool valid_name(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::optional<uint32_t> parse_color(std::string_view s) {
  if (s.size() != 7 && s.size() != 9) return std::nullopt;
  if (s[0] != '#') return std::nullopt;
  uint32_t v = 0;
  for (size_t i = 1; i < s.size(); ++i) {
    const char c = s[i];
    uint32_t d;
    if (c >= '0' && c <= '9') d = static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f') d = static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = static_cast<uint32_t>(c - 'A' + 10);
    else return std::nullopt;
    v = v << 4 | d;
  }
  if (s.size() == 7) v |= 0xFF000000u;  // #RRGGBB is opaque
  else v = (v >> 8) | (v << 24);        // #RRGGBBAA -> 0xAARRGGBB
  return v;
}

/// A quench product named by a fluid, resolved after the whole file is read (it may name a later block).
struct QuenchName {
  uint16_t block = 0;  // the fluid's id
  std::string field;   // "source", "flowing" or "below"
  std::string name;    // the product's block name
  int line = 0;
};

/// An optional integer field in [lo, hi]; false (with `err` set) when present and not such an integer.
bool int_field(const std::string& path, const toml::table& t, const std::string& block, std::string_view field, int lo,
               int hi, uint8_t& out, Error& err) {
  const toml::node* n = t.get(field);
  if (!n) return true;
  auto v = n->value<int64_t>();
  if (!v || *v < lo || *v > hi) {
    err = field_error(path, *n, block, field, "must be an integer " + std::to_string(lo) + "-" + std::to_string(hi));
    return false;
  }
  out = static_cast<uint8_t>(*v);
  return true;
}

/// The simulation's fields (physics, flow_*, renews, quench, life), checked against the block's shape and states.
Status parse_physics(const std::string& path, const toml::table& t, BlockDef& def, std::vector<QuenchName>& quench) {
  const toml::node* n = t.get("physics");
  if (n) {
    auto v = n->value<std::string>();
    if (v == "fluid") def.physics = Physics::kFluid;
    else if (v == "granular") def.physics = Physics::kGranular;
    else if (v == "gas") def.physics = Physics::kGas;
    else return field_error(path, *n, def.name, "physics", "must be \"fluid\", \"granular\" or \"gas\"");
    if (def.physics == Physics::kFluid &&
        (def.shape != Shape::kFluid || (def.states & (kStateLevel | kStateFalling)) != (kStateLevel | kStateFalling)))
      return field_error(path, *n, def.name, "physics", "\"fluid\" needs shape \"fluid\" and states level and falling");
    if (def.physics == Physics::kGas && def.states != kStateAge)
      return field_error(path, *n, def.name, "physics", "\"gas\" needs states [\"age\"]");
  }
  const bool fluid = def.physics == Physics::kFluid;
  for (std::string_view f : {"flow_drop", "flow_every", "flow_slope", "renews", "quench"}) {
    if (const toml::node* m = t.get(f); m && !fluid) return field_error(path, *m, def.name, f, "is for physics = \"fluid\" only");
  }
  if (const toml::node* m = t.get("life"); m && def.physics != Physics::kGas)
    return field_error(path, *m, def.name, "life", "is for physics = \"gas\" only");
  Error err{""};
  if (!int_field(path, t, def.name, "flow_drop", 1, 7, def.fluid.drop, err) ||
      !int_field(path, t, def.name, "flow_every", 1, 20, def.fluid.every, err) ||
      !int_field(path, t, def.name, "flow_slope", 0, 8, def.fluid.slope, err) ||
      !int_field(path, t, def.name, "life", 1, 255, def.life, err))
    return err;
  if (def.physics == Physics::kGas && def.life == 0)
    return field_error(path, *n, def.name, "life", "is missing (a gas must dissipate)");
  if (const toml::node* m = t.get("renews")) {
    auto v = m->value<bool>();
    if (!v) return field_error(path, *m, def.name, "renews", "must be true or false");
    def.fluid.renews = *v;
  }
  if (const toml::node* m = t.get("quench")) {
    const toml::table* q = m->as_table();
    if (!q) return field_error(path, *m, def.name, "quench", "must be a table { source = .., flowing = .., below = .. }");
    for (auto&& [k, v] : *q) {
      const std::string key(k.str());
      auto name = v.value<std::string>();
      if (key != "source" && key != "flowing" && key != "below")
        return field_error(path, v, def.name, "quench." + key, "is not a quench field (source, flowing, below)");
      if (!name || !valid_name(*name)) return field_error(path, v, def.name, "quench." + key, "must be a block name");
      quench.push_back(QuenchName{def.id, key, *name, static_cast<int>(v.source().begin.line)});
    }
  }
  return Ok{};
}

uint8_t state_mask_of(uint8_t kinds) {
  uint8_t m = 0;
  if (kinds & kStateFacing) m |= state::kFacingMask;
  if (kinds & kStateHalf) m |= state::kHalfBit;
  if (kinds & kStateAxis) m |= state::kAxisMask;
  if (kinds & kStateLevel) m |= state::kLevelMask;
  if (kinds & kStateFalling) m |= state::kFallingBit;
  if (kinds & kStateAge) m |= state::kAgeMask;
  return m;
}

}  // namespace

uint16_t BlockRegistry::texture_index(const std::string& name) {
  auto it = m_texture_index.find(name);
  if (it != m_texture_index.end()) return it->second;
  const auto idx = static_cast<uint16_t>(m_textures.size());
  m_textures.push_back(name);
  m_texture_index.emplace(name, idx);
  return idx;
}

Result<BlockRegistry> BlockRegistry::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open block registry file", path};
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

Result<BlockRegistry> BlockRegistry::load_default() {
  if (const char* dir = std::getenv("VOXEN_DATA_DIR"); dir && *dir) return load(std::string(dir) + "/blocks.toml");
#ifdef VOXEN_DATA_DIR
  {
    const std::string compiled = std::string(VOXEN_DATA_DIR) + "/blocks.toml";
    if (std::ifstream(compiled).good()) return load(compiled);
  }
#endif
  return load("data/blocks.toml");
}

Result<BlockRegistry> BlockRegistry::parse(std::string_view text, const std::string& path) {
  auto parsed = parse_toml_text(text, path);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;

  BlockRegistry reg;
  for (auto&& [key, node] : root) {
    if (key.str() != "block") {
      Error e{"unknown top-level key '" + std::string(key.str()) + "' (expected [[block]] tables)", path};
      e.line = node.source().begin.line;
      return e;
    }
  }
  const toml::array* blocks = root["block"].as_array();
  if (!blocks) return Error{"no [[block]] tables", path};
  std::vector<QuenchName> quench_names;

  for (const toml::node& bnode : *blocks) {
    const toml::table* t = bnode.as_table();
    if (!t) {
      Error e{"each 'block' entry must be a table", path};
      e.line = bnode.source().begin.line;
      return e;
    }
    BlockDef def;
    // name first, so later errors can name the block.
    const toml::node* name_node = t->get("name");
    if (!name_node) {
      Error e{"block without field 'name'", path};
      e.line = t->source().begin.line;
      return e;
    }
    if (auto s = name_node->value<std::string>(); s && valid_name(*s)) {
      def.name = *s;
    } else {
      return field_error(path, *name_node, "?", "name", "must be a string of [a-z0-9_]");
    }

    static const std::array<std::string_view, 24> kKnown = {
        "name", "id", "opacity", "transparency", "shape", "emission", "color", "color_top", "color_side",
        "color_bottom", "texture", "texture_top", "texture_side", "texture_bottom", "states", "solid",
        "physics", "flow_drop", "flow_every", "flow_slope", "renews", "quench", "life", ""};
    for (auto&& [k, v] : *t) {
      bool known = false;
      for (auto kk : kKnown) known |= (!kk.empty() && kk == k.str());
      if (!known) return field_error(path, v, def.name, k.str(), "is not a known block field");
    }

    const toml::node* id_node = t->get("id");
    if (!id_node) return field_error(path, *t, def.name, "id", "is missing");
    auto idv = id_node->value<int64_t>();
    if (!idv || *idv < 0 || *idv > 65535) return field_error(path, *id_node, def.name, "id", "must be an integer 0-65535");
    def.id = static_cast<uint16_t>(*idv);

    if (const toml::node* n = t->get("opacity")) {
      auto v = n->value<int64_t>();
      if (!v || *v < 0 || *v > 15) return field_error(path, *n, def.name, "opacity", "must be an integer 0-15");
      def.opacity = static_cast<uint8_t>(*v);
    } else {
      return field_error(path, *t, def.name, "opacity", "is missing");
    }

    if (const toml::node* n = t->get("transparency")) {
      auto v = n->value<std::string>();
      if (v == "opaque") def.transparency = Transparency::kOpaque;
      else if (v == "cutout") def.transparency = Transparency::kCutout;
      else if (v == "translucent") def.transparency = Transparency::kTranslucent;
      else return field_error(path, *n, def.name, "transparency", "must be \"opaque\", \"cutout\" or \"translucent\"");
    } else {
      return field_error(path, *t, def.name, "transparency", "is missing");
    }

    if (const toml::node* n = t->get("shape")) {
      auto v = n->value<std::string>();
      if (v == "none") def.shape = Shape::kNone;
      else if (v == "cube") def.shape = Shape::kCube;
      else if (v == "slab") def.shape = Shape::kSlab;
      else if (v == "stairs") def.shape = Shape::kStairs;
      else if (v == "slope") def.shape = Shape::kSlope;
      else if (v == "cross") def.shape = Shape::kCross;
      else if (v == "fluid") def.shape = Shape::kFluid;
      else return field_error(path, *n, def.name, "shape", "must be one of none, cube, slab, stairs, slope, cross, fluid");
    } else {
      return field_error(path, *t, def.name, "shape", "is missing");
    }

    if (const toml::node* n = t->get("emission")) {
      const toml::array* a = n->as_array();
      if (!a || a->size() != 3) return field_error(path, *n, def.name, "emission", "must be an array [r, g, b]");
      for (size_t i = 0; i < 3; ++i) {
        auto v = (*a)[i].value<int64_t>();
        if (!v || *v < 0 || *v > 15) return field_error(path, (*a)[i], def.name, "emission", "values must be integers 0-15");
        def.emission[i] = static_cast<uint8_t>(*v);
      }
    }

    // Colours: 'color' for all faces, then per-face overrides.
    uint32_t all_color = 0xFFFF00FFu;  // magenta: visibly "no colour given"
    if (const toml::node* n = t->get("color")) {
      auto c = n->value<std::string>();
      auto v = c ? parse_color(*c) : std::nullopt;
      if (!v) return field_error(path, *n, def.name, "color", "must be \"#RRGGBB\" or \"#RRGGBBAA\"");
      all_color = *v;
    }
    def.face_color.fill(all_color);
    for (std::string_view which : {"top", "side", "bottom"}) {
      const std::string key = "color_" + std::string(which);
      if (const toml::node* n = t->get(key)) {
        auto c = n->value<std::string>();
        auto v = c ? parse_color(*c) : std::nullopt;
        if (!v) return field_error(path, *n, def.name, key, "must be \"#RRGGBB\" or \"#RRGGBBAA\"");
        for (int f = 0; f < 6; ++f)
          if (kFaceSuffix[static_cast<size_t>(f)] == which) def.face_color[static_cast<size_t>(f)] = *v;
      }
    }

    std::string all_tex = def.name;
    if (const toml::node* n = t->get("texture")) {
      auto v = n->value<std::string>();
      if (!v || !valid_name(*v)) return field_error(path, *n, def.name, "texture", "must be a name of [a-z0-9_]");
      all_tex = *v;
    }
    def.face_texture.fill(all_tex);
    for (std::string_view which : {"top", "side", "bottom"}) {
      const std::string key = "texture_" + std::string(which);
      if (const toml::node* n = t->get(key)) {
        auto v = n->value<std::string>();
        if (!v || !valid_name(*v)) return field_error(path, *n, def.name, key, "must be a name of [a-z0-9_]");
        for (int f = 0; f < 6; ++f)
          if (kFaceSuffix[static_cast<size_t>(f)] == which) def.face_texture[static_cast<size_t>(f)] = *v;
      }
    }

    if (const toml::node* n = t->get("states")) {
      const toml::array* a = n->as_array();
      if (!a) return field_error(path, *n, def.name, "states", "must be an array of names");
      for (const toml::node& s : *a) {
        auto v = s.value<std::string>();
        if (v == "facing") def.states |= kStateFacing;
        else if (v == "half") def.states |= kStateHalf;
        else if (v == "axis") def.states |= kStateAxis;
        else if (v == "level") def.states |= kStateLevel;
        else if (v == "falling") def.states |= kStateFalling;
        else if (v == "age") def.states |= kStateAge;
        else return field_error(path, s, def.name, "states", "entries must be facing, half, axis, level, falling or age");
      }
      if ((def.states & kStateAge) && def.states != kStateAge)
        return field_error(path, *n, def.name, "states", "\"age\" takes the whole state byte and cannot be combined");
    }
    def.state_mask = state_mask_of(def.states);

    def.solid = !(def.shape == Shape::kNone || def.shape == Shape::kFluid || def.shape == Shape::kCross);
    if (const toml::node* n = t->get("solid")) {
      auto v = n->value<bool>();
      if (!v) return field_error(path, *n, def.name, "solid", "must be true or false");
      def.solid = *v;
    }

    if (Status p = parse_physics(path, *t, def, quench_names); !p.ok()) return p.error();

    if (def.id == 0 && (def.name != "air" || def.shape != Shape::kNone))
      return field_error(path, *id_node, def.name, "id", "0 is reserved for \"air\" with shape \"none\"");
    if (def.name == "air" && def.id != 0) return field_error(path, *id_node, def.name, "id", "of \"air\" must be 0");
    if (reg.m_by_name.count(def.name)) return field_error(path, *name_node, def.name, "name", "is a duplicate");
    if (def.id < reg.m_blocks.size() && reg.m_blocks[def.id].defined)
      return field_error(path, *id_node, def.name, "id",
                         "duplicates the id of '" + reg.m_blocks[def.id].name + "' (" + std::to_string(def.id) + ")");

    auto added = reg.add(std::move(def));
    if (!added) return added.error();
  }
  if (!reg.find("air")) return Error{"no block named \"air\" (id 0)", path};
  // Quench products name blocks anywhere in the file: resolved once every block is known.
  for (const QuenchName& q : quench_names) {
    auto id = reg.find(q.name);
    if (!id) {
      Error e{"block '" + reg[q.block].name + "': field 'quench." + q.field + "' names an unknown block '" + q.name + "'", path};
      e.line = q.line;
      return e;
    }
    FluidDef& f = reg.m_blocks[q.block].fluid;
    (q.field == "source" ? f.quench_source : q.field == "flowing" ? f.quench_flowing : f.quench_below) = *id;
  }
  return reg;
}

Result<uint16_t> BlockRegistry::add(BlockDef def) {
  if (m_by_name.count(def.name)) return Error{"block '" + def.name + "' already exists"};
  if (def.id == 0 && def.name != "air") {
    // Runtime additions (imports) without an explicit id take the next free one.
    def.id = static_cast<uint16_t>(m_blocks.size());
    if (m_blocks.size() >= 65535) return Error{"block id space is full (65535 ids)"};
  }
  if (def.id >= m_blocks.size()) m_blocks.resize(static_cast<size_t>(def.id) + 1);
  if (m_blocks[def.id].defined) return Error{"block id " + std::to_string(def.id) + " is already used"};
  for (size_t f = 0; f < 6; ++f) def.face_texture_index[f] = texture_index(def.face_texture[f]);
  def.defined = true;
  const uint16_t id = def.id;
  m_by_name.emplace(def.name, id);
  m_blocks[id] = std::move(def);
  return id;
}

std::optional<uint16_t> BlockRegistry::find(std::string_view name) const {
  auto it = m_by_name.find(std::string(name));
  if (it == m_by_name.end()) return std::nullopt;
  return it->second;
}

uint16_t BlockRegistry::id(std::string_view name) const {
  auto v = find(name);
  if (!v) {
    std::fprintf(stderr, "block registry: required block '%.*s' is missing\n", static_cast<int>(name.size()), name.data());
    std::abort();
  }
  return *v;
}

Result<Cell> BlockRegistry::parse_cell(std::string_view text) const {
  std::string_view name = text;
  int state = 0;
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    name = text.substr(0, colon);
    std::string_view st = text.substr(colon + 1);
    if (st.empty() || st.size() > 3) return Error{"bad block state '" + std::string(st) + "' (expected 0-255)"};
    for (char c : st) {
      if (c < '0' || c > '9') return Error{"bad block state '" + std::string(st) + "' (expected 0-255)"};
      state = state * 10 + (c - '0');
    }
    if (state > 255) return Error{"bad block state '" + std::string(st) + "' (expected 0-255)"};
  }
  auto id = find(name);
  if (!id) return Error{"unknown block name '" + std::string(name) + "'"};
  const BlockDef& def = (*this)[*id];
  if ((state & ~def.state_mask) != 0)
    return Error{"block state " + std::to_string(state) + " sets bits block '" + def.name + "' does not use (mask " +
                 std::to_string(def.state_mask) + ")"};
  return Cell{*id, static_cast<uint8_t>(state)};
}

}  // namespace voxen
