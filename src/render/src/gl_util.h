// Small OpenGL helpers shared by the render module's sources (not public): error checks, shader programs,
// RAII names. Include after <epoxy/gl.h>.
#pragma once

#include <epoxy/gl.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "voxen/core/error.h"

namespace voxen::render::gl {

/// Hex digits of a GL enum/status.
std::string hex(unsigned v);

/// Drains glGetError; an Error naming `what` and the codes if any was set.
Status check(std::string_view what);

/// A linked program, or an Error with the compiler's log (with the stage name).
/// sources: the text of each stage, concatenated in order (the first should start with #version).
Result<GLuint> build_program(std::string_view name, const std::vector<std::string>& vertex_sources,
                             const std::vector<std::string>& fragment_sources);

/// A linked compute program (GL 4.3), or an Error with the compiler's log.
Result<GLuint> build_compute_program(std::string_view name, const std::vector<std::string>& sources);

/// Owns one GL object name; deletes it with the given function on destruction.
template <void (*Delete)(GLuint)>
class Name {
 public:
  Name() = default;
  explicit Name(GLuint id) : m_id(id) {}
  ~Name() { reset(); }
  Name(Name&& o) noexcept : m_id(std::exchange(o.m_id, 0)) {}
  Name& operator=(Name&& o) noexcept {
    if (this != &o) {
      reset();
      m_id = std::exchange(o.m_id, 0);
    }
    return *this;
  }
  Name(const Name&) = delete;
  Name& operator=(const Name&) = delete;
  GLuint get() const { return m_id; }
  void reset(GLuint id = 0) {
    if (m_id) Delete(m_id);
    m_id = id;
  }

 private:
  GLuint m_id = 0;
};

/// An offscreen render target: an RGBA8 colour and a 24-bit depth renderbuffer on one framebuffer object. Both
/// platforms draw into one, so the renderer's pixels do not depend on the window system's framebuffer format.
class OffscreenTarget {
 public:
  OffscreenTarget() = default;
  ~OffscreenTarget() { destroy(); }
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;
  /// (Re)creates the target at width x height (context current). Errors name the framebuffer status.
  Status create(int width, int height);
  void destroy();
  GLuint fbo() const { return m_fbo; }
  int width() const { return m_width; }
  int height() const { return m_height; }

 private:
  GLuint m_fbo = 0, m_color = 0, m_depth = 0;
  int m_width = 0, m_height = 0;
};

void delete_buffer(GLuint id);
void delete_texture(GLuint id);
void delete_vertex_array(GLuint id);
void delete_program(GLuint id);

using Buffer = Name<delete_buffer>;
using Texture = Name<delete_texture>;
using VertexArray = Name<delete_vertex_array>;
using Program = Name<delete_program>;

}  // namespace voxen::render::gl
