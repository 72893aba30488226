#include "voxen/store/world_meta.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "bytes.h"

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
       "# world's records use; never renumber them by hand.\n";
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

Status write_meta(const fs::path& file, const WorldMeta& meta) { return write_meta_text(file, format_meta(meta)); }

Status write_meta_text(const fs::path& file, std::string_view text) {
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

// ---- the database's copy ---------------------------------------------------------------------------------------

std::string encode_meta_record(const WorldMeta& m) {
  std::string out;
  detail::put_u8(out, m.kind == WorldKind::kGenerated ? 0 : 1);
  detail::put_u64(out, m.seed);
  detail::put_varint(out, m.generator.size());
  out += m.generator;
  std::vector<std::pair<uint16_t, std::string>> by_id;
  for (const auto& [name, id] : m.registry) by_id.emplace_back(id, name);
  std::sort(by_id.begin(), by_id.end());
  detail::put_varint(out, by_id.size());
  for (const auto& [id, name] : by_id) {
    detail::put_varint(out, name.size());
    out += name;
    detail::put_u16(out, id);
  }
  return out;
}

Result<WorldMeta> decode_meta_record(std::string_view in) {
  detail::ByteReader r(in);
  auto bad = [&](const std::string& what, size_t offset) { return Error{"metadata copy: " + what + " at byte " + std::to_string(offset)}; };
  WorldMeta m;
  const uint8_t kind = r.u8();
  if (r.ok() && kind > 1) return bad("kind " + std::to_string(kind) + " (0 generated, 1 imported)", 0);
  m.kind = kind == 0 ? WorldKind::kGenerated : WorldKind::kImported;
  m.seed = r.u64();
  const size_t gen_at = r.pos();
  const uint64_t gen_len = r.varint();
  if (r.ok() && gen_len > 255) return bad("generator name of " + std::to_string(gen_len) + " bytes", gen_at);
  m.generator = std::string(r.bytes(static_cast<size_t>(gen_len)));
  const size_t n_at = r.pos();
  const uint64_t n = r.varint();
  if (r.ok() && n > 65535) return bad(std::to_string(n) + " registry entries", n_at);
  std::vector<bool> used(65536, false);
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    const size_t at = r.pos();
    const uint64_t len = r.varint();
    if (r.ok() && len > 255) return bad("block name of " + std::to_string(len) + " bytes", at);
    const std::string name(r.bytes(static_cast<size_t>(len)));
    const uint16_t id = r.u16();
    if (!r.ok()) break;
    if (!valid_block_name(name)) return bad("block name '" + name + "' is not [a-z0-9_]+", at);
    if (id == 0xFFFF) return bad("id 65535 of '" + name + "'", at);
    if (used[id]) return bad("id " + std::to_string(id) + " is given twice", at);
    if (!m.registry.emplace(name, id).second) return bad("block '" + name + "' is given twice", at);
    used[id] = true;
  }
  if (!r.ok()) return bad("truncated", r.fail_offset());
  if (r.remaining()) return bad(std::to_string(r.remaining()) + " trailing bytes", r.pos());
  if (auto air = m.registry.find("air"); air == m.registry.end() || air->second != 0) return bad("'air' must have id 0", 0);
  return m;
}

namespace {

std::string kind_name(WorldKind k) { return k == WorldKind::kGenerated ? "\"generated\"" : "\"imported\""; }

}  // namespace

MetaComparison compare_meta(const WorldMeta& file, const WorldMeta& copy) {
  MetaComparison c;
  c.merged = copy;
  c.merged.format_version = file.format_version;
  c.merged.generator_fingerprint.clear();  // voxen.toml's, below, when it is the same generator
  if (file.kind != copy.kind)
    c.differences.push_back("kind is " + kind_name(file.kind) + " in voxen.toml and " + kind_name(copy.kind) + " in the database");
  if (file.seed != copy.seed)
    c.differences.push_back("seed is " + std::to_string(file.seed) + " in voxen.toml and " + std::to_string(copy.seed) + " in the database");
  if (file.generator != copy.generator)
    c.differences.push_back("generator is '" + file.generator + "' in voxen.toml and '" + copy.generator + "' in the database");
  else
    c.merged.generator_fingerprint = file.generator_fingerprint;
  std::map<uint16_t, std::string> copy_by_id;
  for (const auto& [name, id] : copy.registry) {
    copy_by_id.emplace(id, name);
    auto f = file.registry.find(name);
    if (f == file.registry.end())
      c.differences.push_back("block '" + name + "' is missing in voxen.toml and " + std::to_string(id) + " in the database");
    else if (f->second != id)
      c.differences.push_back("block '" + name + "' is " + std::to_string(f->second) + " in voxen.toml and " + std::to_string(id) +
                              " in the database");
  }
  for (const auto& [name, id] : file.registry) {
    if (copy.registry.count(name)) continue;
    // The copy gives that id to another block, whose own entry differs in voxen.toml (voxen.toml names each id
    // once), already listed above; this name was never used by a record, so it is dropped.
    if (copy_by_id.count(id)) continue;
    c.merged.registry.emplace(name, id);
    c.copy_outdated = true;
  }
  return c;
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
