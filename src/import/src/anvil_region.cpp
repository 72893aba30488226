#include "voxen/import/anvil_region.h"

#include <fcntl.h>
#include <lz4.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

namespace voxen::import {
namespace {

constexpr uint64_t kSector = 4096;
constexpr uint32_t kLz4Seed = 0x9747b28c;  // lz4-java LZ4BlockOutputStream.DEFAULT_SEED
constexpr size_t kLz4HeaderSize = 21;      // magic 8, token 1, three i32

uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}
int32_t le32(const uint8_t* p) {
  return static_cast<int32_t>(uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24));
}

// Reads exactly n bytes at `offset`; false on a short read or an error.
bool pread_all(int fd, uint8_t* out, size_t n, uint64_t offset) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, out, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    out += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return true;
}

// Opens a file for reading without blocking (a FIFO must not hang the open) and only if it is a regular file. On
// failure returns -1 with `why` set ("<strerror>" or "not a regular file"); else the fd and its size.
int open_regular(const std::filesystem::path& path, uint64_t& size, std::string& why) {
  why.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    why = std::strerror(errno);
    return -1;
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0) why = std::string("cannot stat: ") + std::strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  if (!why.empty()) {
    ::close(fd);
    return -1;
  }
  size = static_cast<uint64_t>(st.st_size);
  return fd;
}

std::string sectors(const RegionSlot& s) {
  return std::to_string(s.sector_offset) + ".." + std::to_string(s.sector_offset + s.sector_count - 1);
}

// zlib (window bits 15) or gzip (15 + 16) through zlib's inflate, the output bounded by `limit`.
Result<std::vector<uint8_t>> inflate_all(std::span<const uint8_t> in, int window_bits, size_t limit, const char* what,
                                         bool& too_large) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) return Error{std::string(what) + ": cannot start zlib's inflate"};
  std::vector<uint8_t> out(std::min<size_t>(limit, std::max<size_t>(in.size() * 4, 4096)));
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  size_t produced = 0;
  int rc = Z_OK;
  while (true) {
    if (produced == out.size()) {
      if (out.size() >= limit) {
        inflateEnd(&z);
        too_large = true;
        return Error{std::string(what) + ": decompresses past " + std::to_string(limit) + " bytes"};
      }
      out.resize(std::min(limit, out.size() * 2));
    }
    z.next_out = out.data() + produced;
    z.avail_out = static_cast<uInt>(out.size() - produced);
    rc = inflate(&z, Z_NO_FLUSH);
    produced = out.size() - z.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && z.avail_out > 0) {
      const size_t at = in.size() - z.avail_in;
      inflateEnd(&z);
      return Error{std::string(what) + ": the stream ends early (after " + std::to_string(at) + " of " +
                   std::to_string(in.size()) + " bytes)"};
    }
    if (rc == Z_BUF_ERROR) continue;  // output full: grow and go on
    const std::string msg = z.msg ? z.msg : "error " + std::to_string(rc);
    const size_t at = in.size() - z.avail_in;
    inflateEnd(&z);
    return Error{std::string(what) + ": " + msg + " near byte " + std::to_string(at)};
  }
  inflateEnd(&z);
  out.resize(produced);
  return out;
}

// lz4-java's block stream (LZ4BlockOutputStream), every block's checksum checked.
Result<std::vector<uint8_t>> lz4_blocks(std::span<const uint8_t> in, size_t limit, bool& too_large) {
  static constexpr uint8_t kMagic[8] = {'L', 'Z', '4', 'B', 'l', 'o', 'c', 'k'};
  std::vector<uint8_t> out;
  size_t at = 0;
  while (true) {
    if (at == in.size()) return out;  // ends at a block boundary without the end block: what lz4-java also accepts
    const size_t block = at;
    auto err = [block](const std::string& m) { return Error{"lz4 block at byte " + std::to_string(block) + ": " + m}; };
    if (in.size() - at < kLz4HeaderSize) return err("header truncated (" + std::to_string(in.size() - at) + " bytes)");
    const uint8_t* h = in.data() + at;
    if (std::memcmp(h, kMagic, 8) != 0) return err("no 'LZ4Block' magic");
    const int method = h[8] & 0xF0;
    const int level = h[8] & 0x0F;
    const int32_t clen = le32(h + 9);
    const int32_t olen = le32(h + 13);
    const uint32_t check = static_cast<uint32_t>(le32(h + 17));
    if (method != 0x10 && method != 0x20) return err("unknown method 0x" + std::to_string(method >> 4) + "0");
    const int64_t max_block = int64_t{1} << (10 + level);
    if (olen < 0 || clen < 0 || olen > max_block || (method == 0x10 && clen != olen))
      return err("bad lengths (compressed " + std::to_string(clen) + ", original " + std::to_string(olen) +
                 ", block size " + std::to_string(max_block) + ")");
    at += kLz4HeaderSize;
    if (olen == 0) {
      if (clen != 0 || check != 0) return err("end block with nonzero fields");
      return out;  // the end block
    }
    if (static_cast<size_t>(clen) > in.size() - at)
      return err("compressed length " + std::to_string(clen) + " runs past the payload's end");
    if (out.size() + static_cast<size_t>(olen) > limit) {
      too_large = true;
      return err("decompresses past " + std::to_string(limit) + " bytes");
    }
    const size_t base = out.size();
    out.resize(base + static_cast<size_t>(olen));
    uint8_t* dst = out.data() + base;
    if (method == 0x10) {
      std::memcpy(dst, in.data() + at, static_cast<size_t>(olen));
    } else {
      const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + at), reinterpret_cast<char*>(dst),
                                        clen, olen);
      if (n != olen) return err("LZ4 data is corrupt (decoded " + std::to_string(n) + " of " + std::to_string(olen) + " bytes)");
    }
    const uint32_t sum = XXH32(dst, static_cast<size_t>(olen), kLz4Seed) & 0x0FFFFFFFu;
    if (sum != check) return err("checksum mismatch (stored " + std::to_string(check) + ", computed " + std::to_string(sum) + ")");
    at += static_cast<size_t>(clen);
  }
}

}  // namespace

std::string_view reason_key(ChunkSkipReason reason) {
  switch (reason) {
    case ChunkSkipReason::kUnknownCompression: return "unknown_compression";
    case ChunkSkipReason::kMissingExternal: return "missing_external";
    case ChunkSkipReason::kSectorPastEnd: return "sector_past_end";
    case ChunkSkipReason::kOverlap: return "overlapping_sectors";
    case ChunkSkipReason::kBadLength: return "bad_length";
    case ChunkSkipReason::kCorruptData: return "corrupt_data";
    case ChunkSkipReason::kTooLarge: return "too_large";
    case ChunkSkipReason::kBadNbt: return "bad_nbt";
    case ChunkSkipReason::kLegacyFormat: return "pre_1_13";
    case ChunkSkipReason::kBadBlockData: return "bad_block_data";
    case ChunkSkipReason::kRegionUnreadable: return "region_unreadable";
  }
  return "unknown";
}

std::string ChunkProblem::to_string() const {
  std::string s = region + " chunk (" + std::to_string(chunk_x) + ", " + std::to_string(chunk_z) + "): ";
  s += reason_key(reason);
  if (!detail.empty()) s.append(": ").append(detail);
  return s;
}

Result<std::vector<uint8_t>> read_regular_file(const std::filesystem::path& path, uint64_t max_bytes, bool* too_large) {
  const std::string name = path.filename().string();
  uint64_t size = 0;
  std::string why;
  const int fd = open_regular(path, size, why);
  if (fd < 0) return Error{why == "not a regular file" ? name + " is " + why : name + ": " + why};
  if (size > max_bytes) {
    ::close(fd);
    if (too_large) *too_large = true;
    return Error{name + " is " + std::to_string(size) + " bytes"};
  }
  std::vector<uint8_t> out(static_cast<size_t>(size));
  const bool ok = pread_all(fd, out.data(), out.size(), 0);
  ::close(fd);
  if (!ok) return Error{"cannot read " + name};
  return out;
}

Result<std::vector<uint8_t>> decompress_chunk(ChunkCompression compression, std::span<const uint8_t> payload,
                                              size_t limit, bool* too_large) {
  bool big = false;
  if (!too_large) too_large = &big;
  switch (compression) {
    case ChunkCompression::kGzip: return inflate_all(payload, 15 + 16, limit, "gzip", *too_large);
    case ChunkCompression::kZlib: return inflate_all(payload, 15, limit, "zlib", *too_large);
    case ChunkCompression::kNone:
      if (payload.size() > limit) {
        *too_large = true;
        return Error{"uncompressed chunk of " + std::to_string(payload.size()) + " bytes is past the limit"};
      }
      return std::vector<uint8_t>(payload.begin(), payload.end());
    case ChunkCompression::kLz4: return lz4_blocks(payload, limit, *too_large);
  }
  return Error{"unknown compression " + std::to_string(static_cast<int>(compression))};
}

std::optional<std::array<int32_t, 2>> RegionFile::parse_name(std::string_view n) {
  if (n.size() < 8 || n.substr(0, 2) != "r." || n.substr(n.size() - 4) != ".mca") return std::nullopt;
  std::string_view mid = n.substr(2, n.size() - 6);  // "<x>.<z>"
  const size_t dot = mid.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::array<int32_t, 2> v{};
  for (int i = 0; i < 2; ++i) {
    std::string_view part = i == 0 ? mid.substr(0, dot) : mid.substr(dot + 1);
    if (part.empty()) return std::nullopt;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v[static_cast<size_t>(i)]);
    if (ec != std::errc() || p != part.data() + part.size()) return std::nullopt;
    // One spelling per region, as Minecraft writes it: "r.00.0.mca" or "r.-0.0.mca" would alias r.0.0.mca.
    if (std::to_string(v[static_cast<size_t>(i)]) != part) return std::nullopt;
    // Chunk coordinates 32 * r + 31 must fit int32 (Minecraft's own range is far smaller).
    if (v[static_cast<size_t>(i)] < -(1 << 25) || v[static_cast<size_t>(i)] >= (1 << 25)) return std::nullopt;
  }
  return v;
}

bool RegionFile::looks_like_region_name(std::string_view n) {
  return n.size() >= 8 && n.substr(0, 2) == "r." && n.substr(n.size() - 4) == ".mca";
}

RegionFile::RegionFile(RegionFile&& o) noexcept { *this = std::move(o); }
RegionFile& RegionFile::operator=(RegionFile&& o) noexcept {
  if (this == &o) return *this;
  if (m_fd >= 0) ::close(m_fd);
  m_path = std::move(o.m_path);
  m_fd = std::exchange(o.m_fd, -1);
  m_size = o.m_size;
  m_x = o.m_x;
  m_z = o.m_z;
  m_limits = o.m_limits;
  m_slots = std::move(o.m_slots);
  m_slot_problem = std::move(o.m_slot_problem);
  return *this;
}
RegionFile::~RegionFile() {
  if (m_fd >= 0) ::close(m_fd);
}

Result<RegionFile> RegionFile::open(const std::filesystem::path& path, RegionLimits limits) {
  const std::string file = path.string();
  auto xz = parse_name(path.filename().string());
  if (!xz)
    return Error{"not a region file name (expected r.<x>.<z>.mca: the region's coordinates, integers written without "
                 "leading zeros, each within +-2^25)",
                 file};
  RegionFile r;
  r.m_path = path;
  r.m_limits = limits;
  r.m_x = (*xz)[0];
  r.m_z = (*xz)[1];
  std::string open_error;
  r.m_fd = open_regular(path, r.m_size, open_error);
  if (r.m_fd < 0) return Error{open_error == "not a regular file" ? open_error : "cannot open: " + open_error, file};
  if (r.m_size == 0) return r;  // Minecraft leaves empty region files: no chunks
  if (r.m_size < 2 * kSector)
    return Error{"shorter (" + std::to_string(r.m_size) + " bytes) than the 8192-byte header", file, -1,
                 static_cast<int64_t>(r.m_size)};
  std::vector<uint8_t> header(2 * kSector);
  if (!pread_all(r.m_fd, header.data(), header.size(), 0)) return Error{"cannot read the header", file, -1, 0};

  for (int i = 0; i < 1024; ++i) {
    const uint32_t loc = be32(&header[static_cast<size_t>(i) * 4]);
    if (loc == 0) continue;
    RegionSlot s;
    s.index = i;
    s.chunk_x = r.m_x * 32 + (i & 31);
    s.chunk_z = r.m_z * 32 + (i >> 5);
    s.sector_offset = loc >> 8;
    s.sector_count = loc & 0xFF;
    s.timestamp = be32(&header[kSector + static_cast<size_t>(i) * 4]);
    r.m_slots.push_back(s);
  }
  r.m_slot_problem.resize(r.m_slots.size());
  const uint64_t file_sectors = (r.m_size + kSector - 1) / kSector;  // a last sector may be short (older writers)
  auto problem = [&](size_t k, ChunkSkipReason why, std::string detail) {
    if (r.m_slot_problem[k]) return;
    r.m_slot_problem[k] = ChunkProblem{r.name(), r.m_slots[k].chunk_x, r.m_slots[k].chunk_z, why, std::move(detail)};
  };
  std::vector<size_t> order;
  for (size_t k = 0; k < r.m_slots.size(); ++k) {
    const RegionSlot& s = r.m_slots[k];
    if (s.sector_offset < 2)
      problem(k, ChunkSkipReason::kSectorPastEnd, "sector " + std::to_string(s.sector_offset) + " is inside the header");
    else if (s.sector_count == 0)
      problem(k, ChunkSkipReason::kBadLength, "a location with 0 sectors");
    else if (uint64_t{s.sector_offset} + s.sector_count > file_sectors)
      problem(k, ChunkSkipReason::kSectorPastEnd,
              "sectors " + sectors(s) + " run past the file's end (" + std::to_string(file_sectors) + " sectors)");
    else
      order.push_back(k);
  }
  // Overlaps: sorted by first sector, each range against the furthest-reaching one before it.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return r.m_slots[a].sector_offset < r.m_slots[b].sector_offset;
  });
  size_t reach = SIZE_MAX;  // the earlier slot whose range ends last
  for (size_t k : order) {
    const RegionSlot& s = r.m_slots[k];
    if (reach != SIZE_MAX) {
      const RegionSlot& p = r.m_slots[reach];
      if (p.sector_offset + p.sector_count > s.sector_offset) {
        auto say = [](const RegionSlot& a, const RegionSlot& b) {
          return "sectors " + sectors(a) + " overlap chunk (" + std::to_string(b.chunk_x) + ", " +
                 std::to_string(b.chunk_z) + ")'s " + sectors(b);
        };
        problem(k, ChunkSkipReason::kOverlap, say(s, p));
        problem(reach, ChunkSkipReason::kOverlap, say(p, s));
      }
      if (s.sector_offset + s.sector_count <= p.sector_offset + p.sector_count) continue;
    }
    reach = k;
  }
  return r;
}

ChunkBytes RegionFile::read_chunk(const RegionSlot& slot) const {
  ChunkBytes out;
  auto fail = [&](ChunkSkipReason why, std::string detail) {
    out.nbt.clear();
    out.problem = ChunkProblem{name(), slot.chunk_x, slot.chunk_z, why, std::move(detail)};
    return std::move(out);
  };
  const auto it = std::find_if(m_slots.begin(), m_slots.end(), [&](const RegionSlot& s) { return s.index == slot.index; });
  if (it == m_slots.end()) return fail(ChunkSkipReason::kSectorPastEnd, "not listed in the location table");
  if (const auto& p = m_slot_problem[static_cast<size_t>(it - m_slots.begin())]) {
    out.problem = *p;
    return out;
  }
  const uint64_t offset = uint64_t{slot.sector_offset} * kSector;
  const uint64_t avail = std::min<uint64_t>(uint64_t{slot.sector_count} * kSector, m_size - offset);
  if (avail < 5) return fail(ChunkSkipReason::kBadLength, "only " + std::to_string(avail) + " bytes in its sectors");
  std::vector<uint8_t> buf(static_cast<size_t>(avail));
  if (!pread_all(m_fd, buf.data(), buf.size(), offset))
    return fail(ChunkSkipReason::kSectorPastEnd, "cannot read sectors " + sectors(slot) + ": " + std::strerror(errno));
  out.bytes_read = buf.size();
  const uint32_t length = be32(buf.data());
  out.compression = buf[4];
  if (length == 0 || uint64_t{length} > avail - 4)
    return fail(ChunkSkipReason::kBadLength, "length " + std::to_string(length) + " at byte " + std::to_string(offset) +
                                                 " (its sectors hold " + std::to_string(avail - 4) + ")");
  const bool external = (out.compression & 0x80) != 0;
  const int type = out.compression & 0x7F;
  if (type < 1 || type > 4)
    return fail(ChunkSkipReason::kUnknownCompression, "compression type " + std::to_string(out.compression) +
                                                          " at byte " + std::to_string(offset + 4));
  std::span<const uint8_t> payload(buf.data() + 5, length - 1);
  std::vector<uint8_t> ext;
  if (external) {
    const std::filesystem::path mcc =
        m_path.parent_path() / ("c." + std::to_string(slot.chunk_x) + "." + std::to_string(slot.chunk_z) + ".mcc");
    bool big = false;
    auto bytes = read_regular_file(mcc, m_limits.max_chunk_bytes, &big);
    // A compressed payload larger than the output limit cannot be a chunk within it (compression 3 is 1:1).
    if (!bytes) return fail(big ? ChunkSkipReason::kTooLarge : ChunkSkipReason::kMissingExternal, bytes.error().message);
    ext = std::move(bytes).value();
    out.bytes_read += ext.size();
    payload = ext;
  }
  bool big = false;
  auto data = decompress_chunk(static_cast<ChunkCompression>(type), payload, m_limits.max_chunk_bytes, &big);
  if (!data) return fail(big ? ChunkSkipReason::kTooLarge : ChunkSkipReason::kCorruptData, data.error().message);
  out.nbt = std::move(data).value();
  return out;
}

}  // namespace voxen::import
