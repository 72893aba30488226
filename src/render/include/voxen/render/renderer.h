// The terrain renderer (VoxelBlox's design, with vertex pulling): every section's packed quads live in
// two arenas (opaque + cutout 16-byte quads; translucent + fluid 20-byte quads), and each frame draws all visible
// opaque terrain with one glMultiDrawArraysIndirect per arena buffer and all translucent terrain with one more per
// run of consecutive far-first meshes in the same buffer (one call per pass while an arena fits one buffer).
//
// Per frame (render()):
//   0. trim: arena buffers whose usage fell are compacted or deleted (arena_buffer.h), and the spans that moved
//      are updated;
//   1. cull: every section's box (16^3, camera-relative in double) against the view frustum in one batch pass
//      (cull_boxes), then against the fog distance; sort near-first (translucent far-first), ties by SectionPos so
//      the order never depends on upload history;
//   2. sort: each visible section whose translucent order is stale for this eye (its TranslucentSortKey changed:
//      the eye crossed one of its BSP planes, translucent_order.h) gets its translucent quads rewritten in place
//      in back-to-front order, nearest sections first, up to FrameParams::sort_budget_quads;
//   3. build: one vec4 per visible section (its camera-relative offset, float) into the per-draw buffer, and one
//      DrawArraysIndirectCommand per visible mesh: count = 6 * quads, first = 6 * span offset (gl_VertexID then
//      indexes the span's buffer directly), baseInstance = the section's index in the per-draw buffer, which the
//      vertex shader reads as a per-instance attribute (divisor 1: fetched once per draw);
//   4. submit: sky (a full-screen triangle), the far pass (below), the opaque pass (depth test and write, back faces
//      culled, alpha test in the shader), the translucent pass (blended, no depth write, both sides).
// The far pass (FrameParams::far, docs/ARCHITECTURE.md "Rendering", after Voxy's far view): LOD sections' 8-byte
// quads (mesh::LodQuad) live in a third arena and are drawn with one glMultiDrawElementsIndirect per LOD arena
// buffer (indexed: 4 vertices a quad), with their own projection (near plane <= 8 blocks, far plane beyond the far
// fog end), after the sky and before the near passes; the depth buffer is then cleared, so near terrain is always in front of far terrain.
// Where a near column is drawn (FrameParams::far.near_columns) a hand-over mask (256 x 256 columns around the
// camera's column) makes the far pass discard its fragments, so the two never overlap and leave no gap.
// The per-chunk path (RenderPath::kPerChunk, `--render-path per-chunk`, and the fallback where GL 4.3 is
// missing) draws the same meshes in the same order with one glDrawArrays each, a uniform for the offset and a
// texture-buffer view of each arena buffer (GLSL 330), and renders identical pixels.
//
// Space: section-local positions in the quads; camera-relative offsets computed in int64/double (camera.h).
// Threads: the GL context's thread only. Errors: create() returns an Error (shader compile log, GL errors, an
// arena limit override below 64 KiB); a section mesh larger than one arena buffer is logged and not drawn.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/lod/cell.h"
#include "voxen/lod/section.h"
#include "voxen/mesh/lod_mesher.h"
#include "voxen/mesh/mesher.h"
#include "voxen/mesh/quad.h"
#include "voxen/render/arena_buffer.h"
#include "voxen/render/camera.h"
#include "voxen/render/image.h"
#include "voxen/render/platform.h"
#include "voxen/render/translucent_order.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/section.h"

namespace voxen {
class JobPool;  // voxen/core/job_pool.h
}

namespace voxen::cull {
class OcclusionBuffer;
class VisibilityStore;
}

namespace voxen::render {

class FrameCuller;  // voxen/render/frame_culler.h
class TraceStore;   // src/render/src/trace_store.h
struct MarchGpu;    // src/render/src/march_gpu.h

/// How terrain is drawn: multi-draw indirect (the default), one draw per mesh (GL 3.3), or the ray march (a compute
/// pass per pixel through the ray-march store, GL 4.3; docs/ARCHITECTURE.md "Ray marching"). All three give the same
/// picture within the look rule; the far view is rasterised on every path but per-chunk, which has none.
enum class RenderPath : uint8_t { kMultiDrawIndirect, kPerChunk, kRayMarch };
/// "mdi", "per-chunk" or "raymarch".
std::string_view to_string(RenderPath path);
/// Parses "mdi" / "per-chunk" / "raymarch"; false for anything else.
bool parse_render_path(std::string_view text, RenderPath& out);

/// Sun shadows: none, or traced (a sun ray per visible surface point through the ray-march store's shadow layer, on
/// the multi-draw-indirect and ray-march paths; the per-chunk path draws none).
enum class Shadows : uint8_t { kNone, kTraced };
/// "none" or "traced".
std::string_view to_string(Shadows shadows);
/// Parses "none" / "traced"; false for anything else.
bool parse_shadows(std::string_view text, Shadows& out);

/// One pixel of the id buffer (Renderer::read_hit_ids): the cell whose surface the pixel's nearest opaque hit is on,
/// in blocks from the eye's block (world = eye block + these), and that surface's face (block_registry.h Face: 0 +X
/// ... 5 -Z; a plant's or slope's quad reports its quad's face field); face -1 where no opaque surface shows.
struct HitId {
  int32_t x = 0, y = 0, z = 0, face = -1;
  friend bool operator==(const HitId&, const HitId&) = default;
};

/// One pixel of the shadow probe (Renderer::read_shadow_probes): the sun ray traced from the pixel's nearest opaque
/// surface: its origin in blocks from the eye's block (float, as the GPU used it) and state -1 (no ray: faces away
/// from the sun, sun below the horizon, or nothing there), 0 (it met a shadow cell), 1 (it reached the sky).
/// One box of the box pass (creatures and other things made of boxes; shaders/box_vert.glsl): the unit cube
/// [-0.5, 0.5]^3 mapped by `rows` (a 3 x 4 affine map, row-major: rows[r * 4 + c], column 3 the translation) into
/// camera-relative blocks (the frame's Camera::relative), so a box far from the origin is exact; textured with skin
/// layer `skin` (Renderer::set_box_skins) on every face but its local -z one, which takes layer `front` (a face);
/// lit like terrain by `light` (sky, red, green, blue, 0..1: the light of the cell it stands in). Drawn with one
/// instanced draw after the opaque terrain, depth-tested and written.
struct BoxInstance {
  float rows[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  float light[4] = {1, 0, 0, 0};
  uint32_t skin = 0, front = 0;
};
static_assert(sizeof(BoxInstance) == 72, "the box pass's instance attributes assume 72-byte instances");

struct ShadowProbe {
  float x = 0, y = 0, z = 0, state = -1;
};

struct RendererOptions {
  RenderPath path = RenderPath::kMultiDrawIndirect;  // asked for; per-chunk is used where GL lacks MDI
  ElemCount initial_opaque_quads{1u << 16};          // first arena sizes (they double when full)
  ElemCount initial_translucent_quads{1u << 13};
  ElemCount initial_lod_quads{1u << 14};             // the LOD arena's first size (8-byte quads)
  ElemCount span_quads{64};                          // allocation granularity (the seed's 64-quad spans)
  /// The largest GL buffer an arena may use, in bytes, when lower than the GL limits (0: the GL limits alone).
  /// At least 64 KiB. `voxen shot --arena-limit-mib` sets it; tests use it to need several buffers.
  uint64_t max_arena_buffer_bytes = 0;
  /// Keep the ray-march store (a record per drawn section, trace_store.h): needed by RenderPath::kRayMarch and traced
  /// shadows, so on by itself when `path` is kRayMarch. Needs GL 4.3 (ignored below: neither is available then).
  bool trace = false;
  /// Where the renderer reports decisions (e.g. why it fell back to per-chunk). Default: stderr.
  std::function<void(const std::string&)> log;
};

/// The far view of one frame (FrameParams::far). Off (the frame is what it was before the far view, byte for
/// byte) while fog_end is 0. The per-chunk path (GL 3.3) draws no far view and ignores all of it.
struct FarParams {
  /// The LOD sections to draw this frame (the caller's selection); those not set (set_lod_section) are skipped and
  /// counted (FrameStats::lod_sections_missing), duplicates drawn once. Each is also culled against the far
  /// frustum and the far fog end.
  std::span<const lod::LodSectionPos> draw;
  /// Horizontal distance (blocks) where all terrain, near and far, is wholly fog; 0: the far view is off. While
  /// on, the fog of both passes runs from fog_start (or 0.7 * this) to this instead of FrameParams::fog_end
  /// (which still culls the near sections); equal to FrameParams::fog_end with nothing far drawn, the frame is
  /// the far-off frame byte for byte.
  double fog_end = 0.0;
  /// Columns drawn at full detail this frame: the far pass draws nothing inside them (the hand-over mask). Only
  /// those within 128 columns of the camera's column count (the mask's reach: 256 x 256 columns); farther ones
  /// are never near. Any order; duplicates allowed.
  std::span<const ColumnPos> near_columns;
  /// Submit every face direction of every LOD section, also those facing away from the eye (the oracle of that
  /// skip, FrameStats::lod_quads_facing_away: the tests ask for the same picture bytes either way).
  bool submit_facing_away = false;
};

/// The culling stages a frame runs (`--culling`), each on what the one before left:
///   none       every loaded section nearer than the fog end is drawn, in view or not (the oracle the culling
///              tests compare with: the picture is the same whatever the mode);
///   frustum    sections outside the view frustum are left out (the far pass's LOD sections: always);
///   caves      then cave culling: sections no path of see-through cells from the eye reaches (cull/visibility.h);
///   occlusion  frustum, then software occlusion: sections, and LOD sections, that occluders near the eye hide
///              wherever they could show (cull/occlusion.h);
///   all        frustum, caves, occlusion.
/// Caves and occlusion need CullingParams::store and run only while every cell within the near plane's reach of the
/// eye is known to let sight through (FrameStats::culling_eye_near_opaque).
enum class CullMode : uint8_t { kNone, kFrustum, kCaves, kOcclusion, kAll };
/// "none", "frustum", "caves", "occlusion", "all".
std::string_view cull_mode_name(CullMode mode);
/// The mode of a name of cull_mode_name; nullopt for anything else.
std::optional<CullMode> parse_cull_mode(std::string_view name);

struct CullingParams {
  CullMode mode = CullMode::kFrustum;
  /// The face links and occluders of the sections the renderer holds (stream::ColumnStreamer::visibility(), kept
  /// with the meshes it uploads). Null: the frustum only.
  const cull::VisibilityStore* store = nullptr;
  /// Workers that may take part in the stages (the streamer's pool; they take the culler's tasks before any other
  /// queued job, and the frame never waits for one to come free). Null: the calling thread alone. The sections
  /// culled are the same either way.
  JobPool* pool = nullptr;
};

/// One frame's inputs.
struct FrameParams {
  Camera camera;              // aspect is taken from the framebuffer
  double time_of_day = 10.0;  // hours 0..24: the sun rises in the east at 6, is highest at 12, sets at 18
  double fog_end = 192.0;     // horizontal distance (blocks, footprint_distance) where terrain is wholly fog: the render radius
  double fog_start = -1.0;    // where fog begins; < 0: 0.7 * fog_end
  double anim_seconds = 0.0;  // animation clock (flowing fluids scroll, clouds drift)
  /// The cloud layer (sky pass, sky_frag.glsl): a flat layer of value-noise clouds at world height cloud_base_y,
  /// drifting with the wind (cloud_wind, blocks per second of anim_seconds, along x and z). Drawn behind terrain,
  /// writing no depth.
  bool clouds = true;
  double cloud_base_y = 192.0;
  glm::dvec2 cloud_wind{1.5, 0.5};
  int eye_sky_light = 15;     // sky light 0..15 of the cell the eye is in: below 15 the sky and the fog darken
                              // (1 outdoors ... 0 deep underground, where distance fades to black)
  bool translucent = true;    // draw the translucent pass (tests turn it off to see the ground below water)
  /// Most translucent quads re-sorted (and rewritten) this frame, nearest sections first; the rest keep their
  /// previous order until a later frame. 0: no limit, so the frame is exact (voxen shot, the tests).
  uint64_t sort_budget_quads = 0;
  /// Draw the translucent pass as an order-independent reference instead: depth peeling (Everitt, "Interactive
  /// order-independent transparency", NVIDIA 2001), each layer peeled front to back (float depth, exact per
  /// fragment) and composited under the earlier ones in float. Slow (one pass per layer); for tests. Two faces
  /// at exactly the same depth (glass touching water) peel as one.
  bool reference_translucency = false;
  /// The far view (off by default).
  FarParams far;
  /// Which sections are left out before drawing (docs/ARCHITECTURE.md, "Visibility").
  CullingParams culling;
  /// Sun shadows (needs the ray-march store: RendererOptions::trace). A sun ray is followed up to shadow_reach blocks.
  Shadows shadows = Shadows::kNone;
  double shadow_reach = 256.0;
  /// The ray march starts each pixel's ray from its tile's beam distance (the 1/8-resolution pre-pass).
  bool beam = true;
  /// Also write the id buffer and shadow probe (read_hit_ids, read_shadow_probes): the ray march writes them as it
  /// shades; the raster paths draw the opaque geometry once more into an id target. For checks; slower.
  bool hit_ids = false;
  /// Count the ray march's steps per primary ray (FrameStats::steps_*): a histogram read back after the frame.
  bool step_stats = false;
  /// The box pass's boxes this frame (BoxInstance; empty: none drawn). Read during render() only.
  std::span<const BoxInstance> boxes;
};

/// What a frame drew and what it cost on the CPU.
struct FrameStats {
  uint32_t sections_loaded = 0;    // sections holding a mesh
  uint32_t sections_in_frustum = 0;  // sections left after frustum and fog culling
  uint32_t sections_hidden_by_caves = 0;      // of those, hidden by cave culling
  uint32_t sections_hidden_by_occlusion = 0;  // of those left, hidden by the occlusion pass
  uint32_t lod_sections_hidden_by_occlusion = 0;  // LOD sections in the far frustum and fog the occlusion pass hid
  uint32_t occluder_boxes = 0;      // occluder boxes rasterised
  bool culling_eye_near_opaque = false;  // caves and occlusion skipped: a cell near the eye may block sight
  double caves_ms = 0;              // cave culling: the section graph (rebuilt when the store changed) and search
  double occlusion_ms = 0;          // the occlusion pass: occluders gathered and rasterised, sections tested
  double culling_ms = 0;            // both stages together, from the near-plane check to the last test (wall clock)
  uint32_t sections_visible = 0;   // sections drawn: in the frustum, within the fog end, and not hidden
  uint32_t opaque_meshes = 0;      // opaque meshes drawn
  uint32_t translucent_meshes = 0; // translucent meshes drawn
  uint64_t quads_drawn = 0;
  uint32_t draw_calls = 0;         // GL draw calls for terrain: MDI one per arena buffer with opaque meshes in
                                   // view plus one per run of far-first translucent meshes in the same buffer (2
                                   // while each arena fits one buffer); per-chunk one per mesh
  uint32_t sections_sorted = 0;    // sections whose translucent quads were re-sorted and rewritten this frame
  uint64_t quads_sorted = 0;       // their quads
  uint32_t sections_sort_pending = 0;  // visible sections left with a stale order by the sort budget
  uint32_t arena_spans_moved = 0;  // spans moved by this frame's arena trim
  uint32_t peel_layers = 0;        // layers peeled (reference_translucency only)
  uint32_t boxes_drawn = 0;        // the box pass's instances (FrameParams::boxes), in one instanced draw
  double cull_ms = 0;              // the arena trim (mostly nothing to do), frustum + fog culling and sorting
  double sort_ms = 0;              // re-sorting translucent quads and rewriting them (included in no other field)
  double build_ms = 0;             // per-draw data and indirect commands
  double submit_ms = 0;            // GL calls of the frame (buffer uploads, state, draws), not waiting for the GPU
  // The far pass (all 0 while FrameParams::far.fog_end is 0 or on the per-chunk path, except the arena's bytes).
  uint32_t lod_sections_drawn = 0;  // LOD sections drawn (in far.draw, set, with quads, in the far frustum and fog)
  uint32_t lod_sections_missing = 0;  // LOD sections in far.draw that are not set (skipped)
  uint64_t lod_quads = 0;           // their quads
  uint64_t lod_quads_facing_away = 0;  // of those, quads not submitted: their face direction faces away from the eye
                                       // at every position it takes in its section (back faces, which GL would cull)
  uint32_t lod_draw_calls = 0;      // GL draw calls of the far pass: one per LOD arena buffer with sections drawn
                                    // (also counted in draw_calls)
  uint64_t lod_arena_bytes = 0;     // the LOD arena's GL buffers' capacity, bytes
  uint64_t lod_used_bytes = 0;      // bytes held by live LOD sections' quads
  std::array<uint32_t, lod::kMaxLevels> lod_sections_per_level{};  // lod_sections_drawn by level
  bool lod_mask_rebuilt = false;    // the hand-over mask was rebuilt (near_columns or the camera's column changed)
  double far_build_ms = 0;          // CPU: LOD culling, the hand-over mask, the far pass's per-draw data and commands
  // The ray march (FrameParams::step_stats): primary rays and their DDA loop iterations (cells visited plus boxes
  // skipped; the beam pre-pass not counted).
  uint64_t rays = 0;
  double steps_mean = 0;
  uint32_t steps_p99 = 0;
};

/// The sun's direction (unit, world space, toward the sun) at a time of day in hours: east (+X) at 6, up at 12
/// (tilted 20 degrees toward the south, +Z), west at 18, below the horizon at night.
glm::dvec3 sun_direction(double time_of_day);

/// The colour of sunlight after its path through the air, for the sun's direction `sun` (unit, world, Y up): rgb
/// scaled so the largest channel is 1. Exactly white while the sun stands 30 degrees or more above the horizon;
/// below that the transmittance exp(-tau * m) for red, green and blue (680, 550, 440 nm) with tau the Rayleigh
/// optical depth of Hansen and Travis (1974, eq. 2.29) plus clear-air haze (Angstrom turbidity 0.1, exponent 1.3)
/// and m the relative air mass of Kasten and Young (1989), blended into white between 15 and 30 degrees: orange
/// low in the sky, red at the horizon. Below the horizon the horizon's colour (the light itself fades out
/// elsewhere).
glm::vec3 sun_color(const glm::dvec3& sun);

/// The rotation taking world directions into the frame of the star sphere at a time of day (hours): the sky
/// turns about the axis of the sun's daily circle (sun_direction), once a day, so the stars keep their places
/// relative to the sun and rise and set with the night.
glm::dmat3 sky_rotation(double time_of_day);

class Renderer {
 public:
  /// Builds shaders, textures (generated from the registry) and buffers on the platform's current context.
  static Result<std::unique_ptr<Renderer>> create(Platform& platform, const BlockRegistry& registry,
                                                  const RendererOptions& options = {});
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Sets (or replaces) a section's meshes: writes only their own spans of the arenas. Both empty removes it.
  void set_section(const SectionPos& pos, std::span<const mesh::Quad> opaque, std::span<const mesh::FluidQuad> translucent);
  /// Sets a section from the mesher's output: opaque and cutout quads share one span (opaque first; the opaque
  /// pass alpha-tests, which leaves opaque texels alone), translucent quads go to the translucent arena.
  void set_section(const SectionPos& pos, const mesh::SectionMesh& mesh);
  /// Drops a section's meshes (no-op if absent).
  void remove_section(const SectionPos& pos);
  /// Drops every section.
  void clear();
  /// The section's cells, given before its mesh when the renderer traces (traces()): the shadow layer of the
  /// section's ray-march record comes from them. Ignored when it does not trace.
  void set_cells(const SectionPos& pos, const Section& cells);
  /// Whether the renderer keeps the ray-march store (RendererOptions::trace, or the ray-march path asked for).
  bool traces() const;
  /// A section's ray-march record as the GPU holds it (voxen/trace/section_record.h); empty when none.
  std::span<const uint32_t> trace_record(const SectionPos& pos) const;
  /// The ray-march store: sections with a record, bytes their records hold, and the GL buffers' bytes (records'
  /// buffer capacity plus the 3 MiB table); all 0 when the renderer does not trace.
  struct TraceBytes {
    uint64_t sections = 0, record_bytes = 0, gpu_bytes = 0;
    uint64_t not_traced = 0;  // sections refused: the store's buffer was full (the first is logged)
    /// Sections whose cells the store holds for a record not yet built (MeshSink::set_cells comes just before the
    /// section's mesh, so 0 between a streamer's calls; more would be memory held for nothing).
    uint64_t pending_cells = 0;
  };
  TraceBytes trace_bytes() const;

  /// Sets (or replaces) a LOD section's quads (mesh::LodQuad, LOD-section-local cells of level pos.level; layout in
  /// lod_mesher.h): writes only its own span of the LOD arena, the quads grouped by face direction (0..5, each
  /// group in the given order) so that a frame submits only the directions that can face the eye. Empty removes
  /// it. Refused (logged, the section left absent) for a level outside 0..lod::kMaxLevels - 1, a quad whose face is
  /// over 5, or more quads than one arena buffer holds.
  void set_lod_section(const lod::LodSectionPos& pos, std::span<const mesh::LodQuad> quads);
  /// Drops a LOD section's quads (no-op if absent); its span goes back to the LOD arena.
  void remove_lod_section(const lod::LodSectionPos& pos);
  /// Whether a LOD section holds quads.
  bool has_lod_section(const lod::LodSectionPos& pos) const;
  /// Drops every LOD section.
  void clear_lod();
  size_t lod_section_count() const { return m_lod_pos.size(); }
  /// Where a LOD section's quads live in the LOD arena; nullopt when it is absent.
  std::optional<Span> lod_span(const lod::LodSectionPos& pos) const;

  /// Draws one frame into the platform's framebuffer (does not present).
  FrameStats render(const FrameParams& params);
  /// The last frame's occlusion buffer (cull/occlusion.h); null when that frame ran no occlusion pass.
  const cull::OcclusionBuffer* occlusion_buffer() const;
  /// Reads the platform framebuffer's pixels (RGBA8, top row first). Waits for the GPU.
  Image read_pixels() const;
  /// Reads the platform framebuffer's depth buffer: width() x height() values in [0, 1] (window depth; 1.0 where
  /// nothing was drawn, the sky writes none), row 0 at the BOTTOM (GL's order), x fastest. Waits for the GPU. The
  /// platform's context must be current (it is after render(); unlike read_pixels, no make_current each frame).
  /// A pixel the last frame's far pass drew and the near passes did not reads kFarDepth (the far pass's own depth is
  /// cleared before the near passes; the stencil keeps where it drew), so "depth < 1" means "terrain shows here".
  /// The far pass draws nothing wholly fog (past shade_fog_end); the near passes do (a near section is culled by
  /// its footprint, so its far side may lie past the fog end): such a near pixel reads its depth.
  std::vector<float> read_depth() const;
  /// Whether a frame drawn with `params` has the far pass: FarParams::fog_end > 0 on the multi-draw-indirect path.
  bool far_on(const FrameParams& params) const;
  /// The horizontal distance (blocks) where terrain is wholly fog in a frame drawn with `params`: the far fog end
  /// while the far view is on (far_on), else FrameParams::fog_end.
  double shade_fog_end(const FrameParams& params) const;
  /// The depth read_depth reports where only the far view drew: the float just under 1.0.
  static constexpr float kFarDepth = 0.99999994f;
  /// The last frame's id buffer and shadow probe (FrameParams::hit_ids): width() x height() entries, row 0 at the
  /// BOTTOM, x fastest. Empty when that frame wrote none. Waits for the GPU.
  std::vector<HitId> read_hit_ids() const;
  std::vector<ShadowProbe> read_shadow_probes() const;
  /// Waits until the GPU has finished every command issued so far (glFinish), so that what follows (a depth
  /// read-back, a measurement) is not charged with the frame's rendering.
  void finish() const;

  /// Layer tints: every path's shading multiplies a texel's rgb by its texture layer's tint (shade_common.glsl), a
  /// GPU table of kTintLayers RGBA8 texels (a 1024 x 1 texture, so the GL 3.3 per-chunk path reads it too).
  /// Untinted layers hold white, which leaves their texels as they are, to the bit; the layers of tinted blocks
  /// (BlockDef::tinted: .vox palette colours, painted plain white) start at their block's face colour.
  static constexpr uint32_t kTintLayers = 1024;  // the quad format's texture layers (quad.h, 10 bits)
  /// Sets texture layer `layer`'s tint to the rgb of `argb` (0xAARRGGBB, sRGB bytes; the alpha byte is ignored:
  /// translucency stays the texture's) with one texel write (glTexSubImage2D), seen by every frame drawn after it
  /// on every path; no mesh changes. Any layer may be tinted (a tint multiplies a patterned texture too).
  /// Error (nothing written): `layer` is not one of this renderer's layers (0 .. min(registry textures, 1024) - 1).
  Status set_layer_tint(uint16_t layer, uint32_t argb);
  /// The box pass's skins: each image one layer (all the same size, 1..256 pixels a side, RGBA8, row 0 at the top),
  /// replacing any before; BoxInstance::skin and front index them. Mipmapped, sampled nearest within a level.
  /// Error (nothing changed): no images, mixed sizes, or more than 256 layers.
  Status set_box_skins(const std::vector<Image>& layers);
  /// A layer's tint as last set (0xFFRRGGBB; white for untinted layers and for layers past the renderer's).
  uint32_t layer_tint(uint16_t layer) const;
  /// Section meshes set so far (set_section calls with any quads): a caller tells by it that nothing was remeshed
  /// and uploaded between two points (a recolour).
  uint64_t mesh_uploads() const { return m_mesh_uploads; }

  /// The path in use (the one asked for, or per-chunk when the context cannot do MDI).
  RenderPath path() const { return m_path; }
  /// Switches path (MDI only where supported, the ray march only where the renderer traces; returns false and keeps
  /// the current one otherwise).
  bool set_path(RenderPath path);
  bool mdi_supported() const { return m_mdi_supported; }
  const GlInfo& gl_info() const { return m_info; }
  size_t section_count() const { return m_pos.size(); }
  /// Where a section's opaque (+ cutout) and translucent quads live in their arenas; nullopt when the section has
  /// no mesh of that kind. For checks that an update moved nothing else.
  std::optional<Span> opaque_span(const SectionPos& pos) const;
  std::optional<Span> translucent_span(const SectionPos& pos) const;
  /// Bytes of the two arenas' GL buffers, and bytes held by live meshes.
  uint64_t arena_capacity_bytes() const;
  uint64_t arena_used_bytes() const;
  /// The GL limits on one arena buffer and the limit in use.
  struct ArenaLimits {
    int64_t shader_storage_block_bytes = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE (0 without SSBOs: GL < 4.3)
    int64_t texture_buffer_texels = 0;       // GL_MAX_TEXTURE_BUFFER_SIZE (R32UI texels of 4 bytes)
    uint64_t override_bytes = 0;             // RendererOptions::max_arena_buffer_bytes
    uint64_t buffer_bytes = 0;               // the smallest of those that apply: no arena buffer is larger
  };
  const ArenaLimits& arena_limits() const { return m_limits; }
  const ArenaBuffer& opaque_arena() const { return *m_opaque; }
  const ArenaBuffer& translucent_arena() const { return *m_translucent; }
  const ArenaBuffer& lod_arena() const { return *m_lod; }

 private:
  struct Gpu;  // GL objects (programs, textures, buffers)
  Renderer(Platform& platform, const RendererOptions& options);
  Status init(const BlockRegistry& registry);
  void log(const std::string& line) const;
  void remove_at(size_t index);
  void apply_moves(bool opaque, const std::vector<ArenaBuffer::Move>& moves);
  void remove_lod_at(size_t index);
  // The far pass's CPU part: culls far.draw, rebuilds the hand-over mask if needed, appends the per-draw entries
  // and commands (after the near ones) and batches them per LOD arena buffer. Returns the far projection.
  glm::dmat4 build_far(const FrameParams& params, const Camera& cam, FrameStats& st);
  glm::dvec3 eye_in_section(size_t index) const;  // the last frame's eye, section-local, 1/64 block
  // The ray-march pass (raymarch_comp.glsl): beam, march, composite over the sky and far passes.
  // The box pass (FrameParams::boxes) with the frame's view-projection and fog.
  void draw_boxes(const FrameParams& params, const glm::mat4& view_proj, double fog_start, double fog_end, FrameStats& st);
  void march(const FrameParams& params, const Camera& cam, const glm::mat4& view_proj, const glm::mat4& inv_view_proj,
             FrameStats& st);
  // The raster id pass (id_frag.glsl) into the id target, after the frame.
  void draw_ids(const FrameParams& params, const std::function<void()>& draw_opaque);
  // Sets trace_common.glsl's uniforms of `program` for this frame's eye, and binds the store.
  void set_trace_uniforms(uint32_t program, const Camera& cam, const FrameParams& params);
  // Sets the shading uniforms shared by every terrain program (sky_common.glsl, shade_common.glsl).
  void set_shade_uniforms(uint32_t program, const FrameParams& params, double fog_start, double fog_end);

  Platform& m_platform;
  RendererOptions m_options;
  GlInfo m_info;
  RenderPath m_path = RenderPath::kMultiDrawIndirect;
  bool m_mdi_supported = false;
  std::unique_ptr<Gpu> m_gpu;
  std::unique_ptr<ArenaBuffer> m_opaque;
  std::unique_ptr<ArenaBuffer> m_translucent;
  std::unique_ptr<ArenaBuffer> m_lod;
  std::unique_ptr<TraceStore> m_trace;  // the ray-march store (null when the renderer does not trace)
  std::unique_ptr<MarchGpu> m_march;    // the ray march's and id pass's GL objects (with m_trace)
  bool m_ids_written = false;           // the last frame wrote the id buffer and shadow probe
  std::vector<uint32_t> m_tints;        // by texture layer (at most kTintLayers): 0xFFRRGGBB as on the GPU
  uint64_t m_mesh_uploads = 0;          // set_section calls with quads
  ArenaLimits m_limits;
  bool m_far_drawn = false;  // the last frame's far pass drew something (its pixels are marked in the stencil)
  bool m_has_eye = false;  // a frame was drawn: m_eye is its eye (new translucent meshes are sorted for it)
  BlockPos m_eye_block{};
  glm::dvec3 m_eye_frac{0.0};

  // Sections, dense arrays (structure of arrays) with swap-remove; m_index maps a position to its slot.
  std::unordered_map<SectionPos, uint32_t, SectionPosHash> m_index;
  std::vector<SectionPos> m_pos;
  std::vector<int64_t> m_origin_x, m_origin_y, m_origin_z;  // world block of the section's min corner
  std::vector<Span> m_opaque_span, m_translucent_span;
  std::vector<uint32_t> m_opaque_quads, m_translucent_quads;  // 0 = no mesh of that kind
  std::vector<TranslucentOrder> m_order;        // the translucent quads (CPU copy) and their BSP tree
  std::vector<TranslucentSortKey> m_sort_key;   // the eye key the uploaded order was made for
  std::vector<uint8_t> m_sort_valid;            // 0: the uploaded order was made for no eye yet

  // LOD sections (structure of arrays, swap-remove) and the hand-over mask's inputs of the last rebuild.
  std::unordered_map<lod::LodSectionPos, uint32_t, lod::LodSectionPosHash> m_lod_index;
  std::vector<lod::LodSectionPos> m_lod_pos;
  std::vector<Span> m_lod_span;
  std::vector<uint32_t> m_lod_quads;
  std::vector<std::array<uint32_t, 6>> m_lod_face_end;  // quads of faces 0..f, cumulative: face f is [end[f-1], end[f])
  std::vector<mesh::LodQuad> m_lod_grouped;              // scratch: a section's quads grouped by face
  std::vector<uint64_t> m_lod_stamp;  // the last frame that drew it (drops duplicates in far.draw)
  uint64_t m_frame = 0;
  bool m_mask_valid = false;
  ColumnPos m_mask_centre{};
  std::vector<ColumnPos> m_mask_columns;
  std::vector<uint8_t> m_mask_texels;

  // Per-frame scratch (kept to avoid reallocating every frame).
  std::vector<double> m_rel_x, m_rel_y, m_rel_z;
  std::vector<uint8_t> m_visible;
  std::vector<uint8_t> m_keep;
  std::unique_ptr<FrameCuller> m_culler;
  std::vector<mesh::Quad> m_concat;
  std::vector<mesh::FluidQuad> m_sorted;
};

}  // namespace voxen::render
