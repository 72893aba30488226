#include "world_open.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "cli_util.h"

namespace voxen::app {

void WorldDirFlag::add_to(CLI::App& cmd) {
  cmd.add_option("--world", dir,
                 "saved world directory: opened (it keeps its own seed) or, if missing or empty and --seed is given, "
                 "created; edits are saved to it")
      // An empty name would read as "no --world" and the edits would silently go unsaved.
      ->check([](const std::string& v) { return v.empty() ? std::string("must name a directory (got an empty string)") : std::string(); });
  seed_option = cmd.get_option_no_throw("--seed");
  generator_option = cmd.get_option_no_throw("--generator");
}

void EditFlag::add_to(CLI::App& cmd) {
  cmd.add_option("--edit", values,
                 "X,Y,Z=NAME[:STATE]: place a block over the world before the command's work (repeatable, applied in "
                 "order; saved to the world with --world)");
}

std::vector<EditSpec> EditFlag::parse(const BlockRegistry& registry) const {
  std::vector<EditSpec> out;
  out.reserve(values.size());
  for (const auto& e : values) {
    const auto eq = e.find('=');
    if (eq == std::string::npos) throw UsageError("--edit", "malformed edit '" + e + "' (expected X,Y,Z=NAME[:STATE])");
    const auto p = parse_block_pos(std::string_view(e).substr(0, eq));
    if (!p) throw UsageError("--edit", p.error().message);
    auto cell = registry.parse_cell(std::string_view(e).substr(eq + 1));
    if (!cell) throw UsageError("--edit", cell.error().message);
    out.push_back({*p, *cell});
  }
  return out;
}

CommandWorld::CommandWorld(std::unique_ptr<gen::Generator> generator) : m_generator(std::move(generator)) {
  VOXEN_ASSERT(m_generator != nullptr);
  m_seed = m_generator->seed();
}

CommandWorld::CommandWorld(const WorldDirFlag& dir, const WorldFlags& flags, const BlockRegistry& registry) {
  if (!dir.given()) {
    m_generator = make_generator_or_throw(flags, registry);
    m_seed = flags.seed;
    return;
  }
  store::OpenOptions o;
  o.dir = dir.dir;
  if (dir.seed_given()) o.create_seed = flags.seed;
  o.create_generator = flags.generator;
  std::shared_ptr<gen::Generator>& keep = m_generator;
  auto factory = [&registry, &keep](const std::string& name, uint64_t seed) -> Result<store::GenerateFn> {
    auto g = gen::make_generator(name, seed, registry);
    if (!g) return g.error();
    keep = std::move(g).value();
    std::shared_ptr<gen::Generator> shared = keep;
    return store::GenerateFn([shared](Column& c) { shared->generate(c); });
  };
  auto s = store::WorldSession::open(o, registry, factory);
  if (!s) throw RunError(s.error().to_string());
  m_session = std::move(s).value();
  m_seed = m_session->meta().seed;
  if (dir.seed_given() && flags.seed != m_seed)
    std::fprintf(stderr, "voxen: warning: world %s has seed %llu; --seed %llu is ignored\n", dir.dir.c_str(),
                 static_cast<unsigned long long>(m_seed), static_cast<unsigned long long>(flags.seed));
  if (dir.generator_given() && m_session->generated() && flags.generator != m_session->meta().generator)
    std::fprintf(stderr, "voxen: warning: world %s uses generator '%s'; --generator %s is ignored\n", dir.dir.c_str(),
                 m_session->meta().generator.c_str(), flags.generator.c_str());
}

CommandWorld::~CommandWorld() {
  if (m_session) {
    if (Status s = m_session->close(); !s.ok()) std::fprintf(stderr, "voxen: error: saving the world: %s\n", s.error().to_string().c_str());
  }
}

std::string CommandWorld::generator_name() const {
  return m_generator ? std::string(m_generator->name()) : std::string("none (imported world)");
}

void CommandWorld::add_edits(const std::vector<EditSpec>& edits) { m_pending.insert(m_pending.end(), edits.begin(), edits.end()); }

void CommandWorld::apply_pending(const std::vector<ColumnPos>& loaded) {
  if (m_pending.empty()) return;
  const std::unordered_set<ColumnPos, ColumnPosHash> now(loaded.begin(), loaded.end());
  std::vector<EditSpec> rest;
  for (const EditSpec& e : m_pending) {
    if (!now.count(column_pos_of(e.pos))) {
      rest.push_back(e);
      continue;
    }
    auto edit = world().make_edit(e.pos, e.cell);
    VOXEN_ASSERT(edit.has_value());  // the column was just loaded and y was validated by EditFlag::parse
    apply(*edit);
  }
  m_pending = std::move(rest);
}

void CommandWorld::load(const std::vector<ColumnPos>& positions, JobPool* pool, int64_t center_x, int64_t center_z) {
  load_columns(positions, pool, center_x, center_z);
  apply_pending(positions);
}

void CommandWorld::load_columns(const std::vector<ColumnPos>& positions, JobPool* pool, int64_t center_x, int64_t center_z) {
  if (m_session) {
    // Nearest the centre first: load() schedules by distance from its first column.
    std::vector<ColumnPos> ordered = positions;
    const ColumnPos c{column_of(center_x), column_of(center_z)};
    std::stable_sort(ordered.begin(), ordered.end(), [c](const ColumnPos& a, const ColumnPos& b) {
      return (a.x - c.x) * (a.x - c.x) + (a.z - c.z) * (a.z - c.z) < (b.x - c.x) * (b.x - c.x) + (b.z - c.z) * (b.z - c.z);
    });
    auto r = m_session->load(ordered, pool);
    if (!r) throw RunError("loading columns: " + r.error().to_string());
    return;
  }
  std::vector<ColumnPos> missing;
  for (const ColumnPos& p : positions)
    if (!m_world.find(p)) missing.push_back(p);
  for (auto& col : gen::generate_columns(*m_generator, missing, pool, center_x, center_z)) m_world.insert(std::move(col));
}

bool CommandWorld::apply(const Edit& edit, const store::WorldSession::ApplyFn& how) {
  if (m_session) return m_session->apply(edit, how);
  return how ? how(m_world, edit) : m_world.apply(edit);
}

void CommandWorld::unload(ColumnPos pos) {
  if (m_session) {
    if (Status s = m_session->unload(pos); !s.ok()) throw RunError("saving the world: " + s.error().to_string());
    return;
  }
  m_world.remove(pos);
}

void CommandWorld::close() {
  if (!m_session) {
    m_pending.clear();
    return;
  }
  if (!m_pending.empty()) {
    // Edits in columns the command never loaded: load those columns, place the edits, and let unload() queue them
    // for saving (never lit: nothing is shown from them).
    std::vector<ColumnPos> columns;
    for (const EditSpec& e : m_pending) columns.push_back(column_pos_of(e.pos));
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    load(columns, nullptr, m_pending.front().pos.x, m_pending.front().pos.z);
    for (const ColumnPos& c : columns) unload(c);
  }
  Status s = m_session->close();
  if (!s.ok()) throw RunError("saving the world: " + s.error().to_string());
}

}  // namespace voxen::app
