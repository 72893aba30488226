// `--culling`, `--render-path` and `--shadows` for the commands that draw (shot, play, tour) and the culling figures of
// a frame in JSON.
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "voxen/render/renderer.h"

namespace voxen::app {

/// `--culling none|frustum|caves|occlusion|all` into `mode` (checked while parsing; render::CullMode).
CLI::Option* add_culling_option(CLI::App& cmd, std::string& mode);

/// `--render-path mdi|per-chunk|raymarch`, `--shadows none|traced` and `--no-beam` (render::RenderPath, render::Shadows), checked
/// while parsing, so parse_render_path / parse_shadows of the values always succeed.
struct RenderFlags {
  std::string path = "mdi";
  std::string shadows = "none";
  bool no_beam = false;  // --no-beam: the ray march starts every ray at the eye
  bool no_clouds = false;  // --no-clouds: no cloud layer in the sky (render::FrameParams::clouds)
  render::RenderPath render_path() const;
  render::Shadows shadow_mode() const;
  /// Throws UsageError for flags that contradict each other (--shadows traced with --render-path per-chunk).
  void validate() const;
};
void add_render_options(CLI::App& cmd, RenderFlags& flags);

/// The sky's clock for the commands that run the game (play, tour): `--time-of-day HOURS` (0..24, default 10) and
/// `--day-minutes M` (a whole day's length in minutes of game time, 0..100000; 0 stops the clock).
struct SkyFlags {
  double time_of_day = 10.0;
  double day_minutes = 0.0;
  bool no_creatures = false;  // --no-creatures: no animals spawn (play/creatures.h)
};
void add_sky_options(CLI::App& cmd, SkyFlags& flags, const std::string& day_minutes_default);

/// A frame's culling: {mode, eye_near_opaque, sections_loaded, sections_in_frustum, sections_hidden_by_caves,
/// sections_hidden_by_occlusion, sections_drawn, lod_sections_hidden_by_occlusion, occluder_boxes, caves_ms,
/// occlusion_ms, culling_ms}.
nlohmann::json culling_json(std::string_view mode, const render::FrameStats& fs);

}  // namespace voxen::app
