// The WAV writer and reader (audio/wav.h): a round trip keeps every sample; bad input is an error naming the file
// and the byte offset of what is wrong, never a crash.
#include <gtest/gtest.h>

#include <filesystem>

#include "voxen/audio/wav.h"

namespace voxen::audio {
namespace {

std::vector<int16_t> some_samples() {
  std::vector<int16_t> s;
  for (int i = 0; i < 1000; ++i) s.push_back(static_cast<int16_t>((i * 7919) % 65536 - 32768));
  s.push_back(32767);
  s.push_back(-32768);
  return s;
}

TEST(Wav, RoundTripKeepsEverySample) {
  const auto s = some_samples();
  const auto bytes = encode_wav(s, 44100);
  EXPECT_EQ(bytes.size(), 44 + 2 * s.size());
  auto d = decode_wav(bytes, "mem.wav");
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d->sample_rate, 44100u);
  EXPECT_EQ(d->channels, 1u);
  EXPECT_EQ(d->samples, s);
  EXPECT_NEAR(d->seconds(), s.size() / 44100.0, 1e-12);
  // Little-endian: the first sample's low byte first.
  EXPECT_EQ(bytes[44], static_cast<uint8_t>(s[0] & 0xFF));
  EXPECT_EQ(bytes[45], static_cast<uint8_t>((s[0] >> 8) & 0xFF));
}

TEST(Wav, FilesRoundTripAndAMissingFileIsNamed) {
  const std::string path = (std::filesystem::temp_directory_path() / ("voxen_wav_" + std::to_string(::getpid()) + ".wav")).string();
  const auto s = some_samples();
  ASSERT_TRUE(write_wav(path, s, 22050).ok());
  auto d = read_wav(path);
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d->samples, s);
  EXPECT_EQ(d->sample_rate, 22050u);
  std::filesystem::remove(path);
  auto missing = read_wav(path);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().to_string().find(path), std::string::npos);
  auto unwritable = write_wav("/nonexistent-dir/x.wav", s, 44100);
  ASSERT_FALSE(unwritable);
  EXPECT_NE(unwritable.error().to_string().find("/nonexistent-dir/x.wav"), std::string::npos);
}

TEST(Wav, OtherChunksAreSkipped) {
  auto b = encode_wav(some_samples(), 44100);
  // A LIST chunk of 3 bytes (padded to 4) between fmt and data.
  const std::vector<uint8_t> list{'L', 'I', 'S', 'T', 3, 0, 0, 0, 'a', 'b', 'c', 0};
  b.insert(b.begin() + 36, list.begin(), list.end());
  const uint32_t riff = static_cast<uint32_t>(b.size() - 8);
  for (int i = 0; i < 4; ++i) b[4 + i] = static_cast<uint8_t>(riff >> (8 * i));
  auto d = decode_wav(b, "list.wav");
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d->samples, some_samples());
}

/// Decoding `bytes` fails with an error naming "bad.wav", byte `offset` and containing `what`.
void expect_error(const std::vector<uint8_t>& bytes, int64_t offset, const std::string& what) {
  auto d = decode_wav(bytes, "bad.wav");
  ASSERT_FALSE(d) << what;
  EXPECT_EQ(d.error().file, "bad.wav");
  EXPECT_EQ(d.error().offset, offset) << d.error().to_string();
  EXPECT_NE(d.error().message.find(what), std::string::npos) << d.error().to_string();
  EXPECT_NE(d.error().to_string().find("bad.wav @ byte " + std::to_string(offset)), std::string::npos);
}

TEST(Wav, BadInputNamesTheFileAndTheByte) {
  const auto good = encode_wav(some_samples(), 44100);
  auto with = [&](size_t at, std::initializer_list<uint8_t> bytes) {
    auto b = good;
    size_t i = at;
    for (uint8_t v : bytes) b[i++] = v;
    return b;
  };
  expect_error({'R', 'I', 'F'}, 3, "too short");
  expect_error(with(0, {'R', 'I', 'F', 'X'}), 0, "not a RIFF");
  expect_error(with(8, {'A', 'V', 'I', ' '}), 8, "not a WAVE");
  expect_error(with(4, {0xFF, 0xFF, 0xFF, 0x7F}), 4, "runs past the end");
  expect_error(with(20, {3, 0}), 20, "audio format 3");         // IEEE float
  expect_error(with(22, {6, 0}), 22, "6 channels");
  expect_error(with(24, {0, 0, 0, 0}), 24, "sample rate 0");
  expect_error(with(34, {8, 0}), 34, "8 bits");
  expect_error(with(32, {4, 0}), 32, "block align 4");
  expect_error(with(28, {1, 0, 0, 0}), 28, "byte rate 1");
  expect_error(with(40, {0xFF, 0xFF, 0, 0}), 40, "runs past the end");
  expect_error(with(12, {'d', 'a', 't', 'a'}), 12, "data chunk before any fmt");
  expect_error(with(16, {10, 0, 0, 0}), 16, "fmt chunk of 10 bytes");
  // An odd data size in a file that holds it: not a whole number of frames.
  {
    auto b = good;
    b[40] = static_cast<uint8_t>(b[40] - 1);
    expect_error(b, 40, "not a whole number");
  }
  // A RIFF that ends after fmt: no data chunk.
  {
    std::vector<uint8_t> b(good.begin(), good.begin() + 36);
    b[4] = 28;
    b[5] = b[6] = b[7] = 0;
    expect_error(b, 36, "no data chunk");
  }
}

TEST(Wav, EveryTruncationIsAnErrorNotACrash) {
  const auto good = encode_wav(some_samples(), 44100);
  for (size_t n = 0; n < 60; ++n) {
    std::vector<uint8_t> b(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(decode_wav(b, "cut.wav")) << n << " bytes";
  }
}

}  // namespace
}  // namespace voxen::audio
