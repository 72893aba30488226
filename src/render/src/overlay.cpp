#include <epoxy/gl.h>

#include "voxen/render/overlay.h"

#include <algorithm>
#include <cstddef>
#include <string>

#include "gl_util.h"
#include "voxen/render/bitmap_font.h"
#include "voxen_shaders.h"

namespace voxen::render {

// ---- OverlayList: CPU only ----

OverlayVertex OverlayList::pixel_vertex(float x, float y, float u, float v, const glm::vec4& c) const {
  return {2.0f * x / static_cast<float>(m_w) - 1.0f, 1.0f - 2.0f * y / static_cast<float>(m_h), 0.0f, 1.0f, u, v, c.r, c.g, c.b, c.a};
}

void OverlayList::quad(float x, float y, float w, float h, float u0, float v0, float u1, float v1, const glm::vec4& c) {
  const OverlayVertex a = pixel_vertex(x, y, u0, v0, c), b = pixel_vertex(x + w, y, u1, v0, c),
                      d = pixel_vertex(x + w, y + h, u1, v1, c), e = pixel_vertex(x, y + h, u0, v1, c);
  m_quads.insert(m_quads.end(), {a, b, d, a, d, e});
}

void OverlayList::rect(float x, float y, float w, float h, const glm::vec4& colour) { quad(x, y, w, h, -1, -1, -1, -1, colour); }

void OverlayList::rect_outline(float x, float y, float w, float h, float t, const glm::vec4& colour) {
  rect(x, y, w, t, colour);
  rect(x, y + h - t, w, t, colour);
  rect(x, y + t, t, h - 2 * t, colour);
  rect(x + w - t, y + t, t, h - 2 * t, colour);
}

void OverlayList::text(float x, float y, std::string_view s, float scale, const glm::vec4& colour) {
  for (unsigned char ch : s) {
    const int code = ch < 32 || ch > 127 ? 127 : ch;
    const int cx = (code - 32) % font::kAtlasCols, cy = (code - 32) / font::kAtlasCols;
    const float u0 = static_cast<float>(cx * font::kCellW) / font::kAtlasW, v0 = static_cast<float>(cy * font::kCellH) / font::kAtlasH;
    const float u1 = u0 + static_cast<float>(font::kCellW) / font::kAtlasW, v1 = v0 + static_cast<float>(font::kCellH) / font::kAtlasH;
    quad(x, y, font::kCellW * scale, font::kCellH * scale, u0, v0, u1, v1, colour);
    x += font::kCellW * scale;
  }
}

void OverlayList::line_clip(const glm::dvec4& a, const glm::dvec4& b, const glm::vec4& c) {
  if (a.w <= 0.01 || b.w <= 0.01) return;  // an end behind (or at) the eye
  for (const glm::dvec4* p : {&a, &b})
    m_lines.push_back({static_cast<float>(p->x), static_cast<float>(p->y), static_cast<float>(p->z), static_cast<float>(p->w),
                       -1.0f, -1.0f, c.r, c.g, c.b, c.a});
}

void OverlayList::line(const glm::dmat4& view_projection, const glm::dvec3& a, const glm::dvec3& b, const glm::vec4& colour) {
  line_clip(view_projection * glm::dvec4(a, 1.0), view_projection * glm::dvec4(b, 1.0), colour);
}

void OverlayList::box_edges(const glm::dmat4& view_projection, const glm::dvec3& min, const glm::dvec3& size,
                            const glm::vec4& colour) {
  glm::dvec4 corner[8];  // bit 0: +x, bit 1: +y, bit 2: +z
  for (int i = 0; i < 8; ++i) corner[i] = view_projection * glm::dvec4(min + size * glm::dvec3(i & 1, (i >> 1) & 1, (i >> 2) & 1), 1.0);
  constexpr int kEdges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  for (const auto& e : kEdges) line_clip(corner[e[0]], corner[e[1]], colour);
}

// ---- Overlay: GL ----

struct Overlay::Gl {
  gl::Program program;
  gl::VertexArray vao;
  gl::Buffer vbo;
  gl::Texture font;
  GLint font_loc = -1;
  std::vector<OverlayVertex> scratch;  // lines then quads, uploaded in one buffer
};

Overlay::Overlay() : m_gl(std::make_unique<Gl>()) {}
Overlay::~Overlay() = default;

Result<std::unique_ptr<Overlay>> Overlay::create() {
  std::unique_ptr<Overlay> o(new Overlay());
  Gl& g = *o->m_gl;
  const std::string header = "#version 330 core\n";
  auto program = gl::build_program("overlay", {header, std::string(shaders::kOverlayVert)}, {header, std::string(shaders::kOverlayFrag)});
  if (!program) return program.error();
  g.program.reset(*program);
  g.font_loc = glGetUniformLocation(g.program.get(), "u_font");

  GLuint name = 0;
  glGenVertexArrays(1, &name);
  g.vao.reset(name);
  glGenBuffers(1, &name);
  g.vbo.reset(name);
  glBindVertexArray(g.vao.get());
  glBindBuffer(GL_ARRAY_BUFFER, g.vbo.get());
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(OverlayVertex), reinterpret_cast<const void*>(offsetof(OverlayVertex, x)));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(OverlayVertex), reinterpret_cast<const void*>(offsetof(OverlayVertex, u)));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, sizeof(OverlayVertex), reinterpret_cast<const void*>(offsetof(OverlayVertex, r)));
  glBindVertexArray(0);

  const std::vector<uint8_t> atlas = font::build_atlas();
  glGenTextures(1, &name);
  g.font.reset(name);
  glBindTexture(GL_TEXTURE_2D, g.font.get());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, font::kAtlasW, font::kAtlasH, 0, GL_RED, GL_UNSIGNED_BYTE, atlas.data());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  if (Status s = gl::check("creating the overlay"); !s) return s.error();
  return o;
}

void Overlay::draw(const OverlayList& list, uint32_t framebuffer) {
  if (list.width() <= 0 || list.height() <= 0) return;
  Gl& g = *m_gl;
  std::vector<OverlayVertex>& all = g.scratch;
  all.assign(list.line_vertices().begin(), list.line_vertices().end());
  const size_t n_lines = all.size();
  all.insert(all.end(), list.quad_vertices().begin(), list.quad_vertices().end());

  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glViewport(0, 0, list.width(), list.height());
  glUseProgram(g.program.get());
  glUniform1i(g.font_loc, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, g.font.get());
  glBindVertexArray(g.vao.get());
  glBindBuffer(GL_ARRAY_BUFFER, g.vbo.get());
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(std::max<size_t>(all.size(), 1) * sizeof(OverlayVertex)), all.data(), GL_STREAM_DRAW);
  glDisable(GL_CULL_FACE);
  glDepthMask(GL_FALSE);
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  if (n_lines) {
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(n_lines));
  }
  glDisable(GL_DEPTH_TEST);
  if (all.size() > n_lines) glDrawArrays(GL_TRIANGLES, static_cast<GLint>(n_lines), static_cast<GLsizei>(all.size() - n_lines));
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
  glBindVertexArray(0);
}

}  // namespace voxen::render
