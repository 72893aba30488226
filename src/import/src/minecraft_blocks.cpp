#include "voxen/import/minecraft_blocks.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "voxen/world/toml_text.h"

namespace voxen::import {
namespace {

constexpr std::string_view kNamespace = "minecraft:";

std::string_view strip_namespace(std::string_view name) {
  return name.substr(0, kNamespace.size()) == kNamespace ? name.substr(kNamespace.size()) : name;
}

Error node_error(const std::string& path, const toml::node& node, std::string message) {
  Error e;
  e.file = path;
  e.line = node.source().begin.line;
  e.message = std::move(message);
  return e;
}

}  // namespace

std::string_view MinecraftBlockState::property(std::string_view key) const {
  for (const auto& [k, v] : properties)
    if (k == key) return v;
  return {};
}

std::string MinecraftBlockState::canonical() const {
  std::string s = name;
  if (properties.empty()) return s;
  std::vector<const std::pair<std::string, std::string>*> sorted;
  for (const auto& p : properties) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  s += '[';
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i) s += ',';
    s.append(sorted[i]->first).append("=").append(sorted[i]->second);
  }
  s += ']';
  return s;
}

std::string MinecraftBlockState::key() const {
  std::vector<const std::pair<std::string, std::string>*> sorted;
  for (const auto& p : properties) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return *a < *b; });
  std::string k;
  auto field = [&k](const std::string& v) {
    const uint32_t n = static_cast<uint32_t>(v.size());
    k.append(reinterpret_cast<const char*>(&n), sizeof n).append(v);
  };
  field(name);
  for (const auto* p : sorted) {
    field(p->first);
    field(p->second);
  }
  return k;
}

Result<MinecraftBlockMap> MinecraftBlockMap::load(const std::string& path, const BlockRegistry& registry) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open the Minecraft block mapping", path};
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path, registry);
}

Result<MinecraftBlockMap> MinecraftBlockMap::load_default(const BlockRegistry& registry) {
  if (const char* dir = std::getenv("VOXEN_DATA_DIR"); dir && *dir)
    return load(std::string(dir) + "/minecraft_blocks.toml", registry);
#ifdef VOXEN_DATA_DIR
  {
    const std::string compiled = std::string(VOXEN_DATA_DIR) + "/minecraft_blocks.toml";
    if (std::ifstream(compiled).good()) return load(compiled, registry);
  }
#endif
  return load("data/minecraft_blocks.toml", registry);
}

Result<MinecraftBlockMap> MinecraftBlockMap::parse(std::string_view text, const std::string& path,
                                                   const BlockRegistry& registry) {
  auto parsed = parse_toml_text(text, path);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;
  MinecraftBlockMap m;
  m.m_registry = &registry;
  const auto unknown = registry.find("unknown");
  const auto water = registry.find("water");
  if (!unknown || !water) return Error{"the block registry lacks 'unknown' or 'water', which the mapping needs", path};
  m.m_unknown = *unknown;
  m.m_water = *water;

  for (auto&& [key, node] : root) {
    if (key.str() != "blocks" && key.str() != "map_colors")
      return node_error(path, node, std::string("unknown table '").append(key.str()).append("' (expected [blocks] and [map_colors])"));
    if (!node.is_table()) return node_error(path, node, std::string("'").append(key.str()).append("' must be a table"));
  }
  auto block_id = [&](const toml::node& node, std::string_view name, const std::string& what) -> Result<uint16_t> {
    auto id = registry.find(name);
    if (!id) return node_error(path, node, what + ": no block '" + std::string(name) + "' in the registry");
    return *id;
  };
  if (const toml::table* blocks = root["blocks"].as_table()) {
    for (auto&& [key, node] : *blocks) {
      const std::string name(strip_namespace(key.str()));
      const std::string what = "[blocks] " + name;
      Target t;
      if (auto s = node.value<std::string>()) {
        auto id = block_id(node, *s, what);
        if (!id) return id.error();
        t.id = *id;
      } else if (const toml::table* tt = node.as_table()) {
        for (auto&& [k, v] : *tt)
          if (k.str() != "block" && k.str() != "double")
            return node_error(path, v, what + ": unknown key '" + std::string(k.str()) + "' (expected block, double)");
        auto b = (*tt)["block"].value<std::string>();
        if (!b) return node_error(path, node, what + ": needs block = \"<voxen block>\"");
        auto id = block_id(node, *b, what);
        if (!id) return id.error();
        t.id = *id;
        if (auto d = (*tt)["double"].value<std::string>()) {
          auto did = block_id(node, *d, what + " double");
          if (!did) return did.error();
          t.double_id = *did;
          t.has_double = true;
        } else if ((*tt).contains("double")) {
          return node_error(path, node, what + ": double must be a block name");
        }
      } else {
        return node_error(path, node, what + ": must be a block name or { block = ..., double = ... }");
      }
      m.m_blocks[name] = t;
    }
  }
  if (const toml::table* colours = root["map_colors"].as_table()) {
    for (auto&& [key, node] : *colours) {
      const std::string name(strip_namespace(key.str()));
      auto c = node.value<std::string>();
      if (!c) return node_error(path, node, "[map_colors] " + name + ": must be a map colour name");
      auto id = block_id(node, "map_" + *c, "[map_colors] " + name);
      if (!id) return id.error();
      m.m_map_colour[name] = *id;
    }
  }
  return m;
}

bool MinecraftBlockMap::has_block(std::string_view name) const {
  return m_blocks.count(std::string(strip_namespace(name))) > 0;
}

MinecraftBlockMap::Mapping MinecraftBlockMap::map(const MinecraftBlockState& s) const {
  const bool vanilla = s.name.compare(0, kNamespace.size(), kNamespace) == 0 || s.name.find(':') == std::string::npos;
  const std::string name(strip_namespace(s.name));
  const auto it = vanilla ? m_blocks.find(name) : m_blocks.end();
  if (it == m_blocks.end()) {
    const auto c = vanilla ? m_map_colour.find(name) : m_map_colour.end();
    return {Cell{c != m_map_colour.end() ? c->second : m_unknown, 0}, true};
  }
  const Target& t = it->second;
  const std::string_view type = s.property("type");
  uint16_t id = t.id;
  if (t.has_double && type == "double") id = t.double_id;
  const BlockDef& def = (*m_registry)[id];
  if (s.property("waterlogged") == "true" && !def.solid && def.shape != Shape::kFluid) return {Cell{m_water, 0}, false};
  uint8_t st = 0;
  if (def.states & kStateAxis) {
    const std::string_view a = s.property("axis");
    st |= state::make_axis(a == "x" ? 1 : a == "z" ? 2 : 0);
  }
  if (def.states & kStateFacing) {
    const std::string_view f = s.property("facing");
    st |= static_cast<uint8_t>(f == "east" ? state::kEast : f == "south" ? state::kSouth : f == "west" ? state::kWest : state::kNorth);
  }
  if ((def.states & kStateHalf) && (s.property("half") == "top" || type == "top")) st |= state::kHalfBit;
  if (def.states & kStateLevel) {
    int level = 0;
    for (char ch : s.property("level"))
      if (ch >= '0' && ch <= '9') level = std::min(level * 10 + (ch - '0'), 15);
    st |= state::make_fluid(level & 7, level >= 8);
  }
  return {Cell{id, static_cast<uint8_t>(st & def.state_mask)}, false};
}

}  // namespace voxen::import
