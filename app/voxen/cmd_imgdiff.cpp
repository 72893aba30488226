// voxen imgdiff: compares two PNG images. strict = identical bytes; look = Quantum's rule (at most 0.05%
// of pixels off by more than 6/255 in any channel, and no 4-connected blob of such pixels larger than 32 px).
// Prints the pixels differing, the largest blob and pass/fail; exit 0 on pass, 1 on fail or on an unreadable image
// (the message names the file), 2 on bad arguments.
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/render/image.h"
#include "voxen/render/imgdiff.h"

namespace voxen::app {
namespace {

struct ImgdiffOptions {
  std::string a, b;
  std::string mode = "strict";
  std::string out;
  bool json = false;
};

int run_imgdiff(const ImgdiffOptions& o) {
  render::DiffMode mode;
  if (!render::parse_diff_mode(o.mode, mode)) throw UsageError("--mode", "must be strict or look (got '" + o.mode + "')");
  auto a = render::load_png(o.a);
  if (!a) throw RunError(a.error().to_string());
  auto b = render::load_png(o.b);
  if (!b) throw RunError(b.error().to_string());
  const render::LookRule rule;
  const render::DiffResult r = render::compare_images(*a, *b, mode, rule);
  if (!o.out.empty()) {
    if (auto s = render::save_png(render::diff_image(*a, *b, rule), o.out); !s.ok()) throw RunError(s.error().to_string());
  }
  const double pct = r.pixels ? 100.0 * static_cast<double>(r.pixels_failing) / static_cast<double>(r.pixels) : 0.0;
  if (o.json) {
    nlohmann::json j;
    j["mode"] = o.mode;
    j["pass"] = r.pass;
    j["size_mismatch"] = r.size_mismatch;
    j["a"] = {{"file", o.a}, {"width", a->width}, {"height", a->height}};
    j["b"] = {{"file", o.b}, {"width", b->width}, {"height", b->height}};
    j["pixels"] = r.pixels;
    j["pixels_differing"] = r.pixels_differing;
    j["pixels_failing"] = r.pixels_failing;
    j["failing_percent"] = pct;
    j["largest_blob"] = r.largest_blob;
    j["max_channel_delta"] = r.max_channel_delta;
    if (!o.out.empty()) j["diff_image"] = o.out;
    std::printf("%s\n", j.dump().c_str());
  } else if (r.size_mismatch) {
    std::printf("sizes differ: %s is %dx%d, %s is %dx%d\nFAIL\n", o.a.c_str(), a->width, a->height, o.b.c_str(), b->width,
                b->height);
  } else {
    std::printf("pixels differing   %llu of %llu\n", static_cast<unsigned long long>(r.pixels_differing),
                static_cast<unsigned long long>(r.pixels));
    std::printf("pixels failing     %llu (%.4f%%; more than %d/255 in a channel)\n",
                static_cast<unsigned long long>(r.pixels_failing), pct, rule.channel_tolerance);
    std::printf("largest blob       %llu px (4-connected failing pixels)\n", static_cast<unsigned long long>(r.largest_blob));
    std::printf("max channel delta  %d\n", r.max_channel_delta);
    std::printf("%s (%s)\n", r.pass ? "PASS" : "FAIL", o.mode.c_str());
  }
  return r.pass ? 0 : 1;
}

}  // namespace

void add_imgdiff_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<ImgdiffOptions>();
  CLI::App* cmd = app.add_subcommand("imgdiff", "compare two PNG images (strict bytes, or the look rule); exit 0 pass, 1 fail");
  cmd->add_option("A", o->a, "first PNG")->required();
  cmd->add_option("B", o->b, "second PNG")->required();
  cmd->add_option("--mode", o->mode, "strict (identical bytes, default) or look (<= 0.05% of pixels off by > 6/255, no blob > 32 px)");
  cmd->add_option("--out", o->out, "write a picture of the differences (failing pixels red, others differing yellow)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_imgdiff(*o); }; });
}

}  // namespace voxen::app
