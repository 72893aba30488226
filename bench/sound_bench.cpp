// The sound's costs: synthesising the whole bank at start-up (audio::SoundBank::generate), and the game's per-frame
// sound update (play::SoundDirector::frame: the listener, the water/lava scan within 8 blocks, the wind) beside the
// flat world's pond, scanning every frame (the worst case: a new eye block each frame) and every 10th (the default
// when standing still), into a sink that does nothing. docs/PERFORMANCE.md, Sound, records the figures.
//   build/voxen_bench_sound --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "bench_support.h"
#include "voxen/audio/synth.h"
#include "voxen/play/sound.h"

namespace voxen {
namespace {

using benchsupport::registry;

void BM_SoundBankGenerate(benchmark::State& state) {
  for (auto _ : state) {
    audio::SoundBank bank = audio::SoundBank::generate(1);
    benchmark::DoNotOptimize(bank.sounds().data());
  }
}
BENCHMARK(BM_SoundBankGenerate)->Unit(benchmark::kMillisecond);

class NullSink final : public play::SoundSink {
 public:
  void listener(const audio::WorldPoint&, const glm::dvec3&, const glm::dvec3&) override {}
  void footstep(audio::Material, const audio::WorldPoint&) override {}
  void dig(audio::Material, const BlockPos&) override {}
  void place(audio::Material, const BlockPos&) override {}
  void ambience(std::span<const BlockPos> water, std::span<const BlockPos> lava) override { cells += water.size() + lava.size(); }
  void wind(double) override {}
  size_t cells = 0;
};

/// Frames of the director beside the flat world's pond (water at u, v 40..47, y -1..0), the 3 x 3 columns around
/// the player generated; state.range(0): rescan every this many frames.
void BM_SoundDirectorFrame(benchmark::State& state) {
  const auto gen = benchsupport::make("flat", 7);
  World w;
  for (int64_t cx = 1; cx <= 3; ++cx)
    for (int64_t cz = 1; cz <= 3; ++cz) {
      auto c = std::make_unique<Column>(ColumnPos{cx, cz});
      gen->generate(*c);
      w.insert(std::move(c));
    }
  NullSink sink;
  play::SoundConfig config;
  config.rescan_frames = static_cast<int>(state.range(0));
  play::SoundDirector director(sink, registry(), config);
  play::PlayerState p;
  p.set_feet({38.5, 1.0, 38.5});
  for (auto _ : state) director.frame(p, 1.62, w);
  if (sink.cells == 0) state.SkipWithError("no water found near the pond");
}
BENCHMARK(BM_SoundDirectorFrame)->Arg(1)->Arg(10)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace voxen

BENCHMARK_MAIN();
