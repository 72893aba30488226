// voxen sound: synthesises the game's sound bank (audio/synth.h) from --seed and writes every sound as
// DIR/<name>.wav (16-bit PCM mono, 44100 Hz; audio/wav.h), then prints one line per file: name, length in
// seconds, peak and RMS in full scale, whether it loops. --json prints one object instead: seed, synth_ms (the
// synthesis alone, wall-clock), and sounds: [{name, file, seconds, peak, rms, loop}].
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "play_cli.h"
#include "seed_option.h"
#include "voxen/audio/analysis.h"
#include "voxen/audio/synth.h"
#include "voxen/audio/wav.h"
#include "voxen/core/clock.h"

namespace voxen::app {
namespace {

struct SoundOptions {
  std::string out;
  uint64_t seed = 1;
  bool json = false;
};

int run_sound(const SoundOptions& o) {
  if (o.out.empty()) throw UsageError("--out", "required: the directory the WAV files go to");
  ensure_dir(o.out, "--out");
  const double t0 = wall_ms();
  const audio::SoundBank bank = audio::SoundBank::generate(o.seed);
  const double synth_ms = wall_ms() - t0;
  nlohmann::json sounds = nlohmann::json::array();
  for (const audio::Sound& s : bank.sounds()) {
    const std::string path = o.out + "/" + s.name + ".wav";
    const std::vector<int16_t> pcm = audio::to_pcm16(s.samples);
    if (Status st = audio::write_wav(path, pcm, audio::kSampleRate); !st) throw RunError(st.error().to_string());
    const double pk = audio::peak(s.samples), r = audio::rms(s.samples);
    if (o.json) {
      sounds.push_back({{"name", s.name}, {"file", path}, {"seconds", s.seconds()}, {"peak", pk}, {"rms", r}, {"loop", s.loop}});
    } else {
      std::printf("%-20s %7.3f s  peak %.3f  rms %.3f%s\n", s.name.c_str(), s.seconds(), pk, r, s.loop ? "  loop" : "");
    }
  }
  if (o.json) {
    nlohmann::json j;
    j["seed"] = o.seed;
    j["synth_ms"] = synth_ms;
    j["sample_rate"] = audio::kSampleRate;
    j["sounds"] = std::move(sounds);
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("%zu sounds written to %s (synthesised in %.1f ms)\n", bank.sounds().size(), o.out.c_str(), synth_ms);
  }
  return 0;
}

}  // namespace

void add_sound_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<SoundOptions>();
  CLI::App* cmd = app.add_subcommand("sound", "synthesise the game's sounds and write each as DIR/<name>.wav (16-bit PCM mono, 44100 Hz)");
  cmd->add_option("--out", o->out, "the directory the WAV files go to (created if missing)")->required();
  add_seed_option(*cmd, o->seed, "seed of the synthesis, decimal 0..18446744073709551615 (default 1)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_sound(*o); }; });
}

}  // namespace voxen::app
