// The window's input: GLFW callbacks that only translate key, button, cursor and wheel events into InputEvents
// (input.h) and queue them for the frame loop, which hands them to the one InputHandler (and to the recording).
// Nothing here decides what an event does. Also the cursor mode (captured while Controls::cursor_captured, released
// by Esc) and the frame pacer.
//
// Translation: W A S D, Space, either Shift, either Ctrl, Esc, F, F2, F3 and 1..9 (top row and keypad) become Key
// events (GLFW key repeats are dropped); left, right and middle buttons; cursor motion becomes the difference
// from the last cursor position in pixels (the first motion after capture is dropped so the view does not jump);
// the vertical wheel offset becomes kScroll. When the window loses focus, every held key and button gets its
// release event, so nothing stays held.
// Threads: GLFW's: the thread that created the window, inside Platform::poll_events.
#pragma once

#include <cstdint>
#include <vector>

#include "voxen/play/input.h"

struct GLFWwindow;

namespace voxen::play {

class WindowInput {
 public:
  /// Installs the callbacks on the window of the calling thread's current GLFW context (GlfwWindowPlatform makes
  /// its window's context current). Returns false if there is none.
  bool attach();
  ~WindowInput();

  /// The events queued since the last call, stamped with `frame`.
  std::vector<InputEvent> take(uint64_t frame);
  /// Captures (hidden cursor, raw motion where supported) or releases the cursor.
  void set_captured(bool captured);
  /// The monitor's refresh rate in Hz (0 if unknown).
  int refresh_rate() const;

 private:
  static void on_key(GLFWwindow* w, int key, int scancode, int action, int mods);
  static void on_button(GLFWwindow* w, int button, int action, int mods);
  static void on_cursor(GLFWwindow* w, double x, double y);
  static void on_scroll(GLFWwindow* w, double dx, double dy);
  static void on_focus(GLFWwindow* w, int focused);
  void push(EventKind kind, int code, double x = 0, double y = 0);

  GLFWwindow* m_window = nullptr;
  std::vector<InputEvent> m_queue;
  bool m_have_cursor = false;
  double m_cursor_x = 0, m_cursor_y = 0;
  bool m_captured = false;
  bool m_held_keys[kKeyCount] = {};
  bool m_held_buttons[kButtonCount] = {};
};

/// Paces frames to a target rate with vsync off (VoxelBlox: sleep, then spin the last ~1.5 ms).
class FramePacer {
 public:
  /// `fps` <= 0 disables pacing.
  explicit FramePacer(double fps, double spin_ms = 1.5);
  /// Call once per frame, after present: waits until one period after the previous frame's start (sleeping, then
  /// spinning the last spin_ms); a frame that ran late does not wait, and the schedule restarts from it so late
  /// frames do not make the next ones hurry.
  void wait();
  double period_ms() const { return m_period_ms; }

 private:
  double m_period_ms;
  double m_spin_ms;
  double m_next_ms = -1;
};

}  // namespace voxen::play
