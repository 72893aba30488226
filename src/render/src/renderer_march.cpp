// The ray-march path, traced shadows' uniforms and the id pass of Renderer (renderer.h; shaders raymarch_comp.glsl,
// trace_common.glsl, id_frag.glsl, raymarch_composite_frag.glsl).
#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "march_gpu.h"
#include "trace_store.h"
#include "voxen/render/renderer.h"
#include "voxen_shaders.h"

namespace voxen::render {

namespace {

constexpr GLint kMarchTextureUnit = 0;  // the block textures, as in the terrain programs
constexpr GLint kMarchColorUnit = 6, kMarchDepthUnit = 7;  // the composite's inputs

void make_texture(gl::Texture& t, GLenum format, int width, int height) {
  GLuint id = 0;
  glGenTextures(1, &id);
  t.reset(id);
  glBindTexture(GL_TEXTURE_2D, id);
  glTexStorage2D(GL_TEXTURE_2D, 1, format, width, height);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
}

GLint loc(GLuint program, const char* name) { return glGetUniformLocation(program, name); }

}  // namespace

bool Renderer::traces() const { return m_trace != nullptr; }

void Renderer::set_cells(const SectionPos& pos, const Section& cells) {
  if (m_trace) m_trace->set_cells(pos, cells);
}

std::span<const uint32_t> Renderer::trace_record(const SectionPos& pos) const {
  return m_trace ? m_trace->record(pos) : std::span<const uint32_t>{};
}

Renderer::TraceBytes Renderer::trace_bytes() const {
  if (!m_trace) return {};
  return {m_trace->sections(), m_trace->record_bytes(), m_trace->gpu_bytes(), m_trace->not_traced(),
          m_trace->pending_cells()};
}

void Renderer::set_trace_uniforms(uint32_t program, const Camera& cam, const FrameParams& params) {
  // The eye's block in section terms (sections are 16 high from y = -128; x, z floor-divided).
  const int64_t ys = cam.block.y - kMinY;
  const int64_t sx = cam.block.x >> 4, sz = cam.block.z >> 4;
  const int64_t sy = std::clamp<int64_t>(ys >> 4, -(int64_t{1} << 30), int64_t{1} << 30);
  glUniform3i(loc(program, "u_eye_cell"), static_cast<GLint>(cam.block.x & 15), static_cast<GLint>(ys & 15),
              static_cast<GLint>(cam.block.z & 15));
  glUniform1i(loc(program, "u_eye_section_y"), static_cast<GLint>(sy));
  glUniform2i(loc(program, "u_eye_slot"), static_cast<GLint>(sx & (TraceStore::kTableSide - 1)),
              static_cast<GLint>(sz & (TraceStore::kTableSide - 1)));
  glUniform2ui(loc(program, "u_eye_tag"), static_cast<GLuint>((sx >> 7) & 0xFFFF), static_cast<GLuint>((sz >> 7) & 0xFFFF));
  glUniform3f(loc(program, "u_eye_frac"), static_cast<float>(cam.frac.x), static_cast<float>(cam.frac.y),
              static_cast<float>(cam.frac.z));
  glUniform1f(loc(program, "u_shadow_reach"), static_cast<float>(params.shadow_reach));
}

void Renderer::set_shade_uniforms(uint32_t program, const FrameParams& params, double fog_start, double fog_end) {
  const ShadeInputs in = shade_inputs(params);
  glUniform3f(loc(program, "u_sun_dir"), static_cast<float>(in.sun.x), static_cast<float>(in.sun.y), static_cast<float>(in.sun.z));
  glUniform1f(loc(program, "u_day"), in.day);
  glUniform3f(loc(program, "u_sun_color"), in.sun_color.x, in.sun_color.y, in.sun_color.z);
  glUniform1f(loc(program, "u_sky_seen"), in.sky_seen);
  glUniform2f(loc(program, "u_fog"), static_cast<float>(fog_start), static_cast<float>(fog_end));
  glUniform4uiv(loc(program, "u_emissive"), 8, m_march->emissive_bits.data());
  glUniform1i(loc(program, "u_textures"), kMarchTextureUnit);
  glUniform1i(loc(program, "u_layer_tint"), kTintTextureUnit);
}

void Renderer::march(const FrameParams& params, const Camera& cam, const glm::mat4& view_proj, const glm::mat4& inv_view_proj,
                     FrameStats& st) {
  MarchGpu& m = *m_march;
  if (m.failed) return;
  if (!m.march.get()) {
    const std::string common = std::string(shaders::kSkyCommon) + std::string(shaders::kShadeCommon) +
                               std::string(shaders::kQuadCommon) + std::string(shaders::kTraceCommon);
    auto main = gl::build_compute_program("ray march", {"#version 430 core\n#define VOXEN_BEAM 0\n", common,
                                                        std::string(shaders::kRaymarchComp)});
    auto beam = main ? gl::build_compute_program("ray march beam", {"#version 430 core\n#define VOXEN_BEAM 1\n", common,
                                                                     std::string(shaders::kRaymarchComp)})
                     : Result<GLuint>(main.error());
    auto composite = beam ? gl::build_program("ray march composite", {"#version 430 core\n", std::string(shaders::kSkyVert)},
                                              {"#version 430 core\n", std::string(shaders::kRaymarchCompositeFrag)})
                          : Result<GLuint>(beam.error());
    if (!composite) {
      log("ray march unavailable: " + composite.error().message);
      m.failed = true;
      return;
    }
    m.march.reset(*main);
    m.beam.reset(*beam);
    m.composite.reset(*composite);
    GLuint steps = 0;
    glGenBuffers(1, &steps);
    m.steps.reset(steps);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, steps);
    glBufferData(GL_SHADER_STORAGE_BUFFER, MarchGpu::kStepBins * 4, nullptr, GL_DYNAMIC_READ);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  }
  const int width = m_platform.width(), height = m_platform.height();
  const int tiles_x = (width + 7) / 8, tiles_y = (height + 7) / 8;
  if (m.width != width || m.height != height) {
    make_texture(m.color, GL_RGBA16F, width, height);
    make_texture(m.depth, GL_R32F, width, height);
    make_texture(m.id, GL_RGBA32I, width, height);
    make_texture(m.probe, GL_RGBA32F, width, height);
    make_texture(m.beam_depth, GL_R32F, tiles_x, tiles_y);
    m.width = width;
    m.height = height;
  }
  const double fog_end = shade_fog_end(params);
  const double fog_start = params.fog_start >= 0 ? params.fog_start : 0.7 * fog_end;
  // Rays stop where nothing drawn can lie: past the draw radius horizontally (plus a section's diagonal and the
  // world's height), generously.
  const double max_t = std::sqrt(2.0) * (params.fog_end + 32.0) + 400.0;
  // The widest angle between a tile's centre ray and a ray through its corner: 4 * sqrt(2) pixels at the screen's
  // centre, where a pixel subtends the most.
  const double pixel = 2.0 * std::tan(cam.fov_y_deg * 3.14159265358979323846 / 360.0) / std::max(height, 1);
  const double beam_angle = std::atan(4.0 * std::sqrt(2.0) * pixel) * 1.02;

  auto setup = [&](GLuint program) {
    glUseProgram(program);
    set_trace_uniforms(program, cam, params);
    set_shade_uniforms(program, params, fog_start, fog_end);
    glUniformMatrix4fv(loc(program, "u_inv_view_proj"), 1, GL_FALSE, &inv_view_proj[0][0]);
    glUniformMatrix4fv(loc(program, "u_view_proj"), 1, GL_FALSE, &view_proj[0][0]);
    glUniform2f(loc(program, "u_size"), static_cast<float>(width), static_cast<float>(height));
    glUniform1f(loc(program, "u_draw_radius"), static_cast<float>(params.fog_end));
    glUniform1f(loc(program, "u_max_t"), static_cast<float>(max_t));
    glUniform1f(loc(program, "u_time"), static_cast<float>(params.anim_seconds));
    glUniform1i(loc(program, "u_translucent"), params.translucent ? 1 : 0);
    glUniform1i(loc(program, "u_shadows"), params.shadows == Shadows::kTraced ? 1 : 0);
    glUniform1i(loc(program, "u_use_beam"), params.beam ? 1 : 0);
    glUniform1i(loc(program, "u_outputs"), (params.hit_ids ? 1 : 0) | (params.step_stats ? 2 : 0));
    glUniform1f(loc(program, "u_beam_angle"), static_cast<float>(beam_angle));
  };
  glActiveTexture(GL_TEXTURE0 + kMarchTextureUnit);  // the block textures (and the tints) are bound by render()
  glBindImageTexture(4, m.beam_depth.get(), 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32F);
  if (params.beam) {
    setup(m.beam.get());
    glDispatchCompute(static_cast<GLuint>((tiles_x + 7) / 8), static_cast<GLuint>((tiles_y + 7) / 8), 1);
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  }
  if (params.step_stats) {
    const GLuint zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, m.steps.get());
    glClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  }
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, m.steps.get());
  glBindImageTexture(0, m.color.get(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA16F);
  glBindImageTexture(1, m.depth.get(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
  glBindImageTexture(2, m.id.get(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32I);
  glBindImageTexture(3, m.probe.get(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  setup(m.march.get());
  glDispatchCompute(static_cast<GLuint>((width + 7) / 8), static_cast<GLuint>((height + 7) / 8), 1);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                  GL_TEXTURE_UPDATE_BARRIER_BIT);

  // The composite over the sky and far passes: premultiplied colour, depth written where the march hit (always
  // passes: the far pass's depth was cleared, and pixels without an opaque hit write 1).
  glBindFramebuffer(GL_FRAMEBUFFER, m_platform.framebuffer());
  glUseProgram(m.composite.get());
  glUniform1i(loc(m.composite.get(), "u_march_color"), kMarchColorUnit);
  glUniform1i(loc(m.composite.get(), "u_march_depth"), kMarchDepthUnit);
  glActiveTexture(GL_TEXTURE0 + kMarchColorUnit);
  glBindTexture(GL_TEXTURE_2D, m.color.get());
  glActiveTexture(GL_TEXTURE0 + kMarchDepthUnit);
  glBindTexture(GL_TEXTURE_2D, m.depth.get());
  glActiveTexture(GL_TEXTURE0);
  glDisable(GL_CULL_FACE);
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_ALWAYS);
  glDepthMask(GL_TRUE);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glDepthFunc(GL_LESS);
  glDisable(GL_BLEND);
  st.draw_calls += 1;

  if (params.step_stats) {
    std::vector<uint32_t> hist(MarchGpu::kStepBins);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, m.steps.get());
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(hist.size() * 4), hist.data());
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    uint64_t rays = 0, sum = 0;
    for (size_t k = 0; k < hist.size(); ++k) {
      rays += hist[k];
      sum += static_cast<uint64_t>(k) * hist[k];
    }
    st.rays = rays;
    st.steps_mean = rays ? static_cast<double>(sum) / static_cast<double>(rays) : 0.0;
    uint64_t seen = 0;
    for (size_t k = 0; k < hist.size(); ++k) {
      seen += hist[k];
      if (seen * 100 >= rays * 99) {
        st.steps_p99 = static_cast<uint32_t>(k);
        break;
      }
    }
  }
}

void Renderer::draw_ids(const FrameParams& params, const std::function<void()>& draw_opaque) {
  MarchGpu& m = *m_march;
  const int width = m_platform.width(), height = m_platform.height();
  if (!m.ids.get()) {
    const std::string header = "#version 430 core\n#define VOXEN_MDI 1\n#define VOXEN_FLUID 0\n#define VOXEN_ID 1\n";
    auto p = gl::build_program("id pass", {header, std::string(shaders::kQuadCommon), std::string(shaders::kTerrainVert)},
                               {"#version 430 core\n", std::string(shaders::kSkyCommon), std::string(shaders::kTraceCommon),
                                std::string(shaders::kIdFrag)});
    if (!p) {
      log("id pass unavailable: " + p.error().message);
      m_ids_written = false;
      return;
    }
    m.ids.reset(*p);
  }
  if (m.id_width != width || m.id_height != height) {
    if (m.id_fbo) glDeleteFramebuffers(1, &m.id_fbo);
    if (m.id_depth) glDeleteRenderbuffers(1, &m.id_depth);
    make_texture(m.id_ids, GL_RGBA32I, width, height);
    make_texture(m.id_probes, GL_RGBA32F, width, height);
    glGenRenderbuffers(1, &m.id_depth);
    glBindRenderbuffer(GL_RENDERBUFFER, m.id_depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glGenFramebuffers(1, &m.id_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, m.id_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, m.id_ids.get(), 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, m.id_probes.get(), 0);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, m.id_depth);
    const GLenum bufs[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
    glDrawBuffers(2, bufs);
    m.id_width = width;
    m.id_height = height;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, m.id_fbo);
  const GLint none[4] = {0, 0, 0, -1};
  const GLfloat no_probe[4] = {0, 0, 0, -1};
  const GLfloat far = 1.0f;
  glClearBufferiv(GL_COLOR, 0, none);
  glClearBufferfv(GL_COLOR, 1, no_probe);
  glClearBufferfv(GL_DEPTH, 0, &far);
  Camera cam = params.camera;
  cam.aspect = static_cast<double>(width) / static_cast<double>(std::max(height, 1));
  const glm::mat4 vp(cam.view_projection());
  const GLuint p = m.ids.get();
  glUseProgram(p);
  glUniformMatrix4fv(loc(p, "u_view_proj"), 1, GL_FALSE, &vp[0][0]);
  glUniform1f(loc(p, "u_seam"), static_cast<float>(0.0));
  glUniform1f(loc(p, "u_time"), static_cast<float>(params.anim_seconds));
  glUniform1i(loc(p, "u_textures"), 0);
  const ShadeInputs in = shade_inputs(params);
  glUniform3f(loc(p, "u_sun_dir"), static_cast<float>(in.sun.x), static_cast<float>(in.sun.y), static_cast<float>(in.sun.z));
  set_trace_uniforms(p, cam, params);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  draw_opaque();
  glBindFramebuffer(GL_FRAMEBUFFER, m_platform.framebuffer());
}

namespace {

// The pixels of a width x height texture of T (4 channels of `type`), row 0 at the bottom.
template <typename T>
std::vector<T> read_texture(GLuint tex, int width, int height, GLenum format, GLenum type) {
  std::vector<T> out(static_cast<size_t>(width) * static_cast<size_t>(height));
  glBindTexture(GL_TEXTURE_2D, tex);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, format, type, out.data());
  return out;
}

}  // namespace

std::vector<HitId> Renderer::read_hit_ids() const {
  if (!m_ids_written) return {};
  m_platform.make_current();
  const GLuint tex = m_path == RenderPath::kRayMarch ? m_march->id.get() : m_march->id_ids.get();
  return read_texture<HitId>(tex, m_platform.width(), m_platform.height(), GL_RGBA_INTEGER, GL_INT);
}

std::vector<ShadowProbe> Renderer::read_shadow_probes() const {
  if (!m_ids_written) return {};
  m_platform.make_current();
  const GLuint tex = m_path == RenderPath::kRayMarch ? m_march->probe.get() : m_march->id_probes.get();
  return read_texture<ShadowProbe>(tex, m_platform.width(), m_platform.height(), GL_RGBA, GL_FLOAT);
}

}  // namespace voxen::render
