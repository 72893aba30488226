// voxen view: imports a MagicaVoxel .vox scene into an empty world on a plain ground plane, frames the camera on
// the scene's bounds from a 3/4 view, renders one frame headless and writes the PNG; prints the counts the Quantum
// seed tabulates for its cottage (voxels, cube-per-voxel triangles, culled faces, greedy quads with and without
// the AO rule, draw calls) and the milliseconds to import, mesh and draw.
//
// Worlds: the counts come from a world holding the scene alone (lit with light::light_columns, the light step of
// the streamer's batch mode, then meshed three ways: culled, greedy, greedy ignoring AO and light, by calling the
// mesher directly: a comparison of meshers, not a view), so the ground never enters them. The picture is a
// second world drawn through the column lifecycle's batch mode (stream::ColumnStreamer::load_view, as `voxen
// shot` draws): the scene's columns with a one-block ground plane (block "vox_ground") under its lowest cell,
// laid in every column within 3 columns of a column holding scene cells (the footprint plus a margin, not the
// bounding rectangle: instances far apart get a patch of ground each) and in the ring around those, are
// prepared first and handed to the streamer by a stream::PreparedSource (every other column would be empty air);
// load_view loads the drawn columns and their ring from it, lights them, meshes the drawn ones and uploads them
// to the renderer. So every column created, lit and meshed is near a scene cell: the work and memory grow with
// the cells the file places, never with the space between its instances (at most 49 columns drawn and 81 loaded
// per column of scene cells). Scenes up to 256 blocks tall stand on y = 0 (ground at y = -1); taller ones (up to
// 383) stand on y = -127 above a ground at the bottom of the world.
// Camera: looks from the south-east and above (yaw -45, pitch -30 degrees, vertical field of view 50) at the
// centre of the bounds, far enough that the bounds' enclosing sphere fits the narrower field of view (a scene
// thousands of blocks wide is framed whole, its instances small).
// Recolour (--recolour INDEX=RRGGBB, repeatable): palette entries get new colours after the first frame, as the
// editor loop would: import::plan_vox_recolour (checked right after the import, so a refusal costs no light or
// mesh) gives the layer tints, Renderer::set_layer_tint writes them, a glFinish ends the timing, and the frame drawn
// again is the picture written. No section is remeshed (the renderer's mesh uploads are counted across it).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/core/job_pool.h"
#include "voxen/import/vox_place.h"
#include "voxen/light/light.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/mesher.h"
#include "voxen/render/image.h"
#include "voxen/render/platform.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/source.h"
#include "voxen/stream/streamer.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct ViewOptions {
  std::string file;
  std::string out;
  FrameSize size{960, 540};
  std::string platform = "egl";
  int threads = 0;
  bool json = false;
  bool without_scene = false;
  bool out_given = false;  // --out was on the command line (even as "")
  std::vector<std::string> recolour;  // "INDEX=RRGGBB", in the order given
};

/// Parses "INDEX=RRGGBB": a palette index 1..255 (decimal) and a colour of six hex digits; or an Error naming the
/// part that is wrong.
Result<import::VoxRecolour> parse_recolour(std::string_view text) {
  const std::string quoted = "'" + std::string(text) + "'";
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    return Error{"malformed recolour " + quoted + " (expected INDEX=RRGGBB: a palette index 1..255 and six hex digits)"};
  const std::string_view index = text.substr(0, eq), hex = text.substr(eq + 1);
  const bool digits = !index.empty() && index.size() <= 3 &&
                      std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int64_t i = digits ? *parse_int64(index) : 0;
  if (i < 1 || i > 255)
    return Error{"palette index '" + std::string(index) + "' in " + quoted + " is not 1..255"};
  const auto nibble = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  if (hex.size() != 6 || !std::all_of(hex.begin(), hex.end(), [&](char c) { return nibble(c) >= 0; }))
    return Error{"colour '" + std::string(hex) + "' in " + quoted + " is not six hex digits RRGGBB"};
  const auto byte = [&](size_t at) { return static_cast<uint8_t>(nibble(hex[at]) * 16 + nibble(hex[at + 1])); };
  return import::VoxRecolour{static_cast<uint8_t>(i), byte(0), byte(2), byte(4)};
}

struct MeshCounts {
  uint64_t culled_faces = 0, greedy_quads = 0, greedy_quads_no_ao = 0;
};

/// Every column within `r` columns (Chebyshev distance) of one of `cols`, sorted and unique: at most
/// (2 r + 1)^2 per input column. Column coordinates are at most 2^60 in magnitude, so c +- r never overflows.
std::vector<ColumnPos> grown(const std::vector<ColumnPos>& cols, int64_t r) {
  std::vector<ColumnPos> out;
  out.reserve(cols.size() * static_cast<size_t>((2 * r + 1) * (2 * r + 1)));
  for (const ColumnPos& c : cols)
    for (int64_t dx = -r; dx <= r; ++dx)
      for (int64_t dz = -r; dz <= r; ++dz) out.push_back({c.x + dx, c.z + dz});
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// The ring of columns a column's light depends on (docs/ARCHITECTURE.md, Lighting: the 3x3 dependency).
std::vector<ColumnPos> with_ring(const std::vector<ColumnPos>& cols) { return grown(cols, 1); }

/// Columns of ground around the scene's columns (the margin in columns).
constexpr int64_t kGroundMargin = 3;

/// Most columns `voxen view` loads for the picture (scene, ground, and the ring of columns their light needs):
/// 65536, a scene covering some 4,000 x 4,000 blocks, or 800 lone instances (81 columns each). A loaded column
/// costs about 7 KB (cells, light, meshes: 512 lone instances, 41,472 columns, peaked at 382 MB), so this bounds
/// what a file can ask for to about 550 MB; a scene past it is refused before any column is made (exit 1, naming
/// the counts).
constexpr size_t kMaxViewColumns = size_t{1} << 16;

/// Meshes every section of `columns` in `world` with each option set, one job per column on `pool`; returns the
/// quad counts per option set (summed in column order, so the same for any pool size).
std::vector<uint64_t> count_quads(const mesh::BakedBlocks& baked, const World& world, const std::vector<ColumnPos>& columns,
                                  const std::vector<mesh::MeshOptions>& options, JobPool& pool) {
  std::vector<std::vector<uint64_t>> results(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    pool.submit(static_cast<double>(i), [&, i] {
      auto input = std::make_unique<mesh::SectionInput>();
      mesh::MeshScratch scratch;
      mesh::SectionMesh out;
      std::vector<uint64_t>& r = results[i];
      r.assign(options.size(), 0);
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        const SectionPos sp{columns[i].x, s, columns[i].z};
        for (size_t k = 0; k < options.size(); ++k) {
          mesh::mesh_world_section(baked, world, sp, options[k], *input, scratch, out);
          r[k] += out.quad_count();
        }
      }
    });
  }
  pool.wait_idle();
  std::vector<uint64_t> totals(options.size(), 0);
  for (const std::vector<uint64_t>& r : results)
    for (size_t k = 0; k < options.size(); ++k) totals[k] += r[k];
  return totals;
}

int run_view(const ViewOptions& o) {
  Stopwatch total;
  const int width = o.size.width, height = o.size.height;
  if (o.out_given && o.out.empty()) throw UsageError("--out", "must name a PNG file (got an empty path)");
  const std::string out_path =
      o.out.empty() ? std::filesystem::path(o.file).stem().string() + ".png" : o.out;
  std::vector<import::VoxRecolour> recolours;
  std::string recolour_text;  // the values as given, for messages
  for (const std::string& v : o.recolour) {
    recolours.push_back(*parse_recolour(v));  // checked by the option already
    recolour_text += (recolour_text.empty() ? "" : " ") + v;
  }
  if (!recolours.empty() && o.without_scene)
    throw UsageError("--recolour", "recolours the scene's palette: not with --without-scene");

  BlockRegistry reg = load_registry();

  // Import: read and validate, place (scene alone), register the colours' blocks.
  Stopwatch import_sw;
  auto file = import::read_vox_file(o.file);
  if (!file) throw RunError(file.error().to_string());
  import::VoxPlaceOptions po;
  po.anchor = import::VoxAnchor::kGroundCentre;
  po.origin = {0, kMinY + 1, 0};  // fits every scene up to 383 tall; moved up to y = 0 below when it can
  auto plan = import::plan_vox_placement(*file, po);
  if (plan && !plan->empty() && plan->max.y - plan->min.y < 256) {
    const int64_t up = 0 - plan->min.y;
    plan->offset.y += up;
    plan->min.y += up;
    plan->max.y += up;
  }
  if (!plan) {
    Error e = plan.error();
    if (e.file.empty()) e.file = o.file;
    throw RunError(e.to_string());
  }
  // The columns: those holding scene cells, those drawn (with the ground around them) and those loaded (plus
  // the ring their light needs), each a superset of the one before; checked against the cap before any exists.
  const std::vector<ColumnPos> scene_cols = import::placement_columns(*plan);
  // (Each step runs only while the one before is within the cap, so the lists stay a small multiple of it.)
  std::vector<ColumnPos> draw_cols, all_cols;
  if (scene_cols.size() <= kMaxViewColumns)
    draw_cols = grown(scene_cols.empty() ? std::vector<ColumnPos>{ColumnPos{0, 0}} : scene_cols, kGroundMargin);
  if (!draw_cols.empty() && draw_cols.size() <= kMaxViewColumns) all_cols = with_ring(draw_cols);
  if (all_cols.empty() || all_cols.size() > kMaxViewColumns) {
    std::string what = o.file + ": the scene's cells lie in " + std::to_string(scene_cols.size()) + " columns";
    if (!draw_cols.empty()) what += ", " + std::to_string(draw_cols.size()) + " with the ground around them";
    if (!all_cols.empty()) what += ", " + std::to_string(all_cols.size()) + " with the ring their light needs";
    throw RunError(what + "; voxen view loads at most " + std::to_string(kMaxViewColumns) +
                   " columns (16 x 16 blocks each)");
  }
  World scene_world;
  auto stats = import::apply_vox_placement(scene_world, reg, *file, *plan, true);
  if (!stats) {
    Error e = stats.error();
    if (e.file.empty()) e.file = o.file;
    throw RunError(e.to_string());
  }
  const double import_ms = import_sw.ms();
  for (const Error& w : file->warnings) std::fprintf(stderr, "voxen view: warning: %s\n", w.to_string().c_str());
  // The recolour's tints, planned now: a refusal comes before any light or mesh work.
  std::vector<import::VoxLayerTint> tints;
  if (!recolours.empty()) {
    auto planned = import::plan_vox_recolour(reg, *file, *stats, recolours);
    if (!planned) throw UsageError("--recolour", "'" + recolour_text + "': " + planned.error().message);
    tints = std::move(planned).value();
  }

  // The ground block and the baked tables (after every block is registered).
  BlockDef ground_def;
  ground_def.name = "vox_ground";
  ground_def.shape = Shape::kCube;
  ground_def.opacity = 15;
  ground_def.solid = true;
  ground_def.face_color.fill(0xFF9C9A94u);
  ground_def.face_texture.fill("vox_ground");
  const uint16_t ground_id = reg.find("vox_ground") ? *reg.find("vox_ground") : [&] {
    auto id = reg.add(ground_def);
    if (!id) throw RunError("block registry: " + id.error().to_string());
    return *id;
  }();
  auto baked = mesh::BakedBlocks::bake(reg);
  if (!baked) throw RunError("mesh: " + baked.error().to_string());
  const light::LightTable light_table(reg);
  const int threads = o.threads > 0 ? o.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  JobPool pool(threads);

  // Counts: the scene alone, lit, meshed culled / greedy / greedy without the AO-and-light rule.
  const std::vector<ColumnPos> scene_ring = with_ring(scene_cols);
  for (const ColumnPos& c : scene_ring)
    if (!scene_world.find(c)) scene_world.insert(std::make_unique<Column>(c));
  Stopwatch light_sw;
  light::light_columns(scene_world, light_table, scene_ring, &pool);
  double light_ms = light_sw.ms();
  mesh::MeshOptions culled;
  culled.greedy = false;
  mesh::MeshOptions greedy;
  mesh::MeshOptions greedy_no_ao;
  greedy_no_ao.merge_requires_equal_lighting = false;
  const auto counts = count_quads(*baked, scene_world, scene_cols, {culled, greedy, greedy_no_ao}, pool);

  // The picture's columns, prepared: the scene (its columns taken from the counts world, which is done with; their
  // light is redone when they load) over a ground plane in all_cols, kGroundMargin columns past every column of
  // its footprint and the ring beyond (an empty scene: around column (0, 0)).
  const int64_t ground_y = plan->empty() ? -1 : plan->min.y - 1;
  const Cell ground{ground_id, 0};
  std::vector<std::unique_ptr<Column>> prepared;
  prepared.reserve(all_cols.size());
  for (const ColumnPos& c : all_cols) {
    std::unique_ptr<Column> col = o.without_scene ? nullptr : scene_world.remove(c);
    if (!col) col = std::make_unique<Column>(c);
    for (int x = 0; x < 16; ++x)
      for (int z = 0; z < 16; ++z)
        if (col->get(x, ground_y, z).id == kAirId) col->set(x, ground_y, z, ground);
    prepared.push_back(std::move(col));
  }
  stream::PreparedSource source(std::move(prepared), nullptr);

  // Camera: a 3/4 view from the south-east and above, framing the bounds' enclosing sphere.
  const BlockPos bmin = plan->empty() ? BlockPos{0, 0, 0} : plan->min;
  const BlockPos bmax = plan->empty() ? BlockPos{0, 0, 0} : plan->max;
  const glm::dvec3 size_v(static_cast<double>(bmax.x - bmin.x + 1), static_cast<double>(bmax.y - bmin.y + 1),
                          static_cast<double>(bmax.z - bmin.z + 1));
  const double radius = 0.5 * glm::length(size_v);
  render::Camera cam;
  cam.yaw_deg = -45.0;
  cam.pitch_deg = -30.0;
  cam.fov_y_deg = 50.0;
  cam.aspect = static_cast<double>(width) / height;
  const double half_fov_y = glm::radians(cam.fov_y_deg) / 2.0;
  const double half_fov_x = std::atan(std::tan(half_fov_y) * cam.aspect);
  const double distance = radius / std::sin(std::min(half_fov_x, half_fov_y)) + 1.0;
  const glm::dvec3 centre_rel = 0.5 * size_v;  // from bmin
  const glm::dvec3 eye_rel = centre_rel - cam.forward() * distance;
  const glm::dvec3 eye_floor = glm::floor(eye_rel);
  cam.block = {bmin.x + static_cast<int64_t>(eye_floor.x), bmin.y + static_cast<int64_t>(eye_floor.y),
               bmin.z + static_cast<int64_t>(eye_floor.z)};
  cam.frac = eye_rel - eye_floor;
  // Near plane: at most 1 block, unless everything drawn (the bounds' sphere, the ground reaching kGroundMargin
  // columns past it) is further away: a scene thousands of blocks wide keeps its depth precision.
  const double reach = radius + (kGroundMargin + 1) * 16.0 * std::sqrt(2.0) + 2.0;
  cam.near_plane = std::max({0.1, std::min(1.0, distance - radius - 1.0), distance - reach});
  cam.far_plane = distance + reach + 48.0 * 16.0;

  // Bounds on screen: the projected corners' pixel rectangle (clamped to the picture).
  std::array<int, 4> bounds_px{width, height, -1, -1};
  for (int corner = 0; corner < 8; ++corner) {
    const BlockPos p{(corner & 1) ? bmax.x + 1 : bmin.x, (corner & 2) ? bmax.y + 1 : bmin.y,
                     (corner & 4) ? bmax.z + 1 : bmin.z};
    const glm::dvec4 clip = cam.view_projection() * glm::dvec4(cam.relative(p), 1.0);
    if (clip.w <= 0) continue;
    // Clamped before the conversion to int (a corner may project far outside the picture).
    const double px = std::clamp((clip.x / clip.w * 0.5 + 0.5) * width, -1.0, width + 1.0);
    const double py = std::clamp((1.0 - (clip.y / clip.w * 0.5 + 0.5)) * height, -1.0, height + 1.0);
    bounds_px[0] = std::min(bounds_px[0], static_cast<int>(std::floor(px)));
    bounds_px[1] = std::min(bounds_px[1], static_cast<int>(std::floor(py)));
    bounds_px[2] = std::max(bounds_px[2], static_cast<int>(std::ceil(px)));
    bounds_px[3] = std::max(bounds_px[3], static_cast<int>(std::ceil(py)));
  }
  bounds_px = {std::clamp(bounds_px[0], 0, width - 1), std::clamp(bounds_px[1], 0, height - 1),
               std::clamp(bounds_px[2], 0, width - 1), std::clamp(bounds_px[3], 0, height - 1)};

  // Draw.
  render::PlatformConfig pc;
  pc.width = width;
  pc.height = height;
  pc.title = "voxen view";
  pc.visible = false;
  pc.vsync = false;
  auto platform = render::make_platform(o.platform, pc);
  if (!platform) throw RunError(platform.error().to_string());
  auto renderer = render::Renderer::create(**platform, reg);
  if (!renderer) throw RunError("renderer: " + renderer.error().to_string());
  // Load, light, mesh and upload through the batch mode: draw_cols (sorted by position: the upload order) and
  // their ring, which is all_cols.
  World view_world;
  stream::ColumnStreamer streamer(view_world, **renderer, source, light_table, *baked, pool);
  auto streamed = streamer.load_view(draw_cols);
  if (!streamed) throw RunError(streamed.error().to_string());  // a PreparedSource does not fail; for the contract
  light_ms += streamed->light_ms;
  const double mesh_ms = streamed->mesh_ms;
  render::FrameParams fp;
  fp.camera = cam;
  fp.fog_start = distance + radius + 16.0;
  fp.fog_end = fp.fog_start * 1.5 + 64.0;
  fp.eye_sky_light = 15;
  // With --recolour: the frame as imported, then the tints written (timed up to a glFinish, the first frame's work
  // finished before), and the picture is the frame drawn again.
  double recolour_ms = 0.0;
  uint64_t sections_remeshed = 0;
  if (!recolours.empty()) {
    (*renderer)->render(fp);
    (*platform)->present();
    (*renderer)->finish();
    const uint64_t uploads = (*renderer)->mesh_uploads();
    Stopwatch recolour_sw;
    for (const import::VoxLayerTint& t : tints)
      if (auto s = (*renderer)->set_layer_tint(t.layer, t.argb); !s.ok()) throw RunError("recolour: " + s.error().message);
    (*renderer)->finish();
    recolour_ms = recolour_sw.ms();
    sections_remeshed = (*renderer)->mesh_uploads() - uploads;
  }
  Stopwatch render_sw;
  const render::FrameStats fs = (*renderer)->render(fp);
  (*platform)->present();
  const render::Image img = (*renderer)->read_pixels();
  const double render_ms = render_sw.ms();
  if (auto s = render::save_png(img, out_path); !s.ok()) throw RunError(s.error().to_string());

  const nlohmann::json bounds = {bmin.x, bmin.y, bmin.z, bmax.x, bmax.y, bmax.z};
  if (o.json) {
    nlohmann::json j;
    j["file"] = o.file;
    j["out"] = out_path;
    j["width"] = width;
    j["height"] = height;
    j["models"] = stats->models;
    j["voxels"] = stats->voxels;
    j["placed_voxels"] = stats->placed_voxels;
    j["instances"] = stats->instances;
    j["hidden_instances"] = stats->hidden_instances;
    j["blocks_added"] = stats->blocks_added;
    j["cube_triangles"] = stats->placed_voxels * 12;
    j["culled_faces"] = counts[0];
    j["greedy_quads"] = counts[1];
    j["greedy_quads_no_ao"] = counts[2];
    j["draw_calls"] = fs.draw_calls;
    j["scene_columns"] = scene_cols.size();
    j["drawn_columns"] = draw_cols.size();
    j["loaded_columns"] = all_cols.size();
    j["sections_meshed"] = streamed->sections_meshed;
    j["import_ms"] = import_ms;
    j["light_ms"] = light_ms;
    j["mesh_ms"] = mesh_ms;
    j["render_ms"] = render_ms;
    j["total_ms"] = total.ms();
    j["bounds"] = bounds;
    j["bounds_px"] = bounds_px;
    j["warnings"] = file->warnings.size();
    j["gl_renderer"] = (*renderer)->gl_info().renderer;
    if (!recolours.empty()) {
      j["recolour"] = o.recolour;
      j["recolour_ms"] = recolour_ms;
      j["recolour_layers"] = tints.size();
      j["sections_remeshed"] = sections_remeshed;
    }
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("wrote %s (%dx%d) from %s\n", out_path.c_str(), width, height, o.file.c_str());
    std::printf("models             %llu\n", static_cast<unsigned long long>(stats->models));
    std::printf("voxels             %llu (placed %llu in %u instances, %u hidden)\n",
                static_cast<unsigned long long>(stats->voxels), static_cast<unsigned long long>(stats->placed_voxels),
                stats->instances, stats->hidden_instances);
    std::printf("cube triangles     %llu\n", static_cast<unsigned long long>(stats->placed_voxels * 12));
    std::printf("culled faces       %llu\n", static_cast<unsigned long long>(counts[0]));
    std::printf("greedy quads       %llu (without the AO rule %llu)\n", static_cast<unsigned long long>(counts[1]),
                static_cast<unsigned long long>(counts[2]));
    std::printf("draw calls         %u\n", fs.draw_calls);
    std::printf("columns            %zu with scene cells, %zu drawn with the ground, %zu loaded\n", scene_cols.size(),
                draw_cols.size(), all_cols.size());
    std::printf("bounds             (%lld, %lld, %lld)..(%lld, %lld, %lld)\n", static_cast<long long>(bmin.x),
                static_cast<long long>(bmin.y), static_cast<long long>(bmin.z), static_cast<long long>(bmax.x),
                static_cast<long long>(bmax.y), static_cast<long long>(bmax.z));
    std::printf("ms: import %.1f  light %.1f  mesh %.1f  draw %.1f  (total %.0f)\n", import_ms, light_ms, mesh_ms,
                render_ms, total.ms());
    if (!recolours.empty())
      std::printf("recolour           %zu palette entr%s as %zu layer tint%s in %.3f ms (the writes and a glFinish); "
                  "%llu sections remeshed\n",
                  recolours.size(), recolours.size() == 1 ? "y" : "ies", tints.size(), tints.size() == 1 ? "" : "s",
                  recolour_ms, static_cast<unsigned long long>(sections_remeshed));
  }
  return 0;
}

}  // namespace

void add_view_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<ViewOptions>();
  CLI::App* cmd = app.add_subcommand("view", "import a MagicaVoxel .vox scene, render it headless to a PNG, print counts");
  cmd->add_option("file", o->file, "the .vox file")->required();
  const CLI::Option* out_opt =
      cmd->add_option("--out", o->out, "PNG file to write (default: the .vox file's name with .png, here)");
  add_frame_size_option(*cmd, o->size, "picture size WxH in pixels (default 960x540)");
  cmd->add_option("--platform", o->platform, "egl (headless, default) or glfw (a hidden window: needs a display)")
      ->check(CLI::IsMember({"egl", "glfw"}));
  add_threads_option(*cmd, o->threads, "worker threads for light and meshing (default: all cores)");
  cmd->add_flag("--without-scene", o->without_scene,
                "draw the ground alone with the same camera (the empty scene, for comparing pictures)");
  cmd->add_option("--recolour", o->recolour,
                  "INDEX=RRGGBB: after the first frame, give palette index INDEX (1..255) the colour RRGGBB as a GPU "
                  "tint write, no remesh, and write the frame drawn again (repeatable); prints the milliseconds")
      ->allow_extra_args(false)  // one value per --recolour: a file name after it stays the positional argument
      ->check(parse_check(&parse_recolour, "INDEX=RRGGBB"));
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, out_opt, &run] {
    o->out_given = out_opt->count() > 0;
    run = [o] { return run_view(*o); };
  });
}

}  // namespace voxen::app
