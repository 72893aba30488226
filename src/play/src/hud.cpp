#include <epoxy/gl.h>

#include "voxen/play/hud.h"

#include <algorithm>
#include <cmath>

#include "font.h"

namespace voxen::play {
namespace {

struct Vertex {
  float x, y, z, w;  // clip space
  float u, v;        // font atlas; u < 0: plain colour
  float r, g, b, a;
};

constexpr const char* kVertexShader = R"(#version 330 core
layout(location = 0) in vec4 a_pos;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_color;
out vec2 v_uv;
out vec4 v_color;
void main() {
  gl_Position = a_pos;
  v_uv = a_uv;
  v_color = a_color;
}
)";

constexpr const char* kFragmentShader = R"(#version 330 core
uniform sampler2D u_font;
in vec2 v_uv;
in vec4 v_color;
out vec4 o_color;
void main() {
  float ink = v_uv.x < 0.0 ? 1.0 : texture(u_font, v_uv).r;
  if (ink < 0.5) discard;
  o_color = v_color;
}
)";

Result<GLuint> compile(GLenum stage, const char* source, const char* name) {
  const GLuint s = glCreateShader(stage);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    glDeleteShader(s);
    return Error{std::string("HUD ") + name + " shader: " + log};
  }
  return s;
}

glm::vec4 rgba(uint32_t argb) {
  return {static_cast<float>((argb >> 16) & 255) / 255.0f, static_cast<float>((argb >> 8) & 255) / 255.0f,
          static_cast<float>(argb & 255) / 255.0f, static_cast<float>(argb >> 24) / 255.0f};
}

// Builds the frame's vertices in pixel units (y down), converted to clip space as they are added.
class Builder {
 public:
  Builder(int width, int height) : m_w(width), m_h(height) {}
  std::vector<Vertex> quads, lines;

  void rect(float x, float y, float w, float h, glm::vec4 c) { quad(x, y, w, h, -1, -1, -1, -1, c); }
  void frame(float x, float y, float w, float h, float t, glm::vec4 c) {
    rect(x, y, w, t, c);
    rect(x, y + h - t, w, t, c);
    rect(x, y + t, t, h - 2 * t, c);
    rect(x + w - t, y + t, t, h - 2 * t, c);
  }
  /// Text at pixel (x, y), each font pixel `scale` pixels.
  void text(float x, float y, const std::string& s, float scale, glm::vec4 c) {
    for (unsigned char ch : s) {
      const int code = ch < 32 || ch > 127 ? 127 : ch;
      const int cx = (code - 32) % font::kAtlasCols, cy = (code - 32) / font::kAtlasCols;
      const float u0 = static_cast<float>(cx * font::kCellW) / font::kAtlasW, v0 = static_cast<float>(cy * font::kCellH) / font::kAtlasH;
      const float u1 = u0 + static_cast<float>(font::kCellW) / font::kAtlasW, v1 = v0 + static_cast<float>(font::kCellH) / font::kAtlasH;
      quad(x, y, font::kCellW * scale, font::kCellH * scale, u0, v0, u1, v1, c);
      x += font::kCellW * scale;
    }
  }
  void line3d(const glm::dvec4& a, const glm::dvec4& b, glm::vec4 c) {
    lines.push_back(vertex(a, -1, -1, c));
    lines.push_back(vertex(b, -1, -1, c));
  }

 private:
  Vertex vertex(const glm::dvec4& p, float u, float v, glm::vec4 c) const {
    return {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z), static_cast<float>(p.w), u, v, c.r, c.g, c.b, c.a};
  }
  Vertex px(float x, float y, float u, float v, glm::vec4 c) const {
    return {2.0f * x / static_cast<float>(m_w) - 1.0f, 1.0f - 2.0f * y / static_cast<float>(m_h), 0.0f, 1.0f, u, v, c.r, c.g, c.b, c.a};
  }
  void quad(float x, float y, float w, float h, float u0, float v0, float u1, float v1, glm::vec4 c) {
    const Vertex a = px(x, y, u0, v0, c), b = px(x + w, y, u1, v0, c), d = px(x + w, y + h, u1, v1, c), e = px(x, y + h, u0, v1, c);
    quads.insert(quads.end(), {a, b, d, a, d, e});
  }
  int m_w, m_h;
};

}  // namespace

struct Hud::Gl {
  GLuint program = 0, vao = 0, vbo = 0, font = 0;
  GLint font_loc = -1;
  ~Gl() {
    if (font) glDeleteTextures(1, &font);
    if (vbo) glDeleteBuffers(1, &vbo);
    if (vao) glDeleteVertexArrays(1, &vao);
    if (program) glDeleteProgram(program);
  }
};

Hud::~Hud() = default;

Result<std::unique_ptr<Hud>> Hud::create() {
  std::unique_ptr<Hud> hud(new Hud());
  hud->m_gl = std::make_unique<Gl>();
  Gl& g = *hud->m_gl;
  auto vs = compile(GL_VERTEX_SHADER, kVertexShader, "vertex");
  if (!vs) return vs.error();
  auto fs = compile(GL_FRAGMENT_SHADER, kFragmentShader, "fragment");
  if (!fs) {
    glDeleteShader(*vs);
    return fs.error();
  }
  g.program = glCreateProgram();
  glAttachShader(g.program, *vs);
  glAttachShader(g.program, *fs);
  glLinkProgram(g.program);
  glDeleteShader(*vs);
  glDeleteShader(*fs);
  GLint ok = 0;
  glGetProgramiv(g.program, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(g.program, sizeof log, nullptr, log);
    return Error{std::string("HUD program link: ") + log};
  }
  g.font_loc = glGetUniformLocation(g.program, "u_font");

  glGenVertexArrays(1, &g.vao);
  glGenBuffers(1, &g.vbo);
  glBindVertexArray(g.vao);
  glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<const void*>(offsetof(Vertex, x)));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<const void*>(offsetof(Vertex, u)));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<const void*>(offsetof(Vertex, r)));
  glBindVertexArray(0);

  const std::vector<uint8_t> atlas = font::build_atlas();
  glGenTextures(1, &g.font);
  glBindTexture(GL_TEXTURE_2D, g.font);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, font::kAtlasW, font::kAtlasH, 0, GL_RED, GL_UNSIGNED_BYTE, atlas.data());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  if (const GLenum err = glGetError(); err != GL_NO_ERROR) return Error{"HUD: GL error " + std::to_string(err) + " while creating"};
  return hud;
}

void Hud::draw(const HudFrame& f, uint32_t framebuffer) {
  if (f.width <= 0 || f.height <= 0) return;
  Builder b(f.width, f.height);
  const float u = std::max(1.0f, std::floor(static_cast<float>(f.height) / 360.0f));  // one HUD unit in pixels
  const float cx = std::floor(f.width / 2.0f), cy = std::floor(f.height / 2.0f);
  const glm::vec4 white{1, 1, 1, 1}, dark{0, 0, 0, 0.75f}, shadow{0.1f, 0.1f, 0.1f, 1};

  // Outline of the targeted block: its 12 edges, slightly enlarged so the terrain does not hide them.
  if (f.outline) {
    const glm::dvec3 pad(0.004);
    const glm::dvec3 mn = f.outline->first - pad, size = f.outline->second + 2.0 * pad;
    glm::dvec4 corner[8];
    for (int i = 0; i < 8; ++i) {
      const glm::dvec3 p = mn + size * glm::dvec3(i & 1, (i >> 1) & 1, (i >> 2) & 1);
      corner[i] = f.view_projection * glm::dvec4(p, 1.0);
    }
    const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (const auto& e : edges)
      if (corner[e[0]].w > 0.01 && corner[e[1]].w > 0.01) b.line3d(corner[e[0]], corner[e[1]], {0.05f, 0.05f, 0.05f, 1});
  }

  // Crosshair: a plus with a dark border.
  if (f.crosshair) {
    const float len = 5 * u, t = u;
    b.rect(cx - len - t, cy - t - t / 2, 2 * len + 2 * t, 3 * t, dark);
    b.rect(cx - t - t / 2, cy - len - t, 3 * t, 2 * len + 2 * t, dark);
    b.rect(cx - len, cy - t / 2, 2 * len, t, white);
    b.rect(cx - t / 2, cy - len, t, 2 * len, white);
  }

  // Hotbar: nine boxes centred at the bottom.
  const float box = 18 * u, gap = 2 * u;
  const float total = 9 * box + 8 * gap;
  const float x0 = std::floor((static_cast<float>(f.width) - total) / 2.0f), y0 = static_cast<float>(f.height) - box - 4 * u;
  for (int i = 0; i < 9; ++i) {
    const float x = x0 + static_cast<float>(i) * (box + gap);
    b.rect(x, y0, box, box, dark);
    glm::vec4 c = rgba(f.hotbar_colors[static_cast<size_t>(i)]);
    c.a = 1.0f;
    b.rect(x + 3 * u, y0 + 3 * u, box - 6 * u, box - 6 * u, c);
    if (i == f.slot) b.frame(x - u, y0 - u, box + 2 * u, box + 2 * u, 2 * u, white);
    b.text(x + u, y0 + u, std::to_string(i + 1), u, white);
  }

  // Status line and overlay, with a backing box and a shadow under the text.
  float y = 2 * u;
  auto line = [&](const std::string& s) {
    b.rect(2 * u, y - u, static_cast<float>(s.size()) * font::kCellW * u + 2 * u, font::kCellH * u + u, {0, 0, 0, 0.45f});
    b.text(3 * u + u, y + u, s, u, shadow);
    b.text(3 * u, y, s, u, white);
    y += (font::kCellH + 1) * u;
  };
  if (!f.status.empty()) line(f.status);
  for (const std::string& s : f.overlay) line(s);

  Gl& g = *m_gl;
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glViewport(0, 0, f.width, f.height);
  glUseProgram(g.program);
  glUniform1i(g.font_loc, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, g.font);
  glBindVertexArray(g.vao);
  glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
  std::vector<Vertex> all = std::move(b.lines);
  const size_t n_lines = all.size();
  all.insert(all.end(), b.quads.begin(), b.quads.end());
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(std::max<size_t>(all.size(), 1) * sizeof(Vertex)), all.data(), GL_STREAM_DRAW);
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
  m_last_vertices = all.size();
}

}  // namespace voxen::play
