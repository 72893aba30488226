// Helpers for the render tests: run `voxen shot` through the real binary (VOXEN_BINARY) into a temporary PNG,
// read back its pixels and its --json report.
#pragma once

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_command.h"
#include "voxen/render/image.h"

namespace voxen::testing {

struct ShotResult {
  CommandResult run;
  nlohmann::json json;      // the --json report (null if the run failed)
  render::Image image;      // the PNG's pixels (empty if the run failed)
  std::string path;         // the PNG written
};

/// A fresh temporary file name ending in `suffix`.
inline std::string temp_path(const std::string& stem, const std::string& suffix = ".png") {
  static std::atomic<int> counter{0};
  return ::testing::TempDir() + "voxen_" + stem + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + suffix;
}

/// Runs `voxen shot <args> --out <temp> --json` (env prefixed to the command line, e.g. "MESA_GL_VERSION_OVERRIDE=3.3").
/// Without a --far-distance in `args` the far view is turned off (--far-distance 0): the tests of the near field
/// stay what they were, and the far view's own tests say what they want.
inline ShotResult run_shot(const std::vector<std::string>& args, const std::string& env = "", bool keep = false) {
  ShotResult r;
  r.path = temp_path("shot");
  std::vector<std::string> full = {"shot"};
  full.insert(full.end(), args.begin(), args.end());
  bool far_given = false;
  for (const std::string& a : args) far_given = far_given || a == "--far-distance";
  if (!far_given) full.insert(full.end(), {"--far-distance", "0"});
  full.insert(full.end(), {"--out", r.path, "--json"});
  r.run = run_voxen(full, env);
  if (r.run.exit_code == 0) {
    r.json = nlohmann::json::parse(r.run.out, nullptr, false);
    auto img = render::load_png(r.path);
    if (img.ok()) r.image = std::move(img).value();
  }
  if (!keep) std::remove(r.path.c_str());
  return r;
}

/// The file's bytes.
inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Number of pixels whose RGBA bytes differ.
inline size_t pixels_differing(const render::Image& a, const render::Image& b) {
  if (a.width != b.width || a.height != b.height) return static_cast<size_t>(-1);
  size_t n = 0;
  for (size_t i = 0; i < a.pixel_count(); ++i)
    n += a.pixels[i * 4] != b.pixels[i * 4] || a.pixels[i * 4 + 1] != b.pixels[i * 4 + 1] ||
         a.pixels[i * 4 + 2] != b.pixels[i * 4 + 2] || a.pixels[i * 4 + 3] != b.pixels[i * 4 + 3];
  return n;
}

}  // namespace voxen::testing
