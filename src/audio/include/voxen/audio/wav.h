// WAV files (RIFF/WAVE, Microsoft's "Multimedia Programming Interface and Data Specifications 1.0", 1991): what
// `voxen sound --out DIR` writes and the tests read back.
//
// Written: 16-bit linear PCM, little-endian, one canonical 44-byte header then the samples:
//   offset size  field
//        0    4  "RIFF"
//        4    4  u32 36 + data bytes (the rest of the file)
//        8    4  "WAVE"
//       12    4  "fmt "
//       16    4  u32 16 (the fmt chunk's size)
//       20    2  u16 1 (WAVE_FORMAT_PCM)
//       22    2  u16 channels (1)
//       24    4  u32 sample rate (44100)
//       28    4  u32 byte rate = rate * channels * 2
//       32    2  u16 block align = channels * 2
//       34    2  u16 bits per sample (16)
//       36    4  "data"
//       40    4  u32 data bytes = samples * 2
//       44       the samples, int16 little-endian, interleaved by channel
// Read: any RIFF/WAVE with a PCM 16-bit fmt chunk (1 or 2 channels) and a data chunk; other chunks (LIST, fact)
// are skipped, chunks are padded to even sizes. Errors name the file and the byte offset of what is wrong.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "voxen/core/error.h"

namespace voxen::audio {

/// A decoded WAV: 16-bit samples, interleaved by channel.
struct WavData {
  uint32_t sample_rate = 0;  // Hz
  uint16_t channels = 0;     // 1 or 2
  std::vector<int16_t> samples;
  /// Seconds of sound: frames / sample_rate.
  double seconds() const { return sample_rate ? static_cast<double>(samples.size() / channels) / sample_rate : 0.0; }
};

/// The bytes of a mono 16-bit PCM WAV of `samples` at `sample_rate` Hz (the layout above).
std::vector<uint8_t> encode_wav(std::span<const int16_t> samples, uint32_t sample_rate);
/// Writes encode_wav(...) to `path`. Errors: the file cannot be written (naming it).
Status write_wav(const std::string& path, std::span<const int16_t> samples, uint32_t sample_rate);

/// Decodes WAV bytes. `name` (a path) names the input in errors. Errors, each with the byte offset: too short for
/// a header, not RIFF or not WAVE, a chunk running past the end, no fmt chunk before data, a format other than PCM
/// (1), channels not 1 or 2, bits not 16, a zero sample rate, an inconsistent block align or byte rate, a data size
/// not a whole number of frames, no data chunk.
Result<WavData> decode_wav(std::span<const uint8_t> bytes, const std::string& name);
/// Reads and decodes a WAV file. Errors: unreadable file, then decode_wav's.
Result<WavData> read_wav(const std::string& path);

}  // namespace voxen::audio
