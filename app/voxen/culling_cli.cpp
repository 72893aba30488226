// `--culling` and the culling figures in JSON (culling_cli.h).
#include "culling_cli.h"

#include "cli_util.h"

namespace voxen::app {

CLI::Option* add_culling_option(CLI::App& cmd, std::string& mode) {
  return cmd
      .add_option("--culling", mode,
                  "none (every loaded section drawn), frustum, caves (frustum, then cave culling's search through the "
                  "sections' see-through cells), occlusion (frustum, then the software occlusion pass, which also hides "
                  "far-view LOD sections), all (frustum, caves, occlusion; default). The picture is the same in every "
                  "mode (docs/ARCHITECTURE.md, Visibility)")
      ->check(CLI::IsMember({"none", "frustum", "caves", "occlusion", "all"}));
}

void add_render_options(CLI::App& cmd, RenderFlags& flags) {
  cmd.add_option("--render-path", flags.path,
                 "mdi (one multi-draw-indirect per pass), per-chunk (one draw per mesh, GL 3.3) or raymarch (a compute pass "
                 "marches a ray per pixel through the sections' cells and their quads; GL 4.3) (default mdi)")
      ->check(CLI::IsMember({"mdi", "per-chunk", "raymarch"}));
  cmd.add_option("--shadows", flags.shadows,
                 "sun shadows: none, or traced (a sun ray per visible surface point through the cells: shadows with the cells' shape; "
                 "mdi and raymarch paths) (default none)")
      ->check(CLI::IsMember({"none", "traced"}));
  cmd.add_flag("--no-beam", flags.no_beam, "raymarch: start every ray at the eye instead of at its tile's beam distance");
  cmd.add_flag("--no-clouds", flags.no_clouds, "no cloud layer in the sky (drawn by default: drifting value-noise clouds at y 192)");
}

void add_sky_options(CLI::App& cmd, SkyFlags& flags, const std::string& day_minutes_default) {
  cmd.add_option("--time-of-day", flags.time_of_day, "hours 0..24 at the start: the sun, moon, stars and sky light (default 10)")
      ->check(finite_range(0.0, 24.0));
  cmd.add_option("--day-minutes", flags.day_minutes,
                 "minutes of game time a whole day and night last, 0..100000; 0: the time of day stays put (default " +
                     day_minutes_default + ")")
      ->check(finite_range(0.0, 100000.0));
  cmd.add_flag("--no-creatures", flags.no_creatures, "no animals: none spawn in the drawn columns");
}

render::RenderPath RenderFlags::render_path() const {
  render::RenderPath p = render::RenderPath::kMultiDrawIndirect;
  render::parse_render_path(path, p);
  return p;
}

void RenderFlags::validate() const {
  if (shadow_mode() == render::Shadows::kTraced && render_path() == render::RenderPath::kPerChunk)
    throw UsageError("--shadows", "traced needs the mdi or raymarch path (GL 4.3); the per-chunk path draws no shadows");
}

render::Shadows RenderFlags::shadow_mode() const {
  render::Shadows s = render::Shadows::kNone;
  render::parse_shadows(shadows, s);
  return s;
}

nlohmann::json culling_json(std::string_view mode, const render::FrameStats& fs) {
  return {{"mode", mode},
          {"eye_near_opaque", fs.culling_eye_near_opaque},
          {"sections_loaded", fs.sections_loaded},
          {"sections_in_frustum", fs.sections_in_frustum},
          {"sections_hidden_by_caves", fs.sections_hidden_by_caves},
          {"sections_hidden_by_occlusion", fs.sections_hidden_by_occlusion},
          {"sections_drawn", fs.sections_visible},
          {"lod_sections_hidden_by_occlusion", fs.lod_sections_hidden_by_occlusion},
          {"occluder_boxes", fs.occluder_boxes},
          {"caves_ms", fs.caves_ms},
          {"occlusion_ms", fs.occlusion_ms},
          {"culling_ms", fs.culling_ms}};
}

}  // namespace voxen::app
