// Helpers for the store tests: temporary directories removed at the end, the real registry and generators, a
// snapshot of a directory's files (names, sizes, modification times) to check that nothing was written, a file's
// bytes, and a memory store whose writes a test can make fail or wait.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/store/world_session.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::testing {

/// Error::to_string() out of line: GCC 12 inlining it into test bodies gives a false -Wrestrict warning.
[[gnu::noinline]] inline std::string message(const Error& e) { return e.to_string(); }

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it when the object dies.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/voxen_store_test_XXXXXX";
    char* p = ::mkdtemp(tmpl.data());
    EXPECT_NE(p, nullptr);
    m_path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

/// The shipped registry (data/blocks.toml of the source tree).
inline const BlockRegistry& registry() {
  static const BlockRegistry reg = [] {
    auto r = BlockRegistry::load(std::string(VOXEN_SOURCE_DIR) + "/data/blocks.toml");
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    return std::move(r).value();
  }();
  return reg;
}

/// Fills a column with generated cells (a test may make one that blocks or counts its calls).
using GenerateFn = std::function<void(Column&)>;
/// Makes the GenerateFn of a generator by name and seed.
using GeneratorFactory = std::function<Result<GenerateFn>(const std::string& name, uint64_t seed)>;

/// A GeneratorFactory over gen::make_generator for `reg`.
inline GeneratorFactory generator_factory(const BlockRegistry& reg = registry()) {
  return [&reg](const std::string& name, uint64_t seed) -> Result<GenerateFn> {
    auto g = gen::make_generator(name, seed, reg);
    if (!g) return g.error();
    std::shared_ptr<gen::Generator> shared = std::move(g).value();
    return GenerateFn([shared](Column& c) { shared->generate(c); });
  };
}

/// The owner of a saved world's columns, as stream::SavedWorld and a World are in the engine: it generates the
/// columns, hands them to WorldSession::load for the saved cells, keeps them in a World, applies edits there and
/// record()s them, and unloads. The store tests drive the session through it with the calls they always made
/// (load, edit, get, unload); everything else is the session's own. Thread-safe like the session was.
class OwnedWorld {
 public:
  OwnedWorld(std::unique_ptr<store::WorldSession> session, GenerateFn generate)
      : m_session(std::move(session)), m_generate(std::move(generate)) {}

  /// WorldSession::open with the world's generator made by name (and its fingerprint given to the session).
  static Result<std::unique_ptr<OwnedWorld>> open(const store::OpenOptions& o, const BlockRegistry& reg) {
    std::shared_ptr<gen::Generator> kept;
    auto fp = [&reg, &kept](const std::string& name, uint64_t seed) -> Result<std::string> {
      auto g = gen::make_generator(name, seed, reg);
      if (!g) return g.error();
      kept = std::move(g).value();
      return gen::fingerprint(*kept, reg);
    };
    auto s = store::WorldSession::open(o, reg, fp);
    if (!s) return s.error();
    GenerateFn generate;
    if (kept && (*s)->generated()) generate = [kept](Column& c) { kept->generate(c); };
    return std::make_unique<OwnedWorld>(std::move(s).value(), std::move(generate));
  }
  /// WorldSession::attach; `generate` makes the world's terrain (empty for imported worlds).
  static Result<std::unique_ptr<OwnedWorld>> attach(store::WorldStore& store, store::WorldMeta meta, const BlockRegistry& reg,
                                                    GenerateFn generate, bool sync = false) {
    auto s = store::WorldSession::attach(store, std::move(meta), reg, sync);
    if (!s) return s.error();
    return std::make_unique<OwnedWorld>(std::move(s).value(), std::move(generate));
  }

  /// Loads the columns not in the World: generated (on `pool` when given), the saved cells put on top by the
  /// session, inserted. Columns the session says another call holds are not inserted twice: this call waits until
  /// that call has inserted them (as a second caller waits for a column's owner), so they are loaded on return.
  Result<store::LoadReport> load(const std::vector<ColumnPos>& positions, JobPool* pool = nullptr) {
    std::vector<std::unique_ptr<Column>> cols;
    {
      std::lock_guard lock(m_mu);
      for (const ColumnPos& p : positions)
        if (!m_world.find(p)) cols.push_back(std::make_unique<Column>(p));
    }
    if (m_generate && m_session->generated()) {
      for (auto& c : cols) {
        Column* col = c.get();
        if (pool) pool->submit(0.0, [this, col] { m_generate(*col); });
        else m_generate(*col);
      }
      if (pool) pool->wait_idle();
    }
    auto r = m_session->load(cols);
    if (!r) return r;
    std::unique_lock lock(m_mu);
    for (auto& c : cols)
      if (c) m_world.insert(std::move(c));
    m_inserted.notify_all();
    m_inserted.wait(lock, [&] {
      return std::all_of(r->held.begin(), r->held.end(), [&](ColumnPos p) { return m_world.find(p) != nullptr; });
    });
    return r;
  }
  /// Places `cell` at p (World::make_edit + apply) and records it. nullopt if p's column is not loaded.
  std::optional<Edit> edit(const BlockPos& p, Cell cell) {
    std::lock_guard lock(m_mu);
    auto e = m_world.make_edit(p, cell);
    if (!e || !m_session->loaded(column_pos_of(p))) return std::nullopt;
    m_world.apply(*e);
    m_session->record(*e, m_world.find(column_pos_of(p))->section(section_of_y(p.y)));
    return e;
  }
  /// Applies an edit made elsewhere (its `after`) and records it (before = the cell the world held).
  bool apply(const Edit& e) {
    std::lock_guard lock(m_mu);
    auto mine = m_world.make_edit(e.pos, e.after);
    if (!mine || !m_session->loaded(column_pos_of(e.pos))) return false;
    m_world.apply(*mine);
    return m_session->record(*mine, m_world.find(column_pos_of(e.pos))->section(section_of_y(e.pos.y)));
  }
  Cell get(const BlockPos& p) const {
    std::lock_guard lock(m_mu);
    return m_world.get(p);
  }
  World& world() { return m_world; }
  /// Drops the column from the World and lets the session queue its changes and forget it.
  Status unload(ColumnPos pos) {
    if (Status s = m_session->unload(pos); !s.ok()) return s;
    std::lock_guard lock(m_mu);
    m_world.remove(pos);
    return Ok{};
  }
  /// Imported worlds: the column goes into the World and the session holds it whole.
  Status put_column(std::unique_ptr<Column> column) {
    if (Status s = m_session->put_column(*column); !s.ok()) return s;
    std::lock_guard lock(m_mu);
    m_world.insert(std::move(column));
    return Ok{};
  }

  store::WorldSession& session() { return *m_session; }
  const store::WorldMeta& meta() const { return m_session->meta(); }
  bool generated() const { return m_session->generated(); }
  bool loaded(ColumnPos p) const { return m_session->loaded(p); }
  Result<uint64_t> commit() { return m_session->commit(); }
  Status wait(uint64_t t) { return m_session->wait(t); }
  Status flush() { return m_session->flush(); }
  uint64_t committed() const { return m_session->committed(); }
  void set_commit_listener(std::function<void(uint64_t)> l) { m_session->set_commit_listener(std::move(l)); }
  std::map<std::string, uint64_t> unknown_cells() const { return m_session->unknown_cells(); }
  Status close() { return m_session->close(); }

 private:
  std::unique_ptr<store::WorldSession> m_session;
  GenerateFn m_generate;
  mutable std::mutex m_mu;
  std::condition_variable m_inserted;  // notified when load() has inserted columns
  World m_world;
};

/// The bytes of a file ("" when it cannot be read).
inline std::string read_file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A WorldStore over a MemoryWorldStore (`inner`, what is "on disk") that tests subclass to change how writes
/// behave (fail, wait); everything else goes to `inner`.
class WrappedMemoryStore : public store::WorldStore {
 public:
  Result<std::vector<store::ColumnRecords>> load_columns(store::RecordKind k, std::span<const ColumnPos> c) override {
    return inner.load_columns(k, c);
  }
  Result<std::optional<std::string>> get(const store::RecordKey& k) override { return inner.get(k); }
  Result<std::vector<store::RecordKey>> list(store::RecordKind k) override { return inner.list(k); }
  Result<std::string> keep_aside(const store::RecordKey& k, std::string_view v) override { return inner.keep_aside(k, v); }
  Result<std::optional<std::string>> get_meta_record() override { return inner.get_meta_record(); }
  Status put_meta_record(std::string_view v, bool sync) override { return inner.put_meta_record(v, sync); }
  Status write(std::span<const store::WriteOp> ops, bool sync) override { return inner.write(ops, sync); }
  store::MemoryWorldStore inner;
};

/// Every file under dir with its size and modification time: equal snapshots mean nothing was written.
inline std::map<std::string, std::pair<uintmax_t, int64_t>> snapshot(const std::filesystem::path& dir) {
  std::map<std::string, std::pair<uintmax_t, int64_t>> out;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    const auto rel = std::filesystem::relative(e.path(), dir).string();
    const auto t = std::chrono::duration_cast<std::chrono::nanoseconds>(e.last_write_time(ec).time_since_epoch()).count();
    out[rel] = {e.is_regular_file() ? e.file_size(ec) : 0, static_cast<int64_t>(t)};
  }
  return out;
}

}  // namespace voxen::testing
