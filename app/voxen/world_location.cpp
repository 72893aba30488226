#include "world_location.h"

#include "voxen/store/pg_store.h"

namespace voxen::app {

std::string world_location_check(const std::string& v) {
  // An empty name would read as "no --world" and the edits would silently go unsaved.
  if (v.empty()) return "must name a directory or a world URL (got an empty string)";
  if (store::is_database_url(v)) {
    auto u = store::parse_database_url(v);
    return u ? std::string() : u.error().message;
  }
  // A mistyped scheme would otherwise make a directory named after it.
  if (const size_t sep = v.find("://"); sep != std::string::npos && sep > 0 && v.find('/') == sep + 1)
    return "'" + v.substr(0, sep) + "://' is not a world URL scheme: worlds in a database are postgresql://USER@HOST[:PORT]/DB?world=NAME "
           "(a directory named so: write ./" + v.substr(0, sep) + ":...)";
  return "";
}

}  // namespace voxen::app
