// The player: an axis-aligned box 0.6 x 1.8 x 0.6 blocks standing on its feet position, with gravity, jumping,
// walking, sprinting, crouching and flying, moved by swept collision against every solid cell (collision.h).
//
// Position: the centre of the box's bottom face ("the feet"), as an int64 world block plus a fraction in [0, 1) per
// axis (the floating origin of render::Camera): each step computes in doubles relative to the feet's block, so the
// physics is the same at the origin and 2^40 blocks out. The eye is eye_height above the feet.
// A step (step_player):
//   1. velocity from the intent: walking sets the horizontal velocity toward the wish direction (yaw-relative,
//      normalised) at walk speed (x1.3 sprinting, x0.3 crouching), quickly on the ground, slowly in the air;
//      gravity pulls down to a terminal speed; Space on the ground jumps (about 1.27 blocks high). Flying has no
//      gravity and moves along the wish direction, Space up, Shift down, at fly speed (x2 sprinting).
//   2. motion = velocity x dt, sub-stepped so no sub-step moves more than 0.45 block on any axis, each sub-step
//      swept Y, X, Z against the boxes of its region; a clipped axis loses its velocity.
//   3. step-up (Minecraft's rule): on the ground and not flying, when a horizontal move is clipped, the same move
//      is tried lifted by up to step_height (0.5: a slab, a stair's step) and set down again; the lifted try is
//      kept when it gets further.
//   4. crouching on the ground never walks off an edge higher than step_height (the move is shortened in 0.05
//      steps until there is support below).
// Threads: pure functions of their arguments.
#pragma once

#include <glm/glm.hpp>

#include "voxen/core/coords.h"
#include "voxen/play/collision.h"

namespace voxen::play {

/// Physical constants (blocks, seconds).
struct PlayerConfig {
  double width = 0.6;             // box x and z extent
  double height = 1.8;            // box y extent
  double eye_height = 1.62;       // eye above the feet
  double gravity = 32.0;          // blocks/s^2
  double terminal_speed = 78.4;   // fastest fall, blocks/s
  double jump_speed = 9.0;        // initial upward speed of a jump (height v^2 / 2g ~ 1.27 blocks)
  double walk_speed = 4.317;
  double sprint_factor = 1.3;
  double crouch_factor = 0.3;
  double fly_speed = 10.92;       // default flying speed (kFlySpeed overrides it)
  double fly_sprint_factor = 2.0;
  double ground_accel = 40.0;     // 1/s: fraction of the velocity change reached per second, on the ground
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
};

/// Unit horizontal forward (toward yaw) and right vectors in world space: yaw 0 looks -Z, 90 looks +X.
glm::dvec3 horizontal_forward(double yaw_deg);
glm::dvec3 horizontal_right(double yaw_deg);
/// Unit view direction for yaw and pitch (pitch positive looks up).
glm::dvec3 look_direction(double yaw_deg, double pitch_deg);

/// Advances the player by dt seconds (0 < dt <= 1; larger values are clamped to 1) against `world`.
void step_player(PlayerState& p, const MoveIntent& intent, double dt, const CollisionWorld& world, const PlayerConfig& cfg);

/// True if the player's box overlaps a loaded solid cell (the invariant the fuzzer checks).
bool player_inside_solid(const PlayerState& p, const CollisionWorld& world, const PlayerConfig& cfg);

}  // namespace voxen::play
