// voxen shot: the main job. Generates, lights and meshes the world in view (worker pool, nearest first), draws one
// frame with the terrain renderer (one multi-draw-indirect call per pass, or per-chunk) headless through EGL (or
// in a GLFW window), and writes the picture as PNG. See docs/ARCHITECTURE.md (Rendering) for what is loaded.
//
// --pos X,Y,Z is the eye's world position in blocks (integers or decimals; Y may be `surface`: 2 blocks above the
// top face of the ground at X, Z). --look YAW,PITCH in degrees: yaw 0 looks north (-Z), 90 east (+X); pitch
// positive looks up.
//
// --world DIR shows a saved world (its saved edits over generation) and --edit places blocks, with probe's meaning
// (app/voxen/world_open.h): the columns of the view and their ring are loaded through CommandWorld (the edits placed
// as they load), lit from scratch (so the light of edited cells is exact; --verify-light checks it against the
// oracle), and only then meshed, so an edit at a column border is in both columns' meshes. Edits in columns the
// view does not load are saved with --world when the world closes, and do not matter to the picture. The PNG is
// written to a temporary name, fsynced and renamed, and the world closed (edits committed), before anything is
// printed.
//
// --vox FILE lays a MagicaVoxel scene over the terrain (or, with --vox-empty, over air): its columns are made by the
// importer before anything loads and a stream::PreparedSource lays them over the generator's columns as they load
// (vox_overlay.h; `voxen view` draws through the same source). A `surface` eye then stands on the loaded cells, the
// scene's included, by the rule above (a solid block that is not foliage: a scene's cloud does not count).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include <glm/glm.hpp>
#include <cstring>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "culling_cli.h"
#include "commands.h"
#include "voxen/core/job_pool.h"
#include "voxen/cull/occlusion.h"
#include "voxen/light/light.h"
#include "voxen/light/oracle.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/render/image.h"
#include "voxen/render/hit_oracle.h"
#include "voxen/render/imgdiff.h"
#include "voxen/render/platform.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/far_view.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"
#include "vox_overlay.h"
#include "world_open.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct ShotOptions {
  WorldFlags world;
  WorldDirFlag world_dir;
  EditFlag edits;
  bool verify_light = false;
  std::string pos;
  std::string look = "0,0";
  FrameSize size{1280, 720};
  double fov = 70.0;
  int render_distance = 12;
  RenderFlags render;
  double time_of_day = 10.0;
  double anim_time = 0.0;
  std::string out;
  std::string occlusion_png;  // --occlusion-buffer: the occlusion pass's depth buffer as a PNG
  std::string terrain_mask;  // --terrain-mask: a PNG, white where terrain (near or far) shows, black where sky
  std::string platform = "egl";
  std::string gl_version;
  int threads = 0;
  bool load_all = false;
  int arena_limit_mib = 0;            // --arena-limit-mib: the most bytes one arena GL buffer may have
  bool arena_limit_given = false;     // (without it: the GL limits alone)
  std::string vox;                    // --vox: a .vox scene placed over the world (vox_overlay.h)
  std::string vox_at = "0,surface,0";
  bool vox_empty = false;
  bool json = false;
  double far_distance = 4096;         // --far-distance: blocks; at or inside the render distance: off
  double far_pixels = 3.0;            // --far-pixels: the selection threshold (FarConfig::cell_pixels)
  std::string culling = "all";        // --culling: none, frustum, caves, all (ARCHITECTURE, "Visibility")
  std::string compare_raster;         // --compare-raster: a PNG of where the ray march and the raster path disagree
  bool compare_raster_given = false;
};


// One coordinate: an integer or a decimal ("-12", "7.25"), split exactly into an int64 floor and a fraction in
// [0, 1) so positions far out (2^40) keep their fractional part.
bool parse_coord(std::string_view s, int64_t& block, double& frac) {
  const size_t dot = s.find('.');
  const std::string_view int_part = s.substr(0, dot);
  if (int_part.empty() || int_part == "-" || int_part == "+") {
    if (dot == std::string_view::npos) return false;
  }
  int64_t whole = 0;
  if (!(int_part.empty() || int_part == "-" || int_part == "+")) {
    auto v = parse_int64(int_part);
    if (!v) return false;
    whole = *v;
  }
  double f = 0.0;
  if (dot != std::string_view::npos) {
    const std::string_view digits = s.substr(dot + 1);
    if (digits.empty() || digits.size() > 17) return false;
    for (char c : digits)
      if (c < '0' || c > '9') return false;
    // Correctly rounded: "0.25" is exactly 0.25, and the same digits always give the same double.
    f = std::strtod(("0." + std::string(digits)).c_str(), nullptr);
  }
  const bool negative = !s.empty() && s.front() == '-';
  if (negative && f > 0.0) {
    block = whole - 1;
    frac = 1.0 - f;
  } else {
    block = whole;
    frac = f;
  }
  return true;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return parts;
}

struct EyePos {
  BlockPos block;
  glm::dvec3 frac{0.0};
  bool surface = false;
};

EyePos parse_eye(const std::string& text) {
  const auto parts = split(text, ',');
  const std::string bad = "malformed position '" + text + "' (expected X,Y,Z in blocks; Y may be 'surface')";
  if (parts.size() != 3) throw UsageError("--pos", bad);
  EyePos e;
  if (!parse_coord(parts[0], e.block.x, e.frac.x) || !parse_coord(parts[2], e.block.z, e.frac.z)) throw UsageError("--pos", bad);
  if (parts[1] == "surface") {
    e.surface = true;
  } else {
    if (!parse_coord(parts[1], e.block.y, e.frac.y)) throw UsageError("--pos", bad);
    if (e.block.y < kMinY - 64 || e.block.y > kMaxY + 256)
      throw UsageError("--pos", "y " + parts[1] + " is too far outside the world (" + std::to_string(kMinY - 64) + ".." +
                                    std::to_string(kMaxY + 256) + ")");
  }
  return e;
}

// The world y of the top cell at (x, z) that the camera's `surface` stands on, read from the world's cells (its
// column must be loaded): a solid block that is not foliage (leaves are the registry's cutout cubes), the rule of
// gen::Generator::surface_y, which gives the same y on generated cells. kMinY - 1 where there is none.
int64_t world_surface_y(const World& world, const BlockRegistry& reg, int64_t x, int64_t z) {
  for (int64_t y = kMaxY; y >= kMinY; --y) {
    const BlockDef& d = reg[world.get({x, y, z}).id];
    if (d.defined && d.solid && !(d.transparency == Transparency::kCutout && d.shape == Shape::kCube)) return y;
  }
  return kMinY - 1;
}

/// Writes `img` as a PNG to `path` through a temporary file, fsynced and renamed into place (write_file_durably).
// The occlusion buffer as a picture (--occlusion-buffer): black uncovered, red covered in part, grey covered wholly
// (255 / (1 + depth / 32): lighter nearer). Row 0 of the buffer is the frame's bottom (GL): flipped to top first.
render::Image occlusion_picture(const cull::OcclusionBuffer& ob) {
  render::Image img(ob.width(), ob.height(), 0xFF000000u);
  for (int y = 0; y < ob.height(); ++y)
    for (int x = 0; x < ob.width(); ++x) {
      uint8_t* p = img.at(x, ob.height() - 1 - y);
      if (ob.pixel_full(x, y)) {
        const auto v = static_cast<uint8_t>(255.0 / (1.0 + static_cast<double>(ob.pixel_depth(x, y)) / 32.0));
        p[0] = p[1] = p[2] = v;
      } else if (ob.pixel_touched(x, y)) {
        p[0] = 160;
      }
    }
  return img;
}

void write_png_durably(const std::string& path, const render::Image& img) {
  write_file_durably(path, [&img](const std::string& temp) {
    const Status s = render::save_png(img, temp);
    return s.ok() ? std::string() : s.error().to_string();
  });
}

// The ray march against the raster path on the same frame (--compare-raster): which pixels name the same cell and
// face (Renderer::read_hit_ids of each) and the two pictures by the look rule.
struct RasterComparison {
  render::HitAgreement hits;
  render::DiffResult look;
  uint64_t look_failing_on_edge_ties = 0;  // of look.pixels_failing: pixels where the two hit an edge (kEdgeTie)
};

// Draws `fp` once more by the raster (multi-draw-indirect) path with ids, compares with the ray march's frame
// (`march`, its ids `march_ids` and probes `march_probes`) by render::match_frames and writes `out`: the ray march's
// picture, greyed, with the edge ties in yellow, the silhouettes in red and any other difference in magenta.
RasterComparison compare_with_raster(render::Renderer& renderer, render::FrameParams fp, const render::Image& march,
                                     const std::vector<render::HitId>& march_ids,
                                     const std::vector<render::ShadowProbe>& march_probes, const std::string& out) {
  RasterComparison c;
  if (!renderer.set_path(render::RenderPath::kMultiDrawIndirect))
    throw RunError("--compare-raster: this context cannot draw the raster path");
  fp.hit_ids = true;
  renderer.render(fp);
  const render::Image raster = renderer.read_pixels();
  const std::vector<render::HitId> ids = renderer.read_hit_ids();
  const std::vector<render::ShadowProbe> probes = renderer.read_shadow_probes();
  renderer.set_path(render::RenderPath::kRayMarch);
  const double pixel_angle = fp.camera.pixel_angle(march.height);
  c.hits = render::match_frames(ids, probes, march_ids, march_probes, fp.camera.frac, pixel_angle);
  const render::LookRule rule;
  render::Image pic = march;
  for (int y = 0; y < pic.height; ++y)
    for (int x = 0; x < pic.width; ++x) {
      const size_t i = static_cast<size_t>(pic.height - 1 - y) * static_cast<size_t>(pic.width) + static_cast<size_t>(x);
      const render::HitMatch m = i < c.hits.per_pixel.size() ? c.hits.per_pixel[i] : render::HitMatch::kDiffer;
      uint8_t* p = pic.at(x, y);
      const uint8_t* q = raster.at(x, y);
      c.look_failing_on_edge_ties += rule.fails(p, q) && m == render::HitMatch::kEdgeTie;
      const uint8_t grey = static_cast<uint8_t>((p[0] + p[1] + p[2]) / 6);
      p[0] = m == render::HitMatch::kSame ? grey : 255;
      p[1] = m == render::HitMatch::kEdgeTie ? 255 : grey * (m == render::HitMatch::kSame);
      p[2] = m == render::HitMatch::kSame ? grey : m == render::HitMatch::kDiffer ? 255 : 0;
      p[3] = 255;
    }
  write_png_durably(out, pic);
  c.look = render::compare_images(raster, march, render::DiffMode::kLook);
  return c;
}

int run_shot(const ShotOptions& o) {
  Stopwatch total;
  // Arguments first: every mistake is reported before any work.
  if (o.out.empty()) throw UsageError("--out", "required: the PNG file to write");
  EyePos eye = parse_eye(o.pos);
  const auto look = split(o.look, ',');
  double yaw = 0, pitch = 0;
  try {
    if (look.size() != 2) throw std::invalid_argument("count");
    size_t used = 0;
    yaw = std::stod(look[0], &used);
    if (used != look[0].size()) throw std::invalid_argument("yaw");
    pitch = std::stod(look[1], &used);
    if (used != look[1].size()) throw std::invalid_argument("pitch");
  } catch (const std::exception&) {
    throw UsageError("--look", "malformed '" + o.look + "' (expected YAW,PITCH in degrees)");
  }
  if (!std::isfinite(yaw)) throw UsageError("--look", "yaw must be a finite number of degrees (got '" + o.look + "')");
  yaw = std::remainder(yaw, 360.0);  // the same direction in -180..180: a huge yaw (1e308) would lose it in float
  if (!std::isfinite(pitch) || pitch < -90.0 || pitch > 90.0)
    throw UsageError("--look", "pitch must be within -90..90 degrees (got '" + o.look + "')");
  const int width = o.size.width, height = o.size.height;
  if (!(o.fov >= 10.0 && o.fov <= 150.0)) throw UsageError("--fov", "must be 10..150 degrees");
  const render::RenderPath path = o.render.render_path();
  const render::Shadows shadows = o.render.shadow_mode();
  o.render.validate();
  if (o.compare_raster_given && o.compare_raster.empty()) throw UsageError("--compare-raster", "needs a file name");
  if (!o.compare_raster.empty() && o.compare_raster == o.out)
    throw UsageError("--compare-raster", "must name another file than --out ('" + o.out + "')");
  if (!(o.time_of_day >= 0.0 && o.time_of_day <= 24.0)) throw UsageError("--time-of-day", "must be 0..24 hours");
  if (o.arena_limit_given && (o.arena_limit_mib < 1 || o.arena_limit_mib > 65536))
    throw UsageError("--arena-limit-mib", "must be 1..65536 MiB (got " + std::to_string(o.arena_limit_mib) + ")");
  render::PlatformConfig pc;
  pc.width = width;
  pc.height = height;
  pc.title = "voxen shot";
  pc.visible = o.platform == "glfw";
  pc.vsync = false;
  if (!o.gl_version.empty()) {
    const auto mm = split(o.gl_version, '.');
    auto ma = mm.size() == 2 ? parse_int64(mm[0]) : std::nullopt;
    auto mi = mm.size() == 2 ? parse_int64(mm[1]) : std::nullopt;
    if (!ma || !mi || *ma < 1 || *ma > 99 || *mi < 0 || *mi > 99) throw UsageError("--gl-version", "malformed '" + o.gl_version + "' (expected MAJOR.MINOR, e.g. 4.5)");
    pc.gl_major = static_cast<int>(*ma);
    pc.gl_minor = static_cast<int>(*mi);
  }

  if (o.vox_empty && o.vox.empty()) throw UsageError("--vox-empty", "needs --vox (the scene to show alone)");
  // A saved world stores what differs from its own generator: a scene laid over generation would be saved as edits.
  if (!o.vox.empty() && o.world_dir.given())
    throw UsageError("--vox", "cannot be combined with --world (a saved world shows its own cells; use voxen view for a scene)");
  const VoxOverlayOptions vox = parse_vox_overlay_options(o.vox, o.vox_at);
  BlockRegistry reg = load_registry();
  // The world: a --vox scene's columns laid over the flags' terrain (or air), a saved world (--world) or plain
  // generation.
  std::unique_ptr<gen::Generator> terrain;
  std::vector<std::unique_ptr<Column>> scene;
  if (!o.vox.empty()) {
    if (!o.vox_empty) terrain = make_generator_or_throw(o.world, reg);
    scene = make_vox_overlay(reg, terrain.get(), vox);
  }
  const std::vector<EditSpec> edits = o.edits.parse(reg);  // after the scene (its colours are blocks an edit may
                                                           // name), before a world is opened or created
  std::unique_ptr<CommandWorld> cw = !o.vox.empty() ? std::make_unique<CommandWorld>(std::move(terrain), std::move(scene))
                                                    : std::make_unique<CommandWorld>(o.world_dir, o.world, reg);
  cw->add_edits(edits);
  const bool plain = !o.world_dir.given() && edits.empty() && o.vox.empty();  // the cells are the generator's
  const int threads = o.threads > 0 ? o.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  JobPool pool(threads);
  std::vector<ColumnPos> eye_column;  // loaded early to find a `surface` in the world's own cells
  if (eye.surface) {
    if (plain) {
      eye.block.y = cw->generator()->surface_y(eye.block.x, eye.block.z) + 3;  // 2 blocks above the ground's top face
    } else {
      eye_column.push_back(column_pos_of(eye.block));
      cw->load(eye_column, &pool, eye.block.x, eye.block.z);
      eye.block.y = world_surface_y(cw->world(), reg, eye.block.x, eye.block.z) + 3;
    }
    eye.frac.y = 0.0;
  }

  // The GL context: headless EGL (default) or a GLFW window.
  Stopwatch setup;
  auto platform = render::make_platform(o.platform, pc);
  if (!platform) throw RunError(platform.error().to_string());
  render::RendererOptions ro;
  ro.path = path;
  ro.trace = shadows == render::Shadows::kTraced;
  if (o.arena_limit_given) ro.max_arena_buffer_bytes = static_cast<uint64_t>(o.arena_limit_mib) << 20;
  auto renderer = render::Renderer::create(**platform, reg, ro);
  if (!renderer) throw RunError("renderer: " + renderer.error().to_string());
  const double setup_ms = setup.ms();

  render::Camera cam = render::Camera::at(eye.block, eye.frac);
  cam.yaw_deg = yaw;
  cam.pitch_deg = pitch;
  cam.fov_y_deg = o.fov;
  cam.aspect = static_cast<double>(width) / height;
  const double radius = render::render_radius_blocks(o.render_distance);
  cam.far_plane = std::sqrt((radius + 24.0) * (radius + 24.0) + 400.0 * 400.0) + 16.0;

  // Everything within the render distance in the frustum (or all of it with --load-all), and the ring around it:
  // loaded (generation, saved edits, --edit edits), then lit, then meshed.
  const light::LightTable light_table(reg);
  auto baked = mesh::BakedBlocks::bake(reg);
  if (!baked) throw RunError("mesh: " + baked.error().to_string());
  // Traced shadows are cast by what is loaded: a caster may stand outside the view, so every column within the render
  // distance is loaded then (as with --load-all).
  const auto draw = stream::columns_for_view(cam, radius, !o.load_all && shadows != render::Shadows::kTraced);
  std::vector<ColumnPos> load_set = stream::with_neighbour_ring(draw);
  for (const ColumnPos& c : eye_column)  // lit too (the eye's sky light is read below)
    if (!std::binary_search(load_set.begin(), load_set.end(), c)) load_set.insert(std::upper_bound(load_set.begin(), load_set.end(), c), c);
  Stopwatch load_sw;
  cw->load(load_set, &pool, cam.block.x, cam.block.z);
  const double generate_ms = load_sw.ms();
  World& world = cw->world();
  Stopwatch light_sw;
  light::light_columns(world, light_table, load_set, &pool);
  const double light_ms = light_sw.ms();
  if (o.verify_light) {
    const light::LightDiff diff = light::verify_light(world, light_table);
    if (!diff.equal()) throw RunError("--verify-light: the light differs from a from-scratch recompute: " + diff.to_string());
  }
  stream::ColumnStreamer streamer(world, **renderer, cw->source(), light_table, *baked, pool);
  const render::Frustum frustum = render::Frustum::from_matrix(cam.view_projection());
  auto loaded = streamer.load_view(draw, o.load_all ? nullptr : &frustum, &cam);
  VOXEN_ASSERT(loaded.ok());  // every column was loaded above: nothing for a source to fail on
  stream::StreamStats ss = *loaded;
  ss.columns_generated = load_set.size();
  ss.generate_ms = generate_ms;
  ss.light_ms = light_ms;

  // The far view beyond the render distance (far_view.h): every LOD node the view selects is built before the frame.
  // A far distance at or inside the render distance draws nothing more: the frame is the far view off's.
  // Off on the per-chunk path (it draws no far pass) and past 128 columns of render distance (the hand-over mask's
  // reach: nearer columns beyond it would not be masked).
  const bool far_on = o.far_distance > radius && cw->generator() != nullptr &&
                      (*renderer)->path() != render::RenderPath::kPerChunk && o.render_distance <= 128;
  std::unique_ptr<stream::FarView> far;
  stream::FarFrameStats far_stats;
  double far_ms = 0;
  const std::vector<ColumnPos> near_columns = streamer.drawn_columns();
  if (far_on) {
    Stopwatch far_sw;
    stream::FarConfig fc;
    fc.far_distance = o.far_distance;
    fc.cell_pixels = o.far_pixels;
    far = std::make_unique<stream::FarView>(*cw->generator(), reg, pool, **renderer, fc);
    far->set_store(cw->source().far_store());  // `--world DIR`: nodes loaded from and kept in its database
    // Real columns where the far view can show them: the loaded ring around the drawn columns and the drawn ones at
    // its edge (the seam's two sides); far cells over the drawn interior are masked out of the frame, so their mips
    // would change nothing seen. With a saved world every loaded column: the nodes built are stored, and a stored
    // node must hold the interior's own cells (its edits) for the views that load it from afar. No copy: the world
    // outlives the jobs, which complete() finishes, and nothing writes it meanwhile.
    const bool stored = cw->source().far_store() != nullptr;
    const auto is_drawn = [&](ColumnPos c) { return std::binary_search(near_columns.begin(), near_columns.end(), c); };
    for (const ColumnPos& p : world.positions()) {
      bool edge = stored || !is_drawn(p);
      for (int dz = -1; dz <= 1 && !edge; ++dz)
        for (int dx = -1; dx <= 1 && !edge; ++dx) edge = !is_drawn(ColumnPos{p.x + dx, p.z + dz});
      if (edge)
        far->add_real_column(std::shared_ptr<const Column>(std::shared_ptr<const Column>{}, world.find(p)),
                             cw->source().edited(p));
    }
    far_stats = far->complete(cam, height, near_columns);
    far_ms = far_sw.ms();
  }

  render::FrameParams fp;
  fp.camera = cam;
  // Culling (ARCHITECTURE, "Visibility"): the stages --culling names, with the face links and occluders the
  // streamer computed beside each mesh.
  fp.culling.mode = *render::parse_cull_mode(o.culling);
  fp.culling.store = &streamer.visibility();
  fp.culling.pool = &pool;
  fp.time_of_day = o.time_of_day;
  fp.fog_end = radius;
  if (far_on) {
    fp.far.draw = far->draw();
    fp.far.fog_end = o.far_distance;
    fp.far.near_columns = near_columns;
  }
  fp.anim_seconds = o.anim_time;
  fp.eye_sky_light = light_sky(world.light(eye.block));
  fp.beam = !o.render.no_beam;
  fp.clouds = !o.render.no_clouds;
  const bool march = (*renderer)->path() == render::RenderPath::kRayMarch;
  fp.step_stats = march;
  if (!o.compare_raster.empty() && path != render::RenderPath::kRayMarch)
    throw UsageError("--compare-raster", "needs --render-path raymarch");
  if (!o.compare_raster.empty() && !march)
    throw RunError("--compare-raster: this OpenGL (" + std::to_string((*renderer)->gl_info().major) + "." +
                   std::to_string((*renderer)->gl_info().minor) + ") cannot draw the ray-march path (needs 4.3)");
  // The shadows drawn: none where the context fell back to the per-chunk path (the renderer said so).
  const render::Shadows drawn_shadows = (*renderer)->traces() && (*renderer)->path() != render::RenderPath::kPerChunk
                                            ? shadows : render::Shadows::kNone;
  if (drawn_shadows != shadows)
    std::fprintf(stderr, "voxen shot: --shadows traced needs OpenGL 4.3: drawing no shadows\n");
  fp.shadows = drawn_shadows;
  fp.hit_ids = !o.compare_raster.empty();
  const render::FrameStats fs = (*renderer)->render(fp);
  Stopwatch finish;
  (*platform)->present();
  const double finish_ms = finish.ms();
  Stopwatch write;
  const render::Image img = (*renderer)->read_pixels();
  write_png_durably(o.out, img);
  // The terrain mask: from the depth buffer (far-only pixels read as Renderer::kFarDepth), so "terrain here" is the
  // observable, not a colour guess. Translucent surfaces write no depth: what shows behind them decides. Terrain
  // wholly fog shows the sky: the far pass draws none; a near pixel is unprojected (camera-relative, the frame's
  // projection) and left out at or past the fog end, as the shader's fog (horizontal distance).
  uint64_t terrain_pixels = 0;
  if (!o.terrain_mask.empty()) {
    const std::vector<float> depth = (*renderer)->read_depth();
    render::Camera near_cam = fp.camera;
    near_cam.aspect = static_cast<double>(img.width) / static_cast<double>(img.height);
    const glm::dmat4 inverse = glm::inverse(near_cam.view_projection());
    const double fog_end = (*renderer)->shade_fog_end(fp);
    auto shows = [&](int x, int y) {  // y: row from the top
      const float d = depth[static_cast<size_t>(img.height - 1 - y) * static_cast<size_t>(img.width) + static_cast<size_t>(x)];
      if (d >= 1.0f) return false;
      if (d == render::Renderer::kFarDepth) return true;
      const glm::dvec4 p = inverse * glm::dvec4((x + 0.5) / img.width * 2.0 - 1.0, 1.0 - (y + 0.5) / img.height * 2.0,
                                                2.0 * static_cast<double>(d) - 1.0, 1.0);
      return std::hypot(p.x / p.w, p.z / p.w) < fog_end;
    };
    render::Image mask(img.width, img.height, 0xFF000000u);
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x)
        if (shows(x, y)) {
          uint8_t* p = mask.at(x, y);
          p[0] = p[1] = p[2] = 255;
          ++terrain_pixels;
        }
    write_png_durably(o.terrain_mask, mask);
  }
  if (!o.occlusion_png.empty()) {
    const cull::OcclusionBuffer* ob = (*renderer)->occlusion_buffer();
    if (ob == nullptr) throw RunError("--occlusion-buffer: the frame ran no occlusion pass (--culling, or a cell near the eye blocks sight)");
    write_png_durably(o.occlusion_png, occlusion_picture(*ob));
  }
  RasterComparison raster;
  if (!o.compare_raster.empty())
    raster = compare_with_raster(**renderer, fp, img, (*renderer)->read_hit_ids(), (*renderer)->read_shadow_probes(),
                                 o.compare_raster);
  const double write_ms = write.ms();
  cw->close();  // with --world: every edit (also those outside the view) is committed before anything is printed
  const double total_ms = total.ms();

  const std::string gl_version = std::to_string((*renderer)->gl_info().major) + "." + std::to_string((*renderer)->gl_info().minor);
  // A driver may answer a request for version X.Y with a later, compatible context (Mesa gives 4.5 for 3.3): say
  // so, since the picture was made with the version the context has, not the one asked for.
  if (pc.gl_major > 0 && (pc.gl_major != (*renderer)->gl_info().major || pc.gl_minor != (*renderer)->gl_info().minor))
    std::fprintf(stderr, "voxen shot: asked for OpenGL %d.%d, the driver gave a compatible %s context (used as it is; "
                         "MESA_GL_VERSION_OVERRIDE caps Mesa's version)\n",
                 pc.gl_major, pc.gl_minor, gl_version.c_str());
  if (o.json) {
    nlohmann::json j;
    j["out"] = o.out;
    if (!o.terrain_mask.empty()) j["terrain_pixels"] = terrain_pixels;
    j["width"] = width;
    j["height"] = height;
    j["eye"] = {{"x", static_cast<double>(eye.block.x) + eye.frac.x}, {"y", static_cast<double>(eye.block.y) + eye.frac.y},
                {"z", static_cast<double>(eye.block.z) + eye.frac.z}};
    j["columns_loaded"] = ss.columns_generated;
    j["columns_drawn"] = ss.columns_drawn;
    j["sections_meshed"] = ss.sections_meshed;
    j["sections_drawn"] = fs.sections_visible;
    j["culling"] = culling_json(o.culling, fs);
    j["quads_drawn"] = fs.quads_drawn;
    j["draw_calls"] = fs.draw_calls;
    j["arena_bytes"] = (*renderer)->arena_capacity_bytes();
    j["arena_used_bytes"] = (*renderer)->arena_used_bytes();
    // Every arena GL buffer's size as GL reports it (GL_BUFFER_SIZE), opaque arena first, and the limits.
    nlohmann::json sizes = nlohmann::json::array();
    for (const render::ArenaBuffer* arena : {&(*renderer)->opaque_arena(), &(*renderer)->translucent_arena()})
      for (uint64_t size : arena->gl_buffer_sizes())
        if (size > 0) sizes.push_back(size);
    j["arena_buffers"] = sizes.size();
    j["arena_buffer_bytes"] = sizes;
    const render::Renderer::ArenaLimits& limits = (*renderer)->arena_limits();
    j["arena_limits"] = {{"shader_storage_block_bytes", limits.shader_storage_block_bytes},
                         {"texture_buffer_texels", limits.texture_buffer_texels},
                         {"override_bytes", limits.override_bytes},
                         {"buffer_bytes", limits.buffer_bytes}};
    j["far_distance"] = far_on ? o.far_distance : 0.0;
    j["lod_sections_drawn"] = fs.lod_sections_drawn;
    j["lod_quads"] = fs.lod_quads;
    j["lod_quads_facing_away"] = fs.lod_quads_facing_away;
    j["lod_draw_calls"] = fs.lod_draw_calls;
    j["lod_bytes"] = (*renderer)->lod_arena().capacity_bytes().value + (far ? far->memory_bytes() : 0);
    j["lod_gpu_bytes"] = (*renderer)->lod_arena().capacity_bytes().value;
    j["lod_cpu_bytes"] = far ? far->memory_bytes() : 0;
    j["lod_sections_per_level"] = fs.lod_sections_per_level;
    j["lod_nodes"] = far_stats.nodes_drawn;
    j["far_ms"] = far_ms;
    j["far_build_cpu_ms"] = far_stats.build_cpu_ms;
    j["far_select_ms"] = far_stats.select_ms;
    j["lod_records_loaded"] = far_stats.records_loaded;    // nodes read from `--world DIR`'s database
    j["lod_records_written"] = far_stats.records_written;  // nodes built and stored there
    j["lod_records_bad"] = far_stats.records_bad;          // stored nodes that failed to decode (rebuilt)
    j["translucent_sorted"] = {{"sections", fs.sections_sorted}, {"quads", fs.quads_sorted}};
    j["cpu_ms"] = {{"generate", ss.generate_ms}, {"light", ss.light_ms}, {"mesh", ss.mesh_ms}, {"upload", ss.upload_ms},
                   {"cull", fs.cull_ms}, {"draw", fs.sort_ms + fs.build_ms + fs.submit_ms + finish_ms}};
    j["frame_ms"] = {{"cull", fs.cull_ms}, {"sort", fs.sort_ms}, {"build", fs.build_ms}, {"submit", fs.submit_ms}, {"finish", finish_ms}};
    j["setup_ms"] = setup_ms;  // GL context, shaders, textures
    j["write_ms"] = write_ms;  // read back + PNG
    j["total_ms"] = total_ms;
    j["render_path"] = std::string(render::to_string((*renderer)->path()));
    j["shadows"] = std::string(render::to_string(drawn_shadows));
    if (march) j["march"] = {{"beam", fp.beam}, {"rays", fs.rays}, {"steps_mean", fs.steps_mean}, {"steps_p99", fs.steps_p99}};
    if ((*renderer)->traces()) {
      const render::Renderer::TraceBytes tb = (*renderer)->trace_bytes();
      j["trace_store"] = {{"sections", tb.sections}, {"record_bytes", tb.record_bytes}, {"gpu_bytes", tb.gpu_bytes},
                          {"sections_not_traced", tb.not_traced}, {"sections_pending_cells", tb.pending_cells}};
    }
    if (!o.compare_raster.empty())
      j["compare_raster"] = {{"pixels", raster.hits.pixels}, {"surface_pixels", raster.hits.surface},
                             {"same_cell_and_face", raster.hits.same}, {"edge_ties", raster.hits.edge_ties},
                             {"silhouettes", raster.hits.silhouettes}, {"differ", raster.hits.differ},
                             {"agreement", raster.hits.agreement()},
                             {"look_pass", raster.look.pass}, {"look_pixels_failing", raster.look.pixels_failing},
                             {"look_pixels_failing_on_edge_ties", raster.look_failing_on_edge_ties},
                             {"look_largest_blob", raster.look.largest_blob}};
    j["platform"] = std::string((*platform)->name());
    j["gl_renderer"] = (*renderer)->gl_info().renderer;
    j["gl_version"] = gl_version;
    j["threads"] = threads;
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("wrote %s (%dx%d) on %s, OpenGL %s, %s path\n", o.out.c_str(), width, height,
                (*renderer)->gl_info().renderer.c_str(), gl_version.c_str(), std::string(render::to_string((*renderer)->path())).c_str());
    std::printf("columns loaded %zu (drawn %zu), sections drawn %u, quads %llu, draw calls %u, arena %.1f MiB in %u buffers\n",
                ss.columns_generated, ss.columns_drawn, fs.sections_visible, static_cast<unsigned long long>(fs.quads_drawn),
                fs.draw_calls, static_cast<double>((*renderer)->arena_capacity_bytes()) / (1024.0 * 1024.0),
                (*renderer)->opaque_arena().live_buffer_count() + (*renderer)->translucent_arena().live_buffer_count());
    if (far_on)
      std::printf("far view to %.0f blocks: %u LOD sections drawn (%llu quads, %llu of them facing away: not submitted), %.1f MiB, built in %.0f ms\n",
                  o.far_distance, fs.lod_sections_drawn, static_cast<unsigned long long>(fs.lod_quads),
                  static_cast<unsigned long long>(fs.lod_quads_facing_away),
                  static_cast<double>((*renderer)->lod_arena().capacity_bytes().value + far->memory_bytes()) / (1024.0 * 1024.0), far_ms);
    if (march)
      std::printf("ray march%s: %llu rays, %.1f steps a ray (p99 %u)\n", fp.beam ? " from the beam" : "",
                  static_cast<unsigned long long>(fs.rays), fs.steps_mean, fs.steps_p99);
    if (!o.compare_raster.empty())
      std::printf("raster path: the same surface in %.3f%% of %llu pixels (the same cell and face in %llu, an edge both "
                  "faces meet at in %llu: yellow in %s); a silhouette edge grazed in %llu (red), another surface in %llu "
                  "(magenta); colours %s the look rule (%llu pixels off by more than 6/255, %llu of them edge ties; "
                  "largest blob %llu)\n",
                  100.0 * raster.hits.agreement(), static_cast<unsigned long long>(raster.hits.pixels),
                  static_cast<unsigned long long>(raster.hits.same), static_cast<unsigned long long>(raster.hits.edge_ties),
                  o.compare_raster.c_str(), static_cast<unsigned long long>(raster.hits.silhouettes),
                  static_cast<unsigned long long>(raster.hits.differ),
                  raster.look.pass ? "pass" : "fail", static_cast<unsigned long long>(raster.look.pixels_failing),
                  static_cast<unsigned long long>(raster.look_failing_on_edge_ties),
                  static_cast<unsigned long long>(raster.look.largest_blob));
    std::printf("ms: generate %.1f  light %.1f  mesh %.1f  upload %.1f  cull %.2f  draw %.1f  (total %.0f)\n", ss.generate_ms,
                ss.light_ms, ss.mesh_ms, ss.upload_ms, fs.cull_ms, fs.sort_ms + fs.build_ms + fs.submit_ms + finish_ms, total_ms);
  }
  return 0;
}

}  // namespace

void add_shot_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<ShotOptions>();
  CLI::App* cmd = app.add_subcommand("shot", "render one picture of the world (headless OpenGL) to a PNG file");
  o->world.add_to(*cmd);
  o->world_dir.add_to(*cmd);
  o->edits.add_to(*cmd);
  cmd->add_flag("--verify-light", o->verify_light,
                "check the light of every loaded column against a from-scratch recompute (the light oracle; slow) and "
                "fail with exit 1 naming the first differing cell");
  cmd->add_option("--pos", o->pos, "eye position X,Y,Z in world blocks (Y may be 'surface': 2 blocks above the ground)")->required();
  cmd->add_option("--look", o->look, "YAW,PITCH in degrees: yaw 0 north (-Z), 90 east (+X); pitch + looks up (default 0,0)");
  add_frame_size_option(*cmd, o->size, "picture size WxH in pixels (default 1280x720)");
  cmd->add_option("--fov", o->fov, "vertical field of view in degrees (default 70)");
  cmd->add_option("--render-distance", o->render_distance,
                  "columns drawn around the eye, 1..160 (default 12; past 64 slow: the full-detail reference for the far view, "
                  "which is off past 128)")
      ->check(CLI::Range(1, 160));
  add_render_options(*cmd, o->render);
  CLI::Option* compare = cmd->add_option("--compare-raster", o->compare_raster,
                  "raymarch: also draw the frame by the raster path and write this PNG: the picture greyed, yellow where "
                  "the two name different faces meeting at the very point both hit (an edge tie), red where one grazes a "
                  "silhouette edge the other passes (within the rasteriser's precision), magenta for any other "
                  "difference; prints the agreement and the look rule's verdict on the two pictures");
  cmd->add_option("--far-distance", o->far_distance,
                  "blocks of far view (LOD) beyond the render distance, 0..65536; 0 or at most the render distance: off "
                  "(default 4096)")
      ->check(finite_range(0.0, 65536.0));
  cmd->add_option("--far-pixels", o->far_pixels,
                  "far view detail: LOD cells are refined until they are at most this many pixels tall, 0.5..64 (default 3)")
      ->check(finite_range(0.5, 64.0));
  cmd->add_option("--time-of-day", o->time_of_day, "hours 0..24: sun position and sky (default 10)");
  cmd->add_option("--anim-time", o->anim_time, "animation clock in seconds: flowing water scrolls (default 0)");
  cmd->add_option("--out", o->out, "PNG file to write")->required();
  cmd->add_option("--terrain-mask", o->terrain_mask,
                  "also write a PNG that is white where terrain (near or far view) shows and black where the sky does, from "
                  "the depth buffer: terrain wholly fog (at or past the fog end) shows the sky (JSON terrain_pixels)");
  cmd->add_option("--occlusion-buffer", o->occlusion_png,
                  "also write the occlusion pass's depth buffer as a PNG, one pixel per buffer pixel, top row first: "
                  "black where no occluder covers it, red where occluders cover part of it, grey where they cover all of "
                  "it (lighter nearer: 255 / (1 + depth / 32))");
  cmd->add_option("--platform", o->platform, "egl (headless, default) or glfw (a window: needs a display, e.g. xvfb-run)")
      ->check(CLI::IsMember({"egl", "glfw"}));
  cmd->add_option("--gl-version", o->gl_version,
                  "request only this OpenGL core version, e.g. 4.5, and fail if it cannot be made; a driver may give a "
                  "later compatible version, which is then used and reported (default: best of 4.5, 4.3, 3.3)");
  add_threads_option(*cmd, o->threads, "worker threads for generation, light and meshing (default: all cores)");
  cmd->add_option("--vox", o->vox, "a MagicaVoxel .vox scene to place in the world (centred on --vox-at)");
  cmd->add_option("--vox-at", o->vox_at, "X,Y,Z where the scene's bottom centre goes; Y may be 'surface' (default 0,surface,0)");
  cmd->add_flag("--vox-empty", o->vox_empty, "with --vox: no terrain, the scene alone in an empty world");
  CLI::Option* arena_limit = cmd->add_option("--arena-limit-mib", o->arena_limit_mib,
                  "the largest GL buffer the mesh arena may use, in MiB, when lower than the GL limits; more buffers "
                  "(one draw call each) hold the rest (default: the GL limits)");
  cmd->add_flag("--load-all", o->load_all, "load and mesh every column within the render distance, not only those in view");
  cmd->add_flag("--json", o->json, "print one JSON object with counts and timings");
  add_culling_option(*cmd, o->culling);
  cmd->callback([o, arena_limit, compare, &run] {
    o->arena_limit_given = arena_limit->count() > 0;
    o->compare_raster_given = compare->count() > 0;
    run = [o] { return run_shot(*o); };
  });
}

}  // namespace voxen::app
