// EGL surfaceless platform: see platform.h.
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gl_util.h"
#include "voxen/render/platform.h"

namespace voxen::render {
namespace {

const char* egl_error_name(EGLint e) {
  switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "unknown EGL error";
  }
}

std::string egl_error() {
  const EGLint e = eglGetError();
  char buf[32];
  std::snprintf(buf, sizeof buf, " (0x%04x)", static_cast<unsigned>(e));
  return std::string(egl_error_name(e)) + buf;
}

bool has_word(const char* list, const char* word) {
  if (!list) return false;
  const size_t n = std::strlen(word);
  for (const char* p = list; (p = std::strstr(p, word)) != nullptr; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

class EglHeadlessPlatform final : public Platform {
 public:
  ~EglHeadlessPlatform() override {
    if (m_display != EGL_NO_DISPLAY) {
      if (m_context != EGL_NO_CONTEXT) {
        eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_context);
        m_target.destroy();
        eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(m_display, m_context);
      }
      eglTerminate(m_display);
    }
  }

  Status init(const PlatformConfig& cfg) {
    if (cfg.width <= 0 || cfg.height <= 0 || cfg.width > 16384 || cfg.height > 16384)
      return Error{"EGL headless: framebuffer size " + std::to_string(cfg.width) + "x" + std::to_string(cfg.height) +
                   " is out of range (1..16384)"};
    m_width = cfg.width;
    m_height = cfg.height;
    // Client extensions: querying them needs no display. Missing ones mean libEGL found no Mesa vendor
    // (libegl-mesa0 not installed, or __EGL_VENDOR_LIBRARY_FILENAMES pointing elsewhere).
    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!has_word(client, "EGL_EXT_platform_base") || !has_word(client, "EGL_MESA_platform_surfaceless")) {
      const std::string listed = client && *client ? std::string(client) : std::string("none");
      return Error{"EGL headless: no EGL display: libEGL offers no surfaceless platform (EGL_MESA_platform_surfaceless); "
                   "is Mesa's EGL (package libegl-mesa0) installed and its vendor file found? EGL client extensions: " + listed};
    }
    m_display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (m_display == EGL_NO_DISPLAY) return Error{"EGL headless: no EGL display: eglGetPlatformDisplayEXT(surfaceless) failed: " + egl_error()};
    EGLint major = 0, minor = 0;
    if (!eglInitialize(m_display, &major, &minor)) {
      m_display = EGL_NO_DISPLAY;
      return Error{"EGL headless: no EGL display: eglInitialize failed: " + egl_error()};
    }
    const char* exts = eglQueryString(m_display, EGL_EXTENSIONS);
    if (!has_word(exts, "EGL_KHR_surfaceless_context"))
      return Error{"EGL headless: the display lacks EGL_KHR_surfaceless_context"};
    if (!eglBindAPI(EGL_OPENGL_API)) return Error{"EGL headless: eglBindAPI(EGL_OPENGL_API) failed: " + egl_error()};

    EGLConfig config = nullptr;
    const bool no_config = has_word(exts, "EGL_KHR_no_config_context") || has_word(exts, "EGL_MESA_configless_context");
    if (!no_config) {
      const EGLint attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
      EGLint n = 0;
      if (!eglChooseConfig(m_display, attrs, &config, 1, &n) || n < 1)
        return Error{"EGL headless: no EGL config for desktop OpenGL: " + egl_error()};
    }

    std::vector<std::pair<int, int>> versions;
    if (cfg.gl_major > 0) versions.push_back({cfg.gl_major, cfg.gl_minor});
    else versions = {{4, 5}, {4, 3}, {3, 3}};
    std::string tried;
    for (auto [maj, min] : versions) {
      const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION, maj, EGL_CONTEXT_MINOR_VERSION, min,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
      m_context = eglCreateContext(m_display, no_config ? EGL_NO_CONFIG_KHR : config, EGL_NO_CONTEXT, ctx_attrs);
      if (m_context != EGL_NO_CONTEXT) break;
      tried += (tried.empty() ? "" : ", ") + std::to_string(maj) + "." + std::to_string(min) + ": " + egl_error();
    }
    if (m_context == EGL_NO_CONTEXT)
      return Error{"EGL headless: could not create an OpenGL " +
                   (cfg.gl_major > 0 ? std::to_string(cfg.gl_major) + "." + std::to_string(cfg.gl_minor)
                                     : std::string("4.5, 4.3 or 3.3")) +
                   " core context (" + tried + ")"};
    if (!eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_context))
      return Error{"EGL headless: eglMakeCurrent (surfaceless) failed: " + egl_error()};
    m_info = query_gl_info();
    return create_framebuffer();
  }

  std::string_view name() const override { return "egl-surfaceless"; }
  void make_current() override { eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_context); }
  void present() override { glFinish(); }
  uint32_t framebuffer() const override { return m_target.fbo(); }
  int width() const override { return m_width; }
  int height() const override { return m_height; }

 private:
  Status create_framebuffer() {
    if (auto st = m_target.create(m_width, m_height); !st.ok()) return Error{"EGL headless: " + st.error().message};
    return Ok{};
  }

  EGLDisplay m_display = EGL_NO_DISPLAY;
  EGLContext m_context = EGL_NO_CONTEXT;
  gl::OffscreenTarget m_target;
  int m_width = 0, m_height = 0;
};

}  // namespace

Result<std::unique_ptr<Platform>> make_egl_headless_platform(const PlatformConfig& config) {
  auto p = std::make_unique<EglHeadlessPlatform>();
  if (auto s = p->init(config); !s.ok()) return s.error();
  return std::unique_ptr<Platform>(std::move(p));
}

GlInfo query_gl_info() {
  GlInfo info;
  glGetIntegerv(GL_MAJOR_VERSION, &info.major);
  glGetIntegerv(GL_MINOR_VERSION, &info.minor);
  auto str = [](GLenum e) {
    const auto* s = reinterpret_cast<const char*>(glGetString(e));
    return std::string(s ? s : "");
  };
  info.renderer = str(GL_RENDERER);
  info.vendor = str(GL_VENDOR);
  info.version = str(GL_VERSION);
  return info;
}

uint32_t take_gl_error() {
  const GLenum first = glGetError();
  for (int i = 0; first != GL_NO_ERROR && i < 64 && glGetError() != GL_NO_ERROR; ++i) {
  }
  return first;
}

bool Platform::wait_events(double seconds) {
  if (seconds > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(std::min(seconds, 1.0)));
  return poll_events();
}

void Platform::shown_size(int& width, int& height) const {
  if (m_shown_override) {
    width = m_shown_override->first;
    height = m_shown_override->second;
  } else {
    native_shown_size(width, height);
  }
}

bool Platform::minimised() const {
  int w = 0, h = 0;
  shown_size(w, h);
  return w <= 0 || h <= 0;
}

Result<std::unique_ptr<Platform>> make_platform(std::string_view name, const PlatformConfig& config) {
  if (name == "egl") return make_egl_headless_platform(config);
  if (name == "glfw") return make_glfw_window_platform(config);
  return Error{"unknown platform '" + std::string(name) + "' (expected egl or glfw)"};
}

}  // namespace voxen::render
