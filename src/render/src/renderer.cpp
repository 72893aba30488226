#include <epoxy/gl.h>

#include "voxen/render/renderer.h"

#include "voxen/render/frame_culler.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "gl_util.h"
#include "march_gpu.h"
#include "trace_store.h"
#include "voxen/core/clock.h"
#include "voxen/render/textures.h"
#include "voxen_shaders.h"

namespace voxen::render {
namespace {

constexpr uint32_t kOpaqueStride = sizeof(mesh::Quad);       // 16 bytes
constexpr uint32_t kTranslucentStride = sizeof(mesh::FluidQuad);  // 20 bytes
constexpr uint32_t kLodStride = sizeof(mesh::LodQuad);       // 8 bytes
constexpr int kMaskSide = 256;                               // the hand-over mask: 256 x 256 columns
constexpr int64_t kMaskHalf = kMaskSide / 2;                 // texel = column - camera column + 128
constexpr double kFarNearPlane = 8.0;                        // the far projection's near plane at most, blocks
constexpr GLint kMaskUnit = 5;                               // texture unit of the hand-over mask
constexpr GLint kSkinUnit = 6;                               // texture unit of the box pass's skins
constexpr double kSectionExtent = kSectionSize;              // a section's box is 16 blocks on each side
constexpr uint64_t kMinArenaBufferBytes = 64 * 1024;         // the least arena buffer limit an override may set
constexpr uint32_t kMaxPeelLayers = 64;                      // the depth-peeling reference stops here
// How far (in pixels) opaque axis quads grow along their plane to close T-junction cracks (terrain_vert.glsl): the
// rasteriser snaps vertices to 1/256 pixel (8 sub-pixel bits, llvmpipe and common GPUs), so a crack can be that wide.
constexpr double kSeamPixels = 1.0 / 256.0;

// GL's indirect command for glMultiDrawArraysIndirect (OpenGL 4.6 spec, 10.4).
struct DrawArraysIndirectCommand {
  uint32_t count;
  uint32_t instance_count;
  uint32_t first;
  uint32_t base_instance;
};
static_assert(sizeof(DrawArraysIndirectCommand) == 16);

// GL's indirect command for glMultiDrawElementsIndirect (OpenGL 4.6 spec, 10.4): the far pass's quads, 4 vertices
// each through a shared index pattern (quad_indices).
struct DrawElementsIndirectCommand {
  uint32_t count;
  uint32_t instance_count;
  uint32_t first_index;
  int32_t base_vertex;
  uint32_t base_instance;
};
static_assert(sizeof(DrawElementsIndirectCommand) == 20);

// Consecutive indirect commands drawn by one call: their spans are all in arena buffer `buffer`.
struct Batch {
  uint32_t buffer;
  uint32_t first, count;  // into the frame's commands
};


// Streams `bytes` into `buffer` through `target`, orphaning the old storage (no wait on frames in flight).
void stream(GLenum target, GLuint buffer, const void* data, size_t bytes) {
  glBindBuffer(target, buffer);
  glBufferData(target, static_cast<GLsizeiptr>(std::max<size_t>(bytes, 16)), nullptr, GL_STREAM_DRAW);
  if (bytes) glBufferSubData(target, 0, static_cast<GLsizeiptr>(bytes), data);
}

glm::mat4 to_float(const glm::dmat4& m) { return glm::mat4(m); }

}  // namespace

std::string_view to_string(RenderPath path) {
  switch (path) {
    case RenderPath::kMultiDrawIndirect: return "mdi";
    case RenderPath::kPerChunk: return "per-chunk";
    case RenderPath::kRayMarch: return "raymarch";
  }
  return "mdi";
}

bool parse_render_path(std::string_view text, RenderPath& out) {
  if (text == "mdi") {
    out = RenderPath::kMultiDrawIndirect;
    return true;
  }
  if (text == "per-chunk") {
    out = RenderPath::kPerChunk;
    return true;
  }
  if (text == "raymarch") {
    out = RenderPath::kRayMarch;
    return true;
  }
  return false;
}

std::string_view to_string(Shadows shadows) { return shadows == Shadows::kTraced ? "traced" : "none"; }

bool parse_shadows(std::string_view text, Shadows& out) {
  if (text == "none" || text == "traced") {
    out = text == "none" ? Shadows::kNone : Shadows::kTraced;
    return true;
  }
  return false;
}

glm::dvec3 sun_direction(double time_of_day) {
  constexpr double kPi = 3.14159265358979323846;
  const double theta = (time_of_day - 6.0) / 24.0 * 2.0 * kPi;  // 0 at sunrise, pi/2 at noon
  constexpr double kTilt = 20.0 * kPi / 180.0;
  return glm::normalize(glm::dvec3(std::cos(theta), std::sin(theta) * std::cos(kTilt), std::sin(theta) * std::sin(kTilt)));
}

glm::vec3 sun_color(const glm::dvec3& sun) {
  constexpr double kPi = 3.14159265358979323846;
  const double e = std::clamp(sun.y, -1.0, 1.0);
  if (e >= 0.5) return glm::vec3(1.0f);  // 30 degrees up or more: white, exactly
  const double h = std::max(std::asin(e) * 180.0 / kPi, 0.0);  // elevation, degrees; the horizon's colour below it
  const double air_mass = 1.0 / (std::sin(h * kPi / 180.0) + 0.50572 * std::pow(h + 6.07995, -1.6364));
  const double lambda[3] = {0.68, 0.55, 0.44};  // micrometres: red, green, blue
  glm::dvec3 t;
  for (int c = 0; c < 3; ++c) {
    const double l2 = 1.0 / (lambda[c] * lambda[c]);
    const double rayleigh = 0.008569 * l2 * l2 * (1.0 + 0.0113 * l2 + 0.00013 * l2 * l2);
    const double haze = 0.1 * std::pow(lambda[c] / 0.55, -1.3);
    t[c] = std::exp(-(rayleigh + haze) * air_mass);
  }
  t /= std::max(t.x, std::max(t.y, t.z));
  const double w = glm::smoothstep(0.25, 0.5, e);
  return glm::vec3(glm::mix(t, glm::dvec3(1.0), w));
}

glm::dmat3 sky_rotation(double time_of_day) {
  constexpr double kPi = 3.14159265358979323846;
  constexpr double kTilt = 20.0 * kPi / 180.0;
  const double theta = (time_of_day - 6.0) / 24.0 * 2.0 * kPi;  // as sun_direction
  // The sun's circle is cos(theta) x + sin(theta) u with u = (0, cos tilt, sin tilt); its axis x cross u.
  const glm::dvec3 x(1.0, 0.0, 0.0), u(0.0, std::cos(kTilt), std::sin(kTilt)), axis = glm::cross(x, u);
  // World -> sky frame: the rotation by -theta about the axis (Rodrigues), so a star fixed in the sky frame turns
  // with the sun.
  const double c = std::cos(-theta), s = std::sin(-theta);
  const glm::dmat3 k(0.0, axis.z, -axis.y, -axis.z, 0.0, axis.x, axis.y, -axis.x, 0.0);  // column-major cross matrix
  return glm::dmat3(1.0) + s * k + (1.0 - c) * (k * k);
}

ShadeInputs shade_inputs(const FrameParams& params) {
  ShadeInputs in;
  in.sun = sun_direction(params.time_of_day);
  in.sun_color = sun_color(in.sun);
  in.day = static_cast<float>(glm::smoothstep(-0.10, 0.15, in.sun.y));
  // The sky seen from the eye: the light curve of the eye's sky light (1 at 15, ~0.18 at 7, 0 at 0).
  const double eye_sky = std::clamp(params.eye_sky_light, 0, 15) / 15.0;
  in.sky_seen = static_cast<float>(eye_sky / (4.0 - 3.0 * eye_sky));
  return in;
}

// The GL objects of a renderer.
struct Renderer::Gpu {
  struct TerrainProgram {
    gl::Program program;
    GLint view_proj = -1, time = -1, fog = -1, sun_dir = -1, sun_color = -1, day = -1, sky_seen = -1, textures = -1, arena = -1, draw_offset = -1,
          emissive = -1, seam = -1;
  };
  TerrainProgram mdi_opaque, mdi_translucent, chunk_opaque, chunk_translucent;
  TerrainProgram mdi_peel, chunk_peel;  // the depth-peeling reference (built on first use)
  TerrainProgram mdi_opaque_shadow, mdi_translucent_shadow;  // traced shadows (built on first use)
  TerrainProgram lod;                   // the far pass (MDI only): lod_vert + terrain_frag with VOXEN_LOD
  GLint lod_eye_in_column = -1;
  gl::Texture near_mask;                // R8 256 x 256, the hand-over mask (made on first far frame)
  GLint mdi_peel_pass = -1, chunk_peel_pass = -1;
  gl::Program sky;
  GLint sky_inv_view_proj = -1, sky_sun_dir = -1, sky_day = -1, sky_sky_seen = -1, sky_sun_color = -1, sky_rotation = -1,
        sky_pixel_angle = -1, sky_clouds = -1;
  gl::Texture textures;          // sampler2DArray, one layer per registry texture
  gl::Texture layer_tint;        // RGBA8 kTintLayers x 1: texel l multiplies layer l's rgb (white: untinted)
  // The box pass (box_vert.glsl, box_frag.glsl): instances streamed into box_instances each frame, one instanced
  // draw of 36 vertices; skins a 2D array texture (set_box_skins; a 1 x 1 white layer until then).
  gl::Program box;
  GLint box_view_proj = -1, box_fog = -1, box_sun_dir = -1, box_sun_color = -1, box_day = -1, box_sky_seen = -1;
  gl::VertexArray box_vao;
  gl::Buffer box_instances;
  size_t box_capacity = 0;  // instances box_instances holds
  gl::Texture box_skins;
  // Texture-buffer (R32UI) views of each arena buffer, per-chunk path; re-attached when an arena's generation moves.
  struct Views {
    std::vector<gl::Texture> views;
    uint64_t generation = ~uint64_t{0};
  };
  Views opaque_views, translucent_views;
  // The depth-peeling reference's targets (made on first use, remade when the framebuffer's size changes).
  struct Peel {
    gl::Program composite;
    GLuint layer_fbo = 0, accum_fbo = 0, depth_rb = 0, query = 0;
    gl::Texture layer_color, accum, depth[2];  // RGBA32F, RGBA32F, R32F layer depths (previous / current layer)
    int width = 0, height = 0;
    ~Peel() {
      if (layer_fbo) glDeleteFramebuffers(1, &layer_fbo);
      if (accum_fbo) glDeleteFramebuffers(1, &accum_fbo);
      if (depth_rb) glDeleteRenderbuffers(1, &depth_rb);
      if (query) glDeleteQueries(1, &query);
    }
  };
  std::unique_ptr<Peel> peel;
  gl::Buffer per_draw;           // vec4 per visible section (MDI path)
  gl::Buffer indirect;           // DrawArraysIndirectCommand per visible mesh (MDI path)
  gl::VertexArray vao;           // empty: vertex pulling needs no attributes, core GL needs a VAO bound
  gl::VertexArray mdi_vao;       // attribute 0 = per-draw offset (vec4, divisor 1) from `per_draw`
  std::vector<glm::vec4> offsets;
  std::vector<DrawArraysIndirectCommand> commands;
  std::vector<uint32_t> command_buffer;  // per command: the arena buffer its span is in
  std::vector<Batch> opaque_batches, translucent_batches, far_batches;
  std::vector<uint32_t> far_order;       // LOD slots to draw this frame, near-first
  std::vector<double> far_distance;      // by LOD slot: squared distance of the box centre
  std::vector<double> far_x, far_y, far_z;  // scratch: camera-relative box minima of one level's candidates
  std::vector<uint32_t> far_slot;           // scratch: their LOD slots
  std::vector<uint8_t> far_visible;
  std::vector<uint32_t> order;       // sections drawn this frame, near first
  std::vector<uint32_t> in_frustum;  // sections in the frustum and the fog, near first (translucent sorting)
  std::vector<double> distance;
  std::vector<std::pair<DrawArraysIndirectCommand, uint32_t>> by_buffer;
  // The far pass: indexed quads. quad_indices holds 0, 1, 2, 0, 2, 3 + 4q for quads q < quad_index_quads (bound as
  // mdi_vao's element buffer; the near passes draw arrays and ignore it), far_commands go to far_indirect.
  gl::Buffer quad_indices, far_indirect;
  uint32_t quad_index_quads = 0;
  std::vector<DrawElementsIndirectCommand> far_commands;
  std::vector<std::pair<DrawElementsIndirectCommand, uint32_t>> far_by_buffer;
  // The programs need GLSL 4.30 (MDI) or 3.30 (per-chunk); the builder is kept for the peel variants.
  std::function<Status(TerrainProgram&, bool mdi, bool fluid, bool peel, bool shadows)> build_terrain;
};

Renderer::Renderer(Platform& platform, const RendererOptions& options)
    : m_platform(platform), m_options(options), m_culler(std::make_unique<FrameCuller>()) {}

Renderer::~Renderer() {
  // GL objects need the context current while they are deleted.
  m_platform.make_current();
  m_opaque.reset();
  m_translucent.reset();
  m_lod.reset();
  m_trace.reset();
  m_march.reset();
  m_gpu.reset();
}

void Renderer::log(const std::string& line) const {
  if (m_options.log) m_options.log(line);
  else std::fprintf(stderr, "voxen: render: %s\n", line.c_str());
}

Result<std::unique_ptr<Renderer>> Renderer::create(Platform& platform, const BlockRegistry& registry,
                                                   const RendererOptions& options) {
  std::unique_ptr<Renderer> r(new Renderer(platform, options));
  if (auto s = r->init(registry); !s.ok()) return s.error();
  return r;
}

Status Renderer::init(const BlockRegistry& registry) {
  m_platform.make_current();
  m_info = query_gl_info();
  if (!m_info.at_least(3, 3))
    return Error{"OpenGL " + std::to_string(m_info.major) + "." + std::to_string(m_info.minor) +
                 " is too old: voxen needs at least 3.3 core (renderer: " + m_info.renderer + ")"};
  // Multi-draw indirect with baseInstance (4.2) and SSBOs (4.3): OpenGL 4.3 core.
  m_mdi_supported = m_info.at_least(4, 3);
  m_path = m_options.path;
  if (m_path != RenderPath::kPerChunk && !m_mdi_supported) {
    log("OpenGL " + std::to_string(m_info.major) + "." + std::to_string(m_info.minor) + " (" + m_info.renderer +
        ") has no " + (m_path == RenderPath::kRayMarch ? "compute shaders" : "multi-draw indirect") +
        " with SSBOs (needs 4.3): using the per-chunk path (one draw per mesh)");
    m_path = RenderPath::kPerChunk;
  }
  const bool dsa = m_info.at_least(4, 5);
  // Texture layers used by a block that emits light glow in the shader (one bit per layer, 1024 layers).
  std::array<GLuint, 32> emissive_bits{};
  for (size_t id = 0; id < registry.size(); ++id) {
    const BlockDef& def = registry[static_cast<uint16_t>(id)];
    if (!def.defined || !def.emits()) continue;
    for (uint16_t layer : def.face_texture_index)
      if (layer < 1024) emissive_bits[layer >> 5] |= 1u << (layer & 31);
  }
  m_gpu = std::make_unique<Gpu>();
  Gpu& g = *m_gpu;

  // Programs. The MDI ones need GLSL 4.50 with draw parameters; the per-chunk ones are GLSL 3.30.
  g.build_terrain = [emissive_bits](Gpu::TerrainProgram& tp, bool mdi, bool fluid, bool peel, bool shadows) -> Status {
    const std::string header = std::string(mdi ? "#version 430 core\n" : "#version 330 core\n") +
                               "#define VOXEN_MDI " + (mdi ? "1" : "0") + "\n#define VOXEN_FLUID " + (fluid ? "1" : "0") +
                               "\n#define VOXEN_PEEL " + (peel ? "1" : "0") + "\n#define VOXEN_SHADOWS " +
                               (shadows ? "1" : "0") + "\n";
    auto p = gl::build_program(std::string("terrain ") + (mdi ? "mdi" : "per-chunk") + (fluid ? " translucent" : " opaque") +
                                   (peel ? " peel" : "") + (shadows ? " shadows" : ""),
                               {header, std::string(shaders::kQuadCommon), std::string(shaders::kTerrainVert)},
                               {header, std::string(shaders::kSkyCommon), std::string(shaders::kShadeCommon),
                                shadows ? std::string(shaders::kTraceCommon) : std::string(), std::string(shaders::kTerrainFrag)});
    if (!p) return p.error();
    tp.program.reset(*p);
    const GLuint id = *p;
    tp.view_proj = glGetUniformLocation(id, "u_view_proj");
    tp.seam = glGetUniformLocation(id, "u_seam");
    tp.time = glGetUniformLocation(id, "u_time");
    tp.fog = glGetUniformLocation(id, "u_fog");
    tp.sun_dir = glGetUniformLocation(id, "u_sun_dir");
    tp.day = glGetUniformLocation(id, "u_day");
    tp.sun_color = glGetUniformLocation(id, "u_sun_color");
    tp.sky_seen = glGetUniformLocation(id, "u_sky_seen");
    tp.textures = glGetUniformLocation(id, "u_textures");
    tp.arena = glGetUniformLocation(id, "u_arena");
    tp.draw_offset = glGetUniformLocation(id, "u_draw_offset");
    tp.emissive = glGetUniformLocation(id, "u_emissive");
    glUseProgram(id);
    glUniform1i(tp.textures, 0);
    glUniform4uiv(tp.emissive, 8, emissive_bits.data());
    glUniform1i(glGetUniformLocation(id, "u_layer_tint"), kTintTextureUnit);
    if (tp.arena >= 0) glUniform1i(tp.arena, 1);
    return Ok{};
  };
  if (m_mdi_supported) {
    if (auto s = g.build_terrain(g.mdi_opaque, true, false, false, false); !s.ok()) return s;
    if (auto s = g.build_terrain(g.mdi_translucent, true, true, false, false); !s.ok()) return s;
  }
  if (m_mdi_supported) {
    // The far pass: LOD quads through lod_vert, shaded by terrain_frag (opaque) with the hand-over discard.
    const std::string header = "#version 430 core\n#define VOXEN_MDI 1\n#define VOXEN_FLUID 0\n#define VOXEN_PEEL 0\n#define VOXEN_LOD 1\n";
    auto p = gl::build_program("terrain lod", {header, std::string(shaders::kQuadCommon), std::string(shaders::kLodVert)},
                               {header, std::string(shaders::kSkyCommon), std::string(shaders::kShadeCommon),
                                std::string(shaders::kTerrainFrag)});
    if (!p) return p.error();
    Gpu::TerrainProgram& tp = g.lod;
    tp.program.reset(*p);
    const GLuint id = *p;
    tp.view_proj = glGetUniformLocation(id, "u_view_proj");
    tp.fog = glGetUniformLocation(id, "u_fog");
    tp.sun_dir = glGetUniformLocation(id, "u_sun_dir");
    tp.day = glGetUniformLocation(id, "u_day");
    tp.sun_color = glGetUniformLocation(id, "u_sun_color");
    tp.sky_seen = glGetUniformLocation(id, "u_sky_seen");
    tp.textures = glGetUniformLocation(id, "u_textures");
    tp.emissive = glGetUniformLocation(id, "u_emissive");
    g.lod_eye_in_column = glGetUniformLocation(id, "u_eye_in_column");
    glUseProgram(id);
    glUniform1i(tp.textures, 0);
    glUniform4uiv(tp.emissive, 8, emissive_bits.data());
    glUniform1i(glGetUniformLocation(id, "u_layer_tint"), kTintTextureUnit);
    glUniform1i(glGetUniformLocation(id, "u_near_mask"), kMaskUnit);
  }
  if (auto s = g.build_terrain(g.chunk_opaque, false, false, false, false); !s.ok()) return s;
  if (auto s = g.build_terrain(g.chunk_translucent, false, true, false, false); !s.ok()) return s;
  {
    const std::string header = "#version 330 core\n";
    auto p = gl::build_program("sky", {header, std::string(shaders::kSkyVert)},
                               {header, std::string(shaders::kSkyCommon), std::string(shaders::kSkyFrag)});
    if (!p) return p.error();
    g.sky.reset(*p);
    g.sky_inv_view_proj = glGetUniformLocation(*p, "u_inv_view_proj");
    g.sky_sun_dir = glGetUniformLocation(*p, "u_sun_dir");
    g.sky_day = glGetUniformLocation(*p, "u_day");
    g.sky_sky_seen = glGetUniformLocation(*p, "u_sky_seen");
    g.sky_sun_color = glGetUniformLocation(*p, "u_sun_color");
    g.sky_rotation = glGetUniformLocation(*p, "u_sky_rotation");
    g.sky_pixel_angle = glGetUniformLocation(*p, "u_pixel_angle");
    g.sky_clouds = glGetUniformLocation(*p, "u_clouds");
  }

  {
    const std::string header = "#version 330 core\n";
    auto p = gl::build_program("box", {header, std::string(shaders::kBoxVert)},
                               {header, std::string(shaders::kSkyCommon), std::string(shaders::kShadeCommon),
                                std::string(shaders::kBoxFrag)});
    if (!p) return p.error();
    g.box.reset(*p);
    g.box_view_proj = glGetUniformLocation(*p, "u_view_proj");
    g.box_fog = glGetUniformLocation(*p, "u_fog");
    g.box_sun_dir = glGetUniformLocation(*p, "u_sun_dir");
    g.box_sun_color = glGetUniformLocation(*p, "u_sun_color");
    g.box_day = glGetUniformLocation(*p, "u_day");
    g.box_sky_seen = glGetUniformLocation(*p, "u_sky_seen");
    glUseProgram(*p);
    glUniform1i(glGetUniformLocation(*p, "u_skins"), kSkinUnit);
    GLuint vao = 0, buf = 0;
    glGenVertexArrays(1, &vao);
    glGenBuffers(1, &buf);
    g.box_vao.reset(vao);
    g.box_instances.reset(buf);
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, buf);
    constexpr GLsizei kStride = sizeof(BoxInstance);
    for (GLuint a = 0; a < 4; ++a) {  // rows 0..2, light
      glEnableVertexAttribArray(a);
      glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, kStride, reinterpret_cast<const void*>(static_cast<uintptr_t>(a * 16)));
      glVertexAttribDivisor(a, 1);
    }
    glEnableVertexAttribArray(4);
    glVertexAttribIPointer(4, 2, GL_UNSIGNED_INT, kStride, reinterpret_cast<const void*>(static_cast<uintptr_t>(64)));
    glVertexAttribDivisor(4, 1);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
  }

  // Textures: every registry texture as one layer of a mipmapped sampler2DArray.
  const TextureSet set = generate_textures(registry);
  GLuint tex = 0;
  glGenTextures(1, &tex);
  g.textures.reset(tex);
  glBindTexture(GL_TEXTURE_2D_ARRAY, tex);
  const auto layers = static_cast<GLsizei>(std::max<size_t>(set.layers.size(), 1));
  for (int level = 0; level < kTextureMipLevels; ++level) {
    const int size = kTextureSize >> level;
    glTexImage3D(GL_TEXTURE_2D_ARRAY, level, GL_RGBA8, size, size, layers, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    for (size_t l = 0; l < set.layers.size(); ++l)
      glTexSubImage3D(GL_TEXTURE_2D_ARRAY, level, 0, 0, static_cast<GLint>(l), size, size, 1, GL_RGBA, GL_UNSIGNED_BYTE,
                      set.layers[l].mips[static_cast<size_t>(level)].data());
  }
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_BASE_LEVEL, 0);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, kTextureMipLevels - 1);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_REPEAT);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_REPEAT);

  // Layer tints: white (255, which the shader reads as exactly 1.0) except the layers of tinted blocks, which start
  // at their block's face colour (rgb; the first block using a layer decides, as for its texture).
  m_tints.assign(std::min(set.layers.size(), static_cast<size_t>(kTintLayers)), 0xFFFFFFFFu);
  std::vector<uint8_t> assigned(m_tints.size(), 0);
  for (size_t id = 0; id < registry.size(); ++id) {
    const BlockDef& def = registry[static_cast<uint16_t>(id)];
    if (!def.defined) continue;
    for (size_t f = 0; f < 6; ++f) {
      const uint16_t layer = def.face_texture_index[f];
      if (layer >= m_tints.size() || assigned[layer]) continue;
      assigned[layer] = 1;
      if (def.tinted) m_tints[layer] = 0xFF000000u | (def.face_color[f] & 0xFFFFFFu);
    }
  }
  std::vector<uint8_t> tint_texels(static_cast<size_t>(kTintLayers) * 4, 255);
  for (size_t l = 0; l < m_tints.size(); ++l)
    for (size_t c = 0; c < 3; ++c) tint_texels[l * 4 + c] = static_cast<uint8_t>(m_tints[l] >> (16 - 8 * c));
  glGenTextures(1, &tex);
  g.layer_tint.reset(tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kTintLayers, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, tint_texels.data());
  // One level, nearest: complete without mips (texelFetch on an incomplete texture would read black).
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, 0);

  GLuint ids[2] = {0, 0};
  glGenBuffers(2, ids);
  g.per_draw.reset(ids[0]);
  g.indirect.reset(ids[1]);
  GLuint vao = 0;
  glGenVertexArrays(1, &vao);
  g.vao.reset(vao);
  if (m_mdi_supported) {
    // The per-draw offsets as a per-instance attribute: instance 0 of a command with baseInstance k reads entry k.
    glGenVertexArrays(1, &vao);
    g.mdi_vao.reset(vao);
    GLuint far_ids[2] = {0, 0};
    glGenBuffers(2, far_ids);
    g.quad_indices.reset(far_ids[0]);
    g.far_indirect.reset(far_ids[1]);
    glBindVertexArray(vao);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.quad_indices.get());
    glBindBuffer(GL_ARRAY_BUFFER, g.per_draw.get());
    glBufferData(GL_ARRAY_BUFFER, 16, nullptr, GL_STREAM_DRAW);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(glm::vec4), nullptr);
    glEnableVertexAttribArray(0);
    glVertexAttribDivisor(0, 1);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
  }

  // The arena's limit per GL buffer: the multi-draw path reads a buffer as one SSBO, the per-chunk path through
  // an R32UI texture-buffer view (both paths may be switched to at any time, so both limits apply where MDI is
  // supported); a lower override where given. A limit the driver does not report (0) is ignored.
  GLint64 ssbo = 0;
  if (m_mdi_supported) glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &ssbo);
  GLint texels = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
  m_limits.shader_storage_block_bytes = ssbo;
  m_limits.texture_buffer_texels = texels;
  m_limits.override_bytes = m_options.max_arena_buffer_bytes;
  uint64_t limit = ~uint64_t{0};
  if (ssbo > 0) limit = std::min(limit, static_cast<uint64_t>(ssbo));
  if (texels > 0) limit = std::min(limit, static_cast<uint64_t>(texels) * 4);
  if (m_options.max_arena_buffer_bytes > 0) {
    if (m_options.max_arena_buffer_bytes < kMinArenaBufferBytes)
      return Error{"arena buffer limit of " + std::to_string(m_options.max_arena_buffer_bytes) +
                   " bytes is below the least of 65536 bytes"};
    limit = std::min(limit, m_options.max_arena_buffer_bytes);
  }
  m_limits.buffer_bytes = limit == ~uint64_t{0} ? 0 : limit;
  m_opaque = std::make_unique<ArenaBuffer>(kOpaqueStride, m_options.initial_opaque_quads, m_options.span_quads, dsa,
                                           ByteSize{m_limits.buffer_bytes});
  m_translucent = std::make_unique<ArenaBuffer>(kTranslucentStride, m_options.initial_translucent_quads,
                                                m_options.span_quads, dsa, ByteSize{m_limits.buffer_bytes});
  m_lod = std::make_unique<ArenaBuffer>(kLodStride, m_options.initial_lod_quads, m_options.span_quads, dsa,
                                        ByteSize{m_limits.buffer_bytes});
  if ((m_options.trace || m_options.path == RenderPath::kRayMarch) && m_mdi_supported) {
    m_trace = std::make_unique<TraceStore>(registry, dsa, static_cast<uint64_t>(std::max<GLint64>(ssbo, 0)),
                                           [this](const std::string& line) { log(line); });
    m_march = std::make_unique<MarchGpu>();
    m_march->emissive_bits = emissive_bits;
  }
  return gl::check("creating the renderer");
}

bool Renderer::set_path(RenderPath path) {
  if (path == RenderPath::kMultiDrawIndirect && !m_mdi_supported) return false;
  if (path == RenderPath::kRayMarch && !m_trace) return false;
  m_path = path;
  return true;
}

uint64_t Renderer::arena_capacity_bytes() const {
  return m_opaque->capacity_bytes().value + m_translucent->capacity_bytes().value;
}
uint64_t Renderer::arena_used_bytes() const { return m_opaque->used_bytes().value + m_translucent->used_bytes().value; }

glm::dvec3 Renderer::eye_in_section(size_t i) const {
  const glm::dvec3 rel(static_cast<double>(coord_delta(m_eye_block.x, m_origin_x[i])),
                       static_cast<double>(coord_delta(m_eye_block.y, m_origin_y[i])),
                       static_cast<double>(coord_delta(m_eye_block.z, m_origin_z[i])));
  return (rel + m_eye_frac) * 64.0;
}

void Renderer::set_section(const SectionPos& pos, std::span<const mesh::Quad> opaque,
                           std::span<const mesh::FluidQuad> translucent) {
  if (opaque.empty() && translucent.empty()) return remove_section(pos);
  ++m_mesh_uploads;
  m_platform.make_current();
  if (m_trace) m_trace->set_section(pos, opaque, translucent);
  auto it = m_index.find(pos);
  size_t i;
  if (it == m_index.end()) {
    i = m_pos.size();
    m_index.emplace(pos, static_cast<uint32_t>(i));
    m_pos.push_back(pos);
    m_origin_x.push_back(pos.x * kSectionSize);
    m_origin_y.push_back(section_base_y(pos.y));
    m_origin_z.push_back(pos.z * kSectionSize);
    m_opaque_span.push_back({});
    m_translucent_span.push_back({});
    m_opaque_quads.push_back(0);
    m_translucent_quads.push_back(0);
    m_order.emplace_back();
    m_sort_key.push_back({});
    m_sort_valid.push_back(0);
  } else {
    i = it->second;
  }
  // Each kind: write in place / reallocate / free, touching only this section's own spans.
  auto update = [&](ArenaBuffer& arena, Span& span, uint32_t& quads, const void* data, size_t count, const char* kind) {
    if (count == 0) {
      if (quads) arena.free(span);
      quads = 0;
      span = {};
      return;
    }
    const std::optional<Span> got =
        quads ? arena.replace(span, data, ElemCount{count}) : arena.allocate(data, ElemCount{count});
    if (!got) {
      log("section " + std::to_string(pos.x) + "," + std::to_string(pos.y) + "," + std::to_string(pos.z) + ": " +
          std::to_string(count) + " " + kind + " quads (" + std::to_string(count * arena.stride()) +
          " bytes) exceed the arena's buffer limit of " +
          std::to_string(arena.max_buffer_elements().value * arena.stride()) + " bytes: not drawn");
      quads = 0;
      span = {};
      return;
    }
    span = *got;
    quads = static_cast<uint32_t>(count);
  };
  update(*m_opaque, m_opaque_span[i], m_opaque_quads[i], opaque.data(), opaque.size(), "opaque");
  // Translucent quads: kept here with their BSP tree; uploaded in back-to-front order for the last frame's eye
  // (in the tree's own order before any frame: the first frame sorts them).
  TranslucentOrder& order = m_order[i];
  order.build(translucent);
  const mesh::FluidQuad* data = order.quads().data();
  m_sort_valid[i] = 0;
  if (m_has_eye && !order.quads().empty()) {
    const glm::dvec3 eye = eye_in_section(i);
    order.sorted(eye, m_sorted);
    data = m_sorted.data();
    m_sort_key[i] = order.key(eye);
    m_sort_valid[i] = 1;
  }
  update(*m_translucent, m_translucent_span[i], m_translucent_quads[i], data, order.quads().size(), "translucent");
  if (!m_translucent_quads[i]) order.clear();
}

void Renderer::set_section(const SectionPos& pos, const mesh::SectionMesh& mesh) {
  if (mesh.cutout.empty()) return set_section(pos, mesh.opaque, mesh.translucent);
  m_concat.assign(mesh.opaque.begin(), mesh.opaque.end());
  m_concat.insert(m_concat.end(), mesh.cutout.begin(), mesh.cutout.end());
  set_section(pos, m_concat, mesh.translucent);
}

std::optional<Span> Renderer::opaque_span(const SectionPos& pos) const {
  auto it = m_index.find(pos);
  if (it == m_index.end() || !m_opaque_quads[it->second]) return std::nullopt;
  return m_opaque_span[it->second];
}

std::optional<Span> Renderer::translucent_span(const SectionPos& pos) const {
  auto it = m_index.find(pos);
  if (it == m_index.end() || !m_translucent_quads[it->second]) return std::nullopt;
  return m_translucent_span[it->second];
}

void Renderer::remove_at(size_t i) {
  if (m_opaque_quads[i]) m_opaque->free(m_opaque_span[i]);
  if (m_translucent_quads[i]) m_translucent->free(m_translucent_span[i]);
  const size_t last = m_pos.size() - 1;
  m_index.erase(m_pos[i]);
  if (i != last) {
    m_pos[i] = m_pos[last];
    m_origin_x[i] = m_origin_x[last];
    m_origin_y[i] = m_origin_y[last];
    m_origin_z[i] = m_origin_z[last];
    m_opaque_span[i] = m_opaque_span[last];
    m_translucent_span[i] = m_translucent_span[last];
    m_opaque_quads[i] = m_opaque_quads[last];
    m_translucent_quads[i] = m_translucent_quads[last];
    m_order[i] = std::move(m_order[last]);
    m_sort_key[i] = m_sort_key[last];
    m_sort_valid[i] = m_sort_valid[last];
    m_index[m_pos[i]] = static_cast<uint32_t>(i);
  }
  m_pos.pop_back();
  m_origin_x.pop_back();
  m_origin_y.pop_back();
  m_origin_z.pop_back();
  m_opaque_span.pop_back();
  m_translucent_span.pop_back();
  m_opaque_quads.pop_back();
  m_translucent_quads.pop_back();
  m_order.pop_back();
  m_sort_key.pop_back();
  m_sort_valid.pop_back();
}

void Renderer::remove_section(const SectionPos& pos) {
  // The store first: it may hold the cells set_cells gave for a section whose mesh came out empty (never indexed).
  if (m_trace) {
    m_platform.make_current();
    m_trace->remove_section(pos);
  }
  auto it = m_index.find(pos);
  if (it == m_index.end()) return;
  m_platform.make_current();
  remove_at(it->second);
}

void Renderer::clear() {
  m_platform.make_current();
  if (m_trace) m_trace->clear();
  while (!m_pos.empty()) remove_at(m_pos.size() - 1);
}

namespace {
std::string lod_name(const lod::LodSectionPos& pos) {
  return "LOD section " + std::to_string(pos.level) + ":" + std::to_string(pos.x) + "," + std::to_string(pos.y) + "," +
         std::to_string(pos.z);
}
}  // namespace

void Renderer::set_lod_section(const lod::LodSectionPos& pos, std::span<const mesh::LodQuad> quads) {
  if (quads.empty()) return remove_lod_section(pos);
  if (pos.level < 0 || pos.level >= lod::kMaxLevels) {
    log(lod_name(pos) + ": level outside 0.." + std::to_string(lod::kMaxLevels - 1) + ": not drawn");
    return remove_lod_section(pos);
  }
  // Group by face direction (a stable counting sort; the mesher's greedy faces come grouped, its skirts and seam
  // walls after them): a frame then submits each direction as one range, or skips it (build_far).
  std::array<uint32_t, 6> face_end{};
  bool grouped = true;
  for (size_t q = 0; q < quads.size(); ++q) {
    const auto face = static_cast<uint32_t>((quads[q].bits >> 15) & 7);
    if (face > 5) {
      log(lod_name(pos) + ": quad " + std::to_string(q) + " has face " + std::to_string(face) + " (0..5): not drawn");
      return remove_lod_section(pos);
    }
    grouped = grouped && (q == 0 || face >= ((quads[q - 1].bits >> 15) & 7));
    ++face_end[face];
  }
  for (size_t f = 1; f < 6; ++f) face_end[f] += face_end[f - 1];
  if (!grouped) {
    std::array<uint32_t, 6> next{};
    for (size_t f = 1; f < 6; ++f) next[f] = face_end[f - 1];
    m_lod_grouped.resize(quads.size());
    for (const mesh::LodQuad& q : quads) m_lod_grouped[next[(q.bits >> 15) & 7]++] = q;
    quads = m_lod_grouped;
  }
  m_platform.make_current();
  auto it = m_lod_index.find(pos);
  size_t i;
  if (it == m_lod_index.end()) {
    i = m_lod_pos.size();
    m_lod_index.emplace(pos, static_cast<uint32_t>(i));
    m_lod_pos.push_back(pos);
    m_lod_span.push_back({});
    m_lod_quads.push_back(0);
    m_lod_face_end.push_back({});
    m_lod_stamp.push_back(0);
  } else {
    i = it->second;
  }
  const std::optional<Span> got = m_lod_quads[i] ? m_lod->replace(m_lod_span[i], quads.data(), ElemCount{quads.size()})
                                                 : m_lod->allocate(quads.data(), ElemCount{quads.size()});
  if (!got) {
    log(lod_name(pos) + ": " + std::to_string(quads.size()) + " quads (" + std::to_string(quads.size() * kLodStride) +
        " bytes) exceed the arena's buffer limit of " +
        std::to_string(m_lod->max_buffer_elements().value * kLodStride) + " bytes: not drawn");
    m_lod_quads[i] = 0;  // replace() freed the old span
    remove_lod_at(i);
    return;
  }
  m_lod_span[i] = *got;
  m_lod_quads[i] = static_cast<uint32_t>(quads.size());
  m_lod_face_end[i] = face_end;
}

void Renderer::remove_lod_at(size_t i) {
  if (m_lod_quads[i]) m_lod->free(m_lod_span[i]);
  const size_t last = m_lod_pos.size() - 1;
  m_lod_index.erase(m_lod_pos[i]);
  if (i != last) {
    m_lod_pos[i] = m_lod_pos[last];
    m_lod_span[i] = m_lod_span[last];
    m_lod_quads[i] = m_lod_quads[last];
    m_lod_face_end[i] = m_lod_face_end[last];
    m_lod_stamp[i] = m_lod_stamp[last];
    m_lod_index[m_lod_pos[i]] = static_cast<uint32_t>(i);
  }
  m_lod_pos.pop_back();
  m_lod_span.pop_back();
  m_lod_quads.pop_back();
  m_lod_face_end.pop_back();
  m_lod_stamp.pop_back();
}

void Renderer::remove_lod_section(const lod::LodSectionPos& pos) {
  auto it = m_lod_index.find(pos);
  if (it == m_lod_index.end()) return;
  m_platform.make_current();
  remove_lod_at(it->second);
}

bool Renderer::has_lod_section(const lod::LodSectionPos& pos) const { return m_lod_index.count(pos) != 0; }

void Renderer::clear_lod() {
  m_platform.make_current();
  while (!m_lod_pos.empty()) remove_lod_at(m_lod_pos.size() - 1);
}

std::optional<Span> Renderer::lod_span(const lod::LodSectionPos& pos) const {
  auto it = m_lod_index.find(pos);
  if (it == m_lod_index.end()) return std::nullopt;
  return m_lod_span[it->second];
}

void Renderer::apply_moves(bool opaque, const std::vector<ArenaBuffer::Move>& moves) {
  if (moves.empty()) return;
  auto key = [](const Span& s) { return static_cast<uint64_t>(s.buffer) << 48 | s.offset.value; };
  std::unordered_map<uint64_t, Span> to;
  to.reserve(moves.size());
  for (const ArenaBuffer::Move& m : moves) to.emplace(key(m.from), m.to);
  std::vector<Span>& spans = opaque ? m_opaque_span : m_translucent_span;
  const std::vector<uint32_t>& quads = opaque ? m_opaque_quads : m_translucent_quads;
  for (size_t i = 0; i < spans.size(); ++i) {
    if (!quads[i]) continue;
    if (auto it = to.find(key(spans[i])); it != to.end()) spans[i] = it->second;
  }
}

glm::dmat4 Renderer::build_far(const FrameParams& params, const Camera& cam, FrameStats& st) {
  Gpu& g = *m_gpu;
  const FarParams& far = params.far;
  // The far projection: near plane a quarter of the render radius, at most 8 blocks (never below the camera's);
  // far plane beyond the farthest point of the world's y range within the far fog end.
  Camera fc = cam;
  fc.near_plane = std::min(kFarNearPlane, std::max(cam.near_plane, 0.25 * params.fog_end));
  const double eye_y = static_cast<double>(cam.block.y) + cam.frac.y;
  const double vertical = std::min(1e6, std::max(std::abs(eye_y - kMinY), std::abs(kMaxY + 1 - eye_y)));
  fc.far_plane = std::max(fc.near_plane * 2.0, std::sqrt(far.fog_end * far.fog_end + vertical * vertical) + 64.0);
  const glm::dmat4 view_proj = fc.view_projection();

  // Cull: the set LOD sections of far.draw (each once), per level one batch frustum pass over their boxes, then
  // the far fog end (horizontal distance to the box's nearest point).
  ++m_frame;
  g.far_slot.clear();
  for (const lod::LodSectionPos& pos : far.draw) {
    auto it = m_lod_index.find(pos);
    if (it == m_lod_index.end()) {
      ++st.lod_sections_missing;
      continue;
    }
    if (m_lod_stamp[it->second] == m_frame) continue;  // listed twice
    m_lod_stamp[it->second] = m_frame;
    g.far_slot.push_back(it->second);
  }
  std::stable_sort(g.far_slot.begin(), g.far_slot.end(),
                   [&](uint32_t a, uint32_t b) { return m_lod_pos[a].level < m_lod_pos[b].level; });
  const Frustum frustum = Frustum::from_matrix(view_proj);
  const size_t n = g.far_slot.size();
  g.far_x.resize(n);
  g.far_y.resize(n);
  g.far_z.resize(n);
  g.far_visible.resize(n);
  g.far_distance.resize(m_lod_pos.size());
  for (size_t k = 0; k < n; ++k) {
    const BlockPos mn = m_lod_pos[g.far_slot[k]].min_block();
    g.far_x[k] = static_cast<double>(coord_delta(mn.x, cam.block.x)) - cam.frac.x;
    g.far_y[k] = static_cast<double>(coord_delta(mn.y, cam.block.y)) - cam.frac.y;
    g.far_z[k] = static_cast<double>(coord_delta(mn.z, cam.block.z)) - cam.frac.z;
  }
  for (size_t from = 0; from < n;) {
    const int level = m_lod_pos[g.far_slot[from]].level;
    size_t to = from;
    while (to < n && m_lod_pos[g.far_slot[to]].level == level) ++to;
    cull_boxes(frustum, g.far_x.data() + from, g.far_y.data() + from, g.far_z.data() + from, to - from,
               glm::dvec3(static_cast<double>(int64_t{32} << level)), g.far_visible.data() + from);
    from = to;
  }
  g.far_order.clear();
  for (size_t k = 0; k < n; ++k) {
    if (!g.far_visible[k]) continue;
    const uint32_t i = g.far_slot[k];
    const double size = static_cast<double>(int64_t{32} << m_lod_pos[i].level);
    const double nx = std::max({g.far_x[k], 0.0, -(g.far_x[k] + size)});
    const double nz = std::max({g.far_z[k], 0.0, -(g.far_z[k] + size)});
    if (std::sqrt(nx * nx + nz * nz) > far.fog_end) continue;
    // Wholly behind near occluders: the near passes draw over it wherever it could show.
    if (m_culler->lod_covered(glm::dvec3(g.far_x[k], g.far_y[k], g.far_z[k]), glm::dvec3(size))) {
      ++st.lod_sections_hidden_by_occlusion;
      continue;
    }
    const double cx = g.far_x[k] + size / 2, cy = g.far_y[k] + size / 2, cz = g.far_z[k] + size / 2;
    g.far_distance[i] = cx * cx + cy * cy + cz * cz;
    g.far_order.push_back(i);
  }
  // Near first (the depth test rejects more), ties by position: independent of upload history.
  std::sort(g.far_order.begin(), g.far_order.end(), [&](uint32_t a, uint32_t b) {
    if (g.far_distance[a] != g.far_distance[b]) return g.far_distance[a] < g.far_distance[b];
    return m_lod_pos[a] < m_lod_pos[b];
  });

  // Per-draw entries (after the near ones: offset of the section's min corner, cell size) and, per section, one
  // command per run of face directions that can face the eye, grouped by LOD arena buffer, one batch each.
  // Back faces: a face of direction +X lies on a plane x = min + k * cell (k = 1..32, the far side of its cell) and
  // faces the eye (at the origin) only where that plane is below 0; -X on x = min + k * cell (k = 0..31) only
  // where it is above 0; so a direction whose every plane is on the wrong side is all back faces, which GL would
  // cull after shading their vertices (on llvmpipe the far pass is bound by its triangles). The margin is one cell
  // and a block: with one block only, skipping a level-2 section's -Z faces whose nearest plane was 4 blocks behind
  // the eye changed one pixel in one of 84 views of seed 1 (the skipped faces alone draw nothing there: a llvmpipe
  // rasterisation detail, not understood); with this margin all 84 are the bytes of submitting every direction.
  const auto facing_margin = [](double cell) { return cell + 1.0; };
  g.far_by_buffer.clear();
  uint32_t most_quads = 0;  // in one command
  for (const uint32_t i : g.far_order) {
    const lod::LodSectionPos& pos = m_lod_pos[i];
    const BlockPos mn = pos.min_block();
    const glm::dvec3 rel = cam.relative(mn);
    const auto base = static_cast<uint32_t>(g.offsets.size());
    const double cell = static_cast<double>(int64_t{1} << pos.level);
    g.offsets.emplace_back(static_cast<float>(rel.x), static_cast<float>(rel.y), static_cast<float>(rel.z),
                           static_cast<float>(cell));
    const std::array<uint32_t, 6>& end = m_lod_face_end[i];
    uint32_t run_begin = 0, run_end = 0;  // the current run of submitted faces, quads of the section
    auto flush = [&] {
      if (run_end > run_begin) {
        most_quads = std::max(most_quads, run_end - run_begin);
        g.far_by_buffer.push_back({{6 * (run_end - run_begin), 1, 0, static_cast<int32_t>(4 * (m_lod_span[i].offset.value + run_begin)), base},
                                   m_lod_span[i].buffer});
      }
      run_begin = run_end;
    };
    for (int f = 0; f < 6; ++f) {
      const double lo = rel[f >> 1];
      const bool facing = far.submit_facing_away ||
                          ((f & 1) ? lo + static_cast<double>(lod::LodSection::kSize - 1) * cell > -facing_margin(cell)
                                   : lo + cell < facing_margin(cell));
      const uint32_t from = f ? end[static_cast<size_t>(f) - 1] : 0, to = end[static_cast<size_t>(f)];
      if (!facing) {
        flush();
        run_begin = run_end = to;
        st.lod_quads_facing_away += to - from;
      } else {
        run_end = to;
      }
    }
    flush();
    ++st.lod_sections_drawn;
    ++st.lod_sections_per_level[static_cast<size_t>(pos.level)];
    st.lod_quads += m_lod_quads[i];
  }
  std::stable_sort(g.far_by_buffer.begin(), g.far_by_buffer.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  g.far_batches.clear();
  g.far_commands.clear();
  for (const auto& [cmd, buffer] : g.far_by_buffer) {
    if (g.far_batches.empty() || g.far_batches.back().buffer != buffer)
      g.far_batches.push_back({buffer, static_cast<uint32_t>(g.far_commands.size()), 0});
    ++g.far_batches.back().count;
    g.far_commands.push_back(cmd);
  }
  if (most_quads > g.quad_index_quads) {  // grow the index pattern (powers of two)
    constexpr uint32_t kQuadPattern[6] = {0, 1, 2, 0, 2, 3};  // two triangles over corners 0..3 (lod_vert.glsl)
    g.quad_index_quads = std::max(g.quad_index_quads, 1024u);
    while (g.quad_index_quads < most_quads) g.quad_index_quads *= 2;
    std::vector<uint32_t> idx(size_t{6} * g.quad_index_quads);
    for (uint32_t q = 0; q < g.quad_index_quads; ++q)
      for (uint32_t k = 0; k < 6; ++k) idx[size_t{6} * q + k] = 4 * q + kQuadPattern[k];
    glBindVertexArray(g.mdi_vao.get());
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(idx.size() * sizeof(uint32_t)), idx.data(), GL_STATIC_DRAW);
    glBindVertexArray(g.vao.get());
  }

  // The hand-over mask: rebuilt when the near columns or the camera's column changed.
  const ColumnPos centre{cam.block.x >> 4, cam.block.z >> 4};
  if (!g.far_batches.empty() &&
      (!m_mask_valid || !(centre == m_mask_centre) ||
       !std::equal(far.near_columns.begin(), far.near_columns.end(), m_mask_columns.begin(), m_mask_columns.end()))) {
    m_mask_texels.assign(static_cast<size_t>(kMaskSide) * kMaskSide, 0);
    for (const ColumnPos& c : far.near_columns) {
      const int64_t tx = coord_delta(c.x, centre.x) + kMaskHalf, tz = coord_delta(c.z, centre.z) + kMaskHalf;
      if (tx < 0 || tz < 0 || tx >= kMaskSide || tz >= kMaskSide) continue;  // beyond the mask: never near
      m_mask_texels[static_cast<size_t>(tz) * kMaskSide + static_cast<size_t>(tx)] = 255;
    }
    if (!g.near_mask.get()) {
      GLuint id = 0;
      glGenTextures(1, &id);
      g.near_mask.reset(id);
      glBindTexture(GL_TEXTURE_2D, id);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, kMaskSide, kMaskSide, 0, GL_RED, GL_UNSIGNED_BYTE, nullptr);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    }
    glBindTexture(GL_TEXTURE_2D, g.near_mask.get());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kMaskSide, kMaskSide, GL_RED, GL_UNSIGNED_BYTE, m_mask_texels.data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    m_mask_valid = true;
    m_mask_centre = centre;
    m_mask_columns.assign(far.near_columns.begin(), far.near_columns.end());
    st.lod_mask_rebuilt = true;
  }
  return view_proj;
}

const cull::OcclusionBuffer* Renderer::occlusion_buffer() const { return m_culler->buffer(); }

FrameStats Renderer::render(const FrameParams& params) {
  FrameStats st;
  Gpu& g = *m_gpu;
  const int width = m_platform.width(), height = m_platform.height();
  Camera cam = params.camera;
  cam.aspect = static_cast<double>(width) / static_cast<double>(std::max(height, 1));
  const glm::dmat4 view_proj = cam.view_projection();
  const double fog_end = params.fog_end;  // culls the near sections
  // The far view (MDI path only): while on, the fog of both passes ends at its fog end.
  const bool far_on = this->far_on(params);
  const double shade_fog_end = this->shade_fog_end(params);
  const double fog_start = params.fog_start >= 0 ? params.fog_start : 0.7 * shade_fog_end;
  m_platform.make_current();

  // 0. Trim: arena buffers whose usage fell give their memory back (spans may move; only here, between frames).
  double t0 = wall_ms();
  {
    const auto opaque_moves = m_opaque->trim();
    const auto translucent_moves = m_translucent->trim();
    apply_moves(true, opaque_moves);
    apply_moves(false, translucent_moves);
    const auto lod_moves = m_lod->trim();
    if (!lod_moves.empty()) {
      auto key = [](const Span& sp) { return static_cast<uint64_t>(sp.buffer) << 48 | sp.offset.value; };
      std::unordered_map<uint64_t, Span> to;
      for (const ArenaBuffer::Move& m : lod_moves) to.emplace(key(m.from), m.to);
      for (Span& sp : m_lod_span)
        if (auto it = to.find(key(sp)); it != to.end()) sp = it->second;
    }
    st.arena_spans_moved = static_cast<uint32_t>(opaque_moves.size() + translucent_moves.size() + lod_moves.size());
  }

  // 1. Cull: camera-relative boxes (exact int64 differences, then double), one batch frustum pass, fog distance.
  const size_t n = m_pos.size();
  st.sections_loaded = static_cast<uint32_t>(n);
  m_rel_x.resize(n);
  m_rel_y.resize(n);
  m_rel_z.resize(n);
  m_visible.resize(n);
  for (size_t i = 0; i < n; ++i) {
    m_rel_x[i] = static_cast<double>(coord_delta(m_origin_x[i], cam.block.x)) - cam.frac.x;
    m_rel_y[i] = static_cast<double>(coord_delta(m_origin_y[i], cam.block.y)) - cam.frac.y;
    m_rel_z[i] = static_cast<double>(coord_delta(m_origin_z[i], cam.block.z)) - cam.frac.z;
  }
  const Frustum frustum = Frustum::from_matrix(view_proj);
  cull_boxes(frustum, m_rel_x.data(), m_rel_y.data(), m_rel_z.data(), n, glm::dvec3(kSectionExtent), m_visible.data());
  // g.in_frustum: the sections in the frustum and nearer than the fog end (beyond it all is fog), near first, ties
  // by position so the order depends only on the scene, never on upload history. Translucent sorting works through
  // this list whatever the culling mode, so the sort state (with a budget, which sections are re-sorted when) is the
  // same in every mode and so is the picture.
  g.in_frustum.clear();
  g.order.clear();
  g.distance.resize(n);
  const bool draw_all = params.culling.mode == CullMode::kNone;
  for (size_t i = 0; i < n; ++i) {
    if (footprint_distance(m_rel_x[i], m_rel_z[i]) > fog_end) continue;
    if (!m_visible[i] && !draw_all) continue;
    const double cx = m_rel_x[i] + kSectionExtent / 2, cy = m_rel_y[i] + kSectionExtent / 2, cz = m_rel_z[i] + kSectionExtent / 2;
    g.distance[i] = cx * cx + cy * cy + cz * cz;
    if (m_visible[i]) g.in_frustum.push_back(static_cast<uint32_t>(i));
    if (draw_all) g.order.push_back(static_cast<uint32_t>(i));
  }
  st.sections_in_frustum = static_cast<uint32_t>(g.in_frustum.size());
  const auto near_first = [&](uint32_t a, uint32_t b) {
    if (g.distance[a] != g.distance[b]) return g.distance[a] < g.distance[b];
    return m_pos[a] < m_pos[b];
  };
  std::sort(g.in_frustum.begin(), g.in_frustum.end(), near_first);
  if (draw_all) {
    std::sort(g.order.begin(), g.order.end(), near_first);
    m_culler->cull(CullingParams{}, cam, width, height, frustum, fog_end, {}, m_keep, st);  // occlusion off for LOD
  } else {
    // Cave culling and occlusion (frame_culler.h) on the sections in the frustum, nearest first.
    auto& cands = m_culler->candidates;
    cands.clear();
    for (const uint32_t i : g.in_frustum) cands.push_back({m_pos[i], glm::dvec3(m_rel_x[i], m_rel_y[i], m_rel_z[i])});
    m_keep.assign(cands.size(), 1);
    m_culler->cull(params.culling, cam, width, height, frustum, fog_end, cands, m_keep, st);
    for (size_t k = 0; k < g.in_frustum.size(); ++k)
      if (m_keep[k]) g.order.push_back(g.in_frustum[k]);
  }
  st.sections_visible = static_cast<uint32_t>(g.order.size());
  double t1 = wall_ms();
  st.cull_ms = t1 - t0;

  // 2. Sort: sections in the frustum whose translucent quads were ordered for another side of one of their planes (or
  //    for no eye yet) get them rewritten back to front, nearest first, within the budget (always one at least).
  m_has_eye = true;
  m_eye_block = cam.block;
  m_eye_frac = cam.frac;
  if (params.translucent)
    for (const uint32_t i : g.in_frustum) {
      if (!m_translucent_quads[i]) continue;
      const glm::dvec3 eye(-m_rel_x[i] * 64.0, -m_rel_y[i] * 64.0, -m_rel_z[i] * 64.0);
      const TranslucentSortKey key = m_order[i].key(eye);
      if (m_sort_valid[i] && key == m_sort_key[i]) continue;
      if (params.sort_budget_quads > 0 && st.quads_sorted > 0 && st.quads_sorted + m_translucent_quads[i] > params.sort_budget_quads) {
        ++st.sections_sort_pending;
        continue;
      }
      m_order[i].sorted(eye, m_sorted);
      m_translucent->rewrite(m_translucent_span[i], m_sorted.data(), ElemCount{m_sorted.size()});
      m_sort_key[i] = key;
      m_sort_valid[i] = 1;
      ++st.sections_sorted;
      st.quads_sorted += m_sorted.size();
    }
  double t2 = wall_ms();
  st.sort_ms = t2 - t1;

  // 3. Build: per-draw offsets (index = position in the near-first order) and the indirect commands, opaque
  //    near-first then translucent far-first. Opaque commands are grouped by arena buffer (the depth test makes
  //    their order free), one batch per buffer; translucent ones keep the far-first order, a batch per run of
  //    consecutive commands in one buffer.
  const size_t v = g.order.size();
  g.offsets.resize(v);
  g.commands.clear();
  g.command_buffer.clear();
  g.by_buffer.clear();
  for (size_t k = 0; k < v; ++k) {
    const uint32_t i = g.order[k];
    g.offsets[k] = glm::vec4(static_cast<float>(m_rel_x[i]), static_cast<float>(m_rel_y[i]), static_cast<float>(m_rel_z[i]), 0.0f);
    if (m_opaque_quads[i]) {
      g.by_buffer.push_back({{6 * m_opaque_quads[i], 1, static_cast<uint32_t>(6 * m_opaque_span[i].offset.value), static_cast<uint32_t>(k)},
                             m_opaque_span[i].buffer});
      st.quads_drawn += m_opaque_quads[i];
    }
  }
  std::stable_sort(g.by_buffer.begin(), g.by_buffer.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  auto batch = [&](std::vector<Batch>& batches, size_t from) {
    batches.clear();
    for (size_t c = from; c < g.commands.size(); ++c) {
      if (batches.empty() || batches.back().buffer != g.command_buffer[c])
        batches.push_back({g.command_buffer[c], static_cast<uint32_t>(c), 0});
      ++batches.back().count;
    }
  };
  for (const auto& [cmd, buffer] : g.by_buffer) {
    g.commands.push_back(cmd);
    g.command_buffer.push_back(buffer);
  }
  const size_t opaque_commands = g.commands.size();
  batch(g.opaque_batches, 0);
  if (params.translucent)
    for (size_t k = v; k-- > 0;) {
      const uint32_t i = g.order[k];
      if (!m_translucent_quads[i]) continue;
      g.commands.push_back({6 * m_translucent_quads[i], 1, static_cast<uint32_t>(6 * m_translucent_span[i].offset.value), static_cast<uint32_t>(k)});
      g.command_buffer.push_back(m_translucent_span[i].buffer);
      st.quads_drawn += m_translucent_quads[i];
    }
  batch(g.translucent_batches, opaque_commands);
  const size_t translucent_commands = g.commands.size() - opaque_commands;
  st.opaque_meshes = static_cast<uint32_t>(opaque_commands);
  st.translucent_meshes = static_cast<uint32_t>(translucent_commands);
  double t3 = wall_ms();
  st.build_ms = t3 - t2;
  glm::dmat4 far_view_proj(1.0);
  m_gpu->far_batches.clear();
  if (far_on) {
    far_view_proj = build_far(params, cam, st);
    const double t = wall_ms();
    st.far_build_ms = t - t3;
    t3 = t;
  }
  st.lod_arena_bytes = m_lod->capacity_bytes().value;
  st.lod_used_bytes = m_lod->used_bytes().value;

  // 4. Submit.
  glBindFramebuffer(GL_FRAMEBUFFER, m_platform.framebuffer());
  glViewport(0, 0, width, height);
  glBindVertexArray(g.vao.get());
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glDepthMask(GL_TRUE);
  glClearDepth(1.0);
  glStencilMask(0xFF);
  glClearStencil(0);
  glClear(GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);

  const ShadeInputs shade = shade_inputs(params);
  const glm::dvec3 sun = shade.sun;
  const float day = shade.day, sky_seen = shade.sky_seen;
  const glm::mat4 vp = to_float(view_proj);
  const glm::mat4 inv_vp = to_float(glm::inverse(view_proj));

  // Sky: full-screen triangle, no depth.
  glDisable(GL_DEPTH_TEST);
  glUseProgram(g.sky.get());
  glUniformMatrix4fv(g.sky_inv_view_proj, 1, GL_FALSE, &inv_vp[0][0]);
  glUniform3f(g.sky_sun_dir, static_cast<float>(sun.x), static_cast<float>(sun.y), static_cast<float>(sun.z));
  glUniform1f(g.sky_day, day);
  glUniform1f(g.sky_sky_seen, sky_seen);
  glUniform3f(g.sky_sun_color, shade.sun_color.x, shade.sun_color.y, shade.sun_color.z);
  const glm::mat3 sky_rot = glm::mat3(sky_rotation(params.time_of_day));
  glUniformMatrix3fv(g.sky_rotation, 1, GL_FALSE, &sky_rot[0][0]);
  glUniform1f(g.sky_pixel_angle, static_cast<float>(cam.pixel_angle(height)));
  {
    // The eye's place in the cloud field, in double and wrapped before it becomes a float (the field repeats every
    // 4096 blocks), so clouds stay put 30,000,000 blocks out.
    const glm::dvec3 eye = glm::dvec3(static_cast<double>(cam.block.x), static_cast<double>(cam.block.y),
                                      static_cast<double>(cam.block.z)) + cam.frac;
    auto wrap = [](double v) { return v - 4096.0 * std::floor(v / 4096.0); };
    glUniform4f(g.sky_clouds, params.clouds ? 1.0f : 0.0f, static_cast<float>(params.cloud_base_y - eye.y),
                static_cast<float>(wrap(eye.x + params.cloud_wind.x * params.anim_seconds)),
                static_cast<float>(wrap(eye.z + params.cloud_wind.y * params.anim_seconds)));
  }
  glDrawArrays(GL_TRIANGLES, 0, 3);

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glActiveTexture(GL_TEXTURE0 + kTintTextureUnit);
  glBindTexture(GL_TEXTURE_2D, g.layer_tint.get());
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D_ARRAY, g.textures.get());

  // Seams: opaque axis quads grow by kSeamPixels of a pixel along their plane (terrain_vert.glsl), in blocks per
  // block of distance from the eye.
  const double seam = kSeamPixels * cam.pixel_angle(height);
  auto use = [&](const Gpu::TerrainProgram& tp) {
    glUseProgram(tp.program.get());
    glUniformMatrix4fv(tp.view_proj, 1, GL_FALSE, &vp[0][0]);
    glUniform1f(tp.seam, static_cast<float>(seam));
    glUniform1f(tp.time, static_cast<float>(params.anim_seconds));
    glUniform2f(tp.fog, static_cast<float>(fog_start), static_cast<float>(shade_fog_end));
    glUniform3f(tp.sun_dir, static_cast<float>(sun.x), static_cast<float>(sun.y), static_cast<float>(sun.z));
    glUniform1f(tp.day, day);
    glUniform1f(tp.sky_seen, sky_seen);
    glUniform3f(tp.sun_color, shade.sun_color.x, shade.sun_color.y, shade.sun_color.z);
  };
  auto opaque_state = [] {
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glFrontFace(GL_CCW);
  };
  auto translucent_state = [] {
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);
  };

  // Draws a pass's batches with the program in use, by the path in use.
  const bool mdi = m_path != RenderPath::kPerChunk;  // the ray march draws the far pass and the id pass as MDI does
  if (mdi) {
    stream(GL_ARRAY_BUFFER, g.per_draw.get(), g.offsets.data(), g.offsets.size() * sizeof(glm::vec4));
    stream(GL_DRAW_INDIRECT_BUFFER, g.indirect.get(), g.commands.data(), g.commands.size() * sizeof(DrawArraysIndirectCommand));
  }
  auto draw = [&](const Gpu::TerrainProgram& tp, const std::vector<Batch>& batches, const ArenaBuffer& arena, Gpu::Views& views) {
    if (mdi) {
      glBindVertexArray(g.mdi_vao.get());
      for (const Batch& b : batches) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, arena.buffer(b.buffer));
        glMultiDrawArraysIndirect(GL_TRIANGLES, reinterpret_cast<const void*>(static_cast<uintptr_t>(b.first) * sizeof(DrawArraysIndirectCommand)),
                                  static_cast<GLsizei>(b.count), 0);
        ++st.draw_calls;
      }
      glBindVertexArray(g.vao.get());
      return;
    }
    // Per chunk (GL 3.3 style): a texture-buffer view of each arena buffer, one uniform and one draw per mesh.
    if (views.generation != arena.generation()) {
      views.views.resize(arena.buffer_count());
      for (uint32_t b = 0; b < arena.buffer_count(); ++b) {
        if (!arena.buffer(b)) {
          views.views[b].reset();
          continue;
        }
        if (!views.views[b].get()) {
          GLuint id = 0;
          glGenTextures(1, &id);
          views.views[b].reset(id);
        }
        glBindTexture(GL_TEXTURE_BUFFER, views.views[b].get());
        glTexBuffer(GL_TEXTURE_BUFFER, GL_R32UI, arena.buffer(b));
      }
      views.generation = arena.generation();
    }
    for (const Batch& b : batches) {
      glActiveTexture(GL_TEXTURE1);
      glBindTexture(GL_TEXTURE_BUFFER, views.views[b.buffer].get());
      glActiveTexture(GL_TEXTURE0);
      for (uint32_t c = b.first; c < b.first + b.count; ++c) {
        const DrawArraysIndirectCommand& cmd = g.commands[c];
        const glm::vec4& o = g.offsets[cmd.base_instance];
        glUniform3f(tp.draw_offset, o.x, o.y, o.z);
        glDrawArrays(GL_TRIANGLES, static_cast<GLint>(cmd.first), static_cast<GLsizei>(cmd.count));
        ++st.draw_calls;
      }
    }
  };

  // The far pass: LOD sections with the far projection, depth tested and written among themselves, fragments over
  // near columns discarded; then the depth is cleared, so the near passes draw over it exactly as over the sky.
  if (!g.far_batches.empty()) {
    opaque_state();
    const Gpu::TerrainProgram& tp = g.lod;
    glUseProgram(tp.program.get());
    const glm::mat4 far_vp = to_float(far_view_proj);
    glUniformMatrix4fv(tp.view_proj, 1, GL_FALSE, &far_vp[0][0]);
    glUniform2f(tp.fog, static_cast<float>(fog_start), static_cast<float>(shade_fog_end));
    glUniform3f(tp.sun_dir, static_cast<float>(sun.x), static_cast<float>(sun.y), static_cast<float>(sun.z));
    glUniform1f(tp.day, day);
    glUniform1f(tp.sky_seen, sky_seen);
    glUniform3f(tp.sun_color, shade.sun_color.x, shade.sun_color.y, shade.sun_color.z);
    glUniform2f(g.lod_eye_in_column, static_cast<float>(static_cast<double>(cam.block.x & 15) + cam.frac.x),
                static_cast<float>(static_cast<double>(cam.block.z & 15) + cam.frac.z));
    glActiveTexture(GL_TEXTURE0 + kMaskUnit);
    glBindTexture(GL_TEXTURE_2D, g.near_mask.get());
    glActiveTexture(GL_TEXTURE0);
    // Every far fragment kept marks its pixel in the stencil (read_depth reports those pixels as terrain).
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_ALWAYS, 1, 0xFF);
    glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
    const uint32_t before = st.draw_calls;
    stream(GL_DRAW_INDIRECT_BUFFER, g.far_indirect.get(), g.far_commands.data(),
           g.far_commands.size() * sizeof(DrawElementsIndirectCommand));
    glBindVertexArray(g.mdi_vao.get());
    for (const Batch& b : g.far_batches) {
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, m_lod->buffer(b.buffer));
      glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                  reinterpret_cast<const void*>(static_cast<uintptr_t>(b.first) * sizeof(DrawElementsIndirectCommand)),
                                  static_cast<GLsizei>(b.count), 0);
      ++st.draw_calls;
    }
    glBindVertexArray(g.vao.get());
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, g.indirect.get());
    st.lod_draw_calls = st.draw_calls - before;
    glDisable(GL_STENCIL_TEST);
    glClear(GL_DEPTH_BUFFER_BIT);
  }
  m_far_drawn = !g.far_batches.empty();
  // Traced shadows on the raster path: the shadow variants of the multi-draw programs (built on first use) read the
  // ray-march store.
  const bool march_path = m_path == RenderPath::kRayMarch;
  const bool shadows = params.shadows == Shadows::kTraced && m_trace && mdi;
  if (m_trace && (march_path || shadows || params.hit_ids)) m_trace->prepare();
  auto terrain_program = [&](bool fluid) -> const Gpu::TerrainProgram& {
    if (!shadows) return fluid ? (mdi ? g.mdi_translucent : g.chunk_translucent) : (mdi ? g.mdi_opaque : g.chunk_opaque);
    Gpu::TerrainProgram& tp = fluid ? g.mdi_translucent_shadow : g.mdi_opaque_shadow;
    if (!tp.program.get())
      if (auto s = g.build_terrain(tp, true, fluid, false, true); !s.ok()) {
        log("traced shadows unavailable: " + s.error().message);
        return fluid ? g.mdi_translucent : g.mdi_opaque;
      }
    return tp;
  };
  auto use_terrain = [&](const Gpu::TerrainProgram& tp) {
    use(tp);
    if (shadows && (&tp == &g.mdi_opaque_shadow || &tp == &g.mdi_translucent_shadow))
      set_trace_uniforms(tp.program.get(), cam, params);
  };
  if (opaque_commands && !march_path) {
    opaque_state();
    const Gpu::TerrainProgram& tp = terrain_program(false);
    use_terrain(tp);
    draw(tp, g.opaque_batches, *m_opaque, g.opaque_views);
  }
  // The box pass (creatures): after the opaque terrain, before the translucent, so water blends over a box in it.
  if (!march_path) draw_boxes(params, vp, fog_start, shade_fog_end, st);
  if (translucent_commands && !params.reference_translucency && !march_path) {
    translucent_state();
    const Gpu::TerrainProgram& tp = terrain_program(true);
    use_terrain(tp);
    draw(tp, g.translucent_batches, *m_translucent, g.translucent_views);
  }
  if (march_path) {
    march(params, cam, vp, inv_vp, st);
    // The box pass after the march's composite (which wrote the opaque depth); its water is composited already, so
    // a box under water shows over it on this path.
    draw_boxes(params, vp, fog_start, shade_fog_end, st);
  }
  if (translucent_commands && params.reference_translucency && !march_path) {
    // The depth-peeling reference, layer by layer from the eye: pass A finds each pixel's nearest translucent
    // depth behind the previous layer (depth test on a fresh copy of the opaque depth, so the opaque terrain hides
    // exactly what it hides in the blended pass); pass B blends every fragment within a tie window of that depth
    // into the layer (faces at one depth, where glass touches water or at a block's silhouette edge, are one
    // layer, blended in draw order); the layer goes under the ones before it in a float accumulation, which
    // finally goes over the opaque frame.
    const Gpu::TerrainProgram& tp = mdi ? g.mdi_peel : g.chunk_peel;
    if (!tp.program.get()) {
      Gpu::TerrainProgram& build = mdi ? g.mdi_peel : g.chunk_peel;
      if (auto s = g.build_terrain(build, mdi, true, true, false); !s.ok()) {
        log("depth-peeling reference unavailable: " + s.error().message);
        return st;
      }
      glUniform1i(glGetUniformLocation(build.program.get(), "u_peel_prev"), 2);
      glUniform1i(glGetUniformLocation(build.program.get(), "u_peel_layer"), 4);
      (mdi ? g.mdi_peel_pass : g.chunk_peel_pass) = glGetUniformLocation(build.program.get(), "u_peel_pass");
    }
    if (!g.peel || g.peel->width != width || g.peel->height != height) {
      auto peel = std::make_unique<Gpu::Peel>();
      auto p = gl::build_program("peel composite", {"#version 330 core\n", std::string(shaders::kSkyVert)},
                                 {"#version 330 core\n", std::string(shaders::kPeelFrag)});
      if (!p) {
        log("depth-peeling reference unavailable: " + p.error().message);
        return st;
      }
      peel->composite.reset(*p);
      glUseProgram(*p);
      glUniform1i(glGetUniformLocation(*p, "u_source"), 3);
      peel->width = width;
      peel->height = height;
      auto texture = [&](gl::Texture& t, GLenum format, GLenum channels) {
        GLuint id = 0;
        glGenTextures(1, &id);
        t.reset(id);
        glBindTexture(GL_TEXTURE_2D, id);
        glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(format), width, height, 0, channels, GL_FLOAT, nullptr);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      };
      texture(peel->layer_color, GL_RGBA32F, GL_RGBA);
      texture(peel->accum, GL_RGBA32F, GL_RGBA);
      texture(peel->depth[0], GL_R32F, GL_RED);
      texture(peel->depth[1], GL_R32F, GL_RED);
      glGenRenderbuffers(1, &peel->depth_rb);
      glBindRenderbuffer(GL_RENDERBUFFER, peel->depth_rb);
      // As the platform's target (depth 24 + stencil 8): a depth blit between them needs the same format.
      glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, width, height);
      glGenFramebuffers(1, &peel->layer_fbo);
      glBindFramebuffer(GL_FRAMEBUFFER, peel->layer_fbo);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, peel->layer_color.get(), 0);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, peel->depth_rb);
      glGenFramebuffers(1, &peel->accum_fbo);
      glBindFramebuffer(GL_FRAMEBUFFER, peel->accum_fbo);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, peel->accum.get(), 0);
      glGenQueries(1, &peel->query);
      g.peel = std::move(peel);
    }
    Gpu::Peel& pl = *g.peel;
    const GLint pass_loc = mdi ? g.mdi_peel_pass : g.chunk_peel_pass;
    // A layer's depth where it has no fragment: beyond every depth, so nothing is peeled there again.
    const GLfloat zero[4] = {0, 0, 0, 0}, clear_accum[4] = {0, 0, 0, 1}, beyond[4] = {2, 2, 2, 2};
    const GLenum depth_only[2] = {GL_NONE, GL_COLOR_ATTACHMENT1}, color_only[2] = {GL_COLOR_ATTACHMENT0, GL_NONE};
    auto bind_texture = [](GLenum unit, GLuint texture) {
      glActiveTexture(unit);
      glBindTexture(GL_TEXTURE_2D, texture);
      glActiveTexture(GL_TEXTURE0);
    };
    auto fresh_opaque_depth = [&] {
      glBindFramebuffer(GL_READ_FRAMEBUFFER, m_platform.framebuffer());
      glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_DEPTH_BUFFER_BIT, GL_NEAREST);
      glBindFramebuffer(GL_FRAMEBUFFER, pl.layer_fbo);
    };
    glDisable(GL_CULL_FACE);
    glBindFramebuffer(GL_FRAMEBUFFER, pl.accum_fbo);
    glClearBufferfv(GL_COLOR, 0, clear_accum);
    glBindFramebuffer(GL_FRAMEBUFFER, pl.layer_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, pl.depth[0].get(), 0);
    glDrawBuffers(2, depth_only);
    glClearBufferfv(GL_COLOR, 1, zero);  // the "previous layer" before the first: nothing peeled yet
    int prev = 0;
    for (uint32_t layer = 0; layer < kMaxPeelLayers; ++layer) {
      const int cur = 1 - prev;
      // A: the nearest depth behind the previous layer, into depth[cur].
      glBindFramebuffer(GL_FRAMEBUFFER, pl.layer_fbo);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, pl.depth[cur].get(), 0);
      glDrawBuffers(2, depth_only);
      fresh_opaque_depth();
      glClearBufferfv(GL_COLOR, 1, beyond);
      glEnable(GL_DEPTH_TEST);
      glDepthMask(GL_TRUE);
      glDisable(GL_BLEND);
      use(tp);
      glUniform1i(pass_loc, 0);
      bind_texture(GL_TEXTURE2, pl.depth[prev].get());
      glBeginQuery(GL_ANY_SAMPLES_PASSED, pl.query);
      draw(tp, g.translucent_batches, *m_translucent, g.translucent_views);
      glEndQuery(GL_ANY_SAMPLES_PASSED);
      GLuint any = 0;
      glGetQueryObjectuiv(pl.query, GL_QUERY_RESULT, &any);
      if (!any) break;
      ++st.peel_layers;
      // B: every fragment at that depth, blended into the layer (premultiplied).
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, 0, 0);
      glDrawBuffers(2, color_only);
      fresh_opaque_depth();
      glClearBufferfv(GL_COLOR, 0, zero);
      glDepthMask(GL_FALSE);
      glEnable(GL_BLEND);
      glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
      glUniform1i(pass_loc, 1);
      bind_texture(GL_TEXTURE4, pl.depth[cur].get());
      draw(tp, g.translucent_batches, *m_translucent, g.translucent_views);
      // Under the layers so far: accumulation rgb += its alpha (what passes the layers so far) * layer rgb,
      // alpha *= 1 - layer alpha.
      glBindFramebuffer(GL_FRAMEBUFFER, pl.accum_fbo);
      glDisable(GL_DEPTH_TEST);
      glBlendFuncSeparate(GL_DST_ALPHA, GL_ONE, GL_ZERO, GL_ONE_MINUS_SRC_ALPHA);
      glUseProgram(pl.composite.get());
      bind_texture(GL_TEXTURE3, pl.layer_color.get());
      glDrawArrays(GL_TRIANGLES, 0, 3);
      prev = cur;
    }
    // The accumulation over the opaque frame: colour = accumulated + transmittance * frame; alpha kept.
    glBindFramebuffer(GL_FRAMEBUFFER, m_platform.framebuffer());
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_ONE, GL_SRC_ALPHA, GL_ZERO, GL_ONE);
    glUseProgram(pl.composite.get());
    bind_texture(GL_TEXTURE3, pl.accum.get());
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glEnable(GL_DEPTH_TEST);
  }
  glBindVertexArray(g.vao.get());
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  m_ids_written = params.hit_ids && m_trace && (march_path || mdi);
  if (m_ids_written && !march_path)
    draw_ids(params, [&] {
      const uint32_t calls = st.draw_calls;  // the frame's count, not the check's
      if (opaque_commands) draw(g.mdi_opaque, g.opaque_batches, *m_opaque, g.opaque_views);
      st.draw_calls = calls;
    });
  glBindFramebuffer(GL_FRAMEBUFFER, m_platform.framebuffer());
  st.submit_ms = wall_ms() - t3;
  return st;
}

Image Renderer::read_pixels() const {
  m_platform.make_current();
  Image img;
  img.width = m_platform.width();
  img.height = m_platform.height();
  img.pixels.resize(img.pixel_count() * 4);
  const GLuint fb = m_platform.framebuffer();
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fb);
  glReadBuffer(fb == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  std::vector<uint8_t> rows(img.pixels.size());
  glReadPixels(0, 0, img.width, img.height, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
  // GL's rows are bottom-up; Image rows are top-down.
  const size_t stride = static_cast<size_t>(img.width) * 4;
  for (int y = 0; y < img.height; ++y)
    std::memcpy(&img.pixels[static_cast<size_t>(y) * stride], &rows[static_cast<size_t>(img.height - 1 - y) * stride], stride);
  return img;
}

std::vector<float> Renderer::read_depth() const {
  std::vector<float> depth(static_cast<size_t>(m_platform.width()) * static_cast<size_t>(m_platform.height()));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, m_platform.framebuffer());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, m_platform.width(), m_platform.height(), GL_DEPTH_COMPONENT, GL_FLOAT, depth.data());
  if (m_far_drawn) {
    // Pixels the far pass drew and the near passes left alone: terrain, one step under 1.0 (the far pass's own depth
    // was cleared before the near passes).
    std::vector<uint8_t> stencil(depth.size());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, m_platform.width(), m_platform.height(), GL_STENCIL_INDEX, GL_UNSIGNED_BYTE, stencil.data());
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    for (size_t i = 0; i < depth.size(); ++i)
      if (stencil[i] != 0 && depth[i] >= 1.0f) depth[i] = kFarDepth;
  }
  return depth;
}

bool Renderer::far_on(const FrameParams& params) const {
  return params.far.fog_end > 0 && m_path != RenderPath::kPerChunk;
}

double Renderer::shade_fog_end(const FrameParams& params) const { return far_on(params) ? params.far.fog_end : params.fog_end; }

void Renderer::finish() const { glFinish(); }

Status Renderer::set_box_skins(const std::vector<Image>& layers) {
  if (layers.empty() || layers.size() > 256) return Error{"box skins: 1..256 layers wanted, got " + std::to_string(layers.size())};
  const int w = layers[0].width, h = layers[0].height;
  if (w < 1 || h < 1 || w > 256 || h > 256) return Error{"box skins: layers must be 1..256 pixels a side"};
  std::vector<uint8_t> texels;
  texels.reserve(static_cast<size_t>(w) * static_cast<size_t>(h) * 4 * layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].width != w || layers[i].height != h || layers[i].pixels.size() != static_cast<size_t>(w) * h * 4)
      return Error{"box skins: layer " + std::to_string(i) + " is not " + std::to_string(w) + "x" + std::to_string(h) + " RGBA"};
    texels.insert(texels.end(), layers[i].pixels.begin(), layers[i].pixels.end());
  }
  m_platform.make_current();
  Gpu& g = *m_gpu;
  GLuint tex = 0;
  glGenTextures(1, &tex);
  g.box_skins.reset(tex);
  glActiveTexture(GL_TEXTURE0 + kSkinUnit);
  glBindTexture(GL_TEXTURE_2D_ARRAY, tex);
  glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA8, w, h, static_cast<GLsizei>(layers.size()), 0, GL_RGBA, GL_UNSIGNED_BYTE,
               texels.data());
  glGenerateMipmap(GL_TEXTURE_2D_ARRAY);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_LINEAR);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glActiveTexture(GL_TEXTURE0);
  return Ok{};
}

void Renderer::draw_boxes(const FrameParams& params, const glm::mat4& view_proj, double fog_start, double fog_end,
                          FrameStats& st) {
  Gpu& g = *m_gpu;
  if (params.boxes.empty()) return;
  if (!g.box_skins.get()) {
    Image white;
    white.width = white.height = 1;
    white.pixels = {255, 255, 255, 255};
    if (!set_box_skins({white}).ok()) return;
  }
  const size_t n = params.boxes.size();
  glBindBuffer(GL_ARRAY_BUFFER, g.box_instances.get());
  if (n > g.box_capacity) {
    g.box_capacity = std::max<size_t>(n, 2 * g.box_capacity);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(g.box_capacity * sizeof(BoxInstance)), nullptr, GL_STREAM_DRAW);
  }
  glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(n * sizeof(BoxInstance)), params.boxes.data());
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  const ShadeInputs shade = shade_inputs(params);
  glUseProgram(g.box.get());
  glUniformMatrix4fv(g.box_view_proj, 1, GL_FALSE, &view_proj[0][0]);
  glUniform2f(g.box_fog, static_cast<float>(fog_start), static_cast<float>(fog_end));
  glUniform3f(g.box_sun_dir, static_cast<float>(shade.sun.x), static_cast<float>(shade.sun.y), static_cast<float>(shade.sun.z));
  glUniform3f(g.box_sun_color, shade.sun_color.x, shade.sun_color.y, shade.sun_color.z);
  glUniform1f(g.box_day, shade.day);
  glUniform1f(g.box_sky_seen, shade.sky_seen);
  glActiveTexture(GL_TEXTURE0 + kSkinUnit);
  glBindTexture(GL_TEXTURE_2D_ARRAY, g.box_skins.get());
  glActiveTexture(GL_TEXTURE0);
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  glBindVertexArray(g.box_vao.get());
  glDrawArraysInstanced(GL_TRIANGLES, 0, 36, static_cast<GLsizei>(n));
  glBindVertexArray(g.vao.get());
  st.boxes_drawn = static_cast<uint32_t>(n);
}

Status Renderer::set_layer_tint(uint16_t layer, uint32_t argb) {
  if (layer >= m_tints.size())
    return Error{"texture layer " + std::to_string(layer) + " cannot be tinted: the renderer's layers are 0.." +
                 std::to_string(static_cast<int64_t>(m_tints.size()) - 1) + " (at most " + std::to_string(kTintLayers) +
                 ")"};
  m_platform.make_current();
  const uint8_t texel[4] = {static_cast<uint8_t>(argb >> 16), static_cast<uint8_t>(argb >> 8), static_cast<uint8_t>(argb), 255};
  glActiveTexture(GL_TEXTURE0 + kTintTextureUnit);
  glBindTexture(GL_TEXTURE_2D, m_gpu->layer_tint.get());
  glTexSubImage2D(GL_TEXTURE_2D, 0, layer, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, texel);
  glActiveTexture(GL_TEXTURE0);
  m_tints[layer] = 0xFF000000u | (argb & 0xFFFFFFu);
  return Ok{};
}

uint32_t Renderer::layer_tint(uint16_t layer) const { return layer < m_tints.size() ? m_tints[layer] : 0xFFFFFFFFu; }

}  // namespace voxen::render
