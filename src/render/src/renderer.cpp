#include <epoxy/gl.h>

#include "voxen/render/renderer.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "gl_util.h"
#include "voxen/render/textures.h"
#include "voxen_shaders.h"

namespace voxen::render {
namespace {

constexpr uint32_t kOpaqueStride = sizeof(mesh::Quad);       // 16 bytes
constexpr uint32_t kTranslucentStride = sizeof(mesh::FluidQuad);  // 20 bytes
constexpr double kSectionExtent = kSectionSize;              // a section's box is 16 blocks on each side

// GL's indirect command for glMultiDrawArraysIndirect (OpenGL 4.6 spec, 10.4).
struct DrawArraysIndirectCommand {
  uint32_t count;
  uint32_t instance_count;
  uint32_t first;
  uint32_t base_instance;
};
static_assert(sizeof(DrawArraysIndirectCommand) == 16);

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Streams `bytes` into `buffer` through `target`, orphaning the old storage (no wait on frames in flight).
void stream(GLenum target, GLuint buffer, const void* data, size_t bytes) {
  glBindBuffer(target, buffer);
  glBufferData(target, static_cast<GLsizeiptr>(std::max<size_t>(bytes, 16)), nullptr, GL_STREAM_DRAW);
  if (bytes) glBufferSubData(target, 0, static_cast<GLsizeiptr>(bytes), data);
}

glm::mat4 to_float(const glm::dmat4& m) { return glm::mat4(m); }

}  // namespace

std::string_view to_string(RenderPath path) { return path == RenderPath::kMultiDrawIndirect ? "mdi" : "per-chunk"; }

bool parse_render_path(std::string_view text, RenderPath& out) {
  if (text == "mdi") {
    out = RenderPath::kMultiDrawIndirect;
    return true;
  }
  if (text == "per-chunk") {
    out = RenderPath::kPerChunk;
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

// The GL objects of a renderer.
struct Renderer::Gpu {
  struct TerrainProgram {
    gl::Program program;
    GLint view_proj = -1, time = -1, fog = -1, sun_dir = -1, day = -1, sky_seen = -1, textures = -1, arena = -1, draw_offset = -1,
          emissive = -1;
  };
  TerrainProgram mdi_opaque, mdi_translucent, chunk_opaque, chunk_translucent;
  gl::Program sky;
  GLint sky_inv_view_proj = -1, sky_sun_dir = -1, sky_day = -1, sky_sky_seen = -1;
  gl::Texture textures;          // sampler2DArray, one layer per registry texture
  gl::Texture opaque_view, translucent_view;  // texture-buffer (R32UI) views of the arenas, per-chunk path
  uint64_t opaque_view_generation = 0, translucent_view_generation = 0;
  gl::Buffer per_draw;           // vec4 per visible section (MDI path)
  gl::Buffer indirect;           // DrawArraysIndirectCommand per visible mesh (MDI path)
  gl::VertexArray vao;           // empty: vertex pulling needs no attributes, core GL needs a VAO bound
  gl::VertexArray mdi_vao;       // attribute 0 = per-draw offset (vec4, divisor 1) from `per_draw`
  std::vector<glm::vec4> offsets;
  std::vector<DrawArraysIndirectCommand> commands;
  std::vector<uint32_t> order, translucent_order;
  std::vector<double> distance;
};

Renderer::Renderer(Platform& platform, const RendererOptions& options) : m_platform(platform), m_options(options) {}

Renderer::~Renderer() {
  // GL objects need the context current while they are deleted.
  m_platform.make_current();
  m_opaque.reset();
  m_translucent.reset();
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
  if (m_path == RenderPath::kMultiDrawIndirect && !m_mdi_supported) {
    m_path = RenderPath::kPerChunk;
    log("OpenGL " + std::to_string(m_info.major) + "." + std::to_string(m_info.minor) + " (" + m_info.renderer +
        ") has no multi-draw indirect with SSBOs (needs 4.3): using the per-chunk path (one draw per mesh)");
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
  auto build_terrain = [&](Gpu::TerrainProgram& tp, bool mdi, bool fluid) -> Status {
    const std::string header = std::string(mdi ? "#version 430 core\n" : "#version 330 core\n") +
                               "#define VOXEN_MDI " + (mdi ? "1" : "0") + "\n#define VOXEN_FLUID " + (fluid ? "1" : "0") + "\n";
    auto p = gl::build_program(std::string("terrain ") + (mdi ? "mdi" : "per-chunk") + (fluid ? " translucent" : " opaque"),
                               {header, std::string(shaders::kTerrainVert)},
                               {header, std::string(shaders::kSkyCommon), std::string(shaders::kTerrainFrag)});
    if (!p) return p.error();
    tp.program.reset(*p);
    const GLuint id = *p;
    tp.view_proj = glGetUniformLocation(id, "u_view_proj");
    tp.time = glGetUniformLocation(id, "u_time");
    tp.fog = glGetUniformLocation(id, "u_fog");
    tp.sun_dir = glGetUniformLocation(id, "u_sun_dir");
    tp.day = glGetUniformLocation(id, "u_day");
    tp.sky_seen = glGetUniformLocation(id, "u_sky_seen");
    tp.textures = glGetUniformLocation(id, "u_textures");
    tp.arena = glGetUniformLocation(id, "u_arena");
    tp.draw_offset = glGetUniformLocation(id, "u_draw_offset");
    tp.emissive = glGetUniformLocation(id, "u_emissive");
    glUseProgram(id);
    glUniform1i(tp.textures, 0);
    glUniform4uiv(tp.emissive, 8, emissive_bits.data());
    if (tp.arena >= 0) glUniform1i(tp.arena, 1);
    return Ok{};
  };
  if (m_mdi_supported) {
    if (auto s = build_terrain(g.mdi_opaque, true, false); !s.ok()) return s;
    if (auto s = build_terrain(g.mdi_translucent, true, true); !s.ok()) return s;
  }
  if (auto s = build_terrain(g.chunk_opaque, false, false); !s.ok()) return s;
  if (auto s = build_terrain(g.chunk_translucent, false, true); !s.ok()) return s;
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

  GLuint ids[2] = {0, 0};
  glGenTextures(2, ids);
  g.opaque_view.reset(ids[0]);
  g.translucent_view.reset(ids[1]);
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
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, g.per_draw.get());
    glBufferData(GL_ARRAY_BUFFER, 16, nullptr, GL_STREAM_DRAW);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(glm::vec4), nullptr);
    glEnableVertexAttribArray(0);
    glVertexAttribDivisor(0, 1);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
  }

  m_opaque = std::make_unique<ArenaBuffer>(kOpaqueStride, m_options.initial_opaque_quads, m_options.span_quads, dsa);
  m_translucent = std::make_unique<ArenaBuffer>(kTranslucentStride, m_options.initial_translucent_quads, m_options.span_quads, dsa);
  return gl::check("creating the renderer");
}

bool Renderer::set_path(RenderPath path) {
  if (path == RenderPath::kMultiDrawIndirect && !m_mdi_supported) return false;
  m_path = path;
  return true;
}

uint64_t Renderer::arena_capacity_bytes() const {
  return m_opaque->capacity_bytes().value + m_translucent->capacity_bytes().value;
}
uint64_t Renderer::arena_used_bytes() const { return m_opaque->used_bytes().value + m_translucent->used_bytes().value; }

void Renderer::set_section(const SectionPos& pos, std::span<const mesh::Quad> opaque,
                           std::span<const mesh::FluidQuad> translucent) {
  if (opaque.empty() && translucent.empty()) return remove_section(pos);
  m_platform.make_current();
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
  } else {
    i = it->second;
  }
  // Each kind: write in place / reallocate / free, touching only this section's own spans.
  auto update = [](ArenaBuffer& arena, Span& span, uint32_t& quads, const void* data, size_t count) {
    if (count == 0) {
      if (quads) arena.free(span);
      quads = 0;
      span = {};
      return;
    }
    span = quads ? arena.replace(span, data, ElemCount{count}) : arena.allocate(data, ElemCount{count});
    quads = static_cast<uint32_t>(count);
  };
  update(*m_opaque, m_opaque_span[i], m_opaque_quads[i], opaque.data(), opaque.size());
  update(*m_translucent, m_translucent_span[i], m_translucent_quads[i], translucent.data(), translucent.size());
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
}

void Renderer::remove_section(const SectionPos& pos) {
  auto it = m_index.find(pos);
  if (it == m_index.end()) return;
  m_platform.make_current();
  remove_at(it->second);
}

void Renderer::clear() {
  m_platform.make_current();
  while (!m_pos.empty()) remove_at(m_pos.size() - 1);
}

FrameStats Renderer::render(const FrameParams& params) {
  FrameStats st;
  Gpu& g = *m_gpu;
  const int width = m_platform.width(), height = m_platform.height();
  Camera cam = params.camera;
  cam.aspect = static_cast<double>(width) / static_cast<double>(std::max(height, 1));
  const glm::dmat4 view_proj = cam.view_projection();
  const double fog_end = params.fog_end;
  const double fog_start = params.fog_start >= 0 ? params.fog_start : 0.7 * fog_end;

  // 1. Cull: camera-relative boxes (exact int64 differences, then double), one batch frustum pass, fog distance.
  double t0 = now_ms();
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
  g.order.clear();
  g.distance.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (!m_visible[i]) continue;
    // Horizontal distance from the eye to the nearest point of the box: beyond fog_end it is all fog.
    const double nx = std::max({m_rel_x[i], 0.0, -(m_rel_x[i] + kSectionExtent)});
    const double nz = std::max({m_rel_z[i], 0.0, -(m_rel_z[i] + kSectionExtent)});
    if (nx * nx + nz * nz > fog_end * fog_end) continue;
    const double cx = m_rel_x[i] + kSectionExtent / 2, cy = m_rel_y[i] + kSectionExtent / 2, cz = m_rel_z[i] + kSectionExtent / 2;
    g.distance[i] = cx * cx + cy * cy + cz * cz;
    g.order.push_back(static_cast<uint32_t>(i));
  }
  // Near first; ties by position so the order depends only on the scene, never on upload history.
  std::sort(g.order.begin(), g.order.end(), [&](uint32_t a, uint32_t b) {
    if (g.distance[a] != g.distance[b]) return g.distance[a] < g.distance[b];
    return m_pos[a] < m_pos[b];
  });
  st.sections_visible = static_cast<uint32_t>(g.order.size());
  double t1 = now_ms();
  st.cull_ms = t1 - t0;

  // 2. Build: per-draw offsets (index = position in the near-first order) and the indirect commands, opaque
  //    near-first then translucent far-first.
  const size_t v = g.order.size();
  g.offsets.resize(v);
  g.commands.clear();
  for (size_t k = 0; k < v; ++k) {
    const uint32_t i = g.order[k];
    g.offsets[k] = glm::vec4(static_cast<float>(m_rel_x[i]), static_cast<float>(m_rel_y[i]), static_cast<float>(m_rel_z[i]), 0.0f);
    if (m_opaque_quads[i]) {
      g.commands.push_back({6 * m_opaque_quads[i], 1, static_cast<uint32_t>(6 * m_opaque_span[i].offset.value), static_cast<uint32_t>(k)});
      st.quads_drawn += m_opaque_quads[i];
    }
  }
  const size_t opaque_commands = g.commands.size();
  if (params.translucent)
    for (size_t k = v; k-- > 0;) {
      const uint32_t i = g.order[k];
      if (!m_translucent_quads[i]) continue;
      g.commands.push_back({6 * m_translucent_quads[i], 1, static_cast<uint32_t>(6 * m_translucent_span[i].offset.value), static_cast<uint32_t>(k)});
      st.quads_drawn += m_translucent_quads[i];
    }
  const size_t translucent_commands = g.commands.size() - opaque_commands;
  st.opaque_meshes = static_cast<uint32_t>(opaque_commands);
  st.translucent_meshes = static_cast<uint32_t>(translucent_commands);
  double t2 = now_ms();
  st.build_ms = t2 - t1;

  // 3. Submit.
  m_platform.make_current();
  glBindFramebuffer(GL_FRAMEBUFFER, m_platform.framebuffer());
  glViewport(0, 0, width, height);
  glBindVertexArray(g.vao.get());
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glDepthMask(GL_TRUE);
  glClearDepth(1.0);
  glClear(GL_DEPTH_BUFFER_BIT);

  const glm::dvec3 sun = sun_direction(params.time_of_day);
  const float day = static_cast<float>(glm::smoothstep(-0.10, 0.15, sun.y));
  // The sky seen from the eye: the light curve of the eye's sky light (1 at 15, ~0.18 at 7, 0 at 0).
  const double eye_sky = std::clamp(params.eye_sky_light, 0, 15) / 15.0;
  const float sky_seen = static_cast<float>(eye_sky / (4.0 - 3.0 * eye_sky));
  const glm::mat4 vp = to_float(view_proj);
  const glm::mat4 inv_vp = to_float(glm::inverse(view_proj));

  // Sky: full-screen triangle, no depth.
  glDisable(GL_DEPTH_TEST);
  glUseProgram(g.sky.get());
  glUniformMatrix4fv(g.sky_inv_view_proj, 1, GL_FALSE, &inv_vp[0][0]);
  glUniform3f(g.sky_sun_dir, static_cast<float>(sun.x), static_cast<float>(sun.y), static_cast<float>(sun.z));
  glUniform1f(g.sky_day, day);
  glUniform1f(g.sky_sky_seen, sky_seen);
  glDrawArrays(GL_TRIANGLES, 0, 3);

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D_ARRAY, g.textures.get());

  auto use = [&](const Gpu::TerrainProgram& tp) {
    glUseProgram(tp.program.get());
    glUniformMatrix4fv(tp.view_proj, 1, GL_FALSE, &vp[0][0]);
    glUniform1f(tp.time, static_cast<float>(params.anim_seconds));
    glUniform2f(tp.fog, static_cast<float>(fog_start), static_cast<float>(fog_end));
    glUniform3f(tp.sun_dir, static_cast<float>(sun.x), static_cast<float>(sun.y), static_cast<float>(sun.z));
    glUniform1f(tp.day, day);
    glUniform1f(tp.sky_seen, sky_seen);
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

  if (m_path == RenderPath::kMultiDrawIndirect) {
    stream(GL_ARRAY_BUFFER, g.per_draw.get(), g.offsets.data(), g.offsets.size() * sizeof(glm::vec4));
    stream(GL_DRAW_INDIRECT_BUFFER, g.indirect.get(), g.commands.data(), g.commands.size() * sizeof(DrawArraysIndirectCommand));
    glBindVertexArray(g.mdi_vao.get());
    if (opaque_commands) {
      opaque_state();
      use(g.mdi_opaque);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, m_opaque->buffer());
      glMultiDrawArraysIndirect(GL_TRIANGLES, nullptr, static_cast<GLsizei>(opaque_commands), 0);
      ++st.draw_calls;
    }
    if (translucent_commands) {
      translucent_state();
      use(g.mdi_translucent);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, m_translucent->buffer());
      glMultiDrawArraysIndirect(GL_TRIANGLES, reinterpret_cast<const void*>(opaque_commands * sizeof(DrawArraysIndirectCommand)),
                                static_cast<GLsizei>(translucent_commands), 0);
      ++st.draw_calls;
    }
  } else {
    // Per-chunk (GL 3.3 style): a texture-buffer view of each arena, one uniform and one draw per mesh.
    auto attach = [](GLuint view, uint64_t& seen, const ArenaBuffer& arena) {
      glActiveTexture(GL_TEXTURE1);
      glBindTexture(GL_TEXTURE_BUFFER, view);
      if (seen != arena.generation()) {
        glTexBuffer(GL_TEXTURE_BUFFER, GL_R32UI, arena.buffer());
        seen = arena.generation();
      }
      glActiveTexture(GL_TEXTURE0);
    };
    auto draw_each = [&](const Gpu::TerrainProgram& tp, size_t from, size_t to) {
      for (size_t c = from; c < to; ++c) {
        const DrawArraysIndirectCommand& cmd = g.commands[c];
        const glm::vec4& o = g.offsets[cmd.base_instance];
        glUniform3f(tp.draw_offset, o.x, o.y, o.z);
        glDrawArrays(GL_TRIANGLES, static_cast<GLint>(cmd.first), static_cast<GLsizei>(cmd.count));
        ++st.draw_calls;
      }
    };
    if (opaque_commands) {
      opaque_state();
      use(g.chunk_opaque);
      attach(g.opaque_view.get(), g.opaque_view_generation, *m_opaque);
      draw_each(g.chunk_opaque, 0, opaque_commands);
    }
    if (translucent_commands) {
      translucent_state();
      use(g.chunk_translucent);
      attach(g.translucent_view.get(), g.translucent_view_generation, *m_translucent);
      draw_each(g.chunk_translucent, opaque_commands, opaque_commands + translucent_commands);
    }
  }
  glBindVertexArray(g.vao.get());
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  st.submit_ms = now_ms() - t2;
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

}  // namespace voxen::render
