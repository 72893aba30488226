// The sound bank: every sound the game plays, synthesised in code at start-up from a seed (no asset files, after
// VoxelBlox). Mono float PCM at kSampleRate, each normalised to its target peak (below full scale: no clipping) with
// its DC offset removed.
//
// Sounds (names as in `voxen sound --out DIR`, one DIR/<name>.wav each):
//   footstep_<material>  one step on that surface (material.h names), 0.2 .. 0.5 s
//   dig_<material>       a block of it broken: two strikes and its debris, under 1 s
//   place_<material>     a block of it set down: one low, dull strike, under 0.5 s
//   ambience_water       loop, 4 s: flowing noise and bubbles
//   ambience_lava        loop, 4 s: low rumble, pops and blurps
//   wind                 loop, 6 s: band-passed noise with a wandering centre frequency
//   music                loop, 8 bars of 4/4 at 96 bpm (20 s): a pad, a bass and an FM-bell melody
// The recipes (docs/ARCHITECTURE.md, Sound):
//   - noise is white, from hash3(seed, sound id, stream, sample) (core/hash.h): the same seed gives the same
//     samples on every machine; no random stream is kept anywhere;
//   - filters are biquads after Robert Bristow-Johnson's "Cookbook formulae for audio EQ biquad filter
//     coefficients" (the Audio EQ Cookbook): low-pass, high-pass, band-pass (0 dB peak);
//   - impacts (stone, glass, wood) are filtered noise clicks plus damped sinusoids (modal synthesis: Cook, "Real
//     Sound Synthesis for Interactive Applications", 2002, ch. 4); gravel, sand and snow are granular (many short
//     grains at hashed times, Roads, "Microsound", 2001); water's bubbles are Minnaert-frequency chirps
//     (van den Doel, "Physically based models for liquid sounds", ACM TAP 2005);
//   - the ambience loops are made seamless by an equal-power crossfade of their tail into their head; the music
//     loop by design: every note is written modulo the loop's length, so its last sample leads into its first;
//   - the music's bell is two-operator FM (Chowning, "The synthesis of complex audio spectra by means of frequency
//     modulation", JAES 1973); the pad is additive (harmonics 1/k).
// Threads: pure; generate() may run on any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/audio/material.h"

namespace voxen::audio {

/// Samples a second of every sound.
inline constexpr int kSampleRate = 44100;

/// One sound: its name, mono samples in full scale (|x| < 1) and whether it is a loop (played end to start).
struct Sound {
  std::string name;
  std::vector<float> samples;
  bool loop = false;
  double seconds() const { return static_cast<double>(samples.size()) / kSampleRate; }
};

/// The sounds' names for a material: "footstep_sand", "dig_sand", "place_sand".
std::string footstep_name(Material m);
std::string dig_name(Material m);
std::string place_name(Material m);
/// The loops' names.
inline constexpr std::string_view kWaterAmbience = "ambience_water";
inline constexpr std::string_view kLavaAmbience = "ambience_lava";
inline constexpr std::string_view kWind = "wind";
inline constexpr std::string_view kMusic = "music";

/// Loop lengths in seconds.
inline constexpr double kWaterLoopSeconds = 4.0;
inline constexpr double kLavaLoopSeconds = 4.0;
inline constexpr double kWindLoopSeconds = 6.0;
inline constexpr double kMusicBpm = 96.0;
inline constexpr int kMusicBars = 8;  // 4/4: 8 * 4 * 60 / 96 = 20 s
inline constexpr double kMusicLoopSeconds = kMusicBars * 4 * 60.0 / kMusicBpm;

/// A seamless loop of `length` samples from `x`, which holds `length + fade` (asserted): its first `fade` samples
/// are faded in (sin) while the `fade` past `length` are faded out (cos) over them, an equal-power crossfade (for
/// uncorrelated noise the level stays put), so the loop's last sample x[length - 1] leads into its first (x[length]
/// there) as any sample into the next. How the ambience loops are joined.
std::vector<double> crossfade_loop(std::span<const double> x, size_t length, size_t fade);

/// Every sound of the game, synthesised from `seed`; sorted by name.
class SoundBank {
 public:
  /// Synthesises the whole bank (31 sounds, about 44 s of audio). Deterministic: the same seed gives the
  /// same samples bit for bit.
  static SoundBank generate(uint64_t seed);
  std::span<const Sound> sounds() const { return m_sounds; }
  /// The sound of that name, or null.
  const Sound* find(std::string_view name) const;
  uint64_t seed() const { return m_seed; }

 private:
  std::vector<Sound> m_sounds;
  uint64_t m_seed = 0;
};

}  // namespace voxen::audio
