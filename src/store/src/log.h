// The store's logger: spdlog, to stderr (stdout carries command output), named "voxen.store".
#pragma once

#include <memory>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace voxen::store::detail {

/// The shared "voxen.store" logger (created on first use; thread-safe).
inline spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    if (auto existing = spdlog::get("voxen.store")) return existing;
    auto l = spdlog::stderr_color_mt("voxen.store");
    l->set_pattern("voxen: %l: %v");
    return l;
  }();
  return *logger;
}

}  // namespace voxen::store::detail
