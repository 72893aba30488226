// Playback of the sound bank (synth.h): positional one-shots (a footstep at the feet, a dig at the block),
// positional looping emitters (the water and lava near the player), and non-positional loops (wind, music).
//
// Two implementations behind one interface: OpenAL Soft (the 3D audio API of the Khronos/Creative OpenAL 1.1
// specification; inverse-distance-clamped attenuation, listener-relative panning), and a null mixer that accepts
// every call, plays nothing and only counts (no audio device, VOXEN_AUDIO=off, tests, replays, tours, servers).
// open_mixer() picks: the null one when asked, when VOXEN_AUDIO=off, when no device opens (alcOpenDevice(nullptr)
// fails, or OpenAL Soft falls back to its "No Output" backend) or when a context or the buffers cannot be made.
//
// Positions: world blocks (x east, y up, z south) as an int64 block plus a fraction, like the player's. The mixer
// hands OpenAL positions relative to the listener's block (a floating origin), so panning and distance are exact
// 2^40 blocks from the origin too; one block is one OpenAL unit.
// Threads: one thread (the game's): OpenAL's context is made current by open_mixer and used by no other thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <glm/glm.hpp>

#include "voxen/audio/synth.h"
#include "voxen/core/coords.h"

namespace voxen::audio {

/// A point in the world: block + fraction in [0, 1) per axis (world blocks, Y up).
struct WorldPoint {
  BlockPos block;
  glm::dvec3 frac{0.5};
};

/// The calls a mixer was given (both implementations count them; what the null mixer is checked by).
struct MixerCounts {
  uint64_t listener = 0;       // set_listener calls
  uint64_t one_shots = 0;      // play calls with a known sound
  uint64_t loops = 0;          // set_emitters / set_loop calls with a known sound
  uint64_t unknown_sounds = 0; // calls naming no sound of the bank (ignored)
};

/// The emitters a looping positional sound plays from at most (the nearest are kept).
inline constexpr size_t kMaxEmitters = 4;

class Mixer {
 public:
  virtual ~Mixer() = default;
  /// True for the null mixer: nothing is heard.
  virtual bool silent() const = 0;
  /// A line naming the output ("OpenAL Soft: <device>") or why there is none ("audio off: no audio device").
  virtual std::string description() const = 0;
  /// The listener (the eye) at `at`, looking along `forward` with `up` (unit vectors, world axes).
  virtual void set_listener(const WorldPoint& at, const glm::dvec3& forward, const glm::dvec3& up) = 0;
  /// Plays the named one-shot once at `at`: `gain` 0..1, `pitch` a playback-rate factor (1: as synthesised).
  /// An unknown name is ignored (counted).
  virtual void play(std::string_view sound, const WorldPoint& at, float gain, float pitch) = 0;
  /// The named loop plays from each of `at` (the first kMaxEmitters; none: silent) at `gain`: the emitters of a
  /// positional ambience, replaced on every call.
  virtual void set_emitters(std::string_view sound, std::span<const WorldPoint> at, float gain) = 0;
  /// The named loop plays everywhere (non-positional) at `gain` (0: stopped).
  virtual void set_loop(std::string_view sound, float gain) = 0;
  virtual MixerCounts counts() const = 0;
};

/// What open_mixer is asked for.
struct MixerOptions {
  bool enabled = true;  // false: the null mixer whatever the machine has
};

/// The null mixer: silent, accepts every call. `why` is its description ("audio off: ...").
std::unique_ptr<Mixer> make_null_mixer(const SoundBank& bank, std::string why);

/// A mixer for `bank`, which must outlive it: OpenAL Soft on the default device, or the null mixer (see the file
/// comment for when; its description says why). Never fails, never blocks on a missing device.
std::unique_ptr<Mixer> open_mixer(const SoundBank& bank, const MixerOptions& options);

}  // namespace voxen::audio
