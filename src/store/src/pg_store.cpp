#include "voxen/store/pg_store.h"

#include <libpq-fe.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "log.h"

namespace voxen::store {
namespace {

// Type OIDs of PostgreSQL's built-in types (src/include/catalog/pg_type.dat), for binary parameters and arrays.
constexpr Oid kInt2 = 21, kInt8 = 20, kBytea = 17, kText = 25;
constexpr Oid kInt2Array = 1005, kInt8Array = 1016, kByteaArray = 1001;

/// The schema, one entry per version: entry v-1 takes a database from version v-1 to v (docs/formats/
/// world_store_postgresql.md). Version 0 is a database without voxen's tables. Each runs in one transaction.
const char* const kMigrations[] = {
    // 0 -> 1
    "CREATE TABLE voxen_schema (version integer NOT NULL);"
    "INSERT INTO voxen_schema VALUES (0);"
    "CREATE TABLE voxen_worlds ("
    "  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  name text NOT NULL UNIQUE,"
    "  toml text NOT NULL,"
    "  meta bytea,"
    "  complete boolean NOT NULL DEFAULT true,"
    "  created timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE voxen_records ("
    "  world bigint NOT NULL REFERENCES voxen_worlds (id) ON DELETE CASCADE,"
    "  kind smallint NOT NULL,"
    "  cx bigint NOT NULL,"
    "  cz bigint NOT NULL,"
    "  section smallint NOT NULL,"
    "  value bytea NOT NULL,"
    "  PRIMARY KEY (world, kind, cx, cz, section));"
    "ALTER TABLE voxen_records ALTER COLUMN value SET STORAGE EXTERNAL;"
    "CREATE TABLE voxen_aside ("
    "  world bigint NOT NULL REFERENCES voxen_worlds (id) ON DELETE CASCADE,"
    "  n bigint GENERATED ALWAYS AS IDENTITY,"
    "  what text NOT NULL,"
    "  value bytea NOT NULL,"
    "  kept timestamptz NOT NULL DEFAULT now(),"
    "  PRIMARY KEY (world, n));",
};
static_assert(std::size(kMigrations) == kPgSchemaVersion);

struct ResultFree {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultFree>;

/// libpq's messages on one line: line breaks and the indentation after them become one space, the end trimmed.
std::string trimmed(std::string s) {
  std::string out;
  bool gap = false;
  for (char c : s) {
    if (c == '\n' || c == '\r' || ((c == '\t' || c == ' ') && gap)) {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out += ' ';
    gap = false;
    out += c;
  }
  return out;
}

/// One query parameter: bytes in text or binary format, with its type.
struct Param {
  std::string bytes;
  Oid type = kText;
  bool binary = false;
  bool null = false;  // SQL NULL
};

void put_be(std::string& out, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint64_t get_be(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

Param int8_param(int64_t v) {
  Param p{{}, kInt8, true};
  put_be(p.bytes, static_cast<uint64_t>(v), 8);
  return p;
}
Param int2_param(int v) {
  Param p{{}, kInt2, true};
  put_be(p.bytes, static_cast<uint16_t>(v), 2);
  return p;
}
Param text_param(std::string_view s) { return Param{std::string(s), kText, false}; }
Param bytea_param(std::string_view s) { return Param{std::string(s), kBytea, true}; }

/// A one-dimensional array in PostgreSQL's binary array format (array_send): ndim, has-null flag, element type,
/// then (length, lower bound 1), then each element as (int32 length, bytes); all big-endian.
class ArrayParam {
 public:
  ArrayParam(Oid array_type, Oid element_type) : m_array_type(array_type), m_element_type(element_type) {}
  void add(std::string_view element) {
    put_be(m_elements, element.size(), 4);
    m_elements.append(element);
    ++m_count;
  }
  void add_int(int64_t v, int bytes) {
    put_be(m_elements, static_cast<uint64_t>(bytes), 4);
    put_be(m_elements, static_cast<uint64_t>(v), bytes);
    ++m_count;
  }
  Param param() const {
    Param p{{}, m_array_type, true};
    put_be(p.bytes, m_count ? 1 : 0, 4);
    put_be(p.bytes, 0, 4);
    put_be(p.bytes, m_element_type, 4);
    if (m_count) {
      put_be(p.bytes, m_count, 4);
      put_be(p.bytes, 1, 4);
    }
    p.bytes += m_elements;
    return p;
  }

 private:
  Oid m_array_type, m_element_type;
  std::string m_elements;
  uint32_t m_count = 0;
};

/// How long each connection waits for the server's answer to one query (the URL's query_timeout), by connection.
std::mutex g_timeout_mu;
std::map<const PGconn*, int64_t> g_timeout_ms;

int64_t query_timeout_ms(const PGconn* c) {
  std::lock_guard lock(g_timeout_mu);
  auto it = g_timeout_ms.find(c);
  return it == g_timeout_ms.end() ? 60000 : it->second;
}

/// Waits until libpq can hand out the next result without blocking, at most the connection's query timeout (libpq's
/// own waits have none: a server process stopped mid-query would hold the caller forever). On timeout the socket is
/// shut down, so that the connection reads as broken and the caller's reconnect loop takes over; returns the error.
Status wait_ready(PGconn* c) {
  const int64_t timeout = query_timeout_ms(c);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
  while (PQisBusy(c)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      ::shutdown(PQsocket(c), SHUT_RDWR);
      PQconsumeInput(c);
      return Error{"the server did not answer within " + std::to_string(timeout / 1000.0).substr(0, 4) + " s (query_timeout)"};
    }
    pollfd p{PQsocket(c), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000))) < 0 && errno != EINTR)
      return Error{std::string("cannot wait for the server: ") + std::strerror(errno)};
    if (PQconsumeInput(c) == 0) return Ok{};  // the connection broke: the next PQgetResult says so
  }
  return Ok{};
}

/// Collects the results of the query just sent, waiting at most the query timeout for each: the last result, as
/// PQexec returns it, or the first error among them.
Result<PgResult> collect(PGconn* c) {
  PgResult last;
  std::string error;
  for (;;) {
    if (Status w = wait_ready(c); !w.ok()) return w.error();
    PGresult* r = PQgetResult(c);
    if (!r) break;
    const ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && error.empty()) {
      error = PQresultErrorMessage(r);
      if (error.empty()) error = PQerrorMessage(c);
    }
    last.reset(r);
    if (PQstatus(c) != CONNECTION_OK) break;
  }
  if (!error.empty()) return Error{trimmed(error)};
  if (!last) return Error{trimmed(PQerrorMessage(c))};
  return last;
}

/// Runs one statement with binary results. Errors carry the server's message (first line).
Result<PgResult> exec(PGconn* c, const char* sql, const std::vector<Param>& params = {}) {
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  std::vector<Oid> types;
  for (const Param& p : params) {
    values.push_back(p.null ? nullptr : p.bytes.data());
    lengths.push_back(static_cast<int>(p.bytes.size()));
    formats.push_back(p.binary ? 1 : 0);
    types.push_back(p.type);
  }
  if (PQsendQueryParams(c, sql, static_cast<int>(params.size()), types.data(), values.data(), lengths.data(), formats.data(),
                        1) != 1)
    return Error{trimmed(PQerrorMessage(c))};
  return collect(c);
}

/// Runs SQL text that may hold several statements (no parameters).
Status exec_script(PGconn* c, const char* sql) {
  if (PQsendQuery(c, sql) != 1) return Error{trimmed(PQerrorMessage(c))};
  auto r = collect(c);
  if (!r) return r.error();
  return Ok{};
}

/// The statements each connection has prepared (named after their SQL's slot), forgotten when it (re)connects:
/// a server-side prepared statement ends with its session.
std::mutex g_prepared_mu;
std::map<const PGconn*, std::set<std::string>> g_prepared;

void forget_prepared(const PGconn* c) {
  std::lock_guard lock(g_prepared_mu);
  g_prepared.erase(c);
}

/// Prepares `sql` as statement `name` on this connection once (the plan is made once per session, not per call).
Status ensure_prepared(PGconn* c, const char* name, const char* sql, const std::vector<Param>& params) {
  {
    std::lock_guard lock(g_prepared_mu);
    if (g_prepared[c].count(name)) return Ok{};
  }
  std::vector<Oid> types;
  for (const Param& p : params) types.push_back(p.type);
  if (PQsendPrepare(c, name, sql, static_cast<int>(types.size()), types.data()) != 1) return Error{trimmed(PQerrorMessage(c))};
  if (auto r = collect(c); !r) return r.error();
  std::lock_guard lock(g_prepared_mu);
  g_prepared[c].insert(name);
  return Ok{};
}

/// Runs a prepared statement (prepared on first use) with binary results.
Result<PgResult> exec_prepared(PGconn* c, const char* name, const char* sql, const std::vector<Param>& params) {
  if (Status p = ensure_prepared(c, name, sql, params); !p.ok()) return p.error();
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  for (const Param& p : params) {
    values.push_back(p.null ? nullptr : p.bytes.data());
    lengths.push_back(static_cast<int>(p.bytes.size()));
    formats.push_back(p.binary ? 1 : 0);
  }
  if (PQsendQueryPrepared(c, name, static_cast<int>(params.size()), values.data(), lengths.data(), formats.data(), 1) != 1)
    return Error{trimmed(PQerrorMessage(c))};
  return collect(c);
}

/// One statement of a pipeline.
struct Step {
  const char* name;
  const char* sql;
  const std::vector<Param>* params;
};

/// Runs prepared statements as one pipeline (libpq's pipeline mode): all of them sent, then one Sync, in one round
/// trip. Between two Syncs the server runs them as one implicit transaction, committed when it reaches the Sync
/// (rolled back if any fails), and answers the Sync only after that commit: so success here means committed.
Status exec_pipeline(PGconn* c, const std::vector<Step>& steps) {
  for (const Step& st : steps)
    if (Status p = ensure_prepared(c, st.name, st.sql, *st.params); !p.ok()) return p;
  if (PQenterPipelineMode(c) != 1) return Error{trimmed(PQerrorMessage(c))};
  std::string error;
  auto note = [&](const std::string& m) {
    if (error.empty()) error = trimmed(m);
  };
  bool sent = true;
  for (const Step& st : steps) {
    std::vector<const char*> values;
    std::vector<int> lengths, formats;
    for (const Param& p : *st.params) {
      values.push_back(p.null ? nullptr : p.bytes.data());
      lengths.push_back(static_cast<int>(p.bytes.size()));
      formats.push_back(p.binary ? 1 : 0);
    }
    if (PQsendQueryPrepared(c, st.name, static_cast<int>(values.size()), values.data(), lengths.data(), formats.data(), 1) != 1) {
      note(PQerrorMessage(c));
      sent = false;
      break;
    }
  }
  if (sent && PQpipelineSync(c) != 1) {
    note(PQerrorMessage(c));
    sent = false;
  }
  if (sent) {
    // Each statement's results end with a null; then the Sync's own result.
    for (size_t i = 0; i < steps.size(); ++i) {
      for (;;) {
        if (Status w = wait_ready(c); !w.ok()) {
          note(w.error().message);
          break;
        }
        PGresult* r = PQgetResult(c);
        if (!r) break;
        const ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_FATAL_ERROR) note(PQresultErrorMessage(r));
        else if (st == PGRES_PIPELINE_ABORTED) note("the batch was aborted");
        PQclear(r);
      }
      if (PQstatus(c) != CONNECTION_OK) break;
    }
    if (PQstatus(c) == CONNECTION_OK && error.find("did not answer") == std::string::npos) {
      if (Status w = wait_ready(c); !w.ok()) note(w.error().message);
      PgResult sync(PQstatus(c) == CONNECTION_OK ? PQgetResult(c) : nullptr);
      if (!sync || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) note(sync ? PQresultErrorMessage(sync.get()) : PQerrorMessage(c));
    } else {
      note(PQerrorMessage(c));
    }
  }
  if (PQstatus(c) == CONNECTION_OK) PQexitPipelineMode(c);
  if (!error.empty()) return Error{error.empty() ? std::string("the batch failed") : error};
  return Ok{};
}

int64_t cell_int(const PGresult* r, int row, int col) {
  const int n = PQgetlength(r, row, col);
  const char* p = PQgetvalue(r, row, col);
  const uint64_t v = get_be(p, n);
  if (n == 2) return static_cast<int16_t>(v);
  if (n == 4) return static_cast<int32_t>(v);
  return static_cast<int64_t>(v);
}
std::string cell_bytes(const PGresult* r, int row, int col) {
  return std::string(PQgetvalue(r, row, col), static_cast<size_t>(PQgetlength(r, row, col)));
}

void quiet_notices(void*, const char*) {}  // CREATE ... notices are not the user's business


bool valid_world_name(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
  });
}

}  // namespace

// ---- URLs ------------------------------------------------------------------------------------------------------

namespace {
/// True when `s` starts with `prefix`, ignoring ASCII case.
bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}
}  // namespace

bool is_database_url(std::string_view s) { return starts_with_nocase(s, "postgresql://") || starts_with_nocase(s, "postgres://"); }

Result<PgWorldUrl> parse_database_url(std::string_view url, bool need_world) {
  PgWorldUrl out;
  // The display form: a password between "user:" and "@" in the authority is hidden, and so is a `password=`
  // parameter's value; every message below goes through hide(), which also blanks the passwords wherever else
  // they appear (a bad world name that repeats them).
  // Where passwords are, found on the URL as given: the query's password= values (after any '?' or '&' past the
  // first '?'), and the credentials by libpq's rule (the first '@' before the first '/'; a '/' inside a password, an
  // invalid URL, is covered too by the first '@' before the query). Each is masked in place (overlaps as one).
  const std::string given(url);
  std::vector<std::string> passwords;
  std::vector<std::pair<size_t, size_t>> ranges;  // [begin, end) of each password in `given`
  for (size_t p = given.find('?'); p != std::string::npos; p = given.find_first_of("?&", p + 1)) {
    if (given.compare(p + 1, 9, "password=") != 0) continue;
    const size_t v = p + 10, e = given.find('&', v);
    ranges.emplace_back(v, e == std::string::npos ? given.size() : e);
  }
  if (const size_t sep = given.find("://"); sep != std::string::npos) {
    const size_t scheme = sep + 3;
    const size_t slash = given.find('/', scheme);
    size_t at = given.find('@', scheme);
    if (at != std::string::npos && slash != std::string::npos && at > slash) {
      const size_t q = given.find('?', scheme);
      if (q != std::string::npos && at > q) at = std::string::npos;
    }
    if (at != std::string::npos) {
      const size_t colon = given.find(':', scheme);
      if (colon != std::string::npos && colon < at) ranges.emplace_back(colon + 1, at);
    }
  }
  std::sort(ranges.begin(), ranges.end());
  std::string display;
  size_t pos = 0;
  for (const auto& [b0, e0] : ranges) {
    passwords.push_back(given.substr(b0, e0 - b0));
    if (b0 < pos) {  // overlapping a range already masked: the mask grows
      pos = std::max(pos, e0);
      continue;
    }
    display += given.substr(pos, b0 - pos) + "***";
    pos = e0;
  }
  if (pos < given.size()) display += given.substr(pos);
  auto hide = [&passwords](std::string text) {
    for (const std::string& pw : passwords) {
      if (pw.size() < 4 || pw == "***") continue;  // a short one would blank ordinary words; its own place is masked
      for (size_t at = text.find(pw); at != std::string::npos; at = text.find(pw, at + 3)) text.replace(at, pw.size(), "***");
    }
    return Error{text};
  };
  display = hide(display).message;
  out.display = display;
  // libpq reads C strings: a NUL would cut the URL it checks short of the one given; no control character belongs in
  // a URL at all (they are percent-encoded).
  for (size_t i = 0; i < url.size(); ++i) {
    const auto c = static_cast<unsigned char>(url[i]);
    if (c < 0x20 || c == 0x7F) {
      std::string shown;
      for (char ch : display) shown += (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) ? '?' : ch;
      return hide("world URL " + shown + ": a control character (byte " + std::to_string(c) + ") at offset " + std::to_string(i) +
                  "; percent-encode it");
    }
  }
  const size_t q = url.find('?');
  std::string base(url.substr(0, q));
  std::vector<std::string> kept;
  bool have_world = false, have_reconnect = false, have_query_timeout = false;
  if (q != std::string_view::npos) {
    std::string_view rest = url.substr(q + 1);
    while (!rest.empty()) {
      const size_t amp = rest.find('&');
      const std::string_view item = rest.substr(0, amp);
      rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
      if (item.empty()) continue;
      const size_t eq = item.find('=');
      const std::string_view key = item.substr(0, eq);
      const std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
      if (key == "world") {
        if (have_world) return hide("world URL " + display + ": world= is given twice");
        if (!valid_world_name(value))
          return hide("world URL " + display + ": world name '" + std::string(value) +
                       "' must be 1 to 63 characters of A-Z a-z 0-9 _ - .");
        out.world = std::string(value);
        have_world = true;
      } else if (key == "query_timeout") {
        if (have_query_timeout) return hide("world URL " + display + ": query_timeout= is given twice");
        char* end = nullptr;
        const std::string v(value);
        const double t = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !(t >= 0.1) || t > 86400)
          return hide("world URL " + display + ": query_timeout=" + v + " must be a number of seconds from 0.1 to 86400");
        out.query_timeout = std::chrono::milliseconds(static_cast<int64_t>(t * 1000));
        have_query_timeout = true;
      } else if (key == "reconnect") {
        if (have_reconnect) return hide("world URL " + display + ": reconnect= is given twice");
        char* end = nullptr;
        const std::string v(value);
        const double s = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !(s >= 0) || s > 86400)
          return hide("world URL " + display + ": reconnect=" + v + " must be a number of seconds from 0 to 86400");
        out.reconnect = std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
        have_reconnect = true;
      } else {
        kept.emplace_back(item);
      }
    }
  }
  if (!have_world && need_world)
    return hide("world URL " + display + " names no world: add ?world=NAME (postgresql://USER@HOST[:PORT]/DB?world=NAME)");
  // libpq knows the scheme in lower case only.
  for (size_t i = 0; i < base.size() && base[i] != ':'; ++i) base[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(base[i])));
  // Bounds for a server that does not answer: a connection attempt gives up after 10 s, and on TCP the kernel's
  // keepalive finds a dead peer within about a minute, unless the URL sets them itself. (A server process that is
  // alive but stopped mid-query is not detected: libpq's blocking calls have no timeout of their own.)
  auto has = [&kept](std::string_view key) {
    return std::any_of(kept.begin(), kept.end(), [&](const std::string& k) { return k.starts_with(std::string(key) + "="); });
  };
  for (const char* d : {"connect_timeout=10", "keepalives_idle=30", "keepalives_interval=10", "keepalives_count=3"}) {
    const std::string_view kv(d);
    if (!has(kv.substr(0, kv.find('=')))) kept.emplace_back(d);
  }
  // The connection names this process (pg_stat_activity.application_name), so that a refused lock can say which
  // voxen process holds the world.
  if (!has("application_name")) kept.push_back("application_name=voxen-" + std::to_string(::getpid()));
  out.conninfo = base;
  for (size_t i = 0; i < kept.size(); ++i) out.conninfo += (i ? "&" : "?") + kept[i];
  // libpq checks the rest (host, port, database, its own parameters) and names what it cannot parse.
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(out.conninfo.c_str(), &err);
  if (!opts) {
    std::string m = err ? trimmed(err) : "cannot parse it";
    if (err) PQfreemem(err);
    return hide("world URL " + display + ": " + m);
  }
  PQconninfoFree(opts);
  return out;
}

// ---- one connection --------------------------------------------------------------------------------------------

class PgWorldStore::Connection {
 public:
  Connection(const PgWorldUrl& url) : m_url(url) {}
  ~Connection() { finish(); }
  /// The first connection. Errors: libpq's message with the URL.
  Status connect() {
    m_conn = PQconnectdb(m_url.conninfo.c_str());
    if (!m_conn || PQstatus(m_conn) != CONNECTION_OK)
      return Error{"cannot connect to PostgreSQL at " + m_url.display + ": " +
                   (m_conn ? trimmed(PQerrorMessage(m_conn)) : std::string("out of memory"))};
    setup();
    return Ok{};
  }
  /// Runs `fn` (one unit of work: a query, or a whole transaction) under this connection's mutex. When it fails
  /// because the connection broke, reconnects for up to the URL's reconnect time, runs the reconnect hook (the lock)
  /// and `fn` again. Errors: fn's own, or the lost connection's (naming the server and both causes).
  template <class T>
  Result<T> run(const std::function<Result<T>(PGconn*)>& fn) {
    std::lock_guard lock(m_mu);
    if (!m_conn) return Error{"the connection to PostgreSQL at " + m_url.display + " is closed"};
    Result<T> r = fn(m_conn);
    if (r.ok() || PQstatus(m_conn) == CONNECTION_OK) return r;
    const std::string first = r.error().message;
    detail::log().warn("lost the connection to PostgreSQL at {} ({}); reconnecting for up to {:.1f} s", m_url.display, first,
                       static_cast<double>(m_url.reconnect.count()) / 1000.0);
    const auto deadline = std::chrono::steady_clock::now() + m_url.reconnect;
    auto pause = std::chrono::milliseconds(100);
    std::string last = first;
    for (;;) {
      PQreset(m_conn);
      if (PQstatus(m_conn) == CONNECTION_OK) {
        setup();
        Status a = m_on_reconnect ? m_on_reconnect(m_conn) : Status(Ok{});
        if (!a.ok()) return a.error();
        r = fn(m_conn);
        if (r.ok()) {
          detail::log().info("reconnected to PostgreSQL at {}; the interrupted work was done again", m_url.display);
          return r;
        }
        if (PQstatus(m_conn) == CONNECTION_OK) return r;  // connected, and the work itself failed
        last = r.error().message;
      } else {
        last = trimmed(PQerrorMessage(m_conn));
      }
      if (std::chrono::steady_clock::now() + pause > deadline) break;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(2000));
    }
    return Error{"lost the connection to PostgreSQL (" + first + ") and could not reconnect within " +
                 std::to_string(m_url.reconnect.count() / 1000.0).substr(0, 4) + " s (" + last + ")"};
  }
  /// Closes the connection (the server releases its session locks).
  void finish() {
    std::lock_guard lock(m_mu);
    if (m_conn) {
      forget_prepared(m_conn);
      {
        std::lock_guard tl(g_timeout_mu);
        g_timeout_ms.erase(m_conn);
      }
      PQfinish(m_conn);
    }
    m_conn = nullptr;
  }

  /// Runs after every reconnect, whichever call found the connection broken, before that call's work is done again
  /// (the writing connection: retake the world's lock, so no later query on it runs without the lock).
  void set_on_reconnect(std::function<Status(PGconn*)> hook) { m_on_reconnect = std::move(hook); }

 private:
  std::function<Status(PGconn*)> m_on_reconnect;
  void setup() {
    PQsetNoticeProcessor(m_conn, quiet_notices, nullptr);
    forget_prepared(m_conn);  // a new session has none of the old one's prepared statements
    std::lock_guard lock(g_timeout_mu);
    g_timeout_ms[m_conn] = m_url.query_timeout.count();
  }
  const PgWorldUrl m_url;
  std::mutex m_mu;
  PGconn* m_conn = nullptr;
};

namespace {

/// Runs one statement on `conn` (reconnecting as its run() does); errors are "cannot <what>: <the server's message>".
Status write_one(PgWorldStore::Connection& conn, const char* sql, const std::vector<Param>& params, const std::string& what) {
  auto r = conn.run<bool>([&](PGconn* c) -> Result<bool> {
    auto e = exec(c, sql, params);
    if (!e) return e.error();
    return true;
  });
  if (!r) return Error{"cannot " + what + ": " + r.error().message};
  return Ok{};
}

/// The database's schema version: 0 without voxen's tables. Errors: the server's.
Result<int> schema_version(PGconn* c) {
  // An MVCC read of the catalog, not to_regclass(): the latter answers from this backend's catalog cache, which does
  // not yet see a table another process created while this one waited for the migration lock.
  auto t = exec(c, "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class r JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace "
                   "WHERE r.relname = 'voxen_schema' AND n.nspname = current_schema())");
  if (!t) return t.error();
  if (PQgetvalue(t->get(), 0, 0)[0] == 0) return 0;
  auto v = exec(c, "SELECT coalesce(max(version), 0)::int8 FROM voxen_schema");
  if (!v) return v.error();
  return static_cast<int>(cell_int(v->get(), 0, 0));
}

/// Brings the schema to kPgSchemaVersion: each missing step in its own transaction, under a transaction-level
/// advisory lock (kPgLockClass, 0) so that two processes opening a fresh database do not both create it.
Status migrate(PGconn* c, const std::string& where) {
  auto v = schema_version(c);
  if (!v) return Error{"cannot read voxen's schema version in " + where + ": " + v.error().message};
  if (*v > kPgSchemaVersion)
    return Error{"the database " + where + " holds voxen's schema version " + std::to_string(*v) +
                 ", newer than this build reads (" + std::to_string(kPgSchemaVersion) + "); it was written by a newer voxen"};
  if (*v < 0)
    return Error{"the database " + where + " holds voxen's schema version " + std::to_string(*v) +
                 ", which no voxen writes (voxen_schema is damaged)"};
  while (*v < kPgSchemaVersion) {
    if (Status b = exec_script(c, "BEGIN"); !b.ok()) return b.error();
    auto fail = [&](const std::string& what) -> Status {
      exec_script(c, "ROLLBACK");
      return Error{"cannot bring voxen's schema in " + where + " to version " + std::to_string(*v + 1) + ": " + what};
    };
    auto l = exec(c, "SELECT pg_advisory_xact_lock($1::int4, 0)", {text_param(std::to_string(kPgLockClass))});
    if (!l) return fail(l.error().message);
    auto now = schema_version(c);  // another process may have migrated while this one waited
    if (!now) return fail(now.error().message);
    if (*now != *v) {
      exec_script(c, "ROLLBACK");
      v = now;
      if (*v > kPgSchemaVersion || *v < 0) return migrate(c, where);
      continue;
    }
    if (Status m = exec_script(c, kMigrations[*v]); !m.ok()) return fail(m.error().message);
    auto u = exec(c, "UPDATE voxen_schema SET version = $1::int4", {text_param(std::to_string(*v + 1))});
    if (!u) return fail(u.error().message);
    if (Status e = exec_script(c, "COMMIT"); !e.ok()) return fail(e.error().message);
    if (*v > 0) detail::log().info("migrated voxen's schema in {} from version {} to {}", where, *v, *v + 1);
    *v += 1;
  }
  return Ok{};
}

/// The world's row id, or nullopt when there is no world of that name.
Result<std::optional<int64_t>> find_world(PGconn* c, const std::string& name) {
  auto r = exec(c, "SELECT id FROM voxen_worlds WHERE name = $1", {text_param(name)});
  if (!r) return r.error();
  if (PQntuples(r->get()) == 0) return std::optional<int64_t>{};
  return std::optional<int64_t>{cell_int(r->get(), 0, 0)};
}

}  // namespace

// ---- the store -------------------------------------------------------------------------------------------------

PgWorldStore::PgWorldStore(PgWorldUrl url, std::unique_ptr<Connection> write, std::unique_ptr<Connection> read,
                           int64_t world_id)
    : m_url(std::move(url)), m_write(std::move(write)), m_read(std::move(read)), m_world_id(world_id) {}

PgWorldStore::~PgWorldStore() {
  if (Status s = close(); !s.ok()) detail::log().error("closing world {}: {}", m_url.display, s.error().to_string());
}

Status PgWorldStore::close() {
  if (m_closed) return Ok{};
  m_closed = true;
  // Ending the session releases its advisory lock; nothing is left to flush (every write was committed).
  if (m_write) m_write->finish();
  if (m_read) m_read->finish();
  return Ok{};
}

Result<std::vector<PgWorldInfo>> PgWorldStore::list_worlds(const PgWorldUrl& url) {
  Connection c(url);
  if (Status s = c.connect(); !s.ok()) return s.error();
  return c.run<std::vector<PgWorldInfo>>([&](PGconn* conn) -> Result<std::vector<PgWorldInfo>> {
    auto v = schema_version(conn);
    if (!v) return v.error();
    std::vector<PgWorldInfo> out;
    if (*v == 0) return out;
    if (*v > kPgSchemaVersion)
      return Error{"the database " + url.display + " holds voxen's schema version " + std::to_string(*v) +
                   ", newer than this build reads (" + std::to_string(kPgSchemaVersion) + ")"};
    auto r = exec(conn,
                  "SELECT w.name, w.complete, count(r.world)::int8, coalesce(sum(octet_length(r.value)), 0)::int8, "
                  "to_char(w.created, 'YYYY-MM-DD HH24:MI:SS'), "
                  "coalesce((SELECT coalesce(a.application_name, '') || '@' || coalesce(host(a.client_addr), 'this machine') "
                  "  FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND "
                  "  l.classid = $1::int4::oid AND l.objid = w.id::int4::oid AND l.objsubid = 2 AND l.granted LIMIT 1), '') "
                  "FROM voxen_worlds w LEFT JOIN voxen_records r ON r.world = w.id GROUP BY w.id ORDER BY w.name",
                  {text_param(std::to_string(kPgLockClass))});
    if (!r) return r.error();
    for (int i = 0, n = PQntuples(r->get()); i < n; ++i) {
      PgWorldInfo w;
      w.name = cell_bytes(r->get(), i, 0);
      w.complete = PQgetvalue(r->get(), i, 1)[0] != 0;
      w.records = static_cast<uint64_t>(cell_int(r->get(), i, 2));
      w.bytes = static_cast<uint64_t>(cell_int(r->get(), i, 3));
      w.created = cell_bytes(r->get(), i, 4);
      const std::string held = cell_bytes(r->get(), i, 5);
      if (!held.empty()) {
        const size_t at = held.rfind('@');
        const std::string app = held.substr(0, at), from = held.substr(at + 1);
        w.held_by = (app.starts_with("voxen-") ? "voxen process " + app.substr(6) : (app.empty() ? "a session" : "'" + app + "'")) +
                    " on " + from;
      }
      out.push_back(std::move(w));
    }
    return out;
  });
}

Result<int> PgWorldStore::database_schema_version(const PgWorldUrl& url) {
  Connection c(url);
  if (Status s = c.connect(); !s.ok()) return s.error();
  return c.run<int>([](PGconn* conn) { return schema_version(conn); });
}

Result<bool> PgWorldStore::exists(const PgWorldUrl& url) {
  Connection c(url);
  if (Status s = c.connect(); !s.ok()) return s.error();
  return c.run<bool>([&](PGconn* conn) -> Result<bool> {
    auto v = schema_version(conn);
    if (!v) return v.error();
    if (*v == 0) return false;
    if (*v > kPgSchemaVersion)
      return Error{"the database " + url.display + " holds voxen's schema version " + std::to_string(*v) +
                   ", newer than this build reads (" + std::to_string(kPgSchemaVersion) + ")"};
    auto id = find_world(conn, url.world);
    if (!id) return id.error();
    return id->has_value();
  });
}

namespace {

/// The world's row: its id and whether it is complete (false: an unfinished copy); nullopt when there is none.
struct WorldRow {
  int64_t id = 0;
  bool complete = true;
};
Result<std::optional<WorldRow>> find_row(PGconn* c, const std::string& name) {
  auto r = exec(c, "SELECT id, complete FROM voxen_worlds WHERE name = $1", {text_param(name)});
  if (!r) return r.error();
  if (PQntuples(r->get()) == 0) return std::optional<WorldRow>{};
  return std::optional<WorldRow>{WorldRow{cell_int(r->get(), 0, 0), PQgetvalue(r->get(), 0, 1)[0] != 0}};
}

Result<bool> try_lock_id(PGconn* c, int64_t id) {
  auto r = exec(c, "SELECT pg_try_advisory_lock($1::int4, $2::int4)",
                {text_param(std::to_string(kPgLockClass)), text_param(std::to_string(id))});
  if (!r) return r.error();
  return PQgetvalue(r->get(), 0, 0)[0] != 0;
}

std::string unfinished(const PgWorldUrl& url) {
  return "world '" + url.world + "' in " + url.display +
         " is an unfinished copy (a voxen world copy into it was interrupted); copy it again: the new copy replaces it";
}

}  // namespace

Result<std::unique_ptr<PgWorldStore>> PgWorldStore::open(const PgWorldUrl& url, const std::optional<PgCreate>& create,
                                                         bool lock) {
  auto write = std::make_unique<Connection>(url);
  if (Status s = write->connect(); !s.ok()) return s.error();
  bool locked = false;  // the creating transaction took the lock already
  auto id = write->run<int64_t>([&](PGconn* c) -> Result<int64_t> {
    locked = false;
    const std::string missing = "no voxen world '" + url.world + "' in the database " + url.display;
    if (!create) {
      // Opening only: a database without voxen's tables holds no world, and gets none of them from this.
      auto v = schema_version(c);
      if (!v) return Error{"cannot read voxen's schema version in " + url.display + ": " + v.error().message};
      if (*v == 0) return Error{missing};
    }
    if (Status m = migrate(c, url.display); !m.ok()) return m.error();
    auto found = find_row(c, url.world);
    if (!found) return Error{"cannot read the worlds in " + url.display + ": " + found.error().message};
    if (*found && !(*found)->complete && !(create && create->exclusive)) return Error{unfinished(url)};
    if (*found && (*found)->complete) {
      if (create && create->exclusive) return Error{"world '" + url.world + "' already exists in " + url.display};
      return (*found)->id;
    }
    if (!create) return Error{missing};
    // Create (or replace an unfinished copy): in one transaction the row is made and its lock taken, so no other
    // process can take the new world between the two.
    if (Status b = exec_script(c, "BEGIN"); !b.ok()) return b.error();
    auto fail = [&](const std::string& what) -> Error {
      if (PQstatus(c) == CONNECTION_OK) exec_script(c, "ROLLBACK");
      return Error{"cannot create world '" + url.world + "' in " + url.display + ": " + what};
    };
    if (*found) {
      auto l = try_lock_id(c, (*found)->id);
      if (!l) return fail(l.error().message);
      if (!*l) {
        exec_script(c, "ROLLBACK");
        return Error{"world '" + url.world + "' in " + url.display + " is being copied by another process"};
      }
      auto d = exec(c, "DELETE FROM voxen_worlds WHERE id = $1 AND NOT complete", {int8_param((*found)->id)});
      exec(c, "SELECT pg_advisory_unlock($1::int4, $2::int4)",
           {text_param(std::to_string(kPgLockClass)), text_param(std::to_string((*found)->id))});
      if (!d) return fail(d.error().message);
      detail::log().info("world '{}' in {}: replacing an unfinished copy", url.world, url.display);
    }
    std::vector<Param> p = {text_param(url.world), text_param(create->toml)};
    p.push_back(create->meta ? bytea_param(*create->meta) : Param{{}, kBytea, true, true});
    p.push_back(Param{create->incomplete ? "false" : "true", 16 /* bool */, false});
    auto ins = exec(c, "INSERT INTO voxen_worlds (name, toml, meta, complete) VALUES ($1, $2, $3, $4) "
                       "ON CONFLICT (name) DO NOTHING RETURNING id", p);
    if (!ins) return fail(ins.error().message);
    if (PQntuples(ins->get()) == 0) {
      // Another process made a world of that name meanwhile: an exclusive creation fails, any other opens it.
      exec_script(c, "ROLLBACK");
      if (create->exclusive) return Error{"world '" + url.world + "' already exists in " + url.display};
      auto again = find_row(c, url.world);
      if (!again || !*again) return Error{"cannot create world '" + url.world + "' in " + url.display};
      if (!(*again)->complete) return Error{unfinished(url)};
      return (*again)->id;
    }
    const int64_t made = cell_int(ins->get(), 0, 0);
    if (made > INT32_MAX) return fail("row id " + std::to_string(made) + " is past the advisory lock's range");
    auto l = try_lock_id(c, made);  // nobody else can know this id before the commit
    if (!l || !*l) return fail(l ? "its lock was taken" : l.error().message);
    if (Status e = exec_script(c, "COMMIT"); !e.ok()) return fail(e.error().message);
    locked = true;
    return made;
  });
  if (!id) return id.error();
  if (*id > INT32_MAX) return Error{"world '" + url.world + "' has row id " + std::to_string(*id) + ", past the advisory lock's range"};
  auto read = std::make_unique<Connection>(url);
  std::unique_ptr<PgWorldStore> s(new PgWorldStore(url, std::move(write), nullptr, *id));
  if (!lock && !locked) {
    s->m_lock_lost = true;
    s->m_lock_lost_message = "world '" + url.world + "' in " + url.display + " was opened for reading only";
  } else {
    if (!locked) {
      if (Status l = s->take_lock(); !l.ok()) return l.error();
    }
    PgWorldStore* self = s.get();
    self->m_write->set_on_reconnect([self](PGconn* c) { return self->relock(c); });
  }
  if (Status r = read->connect(); !r.ok()) return r.error();
  s->m_read = std::move(read);
  return s;
}

Status PgWorldStore::drop_world(const PgWorldUrl& url) {
  Connection c(url);
  if (Status s = c.connect(); !s.ok()) return s.error();
  auto done = c.run<bool>([&](PGconn* conn) -> Result<bool> {
    auto v = schema_version(conn);
    if (!v) return v.error();
    if (*v == 0) return true;
    auto row = find_row(conn, url.world);
    if (!row) return row.error();
    if (!*row) return true;
    auto l = try_lock_id(conn, (*row)->id);
    if (!l) return l.error();
    if (!*l) return Error{"world '" + url.world + "' in " + url.display + " is locked by another process"};
    auto d = exec(conn, "DELETE FROM voxen_worlds WHERE id = $1", {int8_param((*row)->id)});
    exec(conn, "SELECT pg_advisory_unlock($1::int4, $2::int4)",
         {text_param(std::to_string(kPgLockClass)), text_param(std::to_string((*row)->id))});
    if (!d) return d.error();
    return true;
  });
  if (!done) return Error{"cannot remove world '" + url.world + "' from " + url.display + ": " + done.error().message};
  return Ok{};
}

Status PgWorldStore::mark_complete() {
  return write_one(*m_write, "UPDATE voxen_worlds SET complete = true WHERE id = $1", {int8_param(m_world_id)},
                   "mark world '" + m_url.world + "' in " + m_url.display + " complete");
}

Status PgWorldStore::take_lock() {
  auto try_lock = [&] {
    return m_write->run<bool>([&](PGconn* c) -> Result<bool> {
      auto r = exec(c, "SELECT pg_try_advisory_lock($1::int4, $2::int4)",
                    {text_param(std::to_string(kPgLockClass)), text_param(std::to_string(m_world_id))});
      if (!r) return r.error();
      return PQgetvalue(r->get(), 0, 0)[0] != 0;
    });
  };
  // A process killed a moment ago holds its lock until the server sees its connection close (at once on a Unix
  // socket or a local connection): a short wait lets an open right after a crash go through.
  auto got = try_lock();
  for (int i = 0; i < 20 && got && !*got; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    got = try_lock();
  }
  if (!got) return Error{"cannot lock world '" + m_url.world + "' in " + m_url.display + ": " + got.error().message};
  if (*got) return Ok{};
  std::string holder;
  auto who = m_write->run<std::string>([&](PGconn* c) -> Result<std::string> {
    auto r = exec(c, "SELECT l.pid::int8, coalesce(a.application_name, ''), coalesce(host(a.client_addr), 'this machine') "
                     "FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND "
                     "l.classid = $1::int4::oid AND l.objid = $2::int4::oid AND l.objsubid = 2 AND l.granted LIMIT 1",
                  {text_param(std::to_string(kPgLockClass)), text_param(std::to_string(m_world_id))});
    if (!r || PQntuples(r->get()) == 0) return std::string();
    const std::string app = cell_bytes(r->get(), 0, 1), from = cell_bytes(r->get(), 0, 2);
    const std::string backend = "PostgreSQL server process " + std::to_string(cell_int(r->get(), 0, 0));
    if (app.starts_with("voxen-")) return " (voxen process " + app.substr(6) + " on " + from + ", " + backend + ")";
    return " (" + (app.empty() ? std::string() : "'" + app + "', ") + backend + ")";
  });
  if (who) holder = *who;
  return Error{"world '" + m_url.world + "' in " + m_url.display + " is locked by another process" + holder};
}

Result<std::vector<ColumnRecords>> PgWorldStore::load_columns(RecordKind kind, std::span<const ColumnPos> columns) {
  std::map<std::pair<int64_t, int64_t>, std::vector<StoredSection>> found;
  ArrayParam xs(kInt8Array, kInt8), zs(kInt8Array, kInt8);
  {
    std::map<std::pair<int64_t, int64_t>, bool> unique;
    for (const ColumnPos& c : columns)
      if (unique.emplace(std::make_pair(c.x, c.z), true).second) {
        xs.add_int(c.x, 8);
        zs.add_int(c.z, 8);
      }
  }
  const std::vector<Param> params = {int8_param(m_world_id), int2_param(static_cast<uint8_t>(kind)), xs.param(), zs.param()};
  auto rows = m_read->run<PgResult>([&](PGconn* c) {
    return exec_prepared(c, "voxen_load",
                "SELECT r.cx, r.cz, r.section, r.value FROM voxen_records r "
                "JOIN unnest($3::int8[], $4::int8[]) AS t (x, z) ON r.cx = t.x AND r.cz = t.z "
                "WHERE r.world = $1 AND r.kind = $2 ORDER BY r.cx, r.cz, r.section",
                params);
  });
  if (!rows) return Error{"cannot read columns of world '" + m_url.world + "' in " + m_url.display + ": " + rows.error().message};
  const PGresult* r = rows->get();
  for (int i = 0, n = PQntuples(r); i < n; ++i)
    found[{cell_int(r, i, 0), cell_int(r, i, 1)}].push_back({static_cast<int>(cell_int(r, i, 2)), cell_bytes(r, i, 3)});
  std::vector<ColumnRecords> out;
  out.reserve(columns.size());
  for (const ColumnPos& c : columns) {
    auto it = found.find({c.x, c.z});
    out.push_back({c, it == found.end() ? std::vector<StoredSection>{} : it->second});
  }
  return out;
}

Result<std::optional<std::string>> PgWorldStore::get(const RecordKey& key) {
  const std::vector<Param> params = {int8_param(m_world_id), int2_param(static_cast<uint8_t>(key.kind)), int8_param(key.pos.x),
                                     int8_param(key.pos.z), int2_param(static_cast<int>(key.pos.y))};
  auto rows = m_read->run<PgResult>([&](PGconn* c) {
    return exec_prepared(c, "voxen_get",
                         "SELECT value FROM voxen_records WHERE world = $1 AND kind = $2 AND cx = $3 AND cz = $4 AND section = $5",
                params);
  });
  if (!rows) return Error{"cannot read " + describe(key.pos) + " of world '" + m_url.world + "' in " + m_url.display + ": " +
                          rows.error().message};
  if (PQntuples(rows->get()) == 0) return std::optional<std::string>{};
  return std::optional<std::string>{cell_bytes(rows->get(), 0, 0)};
}

Status PgWorldStore::write(std::span<const WriteOp> ops, bool /*sync: every commit is flushed by the server*/) {
  {
    std::lock_guard lock(m_lock_mu);
    if (m_lock_lost) return Error{m_lock_lost_message};
  }
  // The batch's final value per key, in key order (a key written twice in one batch: the last op wins, as RocksDB
  // applies a WriteBatch in order), split into one upsert and one delete.
  std::map<std::string, const WriteOp*> last;
  for (const WriteOp& op : ops) last[encode_key(op.key)] = &op;
  ArrayParam pk(kInt2Array, kInt2), px(kInt8Array, kInt8), pz(kInt8Array, kInt8), ps(kInt2Array, kInt2), pv(kByteaArray, kBytea);
  ArrayParam dk(kInt2Array, kInt2), dx(kInt8Array, kInt8), dz(kInt8Array, kInt8), ds(kInt2Array, kInt2);
  size_t puts = 0, dels = 0;
  for (const auto& [k, op] : last) {
    if (op->value) {
      pk.add_int(static_cast<uint8_t>(op->key.kind), 2);
      px.add_int(op->key.pos.x, 8);
      pz.add_int(op->key.pos.z, 8);
      ps.add_int(static_cast<int>(op->key.pos.y), 2);
      pv.add(*op->value);
      ++puts;
    } else {
      dk.add_int(static_cast<uint8_t>(op->key.kind), 2);
      dx.add_int(op->key.pos.x, 8);
      dz.add_int(op->key.pos.z, 8);
      ds.add_int(static_cast<int>(op->key.pos.y), 2);
      ++dels;
    }
  }
  const std::vector<Param> put_params = {int8_param(m_world_id), pk.param(), px.param(), pz.param(), ps.param(), pv.param()};
  const std::vector<Param> del_params = {int8_param(m_world_id), dk.param(), dx.param(), dz.param(), ds.param()};
  static const char* const kPut =
      "INSERT INTO voxen_records (world, kind, cx, cz, section, value) "
      "SELECT $1, k, x, z, s, v FROM unnest($2::int2[], $3::int8[], $4::int8[], $5::int2[], $6::bytea[]) AS t (k, x, z, s, v) "
      "ON CONFLICT (world, kind, cx, cz, section) DO UPDATE SET value = EXCLUDED.value";
  static const char* const kDelete =
      "DELETE FROM voxen_records r USING unnest($2::int2[], $3::int8[], $4::int8[], $5::int2[]) AS t (k, x, z, s) "
      "WHERE r.world = $1 AND r.kind = t.k AND r.cx = t.x AND r.cz = t.z AND r.section = t.s";
  std::vector<Step> steps;
  if (puts) steps.push_back({"voxen_put", kPut, &put_params});
  if (dels) steps.push_back({"voxen_delete", kDelete, &del_params});
  if (steps.empty()) return Ok{};
  auto done = m_write->run<bool>(
      [&](PGconn* c) -> Result<bool> {
        // One round trip: the upsert and the delete pipelined as one implicit transaction (exec_pipeline).
        if (Status w = exec_pipeline(c, steps); !w.ok()) return w.error();
        return true;
      });
  if (!done)
    return Error{"cannot write a batch of " + std::to_string(ops.size()) + (ops.size() == 1 ? " record" : " records") + " to world '" + m_url.world + "' in " +
                 m_url.display + ": " + done.error().message};
  return Ok{};
}

Result<std::vector<RecordKey>> PgWorldStore::list(RecordKind kind) {
  auto rows = m_read->run<PgResult>([&](PGconn* c) {
    return exec(c, "SELECT cx, cz, section FROM voxen_records WHERE world = $1 AND kind = $2 ORDER BY cx, cz, section",
                {int8_param(m_world_id), int2_param(static_cast<uint8_t>(kind))});
  });
  if (!rows) return Error{"cannot list records of world '" + m_url.world + "' in " + m_url.display + ": " + rows.error().message};
  std::vector<RecordKey> out;
  const PGresult* r = rows->get();
  for (int i = 0, n = PQntuples(r); i < n; ++i) {
    const int64_t s = cell_int(r, i, 2);
    if (s < 0 || s > 255) continue;
    // Through the 18-byte key, so that rows of shapes a key cannot have are skipped exactly as RocksDB's are.
    if (auto k = decode_key(encode_key(RecordKey{kind, SectionPos{cell_int(r, i, 0), static_cast<int>(s), cell_int(r, i, 1)}})))
      out.push_back(*k);
  }
  return out;
}

namespace {
Result<std::string> keep_row(PGconn* c, int64_t world, const std::string& what, std::string_view value) {
  auto r = exec(c,
                "WITH found AS (SELECT n FROM voxen_aside WHERE world = $1 AND what = $2 AND value = $3 LIMIT 1), "
                "ins AS (INSERT INTO voxen_aside (world, what, value) SELECT $1, $2, $3 "
                "WHERE NOT EXISTS (SELECT 1 FROM found) RETURNING n) "
                "SELECT n FROM found UNION ALL SELECT n FROM ins",
                {int8_param(world), text_param(what), bytea_param(value)});
  if (!r) return r.error();
  return std::to_string(cell_int(r->get(), 0, 0));
}
}  // namespace

Result<std::string> PgWorldStore::keep_aside(const RecordKey& key, std::string_view value) {
  const std::string what = std::string(1, static_cast<char>(key.kind)) + "." + std::to_string(key.pos.x) + "." +
                           std::to_string(key.pos.z) + "." + std::to_string(key.pos.y);
  auto n = m_write->run<std::string>([&](PGconn* c) { return keep_row(c, m_world_id, what, value); });
  if (!n) return Error{"cannot keep " + describe(key.pos) + " aside in " + m_url.display + ": " + n.error().message};
  return "voxen_aside row " + *n + " (" + what + ") of world '" + m_url.world + "' in " + m_url.display;
}

Result<std::optional<std::string>> PgWorldStore::get_meta_record() {
  auto rows = m_read->run<PgResult>(
      [&](PGconn* c) { return exec(c, "SELECT meta FROM voxen_worlds WHERE id = $1", {int8_param(m_world_id)}); });
  if (!rows) return Error{"cannot read the metadata of world '" + m_url.world + "' in " + m_url.display + ": " + rows.error().message};
  if (PQntuples(rows->get()) == 0) return Error{"world '" + m_url.world + "' is gone from " + m_url.display};
  if (PQgetisnull(rows->get(), 0, 0)) return std::optional<std::string>{};
  return std::optional<std::string>{cell_bytes(rows->get(), 0, 0)};
}

Status PgWorldStore::put_meta_record(std::string_view value, bool) {
  return write_one(*m_write, "UPDATE voxen_worlds SET meta = $2 WHERE id = $1", {int8_param(m_world_id), bytea_param(value)},
                   "write the metadata of world '" + m_url.world + "' in " + m_url.display);
}

Status PgWorldStore::drop() {
  if (Status d = write_one(*m_write, "DELETE FROM voxen_worlds WHERE id = $1", {int8_param(m_world_id)},
                           "delete world '" + m_url.world + "' from " + m_url.display);
      !d.ok())
    return d;
  return close();
}

Result<std::string> PgWorldStore::meta_text() {
  auto rows = m_read->run<PgResult>(
      [&](PGconn* c) { return exec(c, "SELECT toml FROM voxen_worlds WHERE id = $1", {int8_param(m_world_id)}); });
  if (!rows) return Error{"cannot read the metadata of world '" + m_url.world + "' in " + m_url.display + ": " + rows.error().message};
  if (PQntuples(rows->get()) == 0) return Error{"world '" + m_url.world + "' is gone from " + m_url.display};
  return cell_bytes(rows->get(), 0, 0);
}

Status PgWorldStore::put_meta_text(std::string_view text) {
  return write_one(*m_write, "UPDATE voxen_worlds SET toml = $2 WHERE id = $1", {int8_param(m_world_id), text_param(text)},
                   "write the metadata of world '" + m_url.world + "' in " + m_url.display);
}

Result<std::string> PgWorldStore::keep_meta_text_aside() {
  auto text = meta_text();
  if (!text) return text.error();
  auto n = m_write->run<std::string>([&](PGconn* c) { return keep_row(c, m_world_id, "voxen.toml", *text); });
  if (!n) return Error{"cannot keep voxen.toml aside in " + m_url.display + ": " + n.error().message};
  return "voxen_aside row " + *n + " (voxen.toml) of world '" + m_url.world + "' in " + m_url.display;
}

Result<std::vector<std::pair<std::string, std::string>>> PgWorldStore::kept_aside() {
  auto rows = m_read->run<PgResult>(
      [&](PGconn* c) { return exec(c, "SELECT what, value FROM voxen_aside WHERE world = $1 ORDER BY n", {int8_param(m_world_id)}); });
  if (!rows) return Error{"cannot read the copies kept aside for world '" + m_url.world + "' in " + m_url.display + ": " +
                          rows.error().message};
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0, n = PQntuples(rows->get()); i < n; ++i) out.emplace_back(cell_bytes(rows->get(), i, 0), cell_bytes(rows->get(), i, 1));
  return out;
}

Status PgWorldStore::poke(const RecordKey& key, std::string_view value) {
  const WriteOp op{key, std::string(value)};
  return write(std::span<const WriteOp>(&op, 1), true);
}

Status PgWorldStore::execute(const std::string& sql) {
  auto r = m_write->run<bool>([&](PGconn* c) -> Result<bool> {
    if (Status s = exec_script(c, sql.c_str()); !s.ok()) return s.error();
    return true;
  });
  if (!r) return r.error();
  return Ok{};
}

Status PgWorldStore::relock(PGconn* c) {
  // The lock ended with the old connection; another process may have taken the world since.
  auto r = exec(c, "SELECT pg_try_advisory_lock($1::int4, $2::int4)",
                {text_param(std::to_string(kPgLockClass)), text_param(std::to_string(m_world_id))});
  if (r && PQgetvalue(r->get(), 0, 0)[0] != 0) return Ok{};
  std::lock_guard lock(m_lock_mu);
  m_lock_lost = true;
  m_lock_lost_message = "world '" + m_url.world + "' in " + m_url.display + ": the connection was lost and, on reconnecting, " +
                        (r ? std::string("its lock was held by another session (another process, or this process's old connection, which the "
                                         "server had not yet seen close)")
                            : "its lock could not be taken again (" + r.error().message + ")") +
                        "; this process writes nothing more to it";
  return Error{m_lock_lost_message};
}

}  // namespace voxen::store
