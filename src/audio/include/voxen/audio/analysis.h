// Measurements of a sound, in full scale (1.0 = the largest 16-bit sample): what the tests check and what
// `voxen sound` prints. Samples are mono floats; pure functions.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace voxen::audio {

/// The largest |x| (0 for no samples).
double peak(std::span<const float> x);
/// The root mean square, sqrt(sum x^2 / n) (0 for no samples).
double rms(std::span<const float> x);
/// The mean, the DC offset (0 for no samples).
double dc_offset(std::span<const float> x);
/// Samples at or beyond full scale: |x| >= 1 - 0.5/32767 (where a 16-bit sample would be +-32767 or -32768).
size_t clipped_count(std::span<const float> x);
/// The largest |x[i+1] - x[i]| inside the sound (0 for fewer than 2 samples).
double largest_step(std::span<const float> x);
/// The step a loop makes where it starts again: |x[0] - x[n-1]| (0 for no samples).
double seam_step(std::span<const float> x);

/// In-place discrete Fourier transform X_k = sum_n x_n e^{-2 pi i k n / N} of a power-of-two length (asserted):
/// the iterative radix-2 decimation-in-time Cooley-Tukey FFT (Cooley & Tukey 1965; the bit-reversal form of
/// Cormen et al., Introduction to Algorithms, 3rd ed., section 30.3).
void fft(std::vector<std::complex<double>>& a);

/// The spectral centroid in Hz: sum_k f_k |X_k|^2 / sum_k |X_k|^2 over the bins k = 0 .. N/2 of the whole sound,
/// zero-padded to a power of two N: the centre of gravity of its power spectrum (Peeters, "A large set of audio
/// features for sound description", IRCAM 2004, section 6.1.1, weighted by power as MPEG-7's AudioSpectrumCentroid
/// is, ISO/IEC 15938-4, on a linear frequency scale; magnitude weighting would let the skirts of filtered noise,
/// thousands of bins of them, outweigh its pass band). `sample_rate` in Hz; 0 for silence. Brighter sounds score
/// higher.
double spectral_centroid(std::span<const float> x, int sample_rate);

/// 16-bit samples as floats in full scale: s / 32767 (so -32768 reads as just below -1).
std::vector<float> to_float(std::span<const int16_t> s);
/// Floats to 16-bit samples: round(clamp(x, -1, 1) * 32767).
std::vector<int16_t> to_pcm16(std::span<const float> x);

}  // namespace voxen::audio
