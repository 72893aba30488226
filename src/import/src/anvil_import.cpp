#include "voxen/import/anvil_import.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <mutex>
#include <set>
#include <thread>

#include "voxen/import/anvil_chunk.h"
#include "voxen/import/nbt.h"

namespace voxen::import {
namespace {

namespace fs = std::filesystem;


// One worker's share of the report, merged at the end.
struct Partial {
  uint64_t imported = 0;
  std::map<std::string, uint64_t> skipped;
  std::map<std::string, uint64_t> statuses;
  uint64_t relocated = 0;
  uint64_t blocks = 0;
  std::set<std::array<uint64_t, 2>> states;
  std::map<std::string, uint64_t> unmapped;
  uint64_t clipped = 0;
  std::map<int64_t, uint64_t> versions;
  uint64_t bytes_read = 0;
  std::vector<ChunkProblem> problems;
  uint64_t legacy_version = 0;  // a DataVersion of a refused pre-1.13 chunk (for the whole-import message)
  std::optional<std::array<int32_t, 4>> chunk_bounds;  // imported chunks: min x, min z, max x, max z
};

void extend(std::optional<std::array<int32_t, 4>>& b, int32_t x, int32_t z) {
  if (!b) {
    b = std::array<int32_t, 4>{x, z, x, z};
    return;
  }
  (*b)[0] = std::min((*b)[0], x);
  (*b)[1] = std::min((*b)[1], z);
  (*b)[2] = std::max((*b)[2], x);
  (*b)[3] = std::max((*b)[3], z);
}

// Reads level.dat (gzip NBT) into the report. Errors: unreadable or not NBT.
Status read_level_dat(const fs::path& file, AnvilImportPlan& r) {
  auto bytes = read_regular_file(file, uint64_t{16} << 20);
  if (!bytes) return Error{bytes.error().message, file.string()};
  std::vector<uint8_t> raw = std::move(bytes).value();
  std::vector<uint8_t> nbt;
  if (raw.size() >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
    auto d = decompress_chunk(ChunkCompression::kGzip, raw, size_t{64} << 20);
    if (!d) return Error{d.error().message, file.string()};
    nbt = std::move(d).value();
  } else {
    nbt = std::move(raw);  // some tools write it uncompressed
  }
  NbtLimits limits;
  limits.max_tags = kMaxChunkTags;
  auto root = read_nbt(nbt, file.string(), limits);
  if (!root) return root.error();
  const NbtTag* data = root->tag.get("Data", NbtType::kCompound);
  if (!data) return Error{"no Data compound: not a level.dat", file.string()};
  if (const NbtTag* n = data->get("LevelName", NbtType::kString)) r.level_name = *n->string();
  if (const NbtTag* v = data->get("DataVersion", NbtType::kInt)) r.level_data_version = *v->integer();
  const NbtTag* sx = data->get("SpawnX", NbtType::kInt);
  const NbtTag* sz = data->get("SpawnZ", NbtType::kInt);
  if (sx && sz) r.level_spawn = std::array<int64_t, 2>{*sx->integer(), *sz->integer()};
  if (const NbtTag* ver = data->get("Version", NbtType::kCompound))
    if (const NbtTag* n = ver->get("Name", NbtType::kString)) r.version_name = *n->string();
  return Ok{};
}

// Region files of a folder, sorted by (x, z). Other files are left alone; a name r.*.mca that does not parse (another
// spelling of a region's numbers, coordinates past +-2^25) is named in `errors`.
std::vector<AnvilRegionEntry> list_regions(const fs::path& dir, std::vector<std::string>& errors) {
  std::vector<AnvilRegionEntry> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    auto xz = RegionFile::parse_name(name);
    if (!xz) {
      if (RegionFile::looks_like_region_name(name))
        errors.push_back(e.path().string() + ": not a region name voxen reads (r.<x>.<z>.mca, integers without leading "
                                             "zeros, each within +-2^25): skipped");
      continue;
    }
    AnvilRegionEntry r;
    r.path = e.path();
    r.x = (*xz)[0];
    r.z = (*xz)[1];
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const AnvilRegionEntry& a, const AnvilRegionEntry& b) {
    return std::tie(a.x, a.z) < std::tie(b.x, b.z);
  });
  return out;
}

// Adds blocks of an unmapped name; past kMaxUnmappedNames distinct names the rest are counted under kOtherNames (a
// hostile world could name millions).
void add_unmapped(std::map<std::string, uint64_t>& m, const std::string& name, uint64_t n) {
  auto it = m.find(name);
  if (it != m.end()) {
    it->second += n;
    return;
  }
  if (m.size() < kMaxUnmappedNames) m.emplace(name, n);
  else m[std::string(kOtherNames)] += n;
}

}  // namespace

std::string minecraft_version_name(int64_t dv) {
  static const std::map<int64_t, const char*> kNames = {
      {1343, "1.12.2"}, {1519, "1.13"},   {1631, "1.13.2"}, {1952, "1.14"},   {1976, "1.14.4"},
      {2225, "1.15"},   {2230, "1.15.2"}, {2566, "1.16"},   {2578, "1.16.2"}, {2586, "1.16.5"},
      {2724, "1.17"},   {2730, "1.17.1"}, {2860, "1.18"},   {2865, "1.18.1"}, {2975, "1.18.2"},
      {3105, "1.19"},   {3337, "1.19.4"}, {3463, "1.20"},   {3700, "1.20.4"}, {3837, "1.20.5"},
      {3839, "1.20.6"}, {3953, "1.21"},   {4189, "1.21.4"}};
  auto it = kNames.find(dv);
  return it == kNames.end() ? std::string() : std::string(it->second);
}

Result<AnvilImportPlan> plan_anvil_import(const fs::path& source, const AnvilImportOptions& options) {
  AnvilImportPlan plan;
  plan.source = source;
  std::error_code ec;
  const fs::file_status st = fs::status(source, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) return Error{"cannot read: " + ec.message(), source.string()};
  if (fs::is_regular_file(st)) {
    auto xz = RegionFile::parse_name(source.filename().string());
    if (!xz)
      return Error{RegionFile::looks_like_region_name(source.filename().string())
                       ? "not a region name voxen reads (r.<x>.<z>.mca: integers without leading zeros, each within "
                         "+-2^25)"
                       : "not a region file (expected a name r.<x>.<z>.mca) nor a world folder",
                   source.string()};
    plan.source_kind = "region";
    AnvilRegionEntry r;
    r.path = source;
    r.x = (*xz)[0];
    r.z = (*xz)[1];
    plan.regions.push_back(std::move(r));
  } else if (fs::is_directory(st)) {
    plan.source_kind = "folder";
    const fs::path level = source / "level.dat";
    if (fs::exists(fs::symlink_status(level, ec))) {
      plan.source_kind = "world";
      // level.dat only names the world and its version; a damaged one (Minecraft can leave it empty after a crash) is
      // reported and the regions' own DataVersions decide. An old one refuses the import before anything is written.
      if (Status s = read_level_dat(level, plan); !s.ok()) {
        plan.level_dat_error = s.error().to_string();
      } else if (plan.level_data_version >= 0 && plan.level_data_version < kFirstFlattenedDataVersion) {
        const std::string name = minecraft_version_name(plan.level_data_version);
        return Error{"level.dat says DataVersion " + std::to_string(plan.level_data_version) +
                         (name.empty() ? "" : " (Minecraft " + name + ")") +
                         ": worlds from before Minecraft 1.13 (DataVersion 1451) hold numeric block ids, which voxen "
                         "does not import; " + std::string(kLegacyAdvice),
                     level.string()};
      }
    }
    const fs::path region_dir = fs::is_directory(source / "region", ec) ? source / "region" : source;
    plan.regions = list_regions(region_dir, plan.region_errors);
    if (plan.regions.empty())
      return Error{"no region files (r.<x>.<z>.mca) in " + region_dir.string() +
                       (region_dir == source ? " (nor a region/ folder)" : ""),
                   source.string()};
  } else if (fs::exists(st)) {
    return Error{"not a regular file or folder", source.string()};
  } else {
    return Error{"no such file or folder", source.string()};
  }
  if (options.region) {
    const auto want = *options.region;
    std::erase_if(plan.regions, [&](const AnvilRegionEntry& r) { return r.x != want[0] || r.z != want[1]; });
    if (plan.regions.empty())
      return Error{"no region r." + std::to_string(want[0]) + "." + std::to_string(want[1]) + ".mca in the source",
                   source.string()};
  }
  // Headers: the chunk counts (per row of 32 slots) for progress and accounting, and region files that cannot be read.
  std::vector<AnvilRegionEntry> readable;
  for (AnvilRegionEntry& r : plan.regions) {
    auto f = RegionFile::open(r.path, options.limits);
    if (!f) {
      plan.region_errors.push_back(f.error().to_string());
      continue;
    }
    for (const RegionSlot& slot : f->slots()) ++r.row_chunks[static_cast<size_t>(slot.index >> 5)];
    r.chunks = f->slots().size();
    plan.chunks += r.chunks;
    plan.header_bytes += std::min<uint64_t>(f->file_size(), 8192);
    readable.push_back(std::move(r));
  }
  plan.regions = std::move(readable);
  return plan;
}

Result<AnvilImportReport> import_anvil(const fs::path& source, const MinecraftBlockMap& map,
                                       const AnvilImportOptions& options, const ColumnSink& sink) {
  auto plan = plan_anvil_import(source, options);
  if (!plan) return plan.error();
  return run_anvil_import(*plan, map, options, sink);
}

Result<AnvilImportReport> run_anvil_import(const AnvilImportPlan& plan, const MinecraftBlockMap& map,
                                           const AnvilImportOptions& options, const ColumnSink& sink) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path& source = plan.source;
  AnvilImportReport report;
  static_cast<AnvilSourceInfo&>(report) = plan;
  report.bytes_read = plan.header_bytes;
  report.regions = plan.regions.size();
  const std::vector<AnvilRegionEntry>& readable = plan.regions;

  // Work items: (region, row of 32 slots).
  struct Item {
    size_t region;
    int row;
  };
  std::vector<Item> items;
  for (size_t i = 0; i < readable.size(); ++i)
    if (readable[i].chunks)
      for (int row = 0; row < 32; ++row) items.push_back({i, row});

  const int threads = std::max(1, options.threads);
  std::vector<Partial> partials(static_cast<size_t>(threads));
  std::unique_ptr<std::atomic<bool>[]> region_failed(new std::atomic<bool>[readable.size()]);
  for (size_t i = 0; i < readable.size(); ++i) region_failed[i] = false;
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> done{0};
  std::atomic<bool> stop{false};
  std::mutex mu;  // guards first_error and serialises progress
  std::optional<Error> first_error;
  auto worker = [&](Partial& part) {
    BlockStateCache cache(map);
    std::vector<std::unique_ptr<Column>> row;
    std::vector<const Column*> view;
    // The region of the last item, kept open while consecutive items come from it.
    std::optional<RegionFile> file;
    size_t file_index = SIZE_MAX;
    NbtLimits limits;
    limits.max_tags = kMaxChunkTags;
    while (!stop.load(std::memory_order_relaxed)) {
      const size_t k = next.fetch_add(1);
      if (k >= items.size()) break;
      const Item it = items[k];
      const uint64_t listed = readable[it.region].row_chunks[static_cast<size_t>(it.row)];
      if (file_index != it.region) {
        file.reset();
        file_index = it.region;
        if (!region_failed[it.region].load()) {
          auto f = RegionFile::open(readable[it.region].path, options.limits);
          if (f) {
            file.emplace(std::move(f).value());
          } else if (!region_failed[it.region].exchange(true)) {  // it was readable when listed: named once
            std::lock_guard lock(mu);
            report.region_errors.push_back(f.error().to_string());
          }
        }
      }
      if (!file) {  // the region's chunks are counted, not lost from the report
        part.skipped[std::string(reason_key(ChunkSkipReason::kRegionUnreadable))] += listed;
        done.fetch_add(listed);
        continue;
      }
      row.clear();
      uint64_t row_chunks = 0;
      for (const RegionSlot& slot : file->slots()) {
        if ((slot.index >> 5) != it.row) continue;
        ++row_chunks;
        ChunkBytes bytes = file->read_chunk(slot);
        part.bytes_read += bytes.bytes_read;
        auto skip = [&](ChunkProblem p) {
          ++part.skipped[std::string(reason_key(p.reason))];
          if (part.problems.size() < kMaxProblems) part.problems.push_back(std::move(p));  // counted either way
        };
        if (bytes.problem) {
          skip(*bytes.problem);
          continue;
        }
        const std::string where = file->name() + " chunk (" + std::to_string(slot.chunk_x) + ", " + std::to_string(slot.chunk_z) + ")";
        auto root = read_nbt(bytes.nbt, where, limits);
        if (!root) {  // the problem names region and chunk already: the NBT error's message and byte offset
          skip({file->name(), slot.chunk_x, slot.chunk_z, ChunkSkipReason::kBadNbt,
                Error{root.error().message, "", -1, root.error().offset}.to_string()});
          continue;
        }
        if (const NbtTag* dv = root->tag.get("DataVersion", NbtType::kInt)) ++part.versions[*dv->integer()];
        ChunkSkipReason why = ChunkSkipReason::kBadNbt;
        auto chunk = decode_chunk(root->tag, &why);
        if (!chunk) {
          if (why == ChunkSkipReason::kLegacyFormat)
            if (const NbtTag* dv = root->tag.get("DataVersion", NbtType::kInt)) part.legacy_version = static_cast<uint64_t>(*dv->integer());
          skip({file->name(), slot.chunk_x, slot.chunk_z, why, chunk.error().message});
          continue;
        }
        if (!chunk->full) {
          ++part.statuses[chunk->status.empty() ? std::string("(none)") : chunk->status];
          continue;
        }
        if (chunk->has_position && (chunk->x != slot.chunk_x || chunk->z != slot.chunk_z)) ++part.relocated;
        auto col = std::make_unique<Column>(ColumnPos{slot.chunk_x, slot.chunk_z});
        ChunkConversion conv = convert_chunk(*chunk, cache, options.y_offset, *col);
        ++part.imported;
        extend(part.chunk_bounds, slot.chunk_x, slot.chunk_z);
        part.blocks += conv.blocks;
        part.clipped += conv.clipped;
        for (const auto& [n, c] : conv.unmapped) add_unmapped(part.unmapped, n, c);
        part.states.insert(conv.states.begin(), conv.states.end());
        row.push_back(std::move(col));
      }
      if (!row.empty()) {
        view.clear();
        for (const auto& c : row) view.push_back(c.get());
        if (Status s = sink(view); !s.ok()) {
          std::lock_guard lock(mu);
          if (!first_error) first_error = s.error();
          stop = true;
          break;
        }
      }
      const uint64_t now = done.fetch_add(row_chunks) + row_chunks;
      if (options.progress && row_chunks) {
        std::lock_guard lock(mu);
        options.progress(now, report.chunks);
      }
    }
  };
  if (threads == 1) {
    worker(partials[0]);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker, std::ref(partials[static_cast<size_t>(t)]));
    for (auto& t : pool) t.join();
  }
  if (first_error) return *first_error;

  std::set<std::array<uint64_t, 2>> states;
  uint64_t legacy_version = 0;
  for (Partial& p : partials) {
    report.chunks_imported += p.imported;
    for (const auto& [k, v] : p.skipped) report.chunks_skipped[k] += v;
    for (const auto& [k, v] : p.statuses) report.statuses[k] += v;
    report.relocated += p.relocated;
    report.blocks += p.blocks;
    states.merge(p.states);
    for (const auto& [k, v] : p.unmapped) add_unmapped(report.unmapped, k, v);
    report.clipped_blocks += p.clipped;
    for (const auto& [k, v] : p.versions) report.data_versions[k] += v;
    report.bytes_read += p.bytes_read;
    for (auto& pr : p.problems) report.problems.push_back(std::move(pr));
    uint64_t counted = 0;
    for (const auto& [k, v] : p.skipped)
      if (k != reason_key(ChunkSkipReason::kRegionUnreadable)) counted += v;
    report.problems_not_listed += counted - p.problems.size();
    if (p.legacy_version) legacy_version = p.legacy_version;
    if (p.chunk_bounds) {
      extend(report.chunk_bounds, (*p.chunk_bounds)[0], (*p.chunk_bounds)[1]);
      extend(report.chunk_bounds, (*p.chunk_bounds)[2], (*p.chunk_bounds)[3]);
    }
  }
  report.distinct_states = states.size();
  std::sort(report.problems.begin(), report.problems.end(), [](const ChunkProblem& a, const ChunkProblem& b) {
    return std::tie(a.region, a.chunk_z, a.chunk_x) < std::tie(b.region, b.chunk_z, b.chunk_x);
  });
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto legacy = report.chunks_skipped.find(std::string(reason_key(ChunkSkipReason::kLegacyFormat)));
  if (report.chunks_imported == 0 && legacy != report.chunks_skipped.end()) {
    const std::string name = minecraft_version_name(static_cast<int64_t>(legacy_version));
    return Error{std::to_string(legacy->second) + " chunk" + (legacy->second == 1 ? " is" : "s are") +
                     " from before Minecraft 1.13 (DataVersion " + std::to_string(legacy_version) +
                     (name.empty() ? "" : ", Minecraft " + name) +
                     "; 1.13 is DataVersion 1451), with numeric block ids, which voxen does not import; " +
                     std::string(kLegacyAdvice),
                 source.string()};
  }
  return report;
}

}  // namespace voxen::import
