#include "voxen/audio/analysis.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "voxen/core/error.h"

namespace voxen::audio {

double peak(std::span<const float> x) {
  double p = 0;
  for (float v : x) p = std::max(p, static_cast<double>(std::fabs(v)));
  return p;
}

double rms(std::span<const float> x) {
  if (x.empty()) return 0;
  double s = 0;
  for (float v : x) s += static_cast<double>(v) * v;
  return std::sqrt(s / static_cast<double>(x.size()));
}

double dc_offset(std::span<const float> x) {
  if (x.empty()) return 0;
  double s = 0;
  for (float v : x) s += v;
  return s / static_cast<double>(x.size());
}

size_t clipped_count(std::span<const float> x) {
  const double limit = 1.0 - 0.5 / 32767.0;
  return static_cast<size_t>(std::count_if(x.begin(), x.end(), [&](float v) { return std::fabs(v) >= limit; }));
}

double largest_step(std::span<const float> x) {
  double s = 0;
  for (size_t i = 1; i < x.size(); ++i) s = std::max(s, static_cast<double>(std::fabs(x[i] - x[i - 1])));
  return s;
}

double seam_step(std::span<const float> x) {
  return x.empty() ? 0.0 : std::fabs(static_cast<double>(x.front()) - x.back());
}

void fft(std::vector<std::complex<double>>& a) {
  const size_t n = a.size();
  VOXEN_ASSERT(n > 0 && (n & (n - 1)) == 0);
  // Bit-reversal permutation, then log2(n) rounds of butterflies of doubling span.
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const double ang = -2.0 * std::numbers::pi / static_cast<double>(len);
    const std::complex<double> wlen(std::cos(ang), std::sin(ang));
    for (size_t i = 0; i < n; i += len) {
      std::complex<double> w(1.0, 0.0);
      for (size_t k = 0; k < len / 2; ++k) {
        const std::complex<double> u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
        w *= wlen;
      }
    }
  }
}

double spectral_centroid(std::span<const float> x, int sample_rate) {
  if (x.empty()) return 0;
  size_t n = 1;
  while (n < x.size()) n <<= 1;
  std::vector<std::complex<double>> a(n);
  for (size_t i = 0; i < x.size(); ++i) a[i] = x[i];
  fft(a);
  double num = 0, den = 0;
  for (size_t k = 0; k <= n / 2; ++k) {
    const double mag = std::norm(a[k]);  // |X_k|^2
    num += mag * static_cast<double>(k) * sample_rate / static_cast<double>(n);
    den += mag;
  }
  return den > 0 ? num / den : 0.0;
}

std::vector<float> to_float(std::span<const int16_t> s) {
  std::vector<float> out(s.size());
  for (size_t i = 0; i < s.size(); ++i) out[i] = static_cast<float>(s[i] / 32767.0);
  return out;
}

std::vector<int16_t> to_pcm16(std::span<const float> x) {
  std::vector<int16_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    out[i] = static_cast<int16_t>(std::lround(std::clamp(static_cast<double>(x[i]), -1.0, 1.0) * 32767.0));
  return out;
}

}  // namespace voxen::audio
