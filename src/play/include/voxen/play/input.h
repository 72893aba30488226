// Input as values: every key, button, mouse motion, wheel step and frame time the game reacts to is an InputEvent,
// and ONE function, InputHandler::handle, turns events into the controls the frame loop reads. The GLFW callbacks
// (window_input.h) only translate the window system's events into InputEvents and queue them; replays, the fuzzer
// and the perf tour hand the same handler the events of a recording or a script. So a play-through is a list of
// events with their frame numbers, and running the list through the same handler and frame loop reproduces it.
//
// Units: mouse motion in screen pixels (right and down positive), wheel in steps (positive away from the user),
// angles in degrees (yaw 0 looks north, -Z; 90 east, +X; pitch positive up, as render::Camera), positions in world
// blocks, times in seconds of simulation.
// Threads: plain values; an InputHandler belongs to the frame loop's thread.
#pragma once

#include <bitset>
#include <cstdint>
#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace voxen::play {

/// The keys the game reacts to, independent of the window system.
enum class Key : uint8_t {
  kW, kA, kS, kD,       // move forward, left, back, right
  kSpace,               // jump; fly up; a double tap toggles flying
  kShift,               // crouch (walking: slow, never off an edge); fly down
  kCtrl,                // sprint
  kEscape,              // release the cursor
  kF,                   // toggle flying
  kF2,                  // save a screenshot
  kF3,                  // toggle the debug overlay
  k1, k2, k3, k4, k5, k6, k7, k8, k9,  // hotbar slots
  kB,                   // blast: clear a ball of HandlerConfig::blast_radius blocks round the targeted block
  kG,                   // flood: the dam-break scenario (sim/scenario.h) at the targeted block: a lake whose wall opens
  kCount
};
inline constexpr int kKeyCount = static_cast<int>(Key::kCount);

enum class MouseButton : uint8_t { kLeft, kRight, kMiddle, kCount };
inline constexpr int kButtonCount = static_cast<int>(MouseButton::kCount);

/// What an event is; which of code/x/y/z it uses is listed per kind.
enum class EventKind : uint8_t {
  kKeyDown,     // code = Key
  kKeyUp,       // code = Key
  kButtonDown,  // code = MouseButton
  kButtonUp,    // code = MouseButton
  kMouseMove,   // x, y = cursor motion in pixels (right, down)
  kScroll,      // y = wheel steps (positive: away from the user, selects the previous slot)
  kFrameTime,   // x = seconds the frames from this one on simulate (live play measures them; headless modes use
                //     the recording's default step and never send this)
  kTeleport,    // x, y, z = the feet's world position (blocks); velocity is zeroed (scripts: tour, tests)
  kLook,        // x = yaw, y = pitch (degrees, absolute) (scripts)
  kSetFly,      // code = 1 fly, 0 walk (scripts)
  kFlySpeed,    // x = flying speed in blocks/s, 0 = the default (scripts: the tour's 40 and 112 blocks/s)
  kBlast,       // x, y, z = the centre's world block, code = radius in blocks, 1..kMaxBlastRadius (scripts: the
                //     tour's edit storm; the B key blasts at the targeted block instead)
  kScenario,    // x, z = the site's world block, code = index in sim::scenario_names() (scripts: the tour's flood;
                //     the G key builds the dam-break at the targeted block instead)
  kCount
};

/// The largest blast radius, blocks (a radius-32 ball underground is about 140,000 edits).
inline constexpr int kMaxBlastRadius = 32;

/// One input event: the frame it belongs to (handled at the start of that frame, before the simulation step) and
/// its value. Plain data; equality compares every field bit for bit.
struct InputEvent {
  uint64_t frame = 0;
  EventKind kind = EventKind::kKeyDown;
  int32_t code = 0;
  double x = 0, y = 0, z = 0;
  friend bool operator==(const InputEvent&, const InputEvent&) = default;
};

/// Names used by the recording format and messages: "w", "space", "f3", "1" ...; "left", "right", "middle";
/// "key_down", "mouse", "teleport" ... Empty for values out of range.
std::string_view key_name(Key key);
std::string_view button_name(MouseButton button);
std::string_view event_kind_name(EventKind kind);
/// Inverse lookups; nullopt for unknown names.
std::optional<Key> parse_key(std::string_view name);
std::optional<MouseButton> parse_button(std::string_view name);
std::optional<EventKind> parse_event_kind(std::string_view name);

/// The hotbar: slot 0..8 (keys 1..9) holds, in order, stone, dirt, planks, glass, torch, water, sand, glowstone,
/// stone_stairs (placed facing the player).
inline constexpr int kHotbarSlots = 9;
inline constexpr std::string_view kHotbarBlocks[kHotbarSlots] = {"stone", "dirt",     "planks",   "glass",       "torch",
                                                                 "water", "sand",     "glowstone", "stone_stairs"};

/// Tunables of the handler.
struct HandlerConfig {
  double mouse_degrees_per_pixel = 0.15;  // look sensitivity
  double double_tap_seconds = 0.30;       // two Space presses closer than this toggle flying
  double max_pitch = 89.9;                // |pitch| limit, degrees
  int blast_radius = 8;                   // the B key's blast, blocks (1..kMaxBlastRadius; about 2,100 blocks
                                          // of solid ground)
};

/// The controls the frame loop reads: what is held, where the player looks, and one-shot requests that the loop
/// consumes (InputHandler::take_requests) once per frame.
struct Controls {
  std::bitset<kKeyCount> held;           // keys down now
  std::bitset<kButtonCount> buttons;     // buttons down now
  double yaw = 0.0, pitch = 0.0;         // degrees (the player's look)
  bool cursor_captured = true;           // mouse look and clicks act only while captured
  int slot = 0;                          // hotbar slot 0..8
  bool overlay = false;                  // F3 debug overlay shown
  double frame_seconds = 1.0 / 60.0;     // simulated seconds per frame (kFrameTime changes it); the physics
                                         // takes the fixed steps (player.h kPhysicsStep) they make due
  bool held_key(Key k) const { return held[static_cast<size_t>(k)]; }
};

/// One-shot requests gathered from a frame's events.
struct Requests {
  int breaks = 0;                        // left clicks while captured: remove the targeted block
  int places = 0;                        // right clicks while captured: place the selected block
  bool toggle_fly = false;               // F or a Space double tap (an even number of toggles cancels out)
  std::optional<bool> set_fly;           // kSetFly
  std::optional<double> fly_speed;       // kFlySpeed
  std::optional<double> teleport[3];     // kTeleport (all three set together)
  bool screenshot = false;               // F2
  /// Blasts, in the order asked: a centre (world block) from a kBlast event, or none for the B key (the targeted
  /// block, if any), and the radius in blocks.
  struct Blast {
    std::optional<std::array<int64_t, 3>> centre;
    int radius = 0;
    friend bool operator==(const Blast&, const Blast&) = default;
  };
  std::vector<Blast> blasts;
  /// Scenarios to build, in the order asked: a site (world x, z) from a kScenario event, or none for the G key (the
  /// targeted block, if any), and the index in sim::scenario_names().
  struct Scenario {
    std::optional<std::array<int64_t, 2>> site;
    int index = 0;
    friend bool operator==(const Scenario&, const Scenario&) = default;
  };
  std::vector<Scenario> scenarios;
  bool any_teleport() const { return teleport[0].has_value(); }
};

/// The one input handler. Events must come in frame order; begin_frame() tells it the frame and simulation time
/// they belong to (for the double tap).
class InputHandler {
 public:
  explicit InputHandler(HandlerConfig config = {}) : m_config(config) {}

  /// Starts a frame: `frame` number and the simulation time in seconds at its start.
  void begin_frame(uint64_t frame, double sim_time) {
    m_frame = frame;
    m_time = sim_time;
  }
  /// Applies one event to the controls (and the requests). Out-of-range codes are ignored. Non-finite numbers
  /// are ignored (the recording reader rejects them first).
  void handle(const InputEvent& e);
  /// The requests gathered since the last call, and clears them.
  Requests take_requests();

  const Controls& controls() const { return m_controls; }
  /// Sets the look (the loop does this when it places the player at spawn).
  void set_look(double yaw, double pitch);
  const HandlerConfig& config() const { return m_config; }

 private:
  HandlerConfig m_config;
  Controls m_controls;
  Requests m_requests;
  uint64_t m_frame = 0;
  double m_time = 0.0;
  double m_last_space = -1e300;  // simulation time of the last Space press
};

}  // namespace voxen::play
