#include "voxen/audio/mixer.h"

#include <AL/al.h>
#include <AL/alc.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "voxen/audio/analysis.h"

namespace voxen::audio {
namespace {

class NullMixer final : public Mixer {
 public:
  NullMixer(const SoundBank& bank, std::string why) : m_bank(bank), m_why(std::move(why)) {}
  bool silent() const override { return true; }
  std::string description() const override { return m_why; }
  void set_listener(const WorldPoint&, const glm::dvec3&, const glm::dvec3&) override { ++m_counts.listener; }
  void play(std::string_view sound, const WorldPoint&, float, float) override { count(sound, m_counts.one_shots); }
  void set_emitters(std::string_view sound, std::span<const WorldPoint>, float) override { count(sound, m_counts.loops); }
  void set_loop(std::string_view sound, float) override { count(sound, m_counts.loops); }
  MixerCounts counts() const override { return m_counts; }

 private:
  void count(std::string_view sound, uint64_t& known) { ++(m_bank.find(sound) ? known : m_counts.unknown_sounds); }
  const SoundBank& m_bank;
  std::string m_why;
  MixerCounts m_counts;
};

/// OpenAL Soft: one AL buffer per sound (16-bit mono), a pool of one-shot sources (the oldest playing one is
/// taken when all play), kMaxEmitters looping sources per positional loop, one relative source per global loop.
class OpenAlMixer final : public Mixer {
 public:
  static constexpr size_t kOneShotSources = 24;

  OpenAlMixer(const SoundBank& bank, ALCdevice* device, ALCcontext* context, std::string name)
      : m_bank(bank), m_device(device), m_context(context), m_name(std::move(name)) {}
  ~OpenAlMixer() override {
    for (auto& [name, srcs] : m_emitters) alDeleteSources(static_cast<ALsizei>(srcs.size()), srcs.data());
    for (auto& [name, src] : m_loops) alDeleteSources(1, &src);
    alDeleteSources(static_cast<ALsizei>(m_one_shots.size()), m_one_shots.data());
    for (auto& [name, buf] : m_buffers) alDeleteBuffers(1, &buf);
    alcMakeContextCurrent(nullptr);
    alcDestroyContext(m_context);
    alcCloseDevice(m_device);
  }

  /// Uploads the bank and makes the sources; false on an AL error (the caller falls back to the null mixer).
  bool init() {
    alGetError();
    for (const Sound& s : m_bank.sounds()) {
      const std::vector<int16_t> pcm = to_pcm16(s.samples);
      ALuint buf = 0;
      alGenBuffers(1, &buf);
      alBufferData(buf, AL_FORMAT_MONO16, pcm.data(), static_cast<ALsizei>(pcm.size() * 2), kSampleRate);
      m_buffers[s.name] = buf;
    }
    m_one_shots.resize(kOneShotSources);
    alGenSources(static_cast<ALsizei>(kOneShotSources), m_one_shots.data());
    m_started.assign(kOneShotSources, 0);
    alDistanceModel(AL_INVERSE_DISTANCE_CLAMPED);
    return alGetError() == AL_NO_ERROR;
  }

  bool silent() const override { return false; }
  std::string description() const override { return "audio: OpenAL Soft on '" + m_name + "'"; }

  void set_listener(const WorldPoint& at, const glm::dvec3& forward, const glm::dvec3& up) override {
    ++m_counts.listener;
    m_listener = at;
    alListener3f(AL_POSITION, 0, 0, 0);
    const ALfloat ori[6] = {static_cast<ALfloat>(forward.x), static_cast<ALfloat>(forward.y), static_cast<ALfloat>(forward.z),
                            static_cast<ALfloat>(up.x), static_cast<ALfloat>(up.y), static_cast<ALfloat>(up.z)};
    alListenerfv(AL_ORIENTATION, ori);
    // Emitters keep their world positions: re-expressed against the new listener block.
    for (auto& [name, pts] : m_emitter_points) place_emitters(name);
  }

  void play(std::string_view sound, const WorldPoint& at, float gain, float pitch) override {
    const ALuint buf = buffer(sound);
    if (!buf) return;
    ++m_counts.one_shots;
    size_t pick = 0;
    for (size_t i = 0; i < m_one_shots.size(); ++i) {
      ALint state = 0;
      alGetSourcei(m_one_shots[i], AL_SOURCE_STATE, &state);
      if (state != AL_PLAYING) {
        pick = i;
        break;
      }
      if (m_started[i] < m_started[pick]) pick = i;
    }
    const ALuint src = m_one_shots[pick];
    m_started[pick] = ++m_clock;
    alSourceStop(src);
    alSourcei(src, AL_BUFFER, static_cast<ALint>(buf));
    alSourcei(src, AL_LOOPING, AL_FALSE);
    alSourcei(src, AL_SOURCE_RELATIVE, AL_FALSE);
    set_position(src, at);
    alSourcef(src, AL_GAIN, std::clamp(gain, 0.0f, 1.0f));
    alSourcef(src, AL_PITCH, std::clamp(pitch, 0.5f, 2.0f));
    alSourcef(src, AL_REFERENCE_DISTANCE, 2.0f);
    alSourcef(src, AL_ROLLOFF_FACTOR, 1.0f);
    alSourcePlay(src);
  }

  void set_emitters(std::string_view sound, std::span<const WorldPoint> at, float gain) override {
    const ALuint buf = buffer(sound);
    if (!buf) return;
    ++m_counts.loops;
    const std::string name(sound);
    auto [it, fresh] = m_emitters.try_emplace(name);
    if (fresh) {
      it->second.resize(kMaxEmitters);
      alGenSources(static_cast<ALsizei>(kMaxEmitters), it->second.data());
      for (size_t i = 0; i < kMaxEmitters; ++i) {
        const ALuint src = it->second[i];
        alSourcei(src, AL_BUFFER, static_cast<ALint>(buf));
        alSourcei(src, AL_LOOPING, AL_TRUE);
        alSourcef(src, AL_REFERENCE_DISTANCE, 3.0f);
        alSourcef(src, AL_ROLLOFF_FACTOR, 1.5f);
        // Each emitter starts at its own point of the loop, so two near ones do not sound as one.
        alSourcef(src, AL_SEC_OFFSET, static_cast<ALfloat>(i) * 0.9f);
      }
    }
    m_emitter_points[name].assign(at.begin(), at.begin() + static_cast<std::ptrdiff_t>(std::min(at.size(), kMaxEmitters)));
    m_emitter_gain[name] = std::clamp(gain, 0.0f, 1.0f);
    place_emitters(name);
  }

  void set_loop(std::string_view sound, float gain) override {
    const ALuint buf = buffer(sound);
    if (!buf) return;
    ++m_counts.loops;
    auto [it, fresh] = m_loops.try_emplace(std::string(sound), 0u);
    if (fresh) {
      alGenSources(1, &it->second);
      alSourcei(it->second, AL_BUFFER, static_cast<ALint>(buf));
      alSourcei(it->second, AL_LOOPING, AL_TRUE);
      alSourcei(it->second, AL_SOURCE_RELATIVE, AL_TRUE);
      alSource3f(it->second, AL_POSITION, 0, 0, 0);
    }
    const ALuint src = it->second;
    alSourcef(src, AL_GAIN, std::clamp(gain, 0.0f, 1.0f));
    ALint state = 0;
    alGetSourcei(src, AL_SOURCE_STATE, &state);
    if (gain > 0 && state != AL_PLAYING) alSourcePlay(src);
    if (gain <= 0 && state == AL_PLAYING) alSourcePause(src);
  }

  MixerCounts counts() const override { return m_counts; }

 private:
  ALuint buffer(std::string_view sound) {
    auto it = m_buffers.find(std::string(sound));
    if (it == m_buffers.end()) {
      ++m_counts.unknown_sounds;
      return 0;
    }
    return it->second;
  }
  void set_position(ALuint src, const WorldPoint& at) {
    const glm::dvec3 d{static_cast<double>(coord_delta(at.block.x, m_listener.block.x)) + at.frac.x - m_listener.frac.x,
                       static_cast<double>(coord_delta(at.block.y, m_listener.block.y)) + at.frac.y - m_listener.frac.y,
                       static_cast<double>(coord_delta(at.block.z, m_listener.block.z)) + at.frac.z - m_listener.frac.z};
    alSource3f(src, AL_POSITION, static_cast<ALfloat>(d.x), static_cast<ALfloat>(d.y), static_cast<ALfloat>(d.z));
  }
  void place_emitters(const std::string& name) {
    const auto& pts = m_emitter_points[name];
    const auto& srcs = m_emitters[name];
    for (size_t i = 0; i < srcs.size(); ++i) {
      ALint state = 0;
      alGetSourcei(srcs[i], AL_SOURCE_STATE, &state);
      if (i < pts.size()) {
        set_position(srcs[i], pts[i]);
        alSourcef(srcs[i], AL_GAIN, m_emitter_gain[name]);
        if (state != AL_PLAYING) alSourcePlay(srcs[i]);
      } else if (state == AL_PLAYING) {
        alSourcePause(srcs[i]);
      }
    }
  }

  const SoundBank& m_bank;
  ALCdevice* m_device;
  ALCcontext* m_context;
  std::string m_name;
  std::map<std::string, ALuint, std::less<>> m_buffers;
  std::vector<ALuint> m_one_shots;
  std::vector<uint64_t> m_started;  // when each one-shot source was last started (m_clock)
  uint64_t m_clock = 0;
  std::map<std::string, std::vector<ALuint>> m_emitters;
  std::map<std::string, std::vector<WorldPoint>> m_emitter_points;
  std::map<std::string, float> m_emitter_gain;
  std::map<std::string, ALuint> m_loops;
  WorldPoint m_listener;
  MixerCounts m_counts;
};

}  // namespace

std::unique_ptr<Mixer> make_null_mixer(const SoundBank& bank, std::string why) {
  return std::make_unique<NullMixer>(bank, std::move(why));
}

std::unique_ptr<Mixer> open_mixer(const SoundBank& bank, const MixerOptions& options) {
  if (!options.enabled) return make_null_mixer(bank, "audio off (--no-audio)");
  if (const char* env = std::getenv("VOXEN_AUDIO"); env && std::strcmp(env, "off") == 0)
    return make_null_mixer(bank, "audio off (VOXEN_AUDIO=off)");
  ALCdevice* device = alcOpenDevice(nullptr);
  if (!device) return make_null_mixer(bank, "audio off: no audio device found");
  const ALCchar* spec = alcGetString(device, ALC_DEVICE_SPECIFIER);
  const std::string name = spec ? spec : "";
  // OpenAL Soft's last-resort backend plays into nothing: no device is there.
  if (name == "No Output") {
    alcCloseDevice(device);
    return make_null_mixer(bank, "audio off: no audio device found");
  }
  ALCcontext* context = alcCreateContext(device, nullptr);
  if (!context || !alcMakeContextCurrent(context)) {
    if (context) alcDestroyContext(context);
    alcCloseDevice(device);
    return make_null_mixer(bank, "audio off: cannot make an OpenAL context on '" + name + "'");
  }
  auto mixer = std::make_unique<OpenAlMixer>(bank, device, context, name);
  if (!mixer->init()) return make_null_mixer(bank, "audio off: OpenAL could not take the sounds on '" + name + "'");
  return mixer;
}

}  // namespace voxen::audio
