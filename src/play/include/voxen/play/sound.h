// The game's sounds, seen from the game: what the player does and what is near it, told to a SoundSink. The game
// never plays anything itself (play makes no audio call, as it makes no GL call): `voxen play` gives it a
// MixerSoundSink over an audio::Mixer (OpenAL Soft, or silent), tests give it one that records, and replays, tours
// and the fuzzer give it none (Game::set_sound_sink; nothing is computed then).
//
// What is told (SoundDirector), all in world blocks, Y up:
//   - footsteps: every kStride blocks walked horizontally while on the ground (before and after a physics step,
//     not flying), the material (audio/material.h) of the block under the feet (the cell just below the feet's
//     centre, else below one of the box's four bottom corners), at the feet;
//   - digging and placing: the player's own break and place clicks that applied (not blasts, scenarios, the
//     simulation's changes or a server's edits), the material of the block broken / placed, at its cell;
//   - ambience: the nearest water and lava cells (registry names "water" and "lava", any level) within
//     SoundConfig::ambience_radius of the eye (a cube), nearest first, at most audio::kMaxEmitters of each,
//     rescanned every SoundConfig::rescan_frames frames or when the eye's block changes;
//   - wind: a level 0..1 rising linearly with the feet's height from SoundConfig::wind_from_y to wind_full_y;
//   - the listener: the eye and its look, every frame.
// Threads: the game's thread; the sink's calls happen inside Game::frame.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/audio/material.h"
#include "voxen/audio/mixer.h"
#include "voxen/play/player.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/edit.h"
#include "voxen/world/world.h"

namespace voxen::play {

/// Where the game's sounds go. Every call happens on the game's thread, inside Game::frame.
class SoundSink {
 public:
  virtual ~SoundSink() = default;
  /// The listener: the eye (world blocks) looking along `forward` with `up` (unit vectors). Once a frame.
  virtual void listener(const audio::WorldPoint& eye, const glm::dvec3& forward, const glm::dvec3& up) = 0;
  /// A footstep on material `m`, the feet at `feet`.
  virtual void footstep(audio::Material m, const audio::WorldPoint& feet) = 0;
  /// The player broke a block of material `m` at world block `cell`.
  virtual void dig(audio::Material m, const BlockPos& cell) = 0;
  /// The player placed a block of material `m` at world block `cell`.
  virtual void place(audio::Material m, const BlockPos& cell) = 0;
  /// The water and lava cells sounding now (nearest first, each at most audio::kMaxEmitters). Once a frame.
  virtual void ambience(std::span<const BlockPos> water, std::span<const BlockPos> lava) = 0;
  /// The wind's level, 0 (none) .. 1 (full). Once a frame.
  virtual void wind(double level) = 0;
};

/// The rules' constants (world blocks).
struct SoundConfig {
  double stride = 1.6;         // blocks walked between footsteps
  int ambience_radius = 8;     // water / lava within this many blocks of the eye on each axis sound
  int rescan_frames = 10;      // the ambience scan is redone at least this often (frames)
  double wind_from_y = 100.0;  // the wind starts above this height (feet, world Y)
  double wind_full_y = 180.0;  // and is full from this height
};

/// Turns the player's steps, edits and surroundings into SoundSink calls (see the file comment).
class SoundDirector {
 public:
  /// `sink` and `registry` must outlive the director. `registry` must hold "water" and "lava" for the ambience
  /// (without them there is none).
  SoundDirector(SoundSink& sink, const BlockRegistry& registry, SoundConfig config = {});
  /// After a physics step moved the player from `before` to `after` in `world`.
  void stepped(const PlayerState& before, const PlayerState& after, const World& world);
  /// The player's break click applied `edit` (its `before` is the block broken).
  void dug(const Edit& edit);
  /// The player's place click applied `edit` (its `after` is the block placed).
  void placed(const Edit& edit);
  /// Once a frame, after the frame's steps and edits: the listener at the eye (`eye_height` above the feet), the
  /// ambience and the wind.
  void frame(const PlayerState& player, double eye_height, const World& world);
  /// Blocks walked on the ground since the last footstep.
  double walked() const { return m_walked; }
  const SoundConfig& config() const { return m_config; }

 private:
  /// The material under the feet, or none (air below the whole box).
  std::optional<audio::Material> ground(const PlayerState& p, const World& world) const;
  void scan(const BlockPos& eye, const World& world);

  SoundSink& m_sink;
  const BlockRegistry& m_registry;
  SoundConfig m_config;
  std::optional<uint16_t> m_water, m_lava;
  double m_walked = 0;
  uint64_t m_frames = 0;
  std::optional<BlockPos> m_scanned_at;  // the eye block of the last scan
  uint64_t m_scanned_frame = 0;
  std::vector<BlockPos> m_water_cells, m_lava_cells;  // the last scan's, nearest first
};

/// A SoundSink that plays through an audio::Mixer: footsteps (gain 0.45, pitch 0.92..1.08 from a hash of the
/// feet's block and the step's count), digs (0.9) and places (0.8) at the cell's centre, the water and lava loops
/// at their cells' centres, wind and music non-positional (music at `music_gain`, started on the first listener
/// call; 0: no music).
class MixerSoundSink final : public SoundSink {
 public:
  /// `mixer` must outlive the sink.
  explicit MixerSoundSink(audio::Mixer& mixer, float music_gain = 0.25f) : m_mixer(mixer), m_music_gain(music_gain) {}
  void listener(const audio::WorldPoint& eye, const glm::dvec3& forward, const glm::dvec3& up) override;
  void footstep(audio::Material m, const audio::WorldPoint& feet) override;
  void dig(audio::Material m, const BlockPos& cell) override;
  void place(audio::Material m, const BlockPos& cell) override;
  void ambience(std::span<const BlockPos> water, std::span<const BlockPos> lava) override;
  void wind(double level) override;

 private:
  audio::Mixer& m_mixer;
  float m_music_gain;
  bool m_music_started = false;
  uint64_t m_steps = 0;
  std::vector<audio::WorldPoint> m_points;
};

}  // namespace voxen::play
