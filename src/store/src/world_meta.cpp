#include "voxen/store/world_meta.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

namespace voxen::store {
namespace fs = std::filesystem;
namespace {

Error meta_error(const std::string& path, const toml::source_region& where, const std::string& what) {
  Error e{what, path};
  e.line = where.begin.line;
  return e;
}

bool valid_block_name(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

std::map<std::string, uint16_t> registry_table(const BlockRegistry& registry) {
  std::map<std::string, uint16_t> t;
  for (size_t id = 0; id < registry.size(); ++id) {
    const BlockDef& d = registry[static_cast<uint16_t>(id)];
    if (d.defined) t.emplace(d.name, static_cast<uint16_t>(id));
  }
  return t;
}

Result<WorldMeta> parse_meta(std::string_view text, const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& err) {
    return meta_error(path, err.source(), "TOML syntax: " + std::string(err.description()));
  }
  WorldMeta m;
  // The version first: a newer world may have fields this build does not know.
  const toml::node* v = root.get("format_version");
  if (!v) return Error{"field 'format_version' is missing", path};
  auto fv = v->value<int64_t>();
  if (!fv || *fv < 1) return meta_error(path, v->source(), "field 'format_version' must be a positive integer");
  if (*fv > 1000000) return meta_error(path, v->source(), "field 'format_version' is implausibly large");
  m.format_version = static_cast<uint32_t>(*fv);
  if (m.format_version > 1) return m;  // the caller refuses it with a clear message; nothing else is read

  for (auto&& [key, node] : root) {
    const std::string_view k = key.str();
    if (k != "format_version" && k != "kind" && k != "seed" && k != "generator" && k != "registry")
      return meta_error(path, node.source(), "unknown field '" + std::string(k) + "'");
  }
  const toml::node* kind = root.get("kind");
  if (!kind) return Error{"field 'kind' is missing", path};
  const auto ks = kind->value<std::string>();
  if (ks == "generated") m.kind = WorldKind::kGenerated;
  else if (ks == "imported") m.kind = WorldKind::kImported;
  else return meta_error(path, kind->source(), "field 'kind' must be \"generated\" or \"imported\"");

  const toml::node* seed = root.get("seed");
  if (!seed) return Error{"field 'seed' is missing", path};
  const auto ss = seed->value<std::string>();
  bool seed_ok = ss && !ss->empty() && ss->size() <= 20;
  uint64_t sv = 0;
  if (seed_ok)
    for (char c : *ss) {
      if (c < '0' || c > '9') { seed_ok = false; break; }
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (sv > (UINT64_MAX - d) / 10) { seed_ok = false; break; }
      sv = sv * 10 + d;
    }
  if (!seed_ok) return meta_error(path, seed->source(), "field 'seed' must be a decimal string of an unsigned 64-bit integer");
  m.seed = sv;

  if (const toml::node* g = root.get("generator")) {
    const toml::table* gt = g->as_table();
    if (!gt) return meta_error(path, g->source(), "field 'generator' must be a table");
    for (auto&& [key, node] : *gt) {
      if (key.str() == "name") {
        auto n = node.value<std::string>();
        if (!n || n->empty()) return meta_error(path, node.source(), "field 'generator.name' must be a non-empty string");
        m.generator = *n;
      } else if (key.str() == "fingerprint") {
        auto f = node.value<std::string>();
        if (!f) return meta_error(path, node.source(), "field 'generator.fingerprint' must be a string");
        m.generator_fingerprint = *f;
      } else {
        return meta_error(path, node.source(), "unknown field 'generator." + std::string(key.str()) + "'");
      }
    }
  }
  if (m.kind == WorldKind::kGenerated && m.generator.empty())
    return Error{"a generated world needs [generator] name", path};

  const toml::node* r = root.get("registry");
  if (!r) return Error{"table [registry] is missing", path};
  const toml::table* rt = r->as_table();
  if (!rt) return meta_error(path, r->source(), "field 'registry' must be a table of block name = id");
  std::vector<bool> used(65536, false);
  for (auto&& [key, node] : *rt) {
    const std::string name(key.str());
    if (!valid_block_name(name)) return meta_error(path, node.source(), "registry: block name '" + name + "' is not [a-z0-9_]+");
    auto id = node.value<int64_t>();
    if (!id || *id < 0 || *id > 65534) return meta_error(path, node.source(), "registry: id of '" + name + "' must be an integer 0-65534");
    if (used[static_cast<size_t>(*id)]) return meta_error(path, node.source(), "registry: id " + std::to_string(*id) + " is given twice");
    used[static_cast<size_t>(*id)] = true;
    m.registry.emplace(name, static_cast<uint16_t>(*id));
  }
  if (auto air = m.registry.find("air"); air == m.registry.end() || air->second != 0)
    return meta_error(path, r->source(), "registry: 'air' must have id 0");
  return m;
}

Result<WorldMeta> read_meta(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{"cannot read", file.string()};
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_meta(ss.str(), file.string());
}

std::string format_meta(const WorldMeta& m) {
  std::ostringstream o;
  o << "# A voxen world (byte formats: docs/formats/world_store_v1.md). Block ids in [registry] are the ids the\n"
       "# records in db/ use; never renumber them by hand.\n";
  o << "format_version = " << m.format_version << "\n";
  o << "kind = \"" << (m.kind == WorldKind::kGenerated ? "generated" : "imported") << "\"\n";
  o << "seed = \"" << m.seed << "\"\n";
  if (!m.generator.empty()) {
    o << "\n[generator]\nname = \"" << m.generator << "\"\n";
    if (!m.generator_fingerprint.empty()) o << "fingerprint = \"" << m.generator_fingerprint << "\"\n";
  }
  std::vector<std::pair<uint16_t, std::string>> by_id;
  for (const auto& [name, id] : m.registry) by_id.emplace_back(id, name);
  std::sort(by_id.begin(), by_id.end());
  o << "\n[registry]\n";
  for (const auto& [id, name] : by_id) o << name << " = " << id << "\n";
  return o.str();
}

Status write_meta(const fs::path& file, const WorldMeta& meta) {
  const std::string text = format_meta(meta);
  const fs::path tmp = file.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{"cannot write", tmp.string()};
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      ::close(fd);
      return Error{"cannot write", tmp.string()};
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return Error{"cannot fsync", tmp.string()};
  }
  ::close(fd);
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) return Error{"cannot rename over: " + ec.message(), file.string()};
  if (const int dfd = ::open(file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Ok{};
}

// ---- IdRemap ---------------------------------------------------------------------------------------------------

IdRemap::IdRemap(const std::map<std::string, uint16_t>& saved, const BlockRegistry& registry, uint16_t unknown_id)
    : m_registry(&registry), m_unknown(unknown_id) {
  uint32_t max_saved = 0;
  for (const auto& [name, id] : saved) max_saved = std::max<uint32_t>(max_saved, id);
  m_to_current.assign(max_saved + 1, unknown_id);
  m_missing.assign(max_saved + 1, true);
  m_saved_names.assign(max_saved + 1, std::string());
  m_to_saved.assign(registry.size(), kNone);
  for (const auto& [name, id] : saved) {
    m_saved_names[id] = name;
    if (auto cur = registry.find(name)) {
      m_to_current[id] = *cur;
      m_missing[id] = false;
      m_to_saved[*cur] = id;
    } else {
      m_missing_names.push_back(name);
    }
  }
  std::sort(m_missing_names.begin(), m_missing_names.end());
  recompute_identity();
}

void IdRemap::recompute_identity() {
  m_identity = true;
  for (size_t id = 0; id < m_to_current.size() && m_identity; ++id)
    if (!m_missing[id] && m_to_current[id] != id) m_identity = false;
  for (size_t id = 0; id < m_to_current.size() && m_identity; ++id)
    if (m_missing[id] && !m_saved_names[id].empty()) m_identity = false;
  // Registry ids the table lacks are not a translation, they are just unsaved yet (add() handles them).
}

uint16_t IdRemap::add(uint16_t current_id, std::map<std::string, uint16_t>& table) {
  if (current_id < m_to_saved.size() && m_to_saved[current_id] != kNone) return m_to_saved[current_id];
  const std::string& name = (*m_registry)[current_id].name;
  uint16_t id = current_id;
  const bool free = id >= m_saved_names.size() || m_saved_names[id].empty();
  if (!free) id = static_cast<uint16_t>(m_saved_names.size());
  VOXEN_ASSERT(id < kNone);
  if (id >= m_saved_names.size()) {
    m_saved_names.resize(static_cast<size_t>(id) + 1);
    m_to_current.resize(static_cast<size_t>(id) + 1, m_unknown);
    m_missing.resize(static_cast<size_t>(id) + 1, true);
  }
  m_saved_names[id] = name;
  m_to_current[id] = current_id;
  m_missing[id] = false;
  if (current_id >= m_to_saved.size()) m_to_saved.resize(static_cast<size_t>(current_id) + 1, kNone);
  m_to_saved[current_id] = id;
  table[name] = id;
  recompute_identity();
  return id;
}

std::string IdRemap::saved_name(uint16_t saved_id) const {
  if (saved_id < m_saved_names.size() && !m_saved_names[saved_id].empty()) return m_saved_names[saved_id];
  return "id " + std::to_string(saved_id);
}

}  // namespace voxen::store
