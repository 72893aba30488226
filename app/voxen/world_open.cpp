#include "world_open.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "cli_util.h"
#include "voxen/store/pg_store.h"
#include "voxen/store/world_copy.h"

namespace voxen::app {

std::string WorldDirFlag::display() const { return store::world_display(dir); }

void WorldDirFlag::add_to(CLI::App& cmd) {
  cmd.add_option("--world", dir,
                 "saved world: a directory, or a world in PostgreSQL (postgresql://USER@HOST[:PORT]/DB?world=NAME); "
                 "opened (it keeps its own seed) or, if missing and --seed is given, created; edits are saved to it")
      ->check(world_location_check);
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

CommandWorld::CommandWorld(std::unique_ptr<gen::Generator> base, std::vector<std::unique_ptr<Column>> prepared)
    : m_generator(std::move(base)) {
  m_seed = m_generator ? m_generator->seed() : 0;
  m_prepared = std::make_unique<stream::PreparedSource>(std::move(prepared), m_generator.get());
  m_source = m_prepared.get();
}

CommandWorld::CommandWorld(const WorldDirFlag& dir, const WorldFlags& flags, const BlockRegistry& registry) {
  if (!dir.given()) {
    m_generator = make_generator_or_throw(flags, registry);
    m_seed = flags.seed;
    m_generated = std::make_unique<stream::GeneratedSource>(*m_generator);
    m_source = m_generated.get();
    return;
  }
  store::OpenOptions o;
  o.dir = dir.dir;
  if (dir.seed_given()) o.create_seed = flags.seed;
  o.create_generator = flags.generator;
  auto s = stream::SavedWorld::open(o, registry);
  if (!s) throw RunError(s.error().to_string());
  m_saved = std::move(s).value();
  m_source = m_saved.get();
  const store::WorldSession& session = m_saved->session();
  m_seed = session.meta().seed;
  if (!session.generated()) {
    // An imported world (voxen import-anvil) has no seed or generator to keep.
    if (dir.seed_given() || dir.generator_given())
      std::fprintf(stderr, "voxen: warning: world %s is an imported world (no generator); --seed and --generator are ignored\n",
                   dir.display().c_str());
    return;
  }
  if (dir.seed_given() && flags.seed != m_seed)
    std::fprintf(stderr, "voxen: warning: world %s has seed %llu; --seed %llu is ignored\n", dir.display().c_str(),
                 static_cast<unsigned long long>(m_seed), static_cast<unsigned long long>(flags.seed));
  if (dir.generator_given() && flags.generator != session.meta().generator)
    std::fprintf(stderr, "voxen: warning: world %s uses generator '%s'; --generator %s is ignored\n", dir.display().c_str(),
                 session.meta().generator.c_str(), flags.generator.c_str());
}

CommandWorld::~CommandWorld() = default;  // an unclosed SavedWorld closes itself, errors on stderr

std::string CommandWorld::generator_name() const {
  return generator() ? std::string(generator()->name()) : std::string("none (imported world)");
}

void CommandWorld::add_edits(const std::vector<EditSpec>& edits) { m_source->add_edits(edits); }

void CommandWorld::load(const std::vector<ColumnPos>& positions, JobPool* pool, int64_t center_x, int64_t center_z) {
  // Nearest the centre first.
  std::vector<ColumnPos> missing;
  for (const ColumnPos& p : positions)
    if (!m_world.find(p)) missing.push_back(p);
  const ColumnPos c{column_of(center_x), column_of(center_z)};
  std::stable_sort(missing.begin(), missing.end(), [c](const ColumnPos& a, const ColumnPos& b) {
    return (a.x - c.x) * (a.x - c.x) + (a.z - c.z) * (a.z - c.z) < (b.x - c.x) * (b.x - c.x) + (b.z - c.z) * (b.z - c.z);
  });
  auto r = m_source->load(missing, pool, center_x, center_z);
  if (!r) throw RunError("loading columns: " + r.error().to_string());
  for (auto& col : *r) m_world.insert(std::move(col));
}

bool CommandWorld::apply(const Edit& edit, const ApplyFn& how) {
  if (!(how ? how(m_world, edit) : m_world.apply(edit))) return false;
  m_source->record(edit, *m_world.find(column_pos_of(edit.pos)));
  return true;
}

void CommandWorld::unload(ColumnPos pos) {
  if (Status s = m_source->unload(m_world.remove(pos)); !s.ok()) throw RunError("saving the world: " + s.error().to_string());
}

void CommandWorld::close() {
  if (!m_saved) return;  // an unsaved world: pending edits are dropped with the source
  Status s = m_saved->close();
  if (!s.ok()) throw RunError("saving the world: " + s.error().to_string());
}

}  // namespace voxen::app
