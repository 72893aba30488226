// The player: an axis-aligned box 0.6 x 1.8 x 0.6 blocks standing on its feet position, with gravity, jumping,
// walking, sprinting, crouching and flying, moved by swept collision against every solid cell (collision.h).
//
// Position: the centre of the box's bottom face ("the feet"), as an int64 world block plus a fraction in [0, 1) per
// axis (the floating origin of render::Camera): each step computes in doubles relative to the feet's block, so the
// physics is the same at the origin and 2^40 blocks out. The eye is eye_height above the feet.
//
// The continuous model, integrated exactly over each step (so a step of any length lands on the same curve):
//   - horizontal velocity approaches the wish velocity (yaw-relative, normalised; walk speed, x1.3 sprinting, x0.3
//     crouching) exponentially, dv/dt = k (target - v), k = ground_accel on the ground, air_accel in the air;
//   - vertical: gravity g down to a terminal speed, dv/dt = -g while v > -terminal; Space on the ground sets
//     v = jump_speed, so a jump rises jump_speed^2 / (2 g) = 81/64 = 1.265625 blocks (no drag);
//   - flying: no gravity; the velocity approaches the wish direction (Space up, Shift down) at fly speed (x2
//     sprinting) exponentially with k = fly_accel.
// The game advances the player in fixed steps of kPhysicsStep seconds (StepClock below; "Fix Your Timestep!",
// Glenn Fiedler, 2004), whatever the frame time, and draws the eye interpolated between the last two steps, so
// movement, jump heights and collisions do not depend on the frame rate. A step (step_player):
//   1. velocity and motion from the intent, exactly as above (the jump, on the ground, starts the step);
//   2. the motion sub-stepped so no sub-step moves more than 0.45 block on any axis, each sub-step swept Y, X, Z
//      against the boxes of its region; a clipped axis loses its velocity;
//   3. step-up (Minecraft's rule): on the ground and not flying, when a horizontal move is clipped, the same move
//      is tried lifted by up to step_height (0.5: a slab, a stair's step) and set down again; the lifted try is
//      kept when it gets further;
//   4. crouching on the ground never walks off an edge higher than step_height (the move is shortened in 0.05
//      steps until there is support below).
// Threads: pure functions of their arguments.
#pragma once

#include <algorithm>

#include <glm/glm.hpp>

#include "voxen/core/coords.h"
#include "voxen/play/collision.h"

namespace voxen::play {

/// The game's physics step in seconds: 1/240 (a jump's apex is sampled within g h^2 / 8 < 0.0001 block of the
/// continuous one). Recordings do not carry it: it is part of the game's rules.
inline constexpr double kPhysicsStep = 1.0 / 240.0;

/// Physical constants (blocks, seconds).
struct PlayerConfig {
  double width = 0.6;             // box x and z extent
  double height = 1.8;            // box y extent
  double eye_height = 1.62;       // eye above the feet
  double gravity = 32.0;          // blocks/s^2
  double terminal_speed = 78.4;   // fastest fall, blocks/s
  double jump_speed = 9.0;        // initial upward speed of a jump (height v^2 / 2g = 1.265625 blocks)
  double walk_speed = 4.317;
  double sprint_factor = 1.3;
  double crouch_factor = 0.3;
  double fly_speed = 10.92;       // default flying speed (kFlySpeed overrides it)
  double fly_sprint_factor = 2.0;
  double ground_accel = 40.0;     // 1/s: rate k of the velocity's exponential approach, on the ground
  double air_accel = 8.0;         // 1/s: the same in the air
  double fly_accel = 20.0;        // 1/s: the same when flying
  double step_height = 0.5;       // highest ledge walked up without jumping
  double max_substep = 0.45;      // longest sub-step motion on any axis
};

/// What the controls ask of the player this step (input.h Controls, read by the frame loop).
struct MoveIntent {
  double forward = 0;   // -1..1 (W +1, S -1)
  double strafe = 0;    // -1..1 (D +1, A -1)
  bool jump = false;    // Space held: jump, or fly up
  bool descend = false; // Shift held: crouch, or fly down
  bool sprint = false;  // Ctrl held
};

/// The player's state; plain value.
struct PlayerState {
  BlockPos block;                        // feet: integer part (world blocks)
  glm::dvec3 frac{0.5, 0.0, 0.5};        // feet: fractional part, each in [0, 1)
  glm::dvec3 velocity{0.0};              // blocks/s
  double yaw = 0.0, pitch = 0.0;         // degrees (render::Camera's convention)
  bool flying = false;
  bool on_ground = false;                // resting on something after the last step
  double fly_speed = 0.0;                // blocks/s; 0 = PlayerConfig::fly_speed

  /// The box relative to the feet's block (min corner at frac - (w/2, 0, w/2)).
  Aabb local_box(const PlayerConfig& cfg) const;
  /// Feet position as doubles (exact only for coordinates below 2^53; for reports and tests).
  glm::dvec3 feet() const { return glm::dvec3(block.x, block.y, block.z) + frac; }
  /// Places the feet at a world position given as doubles (split into block + fraction).
  void set_feet(const glm::dvec3& p);
  /// Makes frac lie in [0, 1) again, moving whole blocks into `block`.
  void normalise();
  friend bool operator==(const PlayerState&, const PlayerState&) = default;
};

/// Unit horizontal forward (toward yaw) and right vectors in world space: yaw 0 looks -Z, 90 looks +X.
glm::dvec3 horizontal_forward(double yaw_deg);
glm::dvec3 horizontal_right(double yaw_deg);
/// Unit view direction for yaw and pitch (pitch positive looks up).
glm::dvec3 look_direction(double yaw_deg, double pitch_deg);

/// Advances the player by one step of dt seconds (0 < dt <= 1; larger values are clamped to 1) against `world`,
/// the intent held for the whole step. The game calls it with kPhysicsStep (StepClock); any dt integrates the
/// same continuous model, but where the ground is touched, left or jumped from is resolved once per step.
void step_player(PlayerState& p, const MoveIntent& intent, double dt, const CollisionWorld& world, const PlayerConfig& cfg);

/// True if the player's box overlaps a loaded solid cell (the invariant the fuzzer checks).
bool player_inside_solid(const PlayerState& p, const CollisionWorld& world, const PlayerConfig& cfg);

/// Fixed-step simulation clock (Fiedler, "Fix Your Timestep!"): frame times are accumulated and the simulation
/// advances in whole steps; the remainder carries to the next frame, and the fraction of a step it makes weighs
/// the drawn state between the last two steps. The remainder is kept in steps, in [0, 1), so its rounding does not
/// grow with the total time, and a remainder within 1e-6 step of a whole step counts as whole: frame times that
/// are whole numbers of steps (1/60 or 1/30 s with 1/240 s steps) give exactly those steps despite rounding, and
/// an event at a time that is a whole number of steps meets the same simulation state at any frame pacing.
class StepClock {
 public:
  /// `step` in seconds (> 0).
  explicit StepClock(double step = kPhysicsStep) : m_step(step) {}
  /// Adds a frame of `seconds` (negative or non-finite counts as 0, more than 1 as 1: the bound of a kFrameTime
  /// event) and returns the whole steps now due, which leave the remainder.
  int advance(double seconds);
  /// The remainder as a fraction of a step, in [0, 1): how far the frame's end lies past the last step.
  double fraction() const { return std::clamp(m_remainder, 0.0, 1.0); }
  double step() const { return m_step; }

 private:
  double m_step;
  double m_remainder = 0.0;  // steps; may dip to -1e-6 after a step counted as whole
};

}  // namespace voxen::play
