// Platforms: where an OpenGL context comes from (after filament's Platform/Driver split). The renderer above only
// sees this interface and never knows whether it draws into an offscreen framebuffer or a window.
//
//   EglHeadlessPlatform  EGL with the Mesa surfaceless platform (eglGetPlatformDisplayEXT +
//                        EGL_PLATFORM_SURFACELESS_MESA): no display and no GPU needed (Mesa's llvmpipe gives
//                        OpenGL 4.5 core on the CPU). Draws into its own framebuffer object (RGBA8 colour + 24-bit
//                        depth renderbuffers of the requested size); present() is glFinish.
//   GlfwWindowPlatform   a GLFW window (GLX under X11). Draws into the same kind of offscreen framebuffer (resized
//                        with the window), which present() blits to the window's back buffer before swapping, so
//                        the pixels do not depend on the window system's framebuffer format.
//
// GL functions are loaded by libepoxy, which resolves them per context on first use.
// Versions: an explicit request (gl_major > 0) is tried alone; otherwise 4.5, 4.3, then 3.3 core are tried in
// turn and the first that works is used. EGL and GLX may answer a request for X.Y with any later version that is
// backward compatible with it (Mesa gives 4.5 for 3.3), so the context's real version (gl_info()) can be higher than
// the one asked for; MESA_GL_VERSION_OVERRIDE caps Mesa's. The renderer picks its path from the version it got
// (renderer.h). Errors (no EGL, no surfaceless platform, no display, no context of the version asked for, no
// window system) come back as Error values with a message naming what failed and EGL's/GLFW's error code.
// Threads: a platform and its context belong to the thread that created it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <string_view>

#include "voxen/core/error.h"

namespace voxen::render {

/// What to create.
struct PlatformConfig {
  int width = 1280;   // framebuffer pixels
  int height = 720;
  int gl_major = 0;   // 0: best of 4.5, 4.3, 3.3 (core); else only this version is requested (core profile;
                      // the driver may give a later compatible one)
  int gl_minor = 0;
  std::string title = "voxen";  // window title (GlfwWindowPlatform)
  bool visible = true;          // show the window (GlfwWindowPlatform)
  bool vsync = true;            // swap interval 1 (GlfwWindowPlatform)
};

/// The OpenGL version and strings of the current context.
struct GlInfo {
  int major = 0, minor = 0;
  std::string renderer;  // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string vendor;    // GL_VENDOR
  std::string version;   // GL_VERSION
  bool at_least(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
};

class Platform {
 public:
  virtual ~Platform() = default;
  /// "egl-surfaceless" or "glfw".
  virtual std::string_view name() const = 0;
  /// Makes this platform's context current on the calling thread.
  virtual void make_current() = 0;
  /// Shows the finished frame: swap for a window, glFinish for the offscreen framebuffer.
  virtual void present() = 0;
  /// The framebuffer object to draw into (the platform's offscreen target).
  virtual uint32_t framebuffer() const = 0;
  /// Framebuffer size in pixels.
  virtual int width() const = 0;
  virtual int height() const = 0;
  /// Processes window events (and follows a resized window); false once the user asked to close (always true
  /// when headless).
  virtual bool poll_events() { return true; }
  /// Waits up to `seconds` for window events (glfwWaitEventsTimeout), then processes them as poll_events does;
  /// returns at the first event. Headless, where no event comes, it sleeps the whole time (at most 1 s). For a
  /// minimised window, which draws nothing and need not spin.
  virtual bool wait_events(double seconds);
  /// The size in pixels of what the frames are shown on: the window's framebuffer, 0 x 0 while the window is
  /// minimised (iconified); headless, the offscreen framebuffer. A size given to override_shown_size wins.
  void shown_size(int& width, int& height) const;
  /// True while the shown size is 0 x 0 (or either side is 0): nothing drawn would be seen.
  bool minimised() const;
  /// Test hook: shown_size reports `width` x `height` (0 x 0: as if minimised) from now on, whatever the window
  /// does, until clear_shown_size(). The offscreen framebuffer keeps its size.
  void override_shown_size(int width, int height) { m_shown_override = {width, height}; }
  void clear_shown_size() { m_shown_override.reset(); }
  /// The window system's handle (GLFWwindow*) for input handling, or nullptr when headless.
  virtual void* native_handle() const { return nullptr; }
  /// The context's version and strings, queried after creation.
  const GlInfo& gl_info() const { return m_info; }

 protected:
  /// The window's framebuffer size (0 x 0 when minimised); by default the offscreen framebuffer's.
  virtual void native_shown_size(int& w, int& h) const {
    w = width();
    h = height();
  }
  GlInfo m_info;
  std::optional<std::pair<int, int>> m_shown_override;
};

/// Creates the headless EGL platform with an offscreen framebuffer of config.width x config.height.
Result<std::unique_ptr<Platform>> make_egl_headless_platform(const PlatformConfig& config);
/// Creates a GLFW window platform (needs a display: $DISPLAY under X11, e.g. xvfb-run).
Result<std::unique_ptr<Platform>> make_glfw_window_platform(const PlatformConfig& config);
/// Either of the above by name: "egl" (headless) or "glfw" (window).
Result<std::unique_ptr<Platform>> make_platform(std::string_view name, const PlatformConfig& config);

/// Reads GL_VERSION numbers and the renderer strings of the current context.
GlInfo query_gl_info();

/// The current context's first recorded GL error (a GL_* error code; 0 = GL_NO_ERROR: none) since the last call,
/// with the ones recorded after it cleared (glGetError until it says none, at most 64 times, so a lost context
/// cannot hang the caller). Call it before a piece of work to start clean and after it to learn whether the work
/// raised one (the game does, every frame).
uint32_t take_gl_error();

}  // namespace voxen::render
