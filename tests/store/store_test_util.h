// Helpers for the store tests: temporary directories removed at the end, the real registry and generators, a
// snapshot of a directory's files (names, sizes, modification times) to check that nothing was written, a file's
// bytes, and a memory store whose writes a test can make fail or wait.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "voxen/gen/generator.h"
#include "voxen/store/world_session.h"
#include "voxen/world/block_registry.h"

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

/// A GeneratorFactory over gen::make_generator for `reg`.
inline store::GeneratorFactory generator_factory(const BlockRegistry& reg = registry()) {
  return [&reg](const std::string& name, uint64_t seed) -> Result<store::GenerateFn> {
    auto g = gen::make_generator(name, seed, reg);
    if (!g) return g.error();
    std::shared_ptr<gen::Generator> shared = std::move(g).value();
    return store::GenerateFn([shared](Column& c) { shared->generate(c); });
  };
}

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
