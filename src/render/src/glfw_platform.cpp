// GLFW window platform: see platform.h. GLX under X11 (GLFW's default context API there).
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gl_util.h"
#include "voxen/render/platform.h"

namespace voxen::render {
namespace {

std::string glfw_error() {
  const char* desc = nullptr;
  const int code = glfwGetError(&desc);
  if (code == GLFW_NO_ERROR) return "no GLFW error reported";
  char buf[24];
  std::snprintf(buf, sizeof buf, "GLFW error 0x%05x", static_cast<unsigned>(code));
  return std::string(buf) + ": " + (desc ? desc : "");
}

class GlfwWindowPlatform final : public Platform {
 public:
  ~GlfwWindowPlatform() override {
    if (m_window) {
      glfwMakeContextCurrent(m_window);
      m_target.destroy();
      glfwDestroyWindow(m_window);
    }
    if (m_initialized) glfwTerminate();
  }

  Status init(const PlatformConfig& cfg) {
    if (cfg.width <= 0 || cfg.height <= 0)
      return Error{"GLFW window: size " + std::to_string(cfg.width) + "x" + std::to_string(cfg.height) + " is not positive"};
    if (!glfwInit()) return Error{"GLFW window: glfwInit failed (no display? set DISPLAY or use xvfb-run): " + glfw_error()};
    m_initialized = true;
    std::vector<std::pair<int, int>> versions;
    if (cfg.gl_major > 0) versions.push_back({cfg.gl_major, cfg.gl_minor});
    else versions = {{4, 5}, {4, 3}, {3, 3}};
    std::string tried;
    for (auto [maj, min] : versions) {
      glfwDefaultWindowHints();
      glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, maj);
      glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, min);
      glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
      glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
      glfwWindowHint(GLFW_RED_BITS, 8);
      glfwWindowHint(GLFW_GREEN_BITS, 8);
      glfwWindowHint(GLFW_BLUE_BITS, 8);
      glfwWindowHint(GLFW_ALPHA_BITS, 8);
      glfwWindowHint(GLFW_DEPTH_BITS, 24);
      glfwWindowHint(GLFW_STENCIL_BITS, 8);  // the far pass marks its pixels (Renderer::read_depth)
      glfwWindowHint(GLFW_VISIBLE, cfg.visible ? GLFW_TRUE : GLFW_FALSE);
      m_window = glfwCreateWindow(cfg.width, cfg.height, cfg.title.c_str(), nullptr, nullptr);
      if (m_window) break;
      tried += (tried.empty() ? "" : "; ") + std::to_string(maj) + "." + std::to_string(min) + ": " + glfw_error();
    }
    if (!m_window)
      return Error{"GLFW window: could not create a window with an OpenGL " +
                   (cfg.gl_major > 0 ? std::to_string(cfg.gl_major) + "." + std::to_string(cfg.gl_minor)
                                     : std::string("4.5, 4.3 or 3.3")) +
                   " core context (" + tried + ")"};
    glfwMakeContextCurrent(m_window);
    glfwSwapInterval(cfg.vsync ? 1 : 0);
    m_info = query_gl_info();
    return resize_target();
  }

  std::string_view name() const override { return "glfw"; }
  void make_current() override { glfwMakeContextCurrent(m_window); }
  /// Copies the offscreen target to the window's back buffer and swaps.
  void present() override {
    int w = 0, h = 0;
    glfwGetFramebufferSize(m_window, &w, &h);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, m_target.fbo());
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitFramebuffer(0, 0, m_target.width(), m_target.height(), 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glfwSwapBuffers(m_window);
  }
  uint32_t framebuffer() const override { return m_target.fbo(); }
  int width() const override { return m_target.width(); }
  int height() const override { return m_target.height(); }
  bool poll_events() override {
    glfwPollEvents();
    int w = 0, h = 0;
    glfwGetFramebufferSize(m_window, &w, &h);
    if (w > 0 && h > 0 && (w != m_target.width() || h != m_target.height())) (void)resize_target();
    return !glfwWindowShouldClose(m_window);
  }
  bool wait_events(double seconds) override {
    glfwWaitEventsTimeout(std::max(seconds, 0.0));
    return poll_events();
  }
  void* native_handle() const override { return m_window; }

 protected:
  void native_shown_size(int& w, int& h) const override {
    w = h = 0;
    if (glfwGetWindowAttrib(m_window, GLFW_ICONIFIED)) return;
    glfwGetFramebufferSize(m_window, &w, &h);
  }

 private:
  // The renderer draws into an offscreen RGBA8 target the size of the window's framebuffer, exactly as headless,
  // so both platforms give the same pixels; present() blits it to the window.
  Status resize_target() {
    int w = 0, h = 0;
    glfwGetFramebufferSize(m_window, &w, &h);
    if (auto st = m_target.create(std::max(w, 1), std::max(h, 1)); !st.ok()) return Error{"GLFW window: " + st.error().message};
    return Ok{};
  }

  GLFWwindow* m_window = nullptr;
  bool m_initialized = false;
  gl::OffscreenTarget m_target;
};

}  // namespace

Result<std::unique_ptr<Platform>> make_glfw_window_platform(const PlatformConfig& config) {
  auto p = std::make_unique<GlfwWindowPlatform>();
  if (auto s = p->init(config); !s.ok()) return s.error();
  return std::unique_ptr<Platform>(std::move(p));
}

}  // namespace voxen::render
