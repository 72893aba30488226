// libFuzzer target for the WAV reader (build with -DVOXEN_FUZZ=ON and clang; see docs/FUZZING.md).
// Every input must give a WavData or an Error naming the input and a byte offset within it (0 .. size), never a
// crash or a sanitizer report. A decoded mono file written again by encode_wav must decode to the same samples.
#include <cstddef>
#include <cstdint>
#include <span>

#include "voxen/audio/wav.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace voxen::audio;
  auto wav = decode_wav(std::span<const uint8_t>(data, size), "fuzz.wav");
  if (!wav) {
    VOXEN_ASSERT(!wav.error().message.empty());
    VOXEN_ASSERT(wav.error().file == "fuzz.wav");
    VOXEN_ASSERT(wav.error().offset >= 0 && static_cast<size_t>(wav.error().offset) <= size);
    return 0;
  }
  VOXEN_ASSERT(wav->sample_rate > 0 && (wav->channels == 1 || wav->channels == 2));
  VOXEN_ASSERT(wav->samples.size() % wav->channels == 0 && wav->samples.size() * 2 <= size);
  if (wav->channels == 1) {
    auto again = decode_wav(encode_wav(wav->samples, wav->sample_rate), "again.wav");
    VOXEN_ASSERT(again && again->samples == wav->samples && again->sample_rate == wav->sample_rate);
  }
  return 0;
}
