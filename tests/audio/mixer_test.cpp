// Playback without a device (audio/mixer.h): the null mixer accepts every call silently, wherever the sound is,
// and only counts; VOXEN_AUDIO=off and MixerOptions::enabled = false give it whatever the machine has; opening the
// default device never fails (a machine without one gets the null mixer, saying so); and the OpenAL Soft mixer,
// on OpenAL Soft's own wave-file backend (no device needed), plays what it is given.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "voxen/audio/mixer.h"
#include "voxen/audio/synth.h"

namespace voxen::audio {
namespace {

const SoundBank& bank() {
  static const SoundBank b = SoundBank::generate(3);
  return b;
}

/// Every kind of call, some with odd values (far away, NaN, huge gains, unknown names).
void drive(Mixer& m) {
  const WorldPoint far{{int64_t{1} << 50, 100, -(int64_t{1} << 50)}, glm::dvec3(0.25)};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  m.set_listener(far, {0, 0, -1}, {0, 1, 0});
  m.set_listener(WorldPoint{}, {nan, nan, nan}, {0, 0, 0});
  m.play(footstep_name(Material::kStone), far, 0.5f, 1.0f);
  m.play(dig_name(Material::kGlass), WorldPoint{}, 10.0f, 100.0f);
  m.play("no_such_sound", far, 1.0f, 1.0f);
  const std::vector<WorldPoint> pts(10, far);
  m.set_emitters(kWaterAmbience, pts, 0.5f);
  m.set_emitters(kLavaAmbience, {}, 0.5f);
  m.set_loop(kWind, 0.0f);
  m.set_loop(kMusic, 0.0f);
}

TEST(AudioMixer, TheNullMixerAcceptsEverythingSilently) {
  auto m = make_null_mixer(bank(), "audio off: test");
  EXPECT_TRUE(m->silent());
  EXPECT_EQ(m->description(), "audio off: test");
  drive(*m);
  const MixerCounts c = m->counts();
  EXPECT_EQ(c.listener, 2u);
  EXPECT_EQ(c.one_shots, 2u);
  EXPECT_EQ(c.loops, 4u);
  EXPECT_EQ(c.unknown_sounds, 1u);
}

TEST(AudioMixer, OffWhenAskedOrByTheEnvironment) {
  auto asked = open_mixer(bank(), MixerOptions{false});
  EXPECT_TRUE(asked->silent());
  EXPECT_NE(asked->description().find("audio off"), std::string::npos);
  ASSERT_EQ(::setenv("VOXEN_AUDIO", "off", 1), 0);
  auto env = open_mixer(bank(), MixerOptions{true});
  ::unsetenv("VOXEN_AUDIO");
  EXPECT_TRUE(env->silent());
  EXPECT_NE(env->description().find("VOXEN_AUDIO=off"), std::string::npos) << env->description();
  drive(*env);
  EXPECT_EQ(env->counts().one_shots, 2u);
}

TEST(AudioMixer, TheDefaultDeviceOpensOrTheMixerIsSilent) {
  // Whatever this machine has: a device (OpenAL Soft plays, at gain 0 here) or none (the null mixer says so).
  auto m = open_mixer(bank(), MixerOptions{true});
  ASSERT_NE(m, nullptr);
  std::printf("%s\n", m->description().c_str());
  const std::string expected = m->silent() ? "audio off" : "OpenAL Soft";
  EXPECT_NE(m->description().find(expected), std::string::npos);
  m->set_listener(WorldPoint{}, {0, 0, -1}, {0, 1, 0});
  m->play(footstep_name(Material::kSand), WorldPoint{}, 0.0f, 1.0f);
  m->set_loop(kMusic, 0.0f);
  EXPECT_EQ(m->counts().one_shots, 1u);
  EXPECT_EQ(m->counts().unknown_sounds, 0u);
}

/// The peak of the 32-bit float samples of the data chunk of an OpenAL Soft wave-writer file (WAVE_FORMAT_EXTENSIBLE,
/// which audio::read_wav does not read); -1 when there is no data chunk.
double float_wav_peak(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = b.find("data");
  if (at == std::string::npos) return -1;
  double p = 0;
  for (size_t i = at + 8; i + 4 <= b.size(); i += 4) {
    float v;
    std::memcpy(&v, b.data() + i, 4);
    p = std::max(p, static_cast<double>(std::abs(v)));
  }
  return p;
}

TEST(AudioMixer, OpenAlSoftPlaysIntoItsWaveWriter) {
  // OpenAL Soft reads its configuration once a process: the check runs in a fresh one (a death test in the
  // "threadsafe" style re-runs this binary for it), configured to mix into a file instead of a device.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto dir = std::filesystem::temp_directory_path() / ("voxen_openal_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string conf = (dir / "alsoft.conf").string(), out = (dir / "out.wav").string();
  std::ofstream(conf) << "[general]\ndrivers = wave\n[wave]\nfile = " << out << "\n";
  EXPECT_EXIT(
      {
        ::setenv("ALSOFT_CONF", conf.c_str(), 1);
        ::unsetenv("VOXEN_AUDIO");
        auto m = open_mixer(bank(), MixerOptions{true});
        if (m->silent()) {
          std::fprintf(stderr, "no OpenAL: %s\n", m->description().c_str());
          std::_Exit(2);
        }
        m->set_listener(WorldPoint{}, {0, 0, -1}, {0, 1, 0});
        m->play(footstep_name(Material::kStone), WorldPoint{{2, 0, 0}, glm::dvec3(0.5)}, 1.0f, 1.0f);
        if (m->counts().unknown_sounds != 0 || m->counts().one_shots != 1) std::_Exit(3);
        // The writer mixes in real time on its own thread: wait (up to 30 s) until half a second is written.
        for (int i = 0; i < 300; ++i) {
          std::error_code ec;
          if (std::filesystem::file_size(out, ec) > 44100 * 8 / 2 && !ec) break;
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        m.reset();  // closes the device: the file is complete
        const double peak = float_wav_peak(out);
        std::fprintf(stderr, "peak %f\n", peak);
        std::_Exit(peak > 0.01 ? 0 : 4);
      },
      ::testing::ExitedWithCode(0), "");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace voxen::audio
