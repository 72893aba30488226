#include "gl_util.h"

#include <cstdio>

namespace voxen::render::gl {

std::string hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04x", v);
  return buf;
}

Status check(std::string_view what) {
  std::string codes;
  for (int i = 0; i < 16; ++i) {
    const GLenum e = glGetError();
    if (e == GL_NO_ERROR) break;
    codes += (codes.empty() ? "0x" : ", 0x") + hex(e);
  }
  if (codes.empty()) return Ok{};
  return Error{"OpenGL error while " + std::string(what) + ": " + codes};
}

namespace {

Result<GLuint> compile(std::string_view program, GLenum stage, const std::vector<std::string>& sources) {
  const GLuint s = glCreateShader(stage);
  std::vector<const char*> ptrs;
  std::vector<GLint> lens;
  for (const auto& src : sources) {
    ptrs.push_back(src.data());
    lens.push_back(static_cast<GLint>(src.size()));
  }
  glShaderSource(s, static_cast<GLsizei>(ptrs.size()), ptrs.data(), lens.data());
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    GLint len = 0;
    glGetShaderiv(s, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<size_t>(std::max(len, 1)), '\0');
    glGetShaderInfoLog(s, len, nullptr, log.data());
    glDeleteShader(s);
    return Error{"shader '" + std::string(program) + "' (" + (stage == GL_VERTEX_SHADER ? "vertex" : stage == GL_COMPUTE_SHADER ? "compute" : "fragment") +
                 ") failed to compile: " + log};
  }
  return s;
}

// The program after glLinkProgram, or an Error with the linker's log (the program deleted).
Result<GLuint> linked(std::string_view name, GLuint p) {
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint len = 0;
    glGetProgramiv(p, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<size_t>(std::max(len, 1)), '\0');
    glGetProgramInfoLog(p, len, nullptr, log.data());
    glDeleteProgram(p);
    return Error{"shader program '" + std::string(name) + "' failed to link: " + log};
  }
  return p;
}

}  // namespace

Result<GLuint> build_program(std::string_view name, const std::vector<std::string>& vertex_sources,
                             const std::vector<std::string>& fragment_sources) {
  auto vs = compile(name, GL_VERTEX_SHADER, vertex_sources);
  if (!vs) return vs.error();
  auto fs = compile(name, GL_FRAGMENT_SHADER, fragment_sources);
  if (!fs) {
    glDeleteShader(*vs);
    return fs.error();
  }
  const GLuint p = glCreateProgram();
  glAttachShader(p, *vs);
  glAttachShader(p, *fs);
  glLinkProgram(p);
  glDetachShader(p, *vs);
  glDetachShader(p, *fs);
  glDeleteShader(*vs);
  glDeleteShader(*fs);
  return linked(name, p);
}

Result<GLuint> build_compute_program(std::string_view name, const std::vector<std::string>& sources) {
  auto cs = compile(name, GL_COMPUTE_SHADER, sources);
  if (!cs) return cs.error();
  const GLuint p = glCreateProgram();
  glAttachShader(p, *cs);
  glLinkProgram(p);
  glDetachShader(p, *cs);
  glDeleteShader(*cs);
  return linked(name, p);
}

Status OffscreenTarget::create(int width, int height) {
  destroy();
  m_width = width;
  m_height = height;
  glGenFramebuffers(1, &m_fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
  glGenRenderbuffers(1, &m_color);
  glBindRenderbuffer(GL_RENDERBUFFER, m_color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, m_color);
  glGenRenderbuffers(1, &m_depth);
  glBindRenderbuffer(GL_RENDERBUFFER, m_depth);
  // 24-bit depth and an 8-bit stencil: the far pass marks the pixels it drew (Renderer::read_depth).
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, m_depth);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    return Error{"offscreen framebuffer incomplete (status 0x" + hex(status) + ") at " + std::to_string(width) + "x" +
                 std::to_string(height)};
  return check("creating the offscreen framebuffer");
}

void OffscreenTarget::destroy() {
  if (m_fbo) glDeleteFramebuffers(1, &m_fbo);
  if (m_color) glDeleteRenderbuffers(1, &m_color);
  if (m_depth) glDeleteRenderbuffers(1, &m_depth);
  m_fbo = m_color = m_depth = 0;
}

void delete_buffer(GLuint id) { glDeleteBuffers(1, &id); }
void delete_texture(GLuint id) { glDeleteTextures(1, &id); }
void delete_vertex_array(GLuint id) { glDeleteVertexArrays(1, &id); }
void delete_program(GLuint id) { glDeleteProgram(id); }

}  // namespace voxen::render::gl
