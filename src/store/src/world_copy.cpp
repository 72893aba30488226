#include "voxen/store/world_copy.h"

#include <unistd.h>
#include <xxhash.h>

#include <array>
#include <chrono>
#include <cstdio>

#include "log.h"
#include "world_home.h"

namespace voxen::store {
namespace fs = std::filesystem;

namespace {

constexpr std::array<RecordKind, 6> kKinds = {RecordKind::kJournal, RecordKind::kSection, RecordKind::kLod, RecordKind::kSimulation,
                                              RecordKind::kEditLog, RecordKind::kCreatures};
constexpr size_t kColumnsPerBatch = 256;

/// An open world for the copy: its home, the name it was given, and how to remove it again (new worlds).
struct Opened {
  std::unique_ptr<detail::WorldHome> home;
  std::string where;
  PgWorldStore* pg = nullptr;  // set for worlds in a database
  fs::path dir;                // set for world directories (a new one: its staging directory)
  fs::path final_dir;          // a new world directory: where it goes once complete
};

Result<Opened> open_dir(const std::string& location, fs::path dir);

Result<Opened> open_existing(const std::string& location) {
  Opened o;
  o.where = world_display(location);
  if (is_database_url(location)) {
    auto url = parse_database_url(location);
    if (!url) return url.error();
    auto s = PgWorldStore::open(*url, std::nullopt);
    if (!s) return s.error();
    o.pg = s->get();
    o.home = detail::pg_home(std::move(s).value());
    return o;
  }
  return open_dir(location, fs::path(location));
}

/// Opens the world directory at `dir`, named `location` in messages.
Result<Opened> open_dir(const std::string& location, fs::path dir) {
  Opened o;
  o.where = location;
  dir = dir.lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  std::error_code ec;
  if (!fs::exists(dir / detail::kMetaFile, ec)) return Error{"no voxen world at " + location + " (it has no voxen.toml)"};
  if (Status m = detail::check_meta_file(dir / detail::kMetaFile); !m.ok()) return Error{"world " + location + ": " + m.error().to_string()};
  std::string lock_error;
  const int fd = detail::take_dir_lock(dir, false, lock_error);
  if (fd == -1) return Error{lock_error};
  auto s = RocksWorldStore::open(dir / "db", dir / "corrupt", false);
  if (!s) {
    if (fd >= 0) ::close(fd);
    return Error{"world " + location + ": " + s.error().to_string()};
  }
  if (!(*s)->recovery_warning().empty()) detail::log().warn("world {}: {}", location, (*s)->recovery_warning());
  o.dir = dir;
  o.home = detail::dir_home(dir, fd, std::move(s).value());
  return o;
}

/// Makes the new world a copy goes into, not yet visible as a world: in a database a row marked incomplete (opens
/// refuse it until mark_complete(); an interrupted copy's row is replaced by the next copy), for a directory its
/// staging sibling dir.creating-PID (renamed into place by finish_new).
Result<Opened> create_new(const std::string& location, const std::string& toml, const std::optional<std::string>& meta) {
  if (is_database_url(location)) {
    auto url = parse_database_url(location);
    if (!url) return url.error();
    PgWorldStore::PgCreate create;
    create.toml = toml;
    create.meta = meta;
    create.exclusive = true;
    create.incomplete = true;
    auto s = PgWorldStore::open(*url, create);
    if (!s) {
      if (s.error().message.find("already exists") != std::string::npos)
        return Error{s.error().message + "; voxen world copy writes only new worlds"};
      return s.error();
    }
    Opened o;
    o.where = url->display;
    o.pg = s->get();
    o.home = detail::pg_home(std::move(s).value());
    return o;
  }
  fs::path dir = fs::path(location).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    return Error{location + " exists and is not an empty directory; voxen world copy writes only new worlds"};
  auto staging = detail::stage_dir_world(dir, location, toml, meta ? std::string_view(*meta) : std::string_view());
  if (!staging) return staging.error();
  auto o = open_dir(location, *staging);
  if (!o) {
    fs::remove_all(*staging, ec);
    return o.error();
  }
  o->final_dir = dir;
  return o;
}

/// Makes a verified new world visible: marked complete, or its staging directory closed and renamed into place.
Status finish_new(Opened& o) {
  if (o.pg) {
    if (Status m = o.pg->mark_complete(); !m.ok()) return m;
    return o.home->close();
  }
  if (Status c = o.home->close(); !c.ok()) return c;
  return detail::place_dir_world(o.dir, o.final_dir, o.where);
}

/// Removes a world this copy created (after a failure); false (and a logged error) when it could not.
bool remove_new(Opened& o) {
  bool removed = true;
  if (o.pg) {
    if (Status d = o.pg->drop(); !d.ok()) {
      detail::log().error("cannot remove the unfinished copy {}: {}; it stays marked unfinished (opens refuse it, the next "
                          "copy into it replaces it)", o.where, d.error().to_string());
      removed = false;
    }
  }
  o.home->close();
  if (!o.dir.empty()) {
    std::error_code ec;
    fs::remove_all(o.dir, ec);
    if (ec) removed = false;
  }
  return removed;
}

class Hasher {
 public:
  Hasher() : m_state(XXH3_createState()) { XXH3_128bits_reset(m_state); }
  ~Hasher() { XXH3_freeState(m_state); }
  void add(std::string_view bytes) {
    uint8_t len[4];
    for (int i = 0; i < 4; ++i) len[i] = static_cast<uint8_t>(bytes.size() >> (8 * i));
    XXH3_128bits_update(m_state, len, 4);
    XXH3_128bits_update(m_state, bytes.data(), bytes.size());
  }
  void add_raw(std::string_view bytes) { XXH3_128bits_update(m_state, bytes.data(), bytes.size()); }
  std::string hex() const {
    const XXH128_hash_t h = XXH3_128bits_digest(m_state);
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64), static_cast<unsigned long long>(h.low64));
    return buf;
  }

 private:
  XXH3_state_t* m_state;
};

/// Walks every record of `from` in hash order, hashing and counting; each batch of records (up to kColumnsPerBatch
/// columns) is handed to `sink` when given.
Result<WorldContent> walk(detail::WorldHome& from, const std::function<Status(std::vector<WriteOp>&)>& sink,
                          const std::function<void(uint64_t)>& counted) {
  WorldContent c;
  Hasher h;
  auto text = from.meta_text();
  if (!text) return text.error();
  h.add(*text);
  auto meta = from.store().get_meta_record();
  if (!meta) return meta.error();
  h.add(*meta ? **meta : std::string());
  h.add_raw(*meta ? "1" : "0");
  uint64_t done = 0;
  for (RecordKind kind : kKinds) {
    c.records[kind] = 0;
    auto keys = from.store().list(kind);
    if (!keys) return keys.error();
    std::vector<ColumnPos> columns;
    for (const RecordKey& k : *keys) {
      const ColumnPos p{k.pos.x, k.pos.z};
      if (columns.empty() || columns.back() != p) columns.push_back(p);
    }
    for (size_t i = 0; i < columns.size(); i += kColumnsPerBatch) {
      const std::span<const ColumnPos> part(columns.data() + i, std::min(kColumnsPerBatch, columns.size() - i));
      auto recs = from.store().load_columns(kind, part);
      if (!recs) return recs.error();
      std::vector<WriteOp> ops;
      for (ColumnRecords& col : *recs) {
        for (StoredSection& sec : col.sections) {
          const RecordKey key{kind, SectionPos{col.pos.x, sec.section, col.pos.z}};
          h.add_raw(encode_key(key));
          h.add(sec.value);
          c.bytes += sec.value.size();
          ++c.records[kind];
          ops.push_back({key, std::move(sec.value)});
        }
      }
      done += ops.size();
      if (sink) {
        if (Status s = sink(ops); !s.ok()) return s.error();
      }
      if (counted) counted(done);
    }
  }
  c.content_hash = h.hex();
  return c;
}

}  // namespace

Result<std::optional<WorldMeta>> peek_world_meta(const std::string& location) {
  if (is_database_url(location)) {
    auto url = parse_database_url(location);
    if (!url) return url.error();
    auto there = PgWorldStore::exists(*url);
    if (!there) return there.error();
    if (!*there) return std::optional<WorldMeta>{};
    auto s = PgWorldStore::open(*url, std::nullopt, false);
    if (!s) return s.error();
    auto text = (*s)->meta_text();
    if (!text) return text.error();
    auto meta = parse_meta(*text, "voxen_worlds.toml of world '" + url->world + "'");
    if (!meta) return meta.error();
    return std::optional<WorldMeta>{std::move(meta).value()};
  }
  const fs::path file = fs::path(location) / detail::kMetaFile;
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<WorldMeta>{};
  auto meta = read_meta(file);
  if (!meta) return meta.error();
  return std::optional<WorldMeta>{std::move(meta).value()};
}

Status remove_world(const std::string& location) {
  if (is_database_url(location)) {
    auto url = parse_database_url(location);
    if (!url) return url.error();
    return PgWorldStore::drop_world(*url);
  }
  std::error_code ec;
  if (!fs::exists(location, ec)) return Ok{};
  if (!fs::exists(fs::path(location) / detail::kMetaFile, ec))
    return Error{location + " is not a voxen world (it has no voxen.toml); refusing to remove it"};
  std::string lock_error;
  const int fd = detail::take_dir_lock(location, false, lock_error);
  if (fd == -1) return Error{lock_error};
  fs::remove_all(location, ec);
  if (fd >= 0) ::close(fd);
  if (ec) return Error{"cannot remove " + location + ": " + ec.message()};
  return Ok{};
}

std::string world_display(const std::string& location) {
  if (!is_database_url(location)) return location;
  auto u = parse_database_url(location);
  if (u) return u->display;
  // Unparsable: show the scheme only, since the rest may hold a password the parser could not find.
  return location.substr(0, location.find("://") + 3) + "...";
}

uint64_t WorldContent::total() const {
  uint64_t n = 0;
  for (const auto& [k, v] : records) n += v;
  return n;
}

Result<WorldContent> world_content(const std::string& location) {
  auto o = open_existing(location);
  if (!o) return o.error();
  auto c = walk(*o->home, {}, {});
  Status closed = o->home->close();
  if (!c) return Error{"world " + o->where + ": " + c.error().to_string()};
  if (!closed.ok()) return closed.error();
  return c;
}

Result<CopyReport> copy_world(const std::string& source, const std::string& destination,
                              const std::function<void(uint64_t, uint64_t)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  CopyReport report;
  report.source = world_display(source);
  report.destination = world_display(destination);
  if (source == destination) return Error{"voxen world copy: the source and the destination are the same world (" + report.source + ")"};
  auto src = open_existing(source);
  if (!src) return src.error();
  auto text = src->home->meta_text();
  if (!text) return text.error();
  auto meta = src->home->store().get_meta_record();
  if (!meta) return meta.error();
  // The total, for progress: the keys are listed once more by the walk, which is cheap beside the values.
  uint64_t total = 0;
  for (RecordKind k : kKinds) {
    auto keys = src->home->store().list(k);
    if (!keys) return keys.error();
    total += keys->size();
  }
  auto dst = create_new(destination, *text, *meta);
  if (!dst) return dst.error();
  auto fail = [&](const std::string& what) -> Error {
    const bool removed = remove_new(*dst);
    src->home->close();
    return Error{"voxen world copy " + report.source + " -> " + report.destination + ": " + what +
                 (removed ? " (the new world was removed)" : " (the unfinished copy could not be removed; it is marked unfinished)")};
  };
  auto copied = walk(
      *src->home, [&](std::vector<WriteOp>& ops) { return dst->home->store().write(ops, false); },
      [&](uint64_t done) {
        if (progress) progress(done, total);
      });
  if (!copied) return fail(copied.error().to_string());
  // Verification: the destination read back from scratch (RocksDB: after its clean close and reopen).
  if (dst->pg == nullptr) {
    if (Status c = dst->home->close(); !c.ok()) return fail(c.error().to_string());
    auto again = open_dir(dst->where, dst->dir);
    if (!again) return fail(again.error().to_string());
    again->final_dir = dst->final_dir;
    dst = std::move(again);
  }
  auto check = walk(*dst->home, {}, {});
  if (!check) return fail("reading the copy back: " + check.error().to_string());
  if (check->records != copied->records || check->content_hash != copied->content_hash)
    return fail("the copy does not match: " + std::to_string(check->total()) + " records, hash " + check->content_hash +
                " against the source's " + std::to_string(copied->total()) + ", hash " + copied->content_hash);
  if (Status f = finish_new(*dst); !f.ok()) return fail(f.error().to_string());
  src->home->close();
  report.content = std::move(copied).value();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace voxen::store
