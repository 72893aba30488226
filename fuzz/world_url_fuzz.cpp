// libFuzzer target for world URLs (store::parse_database_url, pg_store.h; build with -DVOXEN_FUZZ=ON and clang,
// docs/FUZZING.md). Any string must parse or give an Error with a message, never a crash or a sanitizer report; a
// password given in the URL never appears in the display form or in an error; a URL that parses names a valid world
// and keeps no `world=` or `reconnect=` parameter in what goes to libpq.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "voxen/core/error.h"
#include "voxen/store/pg_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  // Half the inputs get the scheme, so the parser's own paths are reached, not only the scheme check.
  const std::string url = (size > 0 && (data[0] & 1)) ? "postgresql://" + std::string(raw.substr(1)) : std::string(raw);
  if (!voxen::store::is_database_url(url)) return 0;
  auto r = voxen::store::parse_database_url(url);
  // A password as libpq reads one: between "://user:" and the first '@', when that comes before the first '/'.
  const size_t scheme = url.find("://") + 3;
  const size_t slash = url.find('/', scheme);
  size_t at = url.find('@', scheme);
  if (slash != std::string::npos && at != std::string::npos && at > slash) at = std::string::npos;
  std::string password;
  if (at != std::string::npos && at >= scheme) {
    const size_t colon = url.find(':', scheme);
    if (colon != std::string::npos && colon < at) password = url.substr(colon + 1, at - colon - 1);
  }
  // ... or as a password= parameter of the query.
  std::string param_password;
  const size_t query = url.find('?');
  if (const size_t p = query == std::string::npos ? query : url.find("password=", query);
      p != std::string::npos && (url[p - 1] == '?' || url[p - 1] == '&')) {
    const size_t e = url.find('&', p + 9);
    param_password = url.substr(p + 9, e == std::string::npos ? std::string::npos : e - p - 9);
  }
  if (!r.ok()) {
    VOXEN_ASSERT(!r.error().message.empty());
    if (password.size() >= 4) VOXEN_ASSERT(r.error().message.find(":" + password + "@") == std::string::npos);
    return 0;
  }
  VOXEN_ASSERT(!r->world.empty() && r->world.size() <= 63);
  if (password.size() >= 4) VOXEN_ASSERT(r->display.find(":" + password + "@") == std::string::npos);
  if (param_password.size() >= 4 && param_password != "***")
    VOXEN_ASSERT(r->display.find("password=" + param_password) == std::string::npos);
  // What goes to libpq keeps none of voxen's own parameters.
  if (const size_t q = r->conninfo.find('?'); q != std::string::npos) {
    std::string_view rest = std::string_view(r->conninfo).substr(q + 1);
    while (!rest.empty()) {
      const size_t amp = rest.find('&');
      const std::string_view item = rest.substr(0, amp);
      VOXEN_ASSERT(!item.starts_with("world=") && !item.starts_with("reconnect=") && !item.starts_with("query_timeout="));
      rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    }
  }
  return 0;
}
