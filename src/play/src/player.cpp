#include "voxen/play/player.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace voxen::play {
namespace {

constexpr double kPi = 3.14159265358979323846;

Aabb union_of(const Aabb& a, const Aabb& b) { return {glm::min(a.min, b.min), glm::max(a.max, b.max)}; }

bool finite(const glm::dvec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// True if `box` has something to stand on within `depth` below it.
bool supported(const Aabb& box, double depth, const BlockPos& origin, const CollisionWorld& world, std::vector<Aabb>& obs) {
  obs.clear();
  world.collect(origin, union_of(box, box.moved({0.0, -depth, 0.0})), obs);
  return clip_axis(box, 1, -depth, obs) > -depth;
}

// Shortens a crouching player's horizontal move so the box keeps support within step_height below it (Minecraft's
// sneak edge rule: x alone, z alone, then both, each shrunk in 0.05 steps toward 0).
void guard_edge(const Aabb& box, glm::dvec3& d, double depth, const BlockPos& origin, const CollisionWorld& world,
                std::vector<Aabb>& obs) {
  constexpr double kStep = 0.05;
  auto shrink = [&](double v) { return std::abs(v) < kStep ? 0.0 : v - std::copysign(kStep, v); };
  while (d.x != 0.0 && !supported(box.moved({d.x, 0.0, 0.0}), depth, origin, world, obs)) d.x = shrink(d.x);
  while (d.z != 0.0 && !supported(box.moved({0.0, 0.0, d.z}), depth, origin, world, obs)) d.z = shrink(d.z);
  while (d.x != 0.0 && d.z != 0.0 && !supported(box.moved({d.x, 0.0, d.z}), depth, origin, world, obs)) {
    d.x = shrink(d.x);
    d.z = shrink(d.z);
  }
}

// Exponential approach of a velocity component toward `target` at `rate` (1/s) over dt seconds: the solution of
// dv/dt = rate (target - v). Sets v to its value at dt and returns the distance covered, exactly.
double approach(double& v, double target, double rate, double dt) {
  if (!(rate > 0.0)) return v * dt;  // no acceleration: the velocity holds
  const double decay = std::exp(-rate * dt);
  const double covered = target * dt + (v - target) * (1.0 - decay) / rate;
  v = target + (v - target) * decay;
  return covered;
}

// Vertical motion under gravity g (blocks/s^2) capped at the terminal speed vt over dt seconds: dv/dt = -g while
// v > -vt, then v = -vt (a speed beyond terminal is capped first). Sets v to its value at dt and returns the
// distance covered (positive up), exactly: each step lands on the continuous parabola, whatever dt is.
double fall(double& v, double g, double vt, double dt) {
  v = std::max(v, -vt);
  const double to_terminal = (v + vt) / g;  // seconds until the cap is reached
  if (dt <= to_terminal) {
    const double covered = v * dt - 0.5 * g * dt * dt;
    v -= g * dt;
    return covered;
  }
  const double covered = v * to_terminal - 0.5 * g * to_terminal * to_terminal - vt * (dt - to_terminal);
  v = -vt;
  return covered;
}

}  // namespace

Aabb PlayerState::local_box(const PlayerConfig& cfg) const {
  const double h = cfg.width / 2;
  return {{frac.x - h, frac.y, frac.z - h}, {frac.x + h, frac.y + cfg.height, frac.z + h}};
}

void PlayerState::set_feet(const glm::dvec3& p) {
  const glm::dvec3 f = glm::floor(p);
  block = {static_cast<int64_t>(f.x), static_cast<int64_t>(f.y), static_cast<int64_t>(f.z)};
  frac = p - f;
  normalise();
}

void PlayerState::normalise() {
  for (int a = 0; a < 3; ++a) {
    const double f = std::floor(frac[a]);
    if (f != 0.0) {
      frac[a] -= f;
      const int64_t whole = static_cast<int64_t>(f);
      if (a == 0) block.x += whole;
      if (a == 1) block.y += whole;
      if (a == 2) block.z += whole;
    }
    if (frac[a] >= 1.0) frac[a] = std::nextafter(1.0, 0.0);  // -tiny + 1.0 rounds to 1.0 in doubles
  }
}

glm::dvec3 horizontal_forward(double yaw_deg) {
  const double y = yaw_deg * kPi / 180.0;
  return {std::sin(y), 0.0, -std::cos(y)};
}
glm::dvec3 horizontal_right(double yaw_deg) {
  const double y = yaw_deg * kPi / 180.0;
  return {std::cos(y), 0.0, std::sin(y)};
}
glm::dvec3 look_direction(double yaw_deg, double pitch_deg) {
  const double y = yaw_deg * kPi / 180.0, p = pitch_deg * kPi / 180.0;
  return {std::sin(y) * std::cos(p), std::sin(p), -std::cos(y) * std::cos(p)};
}

void step_player(PlayerState& p, const MoveIntent& in, double dt, const CollisionWorld& world, const PlayerConfig& cfg) {
  if (!(dt > 0.0)) return;
  dt = std::min(dt, 1.0);
  p.normalise();
  const BlockPos origin = p.block;
  Aabb box = p.local_box(cfg);
  const glm::dvec3 start_min = box.min;
  std::vector<Aabb> obs;

  bool grounded = !p.flying && supported(box, 0.01, origin, world, obs);

  // 1. Velocity and motion from the intent, integrated exactly over dt (the continuous model in player.h).
  glm::dvec3 wish = horizontal_forward(p.yaw) * std::clamp(in.forward, -1.0, 1.0) +
                    horizontal_right(p.yaw) * std::clamp(in.strafe, -1.0, 1.0);
  if (const double len = glm::length(wish); len > 1.0) wish /= len;
  glm::dvec3& v = p.velocity;
  if (!finite(v)) v = glm::dvec3(0.0);
  glm::dvec3 delta(0.0);
  if (p.flying) {
    const double speed = (p.fly_speed > 0.0 ? p.fly_speed : cfg.fly_speed) * (in.sprint ? cfg.fly_sprint_factor : 1.0);
    const glm::dvec3 target = wish * speed + glm::dvec3(0.0, (in.jump ? 1.0 : 0.0) - (in.descend ? 1.0 : 0.0), 0.0) * speed;
    for (int a = 0; a < 3; ++a) delta[a] = approach(v[a], target[a], cfg.fly_accel, dt);
  } else {
    const double speed = cfg.walk_speed * (in.descend ? cfg.crouch_factor : (in.sprint ? cfg.sprint_factor : 1.0));
    const glm::dvec3 target = wish * speed;
    const double rate = grounded ? cfg.ground_accel : cfg.air_accel;
    delta.x = approach(v.x, target.x, rate, dt);
    delta.z = approach(v.z, target.z, rate, dt);
    if (in.jump && grounded) v.y = cfg.jump_speed;
    delta.y = fall(v.y, cfg.gravity, cfg.terminal_speed, dt);
  }

  // 2. Sub-stepped sweep of that motion.
  const double longest = std::max({std::abs(delta.x), std::abs(delta.y), std::abs(delta.z)});
  const int n = std::max(1, static_cast<int>(std::ceil(longest / cfg.max_substep)));
  const glm::dvec3 sub_delta = delta / static_cast<double>(n);
  for (int i = 0; i < n; ++i) {
    glm::dvec3 sub = sub_delta;
    if (!p.flying && in.descend && grounded) guard_edge(box, sub, cfg.step_height, origin, world, obs);
    const bool may_step = !p.flying && grounded && cfg.step_height > 0.0;
    Aabb region = union_of(box, box.moved(sub));
    if (may_step) region.max.y += cfg.step_height;
    obs.clear();
    world.collect(origin, region, obs);

    Aabb moved_box = box;
    bool blocked[3];
    const glm::dvec3 moved = sweep(moved_box, sub, obs, blocked);

    // 3. Step-up: the same horizontal move lifted by up to step_height, then set down.
    if (may_step && (blocked[0] || blocked[2])) {
      Aabb st = box;
      const double up = clip_axis(st, 1, cfg.step_height, obs);
      st = st.moved({0.0, up, 0.0});
      const double dx = clip_axis(st, 0, sub.x, obs);
      st = st.moved({dx, 0.0, 0.0});
      const double dz = clip_axis(st, 2, sub.z, obs);
      st = st.moved({0.0, 0.0, dz});
      const double down = clip_axis(st, 1, -up + std::min(sub.y, 0.0), obs);
      st = st.moved({0.0, down, 0.0});
      if (dx * dx + dz * dz > moved.x * moved.x + moved.z * moved.z + 1e-12) {
        moved_box = st;
        blocked[0] = dx != sub.x;
        blocked[2] = dz != sub.z;
        blocked[1] = true;  // set down on the step
      }
    }
    box = moved_box;
    if (blocked[0]) v.x = 0.0;
    if (blocked[2]) v.z = 0.0;
    if (blocked[1]) v.y = 0.0;
    if (blocked[1] && sub.y <= 0.0) grounded = !p.flying;  // landed (or set down on a step)
    else if (sub.y != 0.0) grounded = false;                 // rising, or falling freely
  }

  p.frac += box.min - start_min;
  p.normalise();
  obs.clear();
  const Aabb end_box = p.local_box(cfg);
  p.on_ground = supported(end_box, 0.01, p.block, world, obs);
}

int StepClock::advance(double seconds) {
  if (!(seconds > 0.0) || !std::isfinite(seconds)) return 0;
  m_remainder += std::min(seconds, 1.0) / m_step;
  constexpr double kWhole = 1e-6;  // a remainder this close below a whole step counts as whole (rounding)
  const double whole = std::floor(m_remainder + kWhole);
  m_remainder -= whole;
  return static_cast<int>(whole);
}

bool player_inside_solid(const PlayerState& p, const CollisionWorld& world, const PlayerConfig& cfg) {
  return world.box_inside_solid(p.block, p.local_box(cfg));
}

}  // namespace voxen::play
