// What the benchmark programs share: the calling thread's CPU time (for manual timing on the shared 2-core machine),
// the shipped block registry and its light table, and generators by name; a bad registry or generator name ends the
// program with a message (exit 1).
#pragma once

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <utility>

#include "voxen/gen/generator.h"
#include "voxen/light/rules.h"
#include "voxen/world/block_registry.h"

namespace voxen::benchsupport {

/// The calling thread's CPU time, in seconds.
inline double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// CPU time of the whole process (every thread), seconds.
inline double process_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// The shipped registry (data/blocks.toml), loaded once.
inline const BlockRegistry& registry() {
  static const BlockRegistry reg = [] {
    auto r = BlockRegistry::load_default();
    if (!r) {
      std::fprintf(stderr, "block registry: %s\n", r.error().message.c_str());
      std::exit(1);
    }
    return std::move(r).value();
  }();
  return reg;
}
inline const light::LightTable& table() {
  static const light::LightTable t(registry());
  return t;
}
inline Cell block(const char* name) { return Cell{registry().id(name), 0}; }

/// The generator `name` ("default", "flat") of `seed`.
inline std::unique_ptr<gen::Generator> make(std::string_view name, uint64_t seed) {
  auto g = gen::make_generator(name, seed, registry());
  if (!g) {
    std::fprintf(stderr, "%s\n", g.error().message.c_str());
    std::exit(1);
  }
  return std::move(g).value();
}

}  // namespace voxen::benchsupport
