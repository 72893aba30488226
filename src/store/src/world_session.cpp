#include "voxen/store/world_session.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <tuple>
#include <set>

#include "column_journal.h"
#include "world_home.h"
#include "log.h"
#include "voxen/core/hash.h"
#include "voxen/store/pg_store.h"
#include "voxen/store/rocks_store.h"

namespace voxen::store {
namespace fs = std::filesystem;

struct WorldSession::ColumnState {
  enum class Phase { kLoading, kLoaded } phase = Phase::kLoading;
  uint32_t dirty = 0;              // bit s: section s changed since the last commit
  uint64_t ticket = 0;             // the last batch that holds records of this column (0: none this session)
  detail::ColumnJournal journal;   // generated worlds
  // Imported worlds: sections whose saved cells include blocks the registry lacks, in saved ids, so that saving
  // such a section again keeps the original ids of the cells still shown as "unknown".
  std::array<std::unique_ptr<Section>, kSectionsPerColumn> saved_missing;
  // Imported worlds: the cells of each section changed since the last commit, as the owner's record() gave them.
  std::array<std::unique_ptr<Section>, kSectionsPerColumn> edited;
};

namespace {


/// What loading one column found, gathered off the session's lock.
struct LoadedColumn {
  struct Corrupt {
    int section;
    std::string message;
    std::string value;
  };
  std::vector<Corrupt> corrupt;
  std::vector<std::tuple<int, uint16_t, Cell, Cell>> journal;  // section, index, generated, saved
  std::array<std::unique_ptr<Section>, kSectionsPerColumn> saved_missing;
  std::map<std::string, uint64_t> unknown;
  size_t records = 0;
};

}  // namespace

WorldSession::WorldSession(const BlockRegistry& registry, WorldMeta meta, IdRemap remap)
    : m_registry(registry), m_meta(std::move(meta)), m_remap(std::move(remap)) {}

WorldSession::~WorldSession() {
  if (Status s = close(); !s.ok()) detail::log().error("closing world: {}", s.error().to_string());
}

namespace {

/// The key of the world's one simulation-state record: kind 'p', column (0, 0), section 0.
RecordKey sim_state_key() { return RecordKey{RecordKind::kSimulation, SectionPos{0, 0, 0}}; }
RecordKey creature_state_key() { return RecordKey{RecordKind::kCreatures, SectionPos{0, 0, 0}}; }

/// The sealed metadata copy of `meta` (payload 6), as the store keeps it.
std::string seal_meta(const WorldMeta& meta) { return seal(PayloadKind::kMeta, encode_meta_record(meta)); }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

/// The store's metadata copy, decoded; nullopt when it has none. Errors: the store cannot read it, or it is damaged.
Result<std::optional<WorldMeta>> read_meta_copy(WorldStore& store) {
  auto copy = store.get_meta_record();
  if (!copy) return copy.error();
  if (!*copy) return std::optional<WorldMeta>{};
  auto payload = unseal(**copy, PayloadKind::kMeta);
  auto decoded = payload ? decode_meta_record(*payload) : Result<WorldMeta>(payload.error());
  if (!decoded)
    return Error{"the database's copy of the world's metadata (kind, seed, generator, block ids) is damaged (" +
                 decoded.error().to_string() + "), so voxen.toml cannot be checked against it"};
  return std::optional<WorldMeta>{std::move(decoded).value()};
}

/// What check_meta_copy found.
struct MetaCheck {
  WorldMeta meta;        // the metadata to use
  bool recovered = false;  // voxen.toml differed and was rewritten from the copy (meta is the copy's)
  bool started = false;    // the database had no copy (an older voxen's world) and now has one
  std::string warning;   // one line for the user when recovered
};

/// Compares voxen.toml's metadata (`file`) with the database's copy and settles them: no copy, one is written; a
/// copy that lacks ids voxen.toml added (the table grew, the copy was not yet written), the copy is rewritten; a
/// difference, voxen.toml is kept aside and rewritten with the copy's values, and the warning names each field
/// with both values. Errors: the copy cannot be read or is damaged, voxen.toml or the copy cannot be rewritten.
Result<MetaCheck> check_meta_copy(WorldStore& store, const WorldMeta& file, const std::function<Result<std::string>()>& keep_aside,
                                  const std::function<Status(const WorldMeta&)>& rewrite, bool sync) {
  MetaCheck out;
  out.meta = file;
  auto copy = read_meta_copy(store);
  if (!copy) return copy.error();
  bool put = !*copy;
  out.started = put;
  if (*copy) {
    MetaComparison cmp = compare_meta(file, **copy);
    put = cmp.copy_outdated;
    out.meta = std::move(cmp.merged);
    if (!cmp.differences.empty()) {
      auto kept = keep_aside();
      if (!kept) return Error{"voxen.toml does not match the database (" + join(cmp.differences, ", ") + ") and " + kept.error().message};
      if (Status w = rewrite(out.meta); !w.ok())
        return Error{"voxen.toml does not match the database (" + join(cmp.differences, ", ") + ") and cannot be rewritten: " +
                     w.error().to_string()};
      out.recovered = true;
      out.warning = "voxen.toml does not match the metadata its database was written with: " + join(cmp.differences, ", ") +
                    "; the database's values are used and voxen.toml is rewritten with them (the old file is kept as " +
                    *kept + ")";
    }
  }
  if (put) {
    if (Status w = store.put_meta_record(seal_meta(out.meta), sync); !w.ok())
      return Error{"cannot record the metadata in the database: " + w.error().to_string()};
  }
  return out;
}

/// The metadata of a world `o` creates (its kind, seed, generator and fingerprint, the registry's id table); errors
/// name `where` (the generator cannot be made).
Result<WorldMeta> new_world_meta(const OpenOptions& o, const BlockRegistry& registry, const GeneratorFingerprint& fingerprint,
                                 const std::string& where) {
  WorldMeta meta;
  meta.format_version = kFormatVersion;
  meta.kind = o.create_kind;
  meta.seed = *o.create_seed;
  meta.registry = registry_table(registry);
  if (meta.kind == WorldKind::kGenerated) {
    meta.generator = o.create_generator;
    auto fp = fingerprint(meta.generator, meta.seed);
    if (!fp) return Error{"world " + where + ": " + fp.error().to_string()};
    meta.generator_fingerprint = *fp;
  }
  return meta;
}

/// The "unknown" block's id, or an error when the world needs it and the registry lacks it.
Result<uint16_t> unknown_block(const std::map<std::string, uint16_t>& saved, const BlockRegistry& registry) {
  std::vector<std::string> missing;
  for (const auto& [name, id] : saved)
    if (!registry.find(name)) missing.push_back(name);
  if (auto u = registry.find("unknown")) return *u;
  if (missing.empty()) return uint16_t{0};
  std::string names;
  for (const auto& n : missing) names += (names.empty() ? "" : ", ") + n;
  return Error{"the world uses blocks the registry lacks (" + names + ") and the registry has no 'unknown' block to show them"};
}

/// The checks an existing world's metadata text must pass before its store is used: a format version this build
/// reads, the 'unknown' block when the world needs it, a generator that can be made. Returns the generator's
/// fingerprint now (empty for imported worlds). Errors name `where`.
Result<std::string> check_opened_meta(const WorldMeta& meta, const BlockRegistry& registry, const GeneratorFingerprint& fingerprint,
                                      const std::string& where) {
  if (meta.format_version > kFormatVersion)
    return Error{"world " + where + " has format version " + std::to_string(meta.format_version) +
                 ", newer than this build reads (" + std::to_string(kFormatVersion) + "); it was written by a newer voxen"};
  auto unknown = unknown_block(meta.registry, registry);
  if (!unknown) return Error{"world " + where + ": " + unknown.error().to_string()};
  if (meta.kind != WorldKind::kGenerated) return std::string();
  auto fp = fingerprint(meta.generator, meta.seed);
  if (!fp) return Error{"world " + where + ": " + fp.error().to_string()};
  return std::move(fp).value();
}

}  // namespace

Result<std::unique_ptr<WorldSession>> WorldSession::attach(WorldStore& store, WorldMeta meta, const BlockRegistry& registry,
                                                           bool sync) {
  if (meta.format_version > kFormatVersion)
    return Error{"world format version " + std::to_string(meta.format_version) + " is newer than this build reads (" +
                 std::to_string(kFormatVersion) + ")"};
  if (meta.registry.empty()) meta.registry = registry_table(registry);
  // The store's metadata copy must agree with the metadata given (no voxen.toml to rewrite here: a mismatch is an
  // error); a store without one gets it.
  auto copy = read_meta_copy(store);
  if (!copy) return copy.error();
  if (*copy) {
    MetaComparison cmp = compare_meta(meta, **copy);
    if (!cmp.differences.empty())
      return Error{"the store's metadata copy differs from the metadata given: " + join(cmp.differences, ", ")};
    if (cmp.copy_outdated) meta = cmp.merged;
  }
  if (!*copy || meta.registry != (*copy)->registry) {
    if (Status w = store.put_meta_record(seal_meta(meta), sync); !w.ok()) return w.error();
  }
  auto unknown = unknown_block(meta.registry, registry);
  if (!unknown) return unknown.error();
  IdRemap remap(meta.registry, registry, *unknown);
  std::unique_ptr<WorldSession> s(new WorldSession(registry, std::move(meta), std::move(remap)));
  if (Status st = s->start(store, sync); !st.ok()) return st.error();
  return s;
}

Result<std::unique_ptr<WorldSession>> WorldSession::open(const OpenOptions& o, const BlockRegistry& registry,
                                                         const GeneratorFingerprint& fingerprint) {
  if (is_database_url(o.dir.string())) return open_database(o, registry, fingerprint);
  fs::path dir = o.dir.lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "w/" names the folder w
  const std::string where = o.dir.string();
  std::error_code ec;
  const bool exists = fs::exists(dir, ec);
  if (exists && !fs::is_directory(dir, ec)) return Error{where + " is not a directory (a world is a directory)"};
  const bool has_meta = exists && fs::exists(dir / detail::kMetaFile, ec);
  const bool empty = !exists || fs::is_empty(dir, ec);

  if (!has_meta) {
    if (!empty) return Error{where + " is not a voxen world (it has no voxen.toml); refusing to touch it"};
    if (!o.create_seed) return Error{"no voxen world at " + where + " (give --seed S to create one)"};
    // Create: everything that can fail without writing is checked first.
    auto meta = new_world_meta(o, registry, fingerprint, where);
    if (!meta) return meta.error();
    if (Status c = detail::create_dir_world(dir, where, format_meta(*meta), seal_meta(*meta)); !c.ok()) return c.error();
    // Now open it like any existing world.
  }

  if (Status m = detail::check_meta_file(dir / detail::kMetaFile); !m.ok()) return Error{"world " + where + ": " + m.error().to_string()};
  auto meta = read_meta(dir / detail::kMetaFile);
  if (!meta) return Error{"world " + where + ": " + meta.error().to_string()};
  auto checked_meta = check_opened_meta(*meta, registry, fingerprint, where);
  if (!checked_meta) return checked_meta.error();
  std::string generator_fp = std::move(checked_meta).value();  // what the world's generator makes now
  std::string lock_error;
  const int fd = detail::take_dir_lock(dir, false, lock_error);
  if (fd == -1) return Error{lock_error};
  auto store = RocksWorldStore::open(dir / "db", dir / "corrupt", false);
  if (!store) {
    if (fd >= 0) ::close(fd);
    return Error{"world " + where + ": " + store.error().to_string()};
  }
  const bool started_counting = (*store)->started_counting();
  const std::string recovery = (*store)->recovery_warning();
  auto home = detail::dir_home(dir, fd, std::move(store).value());
  if (!recovery.empty()) detail::log().warn("world {}: {}", where, recovery);
  OpenOptions opts = o;
  opts.dir = dir;
  return finish_open(std::move(home), std::move(meta).value(), std::move(generator_fp), where, opts, registry, fingerprint,
                     started_counting);
}

Result<std::unique_ptr<WorldSession>> WorldSession::open_database(const OpenOptions& o, const BlockRegistry& registry,
                                                                  const GeneratorFingerprint& fingerprint) {
  auto url = parse_database_url(o.dir.string());
  if (!url) return url.error();
  const std::string where = url->display;
  // A new world's metadata, checked before anything is written: it is written only if the world is missing.
  std::optional<PgWorldStore::PgCreate> create;
  if (o.create_seed) {
    auto exists = PgWorldStore::exists(*url);
    if (!exists) return exists.error();
    if (!*exists) {
      auto meta = new_world_meta(o, registry, fingerprint, where);
      if (!meta) return meta.error();
      create = PgWorldStore::PgCreate{format_meta(*meta), seal_meta(*meta)};
    }
  }
  auto store = PgWorldStore::open(*url, create);
  if (!store) {
    // Its messages name the world and the URL; a missing world gets the hint of how to make one.
    if (!o.create_seed && store.error().message.starts_with("no voxen world"))
      return Error{store.error().message + " (give --seed S to create one)"};
    return store.error();
  }
  auto text = (*store)->meta_text();
  if (!text) return Error{"world " + where + ": " + text.error().to_string()};
  auto meta = parse_meta(*text, "voxen_worlds.toml of world '" + url->world + "'");
  if (!meta) return Error{"world " + where + ": " + meta.error().to_string()};
  auto generator_fp = check_opened_meta(*meta, registry, fingerprint, where);
  if (!generator_fp) return generator_fp.error();
  return finish_open(detail::pg_home(std::move(store).value()), std::move(meta).value(), std::move(generator_fp).value(), where,
                     o, registry, fingerprint, false);
}

Result<std::unique_ptr<WorldSession>> WorldSession::finish_open(std::unique_ptr<detail::WorldHome> home, WorldMeta file_meta,
                                                                std::string generator_fp, const std::string& where,
                                                                const OpenOptions& o, const BlockRegistry& registry,
                                                                const GeneratorFingerprint& fingerprint, bool started_counting) {
  auto fail = [&](const std::string& what) -> Error {
    home->close();
    return Error{"world " + where + ": " + what};
  };
  std::optional<WorldMeta> meta = std::move(file_meta);
  bool refingerprinted = false;  // the metadata text's fingerprint was replaced: rewrite it
  // voxen.toml against the database's copy of it: the copy wins (the records were written with it).
  detail::WorldHome& h = *home;
  auto checked = check_meta_copy(
      h.store(), *meta, [&h] { return h.keep_meta_aside(); }, [&h](const WorldMeta& m) { return h.write_meta(m); }, o.sync);
  if (!checked) return fail(checked.error().message);
  if (!checked->warning.empty()) detail::log().warn("world {}: {}", where, checked->warning);
  auto unknown = unknown_block(meta->registry, registry);
  if (!unknown) return fail(unknown.error().to_string());
  if (checked->recovered) {
    const bool same_terrain = checked->meta.kind == meta->kind && checked->meta.seed == meta->seed &&
                              checked->meta.generator == meta->generator;
    meta = std::move(checked->meta);
    unknown = unknown_block(meta->registry, registry);
    if (!unknown) return fail(unknown.error().to_string());
    if (!same_terrain) {
      generator_fp.clear();
      if (meta->kind == WorldKind::kGenerated) {
        auto fp = fingerprint(meta->generator, meta->seed);
        if (!fp) return fail(fp.error().to_string());
        generator_fp = *fp;
      }
      // The file's fingerprint was of the file's terrain, not the database's: start over from what the database's
      // generator and seed make now (else every later open would warn of a generator change that never happened).
      meta->generator_fingerprint = generator_fp;
      refingerprinted = true;
    }
  }
  if (checked->started && started_counting)
    detail::log().info("world {}: written by an older voxen: its kind, seed, generator and block ids are now recorded in "
                       "its database too, and its writes counted; later opens check voxen.toml and the write-ahead log "
                       "against them", where);
  else if (checked->started)
    detail::log().info("world {}: its kind, seed, generator and block ids are now recorded in its database too (none "
                       "were); later opens check voxen.toml against them", where);
  else if (started_counting)
    detail::log().info("world {}: its writes are now counted (a database from an older voxen); later opens check the "
                       "write-ahead log against the count", where);

  IdRemap remap(meta->registry, registry, *unknown);
  std::unique_ptr<WorldSession> s(new WorldSession(registry, std::move(*meta), std::move(remap)));
  s->m_meta_dirty = refingerprinted;
  s->m_where = where;
  s->m_home = std::move(home);
  for (const auto& name : s->m_remap.missing_names())
    detail::log().warn("world {}: block '{}' is not in the block registry; its cells show as 'unknown'", where, name);
  if (s->generated()) {
    const std::string& fp = generator_fp;
    if (s->m_meta.generator_fingerprint.empty()) {
      s->m_meta.generator_fingerprint = fp;
      s->m_meta_dirty = true;
    } else if (fp != s->m_meta.generator_fingerprint) {
      detail::log().warn("world {}: generator '{}' now makes different terrain than when the world was saved "
                         "(fingerprint {} -> {}); saved edits are applied over the new terrain",
                         where, s->m_meta.generator, s->m_meta.generator_fingerprint, fp);
    }
  }
  if (Status st = s->start(s->m_home->store(), o.sync); !st.ok()) return st.error();
  return s;
}

Status WorldSession::start(WorldStore& store, bool sync) {
  m_store = &store;
  m_sync = sync;
  WriteBehindQueue::Options qo;
  qo.sync = sync;
  m_queue = std::make_unique<WriteBehindQueue>(store, qo);
  return Ok{};
}

// ---- loading ---------------------------------------------------------------------------------------------------

bool WorldSession::loaded(ColumnPos pos) const {
  std::lock_guard lock(m_mu);
  auto it = m_columns.find(pos);
  return it != m_columns.end() && it->second->phase == ColumnState::Phase::kLoaded;
}

bool WorldSession::edited(ColumnPos pos) const {
  std::lock_guard lock(m_mu);
  auto it = m_columns.find(pos);
  return generated() && it != m_columns.end() && it->second->phase == ColumnState::Phase::kLoaded &&
         it->second->journal.size() > 0;
}

Result<LoadReport> WorldSession::load(std::vector<std::unique_ptr<Column>>& columns) {
  LoadReport report;
  std::map<ColumnPos, size_t> slot;  // position -> index in `columns`
  for (size_t i = 0; i < columns.size(); ++i) {
    VOXEN_ASSERT(columns[i] != nullptr);
    const bool fresh = slot.emplace(columns[i]->pos(), i).second;
    VOXEN_ASSERT(fresh);  // one column per position in a batch
  }
  std::vector<ColumnPos> wanted;
  for (const auto& [p, i] : slot) wanted.push_back(p);
  // A column this session already holds (loaded by an earlier call, or by another thread meanwhile) has another
  // owner: this call's copy is dropped (nulled) and named in report.held.
  auto held = [&](const ColumnPos& p) {
    columns[slot.at(p)].reset();
    report.held.push_back(p);
  };

  for (;;) {
    // Claim the columns nobody has; note the ones another thread is loading.
    std::vector<ColumnPos> mine, others;
    uint64_t wait_ticket = 0;
    std::vector<ColumnPos> unloaded;  // columns of `mine` whose unload batch is (or was) in the queue
    std::optional<IdRemap> remap_copy;  // read off the lock: edits may grow m_remap meanwhile
    {
      std::lock_guard lock(m_mu);
      remap_copy.emplace(m_remap);
      for (const ColumnPos& p : wanted) {
        auto it = m_columns.find(p);
        if (it == m_columns.end()) {
          m_columns.emplace(p, std::make_unique<ColumnState>());
          mine.push_back(p);
          // The ticket stays until its batch is known to be committed: a load that finds the write failed must
          // leave it for the next load, which must fail (or retry) too, never read the store without those edits.
          if (auto t = m_unload_tickets.find(p); t != m_unload_tickets.end()) {
            wait_ticket = std::max(wait_ticket, t->second);
            unloaded.push_back(p);
          }
        } else if (it->second->phase == ColumnState::Phase::kLoading) {
          others.push_back(p);
        } else {
          held(p);
        }
      }
    }
    auto release_claims = [&] {
      std::lock_guard lock(m_mu);
      for (const ColumnPos& p : mine) m_columns.erase(p);
      m_loaded_cv.notify_all();
    };

    if (!mine.empty()) {
      // A column unloaded earlier may still have its last batch in the queue: read only after it is committed.
      if (wait_ticket) {
        if (Status w = wait_saved(wait_ticket, 1); !w.ok()) {
          release_claims();
          std::string names;
          for (const ColumnPos& p : unloaded)
            names += (names.empty() ? "" : ", ") + std::string("(") + std::to_string(p.x) + ", " + std::to_string(p.z) + ")";
          return Error{"cannot load column" + std::string(unloaded.size() == 1 ? " " : "s ") + names +
                       ": the edits made before it was unloaded are not saved yet: " + w.error().message};
        }
        std::lock_guard lock(m_mu);
        for (const ColumnPos& p : unloaded) m_unload_tickets.erase(p);  // committed: the store has the edits
      }
      const RecordKind kind = generated() ? RecordKind::kJournal : RecordKind::kSection;
      auto records = m_store->load_columns(kind, mine);
      if (!records) {
        release_claims();
        return records.error();
      }
      std::vector<LoadedColumn> out(mine.size());
      const IdRemap& remap = *remap_copy;
      for (size_t i = 0; i < mine.size(); ++i) {
        LoadedColumn& lc = out[i];
        const ColumnRecords& rec = (*records)[i];
        Column& column = *columns[slot.at(rec.pos)];
        for (const StoredSection& ss : rec.sections) {
          // A store hands back what its rows say; a section index no key can hold (a row edited by hand in a
          // database) is a corrupt record, not an index.
          if (ss.section < 0 || ss.section >= kSectionsPerColumn) {
            lc.corrupt.push_back({ss.section, "section index " + std::to_string(ss.section) + " is outside 0.." +
                                                  std::to_string(kSectionsPerColumn - 1) + " (no record has such a key)",
                                  ss.value});
            continue;
          }
          Section& section = column.section(ss.section);
          if (generated()) {
            auto payload = unseal(ss.value, PayloadKind::kJournal);
            auto cells = payload ? decode_journal(*payload) : Result<std::vector<JournalCell>>(payload.error());
            if (!cells) {
              lc.corrupt.push_back({ss.section, cells.error().to_string(), ss.value});
              continue;
            }
            for (const JournalCell& jc : *cells) {
              const Cell gen = section.get(jc.index);
              const Cell cur = remap.to_current(jc.cell);
              if (remap.missing(jc.cell.id)) ++lc.unknown[remap.saved_name(jc.cell.id)];
              lc.journal.emplace_back(ss.section, jc.index, gen, jc.cell);
              section.set(jc.index, cur);
            }
          } else {
            auto payload = unseal(ss.value, PayloadKind::kSection);
            size_t pos = 0;
            auto sec = payload ? decode_section(*payload, pos) : Result<Section>(payload.error());
            if (sec && pos != payload->size())
              sec = Error{"section: " + std::to_string(payload->size() - pos) + " trailing bytes"};
            if (!sec) {
              lc.corrupt.push_back({ss.section, sec.error().to_string(), ss.value});
              continue;
            }
            if (remap.identity()) {
              section = std::move(*sec);
            } else {
              uint32_t buf[kSectionVolume];
              sec->unpack(buf);
              bool any_missing = false;
              for (uint32_t& v : buf) {
                const Cell saved = Cell::from_packed(v);
                if (remap.missing(saved.id)) {
                  any_missing = true;
                  ++lc.unknown[remap.saved_name(saved.id)];
                }
                v = remap.to_current(saved).packed();
              }
              section.pack(buf);
              if (any_missing) lc.saved_missing[static_cast<size_t>(ss.section)] = std::make_unique<Section>(std::move(*sec));
            }
          }
          ++lc.records;
        }
      }

      // Keep every corrupt value aside before the column is handed out (after that an edit could overwrite it).
      for (size_t i = 0; i < mine.size(); ++i) {
        for (const auto& c : out[i].corrupt) {
          const RecordKey key{kind, SectionPos{mine[i].x, c.section, mine[i].z}};
          std::string msg = "corrupt record at " + describe(key.pos) + ": " + c.message + "; the section falls back to " +
                            (generated() ? "generation" : "air");
          auto kept = m_store->keep_aside(key, c.value);
          msg += kept ? "; its bytes are kept in " + *kept : "; could not keep its bytes aside: " + kept.error().to_string();
          detail::log().warn("{}", msg);
          report.corrupt.push_back(std::move(msg));
        }
      }

      std::lock_guard lock(m_mu);
      for (size_t i = 0; i < mine.size(); ++i) {
        LoadedColumn& lc = out[i];
        ColumnState& st = *m_columns.at(mine[i]);
        for (const auto& [sec, idx, gen, saved] : lc.journal) st.journal.load(sec, idx, gen, saved);
        st.saved_missing = std::move(lc.saved_missing);
        st.phase = ColumnState::Phase::kLoaded;
        for (const auto& [name, n] : lc.unknown) {
          report.unknown[name] += n;
          m_unknown[name] += n;
        }
        report.records += lc.records;
        ++report.loaded;
      }
      m_loaded_cv.notify_all();
    }

    if (others.empty()) break;
    // Wait for the columns other calls are loading; if one of them failed (its claim vanished), load it here.
    std::unique_lock lock(m_mu);
    m_loaded_cv.wait(lock, [&] {
      for (const ColumnPos& p : others) {
        auto it = m_columns.find(p);
        if (it != m_columns.end() && it->second->phase == ColumnState::Phase::kLoading) return false;
      }
      return true;
    });
    std::vector<ColumnPos> retry;
    for (const ColumnPos& p : others) {
      if (m_columns.count(p)) held(p);
      else retry.push_back(p);
    }
    if (retry.empty()) break;
    wanted = std::move(retry);
  }
  for (const auto& [name, n] : report.unknown)
    detail::log().warn("{} cell{} of block '{}' (not in the block registry) shown as 'unknown'", n, n == 1 ? "" : "s", name);
  return report;
}

// ---- edits -----------------------------------------------------------------------------------------------------

Cell WorldSession::saved_cell(Cell current) {
  if (auto s = m_remap.to_saved(current)) return *s;
  m_remap.add(current.id, m_meta.registry);
  m_meta_dirty = true;
  return *m_remap.to_saved(current);
}

bool WorldSession::record(const Edit& e, const Section& section) {
  std::lock_guard lock(m_mu);
  const ColumnPos cp = column_pos_of(e.pos);
  auto it = m_columns.find(cp);
  if (it == m_columns.end() || it->second->phase != ColumnState::Phase::kLoaded || !y_in_range(e.pos.y)) return false;
  ColumnState& st = *it->second;
  const int s = section_of_y(e.pos.y);
  if (generated()) {
    const auto index = static_cast<uint16_t>(section_index(local_of(e.pos.x), static_cast<int>(e.pos.y - section_base_y(s)), local_of(e.pos.z)));
    if (!st.journal.record(s, index, e.before, e.after, saved_cell(e.after))) return true;
  } else {
    if (e.before == e.after) return true;
    st.edited[static_cast<size_t>(s)] = std::make_unique<Section>(section);
  }
  st.dirty |= 1u << s;
  m_dirty_columns.insert(cp);
  return true;
}

// ---- saving ----------------------------------------------------------------------------------------------------

std::vector<PendingRecord> WorldSession::take_dirty(ColumnPos pos, ColumnState& st) {
  std::vector<PendingRecord> out;
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    if (!(st.dirty >> s & 1)) continue;
    PendingRecord r;
    r.key = {generated() ? RecordKind::kJournal : RecordKind::kSection, SectionPos{pos.x, s, pos.z}};
    if (generated()) {
      r.journal = st.journal.snapshot(s);
    } else {
      VOXEN_ASSERT(st.edited[static_cast<size_t>(s)] != nullptr);  // record() or put_column() gave the cells
      const Section& sec = *st.edited[static_cast<size_t>(s)];
      const Section* kept = st.saved_missing[static_cast<size_t>(s)].get();
      if (m_remap.identity() && !kept) {
        r.section = sec;
      } else {
        uint32_t buf[kSectionVolume];
        sec.unpack(buf);
        for (int i = 0; i < kSectionVolume; ++i) {
          const Cell cur = Cell::from_packed(buf[i]);
          // A cell still showing "unknown" where the saved section had a block the registry lacks keeps that id.
          if (kept && cur.id == m_remap.unknown_id() && m_remap.missing(kept->get(i).id)) buf[i] = kept->get(i).packed();
          else buf[i] = saved_cell(cur).packed();
        }
        r.section.pack(buf);
      }
    }
    out.push_back(std::move(r));
  }
  st.dirty = 0;
  for (auto& e : st.edited) e.reset();
  return out;
}

Status WorldSession::save_meta_locked() {
  if (!m_meta_dirty) return Ok{};
  // A grown id table must be on disk before any record that uses the new ids: in voxen.toml, and in the database's
  // copy (written before the batch is queued, so it precedes the batch in the write-ahead log too).
  if (m_home) {
    if (Status w = m_home->write_meta(m_meta); !w.ok()) return w;
  }
  if (Status c = m_store->put_meta_record(seal_meta(m_meta), m_sync); !c.ok())
    return Error{"cannot record the grown block-id table in the database: " + c.error().to_string()};
  m_meta_dirty = false;
  return Ok{};
}

Result<uint64_t> WorldSession::commit_locked() {
  if (m_closed) return Error{"world is closed"};
  // The metadata first: if it cannot be written, the changes stay recorded (nothing is taken from the columns).
  if (Status m = save_meta_locked(); !m.ok()) return m.error();
  std::vector<PendingRecord> batch;
  std::vector<ColumnPos> dirty(m_dirty_columns.begin(), m_dirty_columns.end());
  std::sort(dirty.begin(), dirty.end());
  std::vector<ColumnState*> in_batch;
  for (const ColumnPos& p : dirty) {
    ColumnState& st = *m_columns.at(p);
    auto recs = take_dirty(p, st);
    if (!recs.empty()) in_batch.push_back(&st);
    for (auto& r : recs) batch.push_back(std::move(r));
  }
  m_dirty_columns.clear();
  if (m_sim_dirty) {
    PendingRecord r;
    r.key = sim_state_key();
    r.raw = m_sim_state.value_or(std::string());
    batch.push_back(std::move(r));
    m_sim_dirty = false;
  }
  if (m_creatures_dirty) {
    PendingRecord r;
    r.key = creature_state_key();
    r.raw = m_creature_state.value_or(std::string());
    batch.push_back(std::move(r));
    m_creatures_dirty = false;
  }
  for (auto& [encoded, rec] : m_log_records) {
    PendingRecord r;
    r.key = rec.first;
    r.raw = std::move(rec.second);
    batch.push_back(std::move(r));
  }
  m_log_records.clear();
  if (batch.empty()) return uint64_t{0};
  const uint64_t ticket = m_queue->submit(std::move(batch));
  for (ColumnState* st : in_batch) st->ticket = ticket;
  return ticket;
}

std::string WorldSession::unsaved_message(const Error& cause) const {
  const std::vector<ColumnPos> cols = m_queue->unsaved_columns();
  const uint64_t attempts = m_queue->failed_attempts();
  std::string list;
  for (size_t i = 0; i < cols.size() && i < 8; ++i)
    list += (i ? ", (" : "(") + std::to_string(cols[i].x) + ", " + std::to_string(cols[i].z) + ")";
  if (cols.size() > 8) list += " and " + std::to_string(cols.size() - 8) + " more";
  std::string msg = "writing to the world's store failed (" + cause.to_string() + "; " + std::to_string(attempts) +
                    " failed attempt" + (attempts == 1 ? "" : "s") + " in a row); the edits of " + std::to_string(cols.size()) +
                    " column" + (cols.size() == 1 ? "" : "s") + (list.empty() ? "" : " " + list);
  if (attempts <= kMaxWriteRetries)
    msg += " are kept in memory and written when a retry succeeds (the next save or load of them retries)";
  else
    msg += " are not saved: no more writes are tried in this session, so they are lost when the world closes";
  return msg;
}

Status WorldSession::wait_saved(uint64_t ticket, uint64_t max_retries) {
  if (ticket == 0) return Ok{};
  Status w = m_queue->wait(ticket);
  for (uint64_t tried = 0; !w.ok() && tried < max_retries && m_queue->failed_attempts() <= kMaxWriteRetries; ++tried) {
    detail::log().warn("world {}: a write failed ({}); retrying it", m_where,
                       w.error().to_string());
    m_queue->retry();
    w = m_queue->wait(ticket);
  }
  if (w.ok()) return w;
  return Error{unsaved_message(w.error())};
}

Result<std::optional<std::string>> WorldSession::sim_state() {
  {
    std::lock_guard lock(m_mu);
    if (m_sim_state) return m_sim_state->empty() ? std::optional<std::string>() : m_sim_state;
  }
  const RecordKey key = sim_state_key();
  auto got = m_store->get(key);
  if (!got) return got.error();
  if (!*got) return std::optional<std::string>();
  auto payload = unseal(**got, PayloadKind::kSimState);
  if (!payload) {
    auto aside = m_store->keep_aside(key, **got);
    return Error{"the simulation's pending updates (record 'p') cannot be read: " + payload.error().to_string() +
                 (aside ? "; its bytes are kept at " + *aside : std::string())};
  }
  return std::optional<std::string>(std::move(*payload));
}

void WorldSession::set_sim_state(std::string bytes) {
  std::lock_guard lock(m_mu);
  if (m_sim_state && *m_sim_state == bytes) return;
  m_sim_state = std::move(bytes);
  m_sim_dirty = true;
}

Result<std::optional<std::string>> WorldSession::creature_state() {
  {
    std::lock_guard lock(m_mu);
    if (m_creature_state) return m_creature_state->empty() ? std::optional<std::string>() : m_creature_state;
  }
  const RecordKey key = creature_state_key();
  auto got = m_store->get(key);
  if (!got) return got.error();
  if (!*got) return std::optional<std::string>();
  auto payload = unseal(**got, PayloadKind::kCreatures);
  if (!payload) {
    auto aside = m_store->keep_aside(key, **got);
    return Error{"the creatures (record 'c') cannot be read: " + payload.error().to_string() +
                 (aside ? "; its bytes are kept at " + *aside : std::string())};
  }
  return std::optional<std::string>(std::move(*payload));
}

void WorldSession::set_creature_state(std::string bytes) {
  std::lock_guard lock(m_mu);
  if (m_creature_state && *m_creature_state == bytes) return;
  m_creature_state = std::move(bytes);
  m_creatures_dirty = true;
}

Status WorldSession::put_log_record(const RecordKey& key, std::string bytes) {
  if (key.kind != RecordKind::kEditLog) return Error{"put_log_record: a record of kind '" + std::string(1, static_cast<char>(key.kind)) + "' is not an edit log page"};
  std::lock_guard lock(m_mu);
  m_log_records[encode_key(key)] = {key, std::move(bytes)};
  return Ok{};
}

Result<uint64_t> WorldSession::commit() {
  // An earlier write that failed is retried first: a failure must not stay silent while new batches pile up.
  if (m_queue->failure()) {
    if (Status w = wait_saved(m_queue->submitted(), 1); !w.ok()) return w.error();
  }
  std::lock_guard lock(m_mu);
  return commit_locked();
}

Status WorldSession::wait(uint64_t ticket) { return wait_saved(ticket, 1); }

Status WorldSession::flush() {
  auto t = commit();
  if (!t) return t.error();
  return wait_saved(m_queue->submitted(), 1);
}

uint64_t WorldSession::committed() const { return m_queue->committed(); }

void WorldSession::set_commit_listener(std::function<void(uint64_t)> listener) { m_queue->set_listener(std::move(listener)); }

Status WorldSession::unload(ColumnPos pos) {
  std::lock_guard lock(m_mu);
  auto it = m_columns.find(pos);
  if (it == m_columns.end() || it->second->phase != ColumnState::Phase::kLoaded) return Ok{};
  if (it->second->dirty) {
    if (Status m = save_meta_locked(); !m.ok()) return m;
  }
  auto batch = take_dirty(pos, *it->second);
  m_dirty_columns.erase(pos);
  // Even when the queue is stopped on a failed write it keeps this batch (in memory, retried). A later load of the
  // column waits for the last batch holding its records (this one, or an earlier commit's still in the queue) or
  // fails: reading the store before would give the column without those edits.
  uint64_t ticket = it->second->ticket;
  if (!batch.empty()) ticket = m_queue->submit(std::move(batch));
  if (ticket > m_queue->committed()) m_unload_tickets[pos] = ticket;
  m_columns.erase(it);
  return Ok{};
}

Status WorldSession::put_column(const Column& column) {
  if (generated()) return Error{"put_column: only imported worlds store whole columns (this world is generated)"};
  std::lock_guard lock(m_mu);
  const ColumnPos p = column.pos();
  auto& st = m_columns[p];
  if (!st) st = std::make_unique<ColumnState>();
  st->phase = ColumnState::Phase::kLoaded;
  st->saved_missing = {};
  st->dirty = (1u << kSectionsPerColumn) - 1;
  for (int i = 0; i < kSectionsPerColumn; ++i) st->edited[static_cast<size_t>(i)] = std::make_unique<Section>(column.section(i));
  m_dirty_columns.insert(p);
  m_loaded_cv.notify_all();
  return Ok{};
}

Result<uint64_t> WorldSession::store_columns(std::span<const Column* const> columns) {
  if (generated()) return Error{"store_columns: only imported worlds store whole columns (this world is generated)"};
  std::vector<PendingRecord> batch;
  batch.reserve(columns.size() * kSectionsPerColumn);
  std::lock_guard lock(m_mu);
  if (m_closed) return Error{"world is closed"};
  for (const Column* c : columns) {
    const ColumnPos p = c->pos();
    if (m_columns.count(p))
      return Error{"store_columns: column (" + std::to_string(p.x) + ", " + std::to_string(p.z) +
                   ") is loaded in this session (put_column() replaces a loaded column)"};
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      PendingRecord r;
      r.key = {RecordKind::kSection, SectionPos{p.x, s, p.z}};
      const Section& sec = c->section(s);
      if (m_remap.identity()) {
        // Every id must have its saved id: identity holds for the ids the table lists; a block added to the
        // registry since (imports add none) goes through saved_cell() below.
        bool all_known = true;
        for (uint32_t v : sec.palette()) all_known = all_known && m_remap.to_saved(Cell::from_packed(v)).has_value();
        if (all_known) {
          r.section = sec;
          batch.push_back(std::move(r));
          continue;
        }
      }
      uint32_t buf[kSectionVolume];
      sec.unpack(buf);
      for (uint32_t& v : buf) v = saved_cell(Cell::from_packed(v)).packed();
      r.section.pack(buf);
      batch.push_back(std::move(r));
    }
  }
  if (Status m = save_meta_locked(); !m.ok()) return m.error();
  if (batch.empty()) return uint64_t{0};
  // Submitted under the lock, like commit(): tickets follow the metadata writes they depend on. submit() blocks
  // while the queue is full, which is what bounds an importer's memory.
  const uint64_t ticket = m_queue->submit(std::move(batch));
  const uint64_t done = m_queue->committed();
  // Forget columns whose batches are committed (a load no longer needs to wait), so the table stays as small as
  // the queue, not as large as the world.
  if (m_unload_tickets.size() > 4096)
    std::erase_if(m_unload_tickets, [done](const auto& e) { return e.second <= done; });
  for (const Column* c : columns) m_unload_tickets[c->pos()] = ticket;
  return ticket;
}

std::map<std::string, uint64_t> WorldSession::unknown_cells() const {
  std::lock_guard lock(m_mu);
  return m_unknown;
}

Status WorldSession::close() {
  if (m_closed) return Ok{};
  Status result = Ok{};
  {
    std::lock_guard lock(m_mu);
    auto t = commit_locked();
    if (!t) result = t.error();
  }
  if (m_queue) {
    // The last chance to write: every retry left. What still fails is reported by column, then dropped.
    if (Status f = wait_saved(m_queue->submitted(), kMaxWriteRetries); !f.ok() && result.ok())
      result = Error{"the world is not saved completely: " + f.error().message};
    m_queue.reset();
  }
  {
    std::lock_guard lock(m_mu);
    if (Status m = save_meta_locked(); !m.ok() && result.ok()) result = m;
  }
  if (m_home) {
    if (Status c = m_home->close(); !c.ok() && result.ok()) result = c;
    m_home.reset();
  }
  m_closed = true;
  return result;
}

}  // namespace voxen::store
