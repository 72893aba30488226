#include "voxen/play/window_input.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <thread>

#include "voxen/core/clock.h"

namespace voxen::play {
namespace {

int translate_key(int key) {
  switch (key) {
    case GLFW_KEY_W: return static_cast<int>(Key::kW);
    case GLFW_KEY_A: return static_cast<int>(Key::kA);
    case GLFW_KEY_S: return static_cast<int>(Key::kS);
    case GLFW_KEY_D: return static_cast<int>(Key::kD);
    case GLFW_KEY_SPACE: return static_cast<int>(Key::kSpace);
    case GLFW_KEY_LEFT_SHIFT:
    case GLFW_KEY_RIGHT_SHIFT: return static_cast<int>(Key::kShift);
    case GLFW_KEY_LEFT_CONTROL:
    case GLFW_KEY_RIGHT_CONTROL: return static_cast<int>(Key::kCtrl);
    case GLFW_KEY_ESCAPE: return static_cast<int>(Key::kEscape);
    case GLFW_KEY_F: return static_cast<int>(Key::kF);
    case GLFW_KEY_F2: return static_cast<int>(Key::kF2);
    case GLFW_KEY_F3: return static_cast<int>(Key::kF3);
    case GLFW_KEY_B: return static_cast<int>(Key::kB);
    case GLFW_KEY_G: return static_cast<int>(Key::kG);
    default: break;
  }
  if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) return static_cast<int>(Key::k1) + (key - GLFW_KEY_1);
  if (key >= GLFW_KEY_KP_1 && key <= GLFW_KEY_KP_9) return static_cast<int>(Key::k1) + (key - GLFW_KEY_KP_1);
  return -1;
}

int translate_button(int button) {
  switch (button) {
    case GLFW_MOUSE_BUTTON_LEFT: return static_cast<int>(MouseButton::kLeft);
    case GLFW_MOUSE_BUTTON_RIGHT: return static_cast<int>(MouseButton::kRight);
    case GLFW_MOUSE_BUTTON_MIDDLE: return static_cast<int>(MouseButton::kMiddle);
    default: return -1;
  }
}

WindowInput* self(GLFWwindow* w) { return static_cast<WindowInput*>(glfwGetWindowUserPointer(w)); }


}  // namespace

bool WindowInput::attach() {
  m_window = glfwGetCurrentContext();
  if (!m_window) return false;
  glfwSetWindowUserPointer(m_window, this);
  glfwSetKeyCallback(m_window, &WindowInput::on_key);
  glfwSetMouseButtonCallback(m_window, &WindowInput::on_button);
  glfwSetCursorPosCallback(m_window, &WindowInput::on_cursor);
  glfwSetScrollCallback(m_window, &WindowInput::on_scroll);
  glfwSetWindowFocusCallback(m_window, &WindowInput::on_focus);
  return true;
}

WindowInput::~WindowInput() {
  if (!m_window) return;
  glfwSetKeyCallback(m_window, nullptr);
  glfwSetMouseButtonCallback(m_window, nullptr);
  glfwSetCursorPosCallback(m_window, nullptr);
  glfwSetScrollCallback(m_window, nullptr);
  glfwSetWindowFocusCallback(m_window, nullptr);
  glfwSetWindowUserPointer(m_window, nullptr);
}

void WindowInput::push(EventKind kind, int code, double x, double y) {
  InputEvent e;
  e.kind = kind;
  e.code = code;
  e.x = x;
  e.y = y;
  m_queue.push_back(e);
}

std::vector<InputEvent> WindowInput::take(uint64_t frame) {
  std::vector<InputEvent> out;
  out.swap(m_queue);
  for (InputEvent& e : out) e.frame = frame;
  return out;
}

void WindowInput::set_captured(bool captured) {
  if (!m_window || captured == m_captured) return;
  m_captured = captured;
  glfwSetInputMode(m_window, GLFW_CURSOR, captured ? GLFW_CURSOR_DISABLED : GLFW_CURSOR_NORMAL);
  if (glfwRawMouseMotionSupported()) glfwSetInputMode(m_window, GLFW_RAW_MOUSE_MOTION, captured ? GLFW_TRUE : GLFW_FALSE);
  m_have_cursor = false;  // the next motion re-anchors
}

int WindowInput::refresh_rate() const {
  GLFWmonitor* m = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = m ? glfwGetVideoMode(m) : nullptr;
  return mode ? mode->refreshRate : 0;
}

void WindowInput::on_key(GLFWwindow* w, int key, int, int action, int) {
  WindowInput* in = self(w);
  const int k = translate_key(key);
  if (!in || k < 0 || action == GLFW_REPEAT) return;
  const bool down = action == GLFW_PRESS;
  if (down == in->m_held_keys[k]) return;  // both shifts, or a release we already sent
  in->m_held_keys[k] = down;
  in->push(down ? EventKind::kKeyDown : EventKind::kKeyUp, k);
}

void WindowInput::on_button(GLFWwindow* w, int button, int action, int) {
  WindowInput* in = self(w);
  const int b = translate_button(button);
  if (!in || b < 0) return;
  const bool down = action == GLFW_PRESS;
  if (down == in->m_held_buttons[b]) return;
  in->m_held_buttons[b] = down;
  in->push(down ? EventKind::kButtonDown : EventKind::kButtonUp, b);
}

void WindowInput::on_cursor(GLFWwindow* w, double x, double y) {
  WindowInput* in = self(w);
  if (!in) return;
  if (in->m_have_cursor && (x != in->m_cursor_x || y != in->m_cursor_y))
    in->push(EventKind::kMouseMove, 0, x - in->m_cursor_x, y - in->m_cursor_y);
  in->m_have_cursor = true;
  in->m_cursor_x = x;
  in->m_cursor_y = y;
}

void WindowInput::on_scroll(GLFWwindow* w, double, double dy) {
  WindowInput* in = self(w);
  if (in && dy != 0.0) in->push(EventKind::kScroll, 0, 0.0, dy);
}

void WindowInput::on_focus(GLFWwindow* w, int focused) {
  WindowInput* in = self(w);
  if (!in || focused) return;
  for (int k = 0; k < kKeyCount; ++k)
    if (in->m_held_keys[k]) {
      in->m_held_keys[k] = false;
      in->push(EventKind::kKeyUp, k);
    }
  for (int b = 0; b < kButtonCount; ++b)
    if (in->m_held_buttons[b]) {
      in->m_held_buttons[b] = false;
      in->push(EventKind::kButtonUp, b);
    }
}

FramePacer::FramePacer(double fps, double spin_ms) : m_period_ms(fps > 0 ? 1000.0 / fps : 0.0), m_spin_ms(spin_ms) {}

void FramePacer::wait() {
  if (m_period_ms <= 0) return;
  const double now = wall_ms();
  const double target = m_next_ms + m_period_ms;
  if (m_next_ms < 0 || now >= target) {  // the first frame, or a late one: no wait, the schedule restarts now
    m_next_ms = now;
    return;
  }
  if (const double left = target - m_spin_ms - now; left > 0)
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(left));
  while (wall_ms() < target) {
  }
  m_next_ms = target;
}

}  // namespace voxen::play
