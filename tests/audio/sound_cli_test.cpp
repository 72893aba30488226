// `voxen sound --out DIR` through the real binary, its WAV files read back (audio/wav.h) and measured
// (audio/analysis.h): every sound of the bank is written, 16-bit mono at 44100 Hz; loops have their stated lengths
// and one-shots last under a second; peaks are loud but below full scale with no clipped sample and no DC offset;
// loops join end to start without a click; a footstep on stone is brighter than one on sand (spectral centroid),
// and so are gravel and glass; the same seed writes the same bytes, another seed other bytes; bad arguments exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <set>

#include <nlohmann/json.hpp>

#include "run_command.h"
#include "voxen/audio/analysis.h"
#include "voxen/audio/synth.h"
#include "voxen/audio/wav.h"

namespace voxen::audio {
namespace {

namespace fs = std::filesystem;
using voxen::testing::run_voxen;

std::string temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("voxen_sound_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The sound files of one `voxen sound` run (seed 1), read once for every test.
class SoundFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir = new std::string(temp_dir("seed1"));
    const auto r = run_voxen({"sound", "--out", *dir, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    listing = new nlohmann::json(nlohmann::json::parse(r.out));
    sounds = new std::map<std::string, std::vector<float>>;
    for (const auto& s : (*listing)["sounds"]) {
      auto wav = read_wav(*dir + "/" + s["name"].get<std::string>() + ".wav");
      ASSERT_TRUE(wav) << wav.error().to_string();
      ASSERT_EQ(wav->sample_rate, 44100u);
      ASSERT_EQ(wav->channels, 1u);
      (*sounds)[s["name"]] = to_float(wav->samples);
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir);
    delete dir;
    delete listing;
    delete sounds;
  }
  static const std::vector<float>& sound(const std::string& name) { return sounds->at(name); }
  static bool is_loop(const std::string& name) {
    return name == kWaterAmbience || name == kLavaAmbience || name == kWind || name == kMusic;
  }
  static std::string* dir;
  static nlohmann::json* listing;
  static std::map<std::string, std::vector<float>>* sounds;
};
std::string* SoundFiles::dir = nullptr;
nlohmann::json* SoundFiles::listing = nullptr;
std::map<std::string, std::vector<float>>* SoundFiles::sounds = nullptr;

TEST_F(SoundFiles, EverySoundOfTheBankIsWritten) {
  std::set<std::string> expected{std::string(kWaterAmbience), std::string(kLavaAmbience), std::string(kWind), std::string(kMusic)};
  for (Material m : kMaterials) expected.insert({footstep_name(m), dig_name(m), place_name(m)});
  std::set<std::string> written;
  for (const auto& e : fs::directory_iterator(*dir)) written.insert(e.path().stem().string());
  EXPECT_EQ(written, expected);
  EXPECT_EQ(sounds->size(), expected.size());
  // The listing's figures are the files'.
  for (const auto& s : (*listing)["sounds"]) {
    const auto& x = sound(s["name"]);
    EXPECT_NEAR(s["seconds"].get<double>(), static_cast<double>(x.size()) / 44100.0, 1e-9) << s["name"];
    EXPECT_NEAR(s["peak"].get<double>(), peak(x), 1e-4) << s["name"];
    EXPECT_NEAR(s["rms"].get<double>(), rms(x), 1e-4) << s["name"];
    EXPECT_EQ(s["loop"].get<bool>(), is_loop(s["name"])) << s["name"];
  }
}

TEST_F(SoundFiles, TheHeaderIsTheCanonical44Bytes) {
  const std::string b = slurp(*dir + "/footstep_stone.wav");
  ASSERT_GE(b.size(), 44u);
  auto u32 = [&](size_t at) {
    return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) | static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8 |
           static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 16 | static_cast<uint32_t>(static_cast<uint8_t>(b[at + 3])) << 24;
  };
  EXPECT_EQ(b.substr(0, 4), "RIFF");
  EXPECT_EQ(u32(4), b.size() - 8);
  EXPECT_EQ(b.substr(8, 8), "WAVEfmt ");
  EXPECT_EQ(u32(16), 16u);
  EXPECT_EQ(u32(20), 1u | (1u << 16));  // PCM, mono
  EXPECT_EQ(u32(24), 44100u);
  EXPECT_EQ(u32(28), 88200u);
  EXPECT_EQ(u32(32), 2u | (16u << 16));  // block align 2, 16 bits
  EXPECT_EQ(b.substr(36, 4), "data");
  EXPECT_EQ(u32(40), b.size() - 44);
}

TEST_F(SoundFiles, LoopsHaveTheirLengthsAndOneShotsLastUnderASecond) {
  const std::map<std::string, double> loops{{std::string(kWaterAmbience), kWaterLoopSeconds},
                                            {std::string(kLavaAmbience), kLavaLoopSeconds},
                                            {std::string(kWind), kWindLoopSeconds},
                                            {std::string(kMusic), kMusicLoopSeconds}};
  EXPECT_DOUBLE_EQ(kMusicLoopSeconds, 20.0);  // 8 bars of 4/4 at 96 bpm
  for (const auto& [name, x] : *sounds) {
    if (auto it = loops.find(name); it != loops.end()) {
      EXPECT_EQ(x.size(), static_cast<size_t>(std::lround(it->second * 44100))) << name;
    } else {
      EXPECT_GT(x.size(), 44100u / 10) << name << ": a one-shot of at least 0.1 s";
      EXPECT_LT(x.size(), 44100u) << name << ": a one-shot under 1 s";
    }
  }
}

TEST_F(SoundFiles, PeaksAreLoudWithoutClippingOrDcOffset) {
  for (const auto& [name, x] : *sounds) {
    EXPECT_GE(peak(x), 0.2) << name;
    EXPECT_LE(peak(x), 0.99) << name;
    EXPECT_EQ(clipped_count(x), 0u) << name;
    EXPECT_LT(std::abs(dc_offset(x)), 0.002) << name << ": DC offset " << dc_offset(x);
  }
}

TEST_F(SoundFiles, OneShotsStartAndEndOnZero) {
  // Faded in and out: no click where a one-shot starts or stops.
  for (const auto& [name, x] : *sounds) {
    if (is_loop(name)) continue;
    EXPECT_EQ(x.front(), 0.0f) << name;
    EXPECT_EQ(x.back(), 0.0f) << name;
  }
}

TEST_F(SoundFiles, LoopsJoinEndToStartWithoutAClick) {
  for (const char* name : {"ambience_water", "ambience_lava", "wind", "music"}) {
    const auto& x = sound(name);
    // The step from the last sample to the first is one any sample makes to the next: no bigger than the largest
    // inside, and within the 99th percentile of them (a click would be an outlier). Noise steps as far as it
    // swings, so these catch a jump in the low loops (lava's rumble, the music's pad); crossfade_loop's own test
    // below catches any.
    std::vector<float> steps(x.size() - 1);
    for (size_t i = 1; i < x.size(); ++i) steps[i - 1] = std::abs(x[i] - x[i - 1]);
    std::sort(steps.begin(), steps.end());
    const double p99 = steps[steps.size() * 99 / 100];
    EXPECT_LE(seam_step(x), largest_step(x)) << name;
    EXPECT_LE(seam_step(x), p99) << name << ": seam " << seam_step(x) << ", 99th percentile step " << p99;
    // The curve goes on through the seam: its second differences there (x[L-2], x[L-1], x[0] and x[L-1], x[0],
    // x[1]) no bigger than the largest within 10 ms on each side (the smaller side: the music's first 10 ms hold its
    // attacks). A cut leaves the slope behind: the music with its notes' tails cut at the end scores 4x its tail's.
    const size_t near = 441, n = x.size();
    auto second = [&](size_t from, size_t to) {
      double m = 0;
      for (size_t i = from + 2; i < to; ++i) m = std::max(m, static_cast<double>(std::abs(x[i] - 2 * x[i - 1] + x[i - 2])));
      return m;
    };
    const double local = std::min(second(0, near), second(n - near, n));
    const double seam = std::max(std::abs(x[0] - 2 * x[n - 1] + x[n - 2]), std::abs(x[1] - 2 * x[0] + x[n - 1]));
    EXPECT_LE(seam, local) << name << ": second difference at the seam " << seam << ", largest within 10 ms " << local;
    // And an ambience loop's two ends are alike: the level of its last and first 50 ms within 2x of each other (the
    // music's are not: its first bar starts with the chord's attack).
    if (std::string(name) == kMusic) continue;
    const size_t w = 44100 / 20;
    const double head = rms(std::span<const float>(x).first(w)), tail = rms(std::span<const float>(x).last(w));
    EXPECT_LT(std::max(head, tail) / std::min(head, tail), 2.0) << name << ": head " << head << ", tail " << tail;
  }
}

TEST(SoundLoop, TheCrossfadeJoinsASineThatDoesNotFitTheLoop) {
  // 3.3 cycles of a slow sine in the loop's length: cut there, the end would jump from sin(2 pi 3.3) to 0.
  const size_t length = 44100, fade = 4410;
  std::vector<double> x(length + fade);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.8 * std::sin(2 * std::numbers::pi * 3.3 * static_cast<double>(i) / length);
  const std::vector<double> loop = crossfade_loop(x, length, fade);
  ASSERT_EQ(loop.size(), length);
  double inner = 0;
  for (size_t i = 1; i < loop.size(); ++i) inner = std::max(inner, std::abs(loop[i] - loop[i - 1]));
  const double seam = std::abs(loop.front() - loop.back());
  EXPECT_LE(seam, inner) << "seam " << seam << ", largest inner step " << inner;
  EXPECT_LT(inner, 0.001);  // and nothing inside jumps either (a sine this slow steps under 0.0004)
  // Past the fade the loop is the source.
  for (size_t i = fade; i < length; i += 997) EXPECT_EQ(loop[i], x[i]);
}

TEST_F(SoundFiles, StoneIsBrighterThanSandAndGravelAndGlassToo) {
  std::map<std::string, double> c;
  for (Material m : kMaterials) c[std::string(material_name(m))] = spectral_centroid(sound(footstep_name(m)), 44100);
  for (const auto& [m, hz] : c) std::printf("footstep_%s: spectral centroid %.0f Hz\n", m.c_str(), hz);
  EXPECT_GT(c["stone"], 1.5 * c["sand"]) << "stone " << c["stone"] << " Hz, sand " << c["sand"] << " Hz";
  EXPECT_GT(c["gravel"], 1.5 * c["sand"]);
  EXPECT_GT(c["glass"], c["stone"]);
  EXPECT_GT(c["stone"], 1.5 * c["dirt"]);
  EXPECT_GT(c["stone"], c["wood"]);
  // Placing is duller than stepping on the same material.
  EXPECT_LT(spectral_centroid(sound("place_stone"), 44100), c["stone"]);
}

TEST_F(SoundFiles, TheSameSeedWritesTheSameBytesAnotherSeedOthers) {
  const std::string again = temp_dir("seed1_again"), other = temp_dir("seed2");
  ASSERT_EQ(run_voxen({"sound", "--out", again}).exit_code, 0);
  ASSERT_EQ(run_voxen({"sound", "--out", other, "--seed", "2"}).exit_code, 0);
  size_t differing = 0;
  for (const auto& [name, x] : *sounds) {
    const std::string a = slurp(*dir + "/" + name + ".wav");
    EXPECT_EQ(slurp(again + "/" + name + ".wav"), a) << name;
    if (slurp(other + "/" + name + ".wav") != a) ++differing;
  }
  EXPECT_EQ(differing, sounds->size()) << "every sound depends on the seed";
  fs::remove_all(again);
  fs::remove_all(other);
}

TEST(SoundCli, BadArgumentsExit2AndAnUnwritableDirectory1) {
  const auto no_out = run_voxen({"sound"});
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_NE(no_out.err.find("--out"), std::string::npos) << no_out.err;
  const auto bad_seed = run_voxen({"sound", "--out", temp_dir("bad"), "--seed", "-1"});
  EXPECT_EQ(bad_seed.exit_code, 2);
  EXPECT_NE(bad_seed.err.find("--seed"), std::string::npos) << bad_seed.err;
  // A file where the directory should be.
  const std::string file = temp_dir("file");
  std::ofstream(file) << "x";
  const auto blocked = run_voxen({"sound", "--out", file});
  EXPECT_EQ(blocked.exit_code, 1);
  EXPECT_NE(blocked.err.find(file), std::string::npos) << blocked.err;
  fs::remove(file);
}

}  // namespace
}  // namespace voxen::audio
