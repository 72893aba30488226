#include "voxen/audio/synth.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "voxen/core/error.h"
#include "voxen/core/hash.h"

namespace voxen::audio {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kFs = kSampleRate;

size_t samples_of(double seconds) { return static_cast<size_t>(std::lround(seconds * kFs)); }

/// A stable id for a sound name (64-bit FNV-1a), the `a` of its noise hashes.
int64_t name_id(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return static_cast<int64_t>(h);
}

/// White noise: sample i of stream `stream` of one sound, a pure function of (seed, sound id, stream, i).
struct Noise {
  uint64_t seed;
  int64_t id;
  int64_t stream;
  double unit(int64_t i) const { return hash_to_unit(hash3(seed, id, stream, i)); }  // [0, 1)
  double operator()(int64_t i) const { return unit(i) * 2.0 - 1.0; }                 // [-1, 1)
  Noise sub(int64_t s) const { return Noise{seed, id, stream * 131 + s + 1}; }
};

/// A biquad filter in direct form I, coefficients from the Audio EQ Cookbook (R. Bristow-Johnson):
/// w0 = 2 pi f0 / Fs, alpha = sin(w0) / (2 Q), all divided by a0.
///   low-pass:  b = ((1 - cos w0)/2, 1 - cos w0, (1 - cos w0)/2),  a = (1 + alpha, -2 cos w0, 1 - alpha)
///   high-pass: b = ((1 + cos w0)/2, -(1 + cos w0), (1 + cos w0)/2), a as above
///   band-pass (constant 0 dB peak gain): b = (alpha, 0, -alpha), a as above
struct Biquad {
  enum Kind { kLowPass, kHighPass, kBandPass };
  double b0 = 1, b1 = 0, b2 = 0, a1 = 0, a2 = 0;
  double x1 = 0, x2 = 0, y1 = 0, y2 = 0;

  Biquad() = default;
  Biquad(Kind kind, double f0, double q) { set(kind, f0, q); }
  /// New coefficients, the state kept (a time-varying filter).
  void set(Kind kind, double f0, double q) {
    f0 = std::clamp(f0, 10.0, 0.45 * kFs);
    const double w0 = 2.0 * kPi * f0 / kFs, c = std::cos(w0), alpha = std::sin(w0) / (2.0 * q);
    const double a0 = 1.0 + alpha;
    switch (kind) {
      case kLowPass: b0 = (1 - c) / 2; b1 = 1 - c; b2 = (1 - c) / 2; break;
      case kHighPass: b0 = (1 + c) / 2; b1 = -(1 + c); b2 = (1 + c) / 2; break;
      case kBandPass: b0 = alpha; b1 = 0; b2 = -alpha; break;
    }
    b0 /= a0; b1 /= a0; b2 /= a0;
    a1 = -2.0 * c / a0;
    a2 = (1.0 - alpha) / a0;
  }
  double operator()(double x) {
    const double y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
    x2 = x1; x1 = x;
    y2 = y1; y1 = y;
    return y;
  }
};

/// One cycle of a waveform in a table, read with linear interpolation (phase in cycles).
struct Wavetable {
  static constexpr int kSize = 4096;
  std::array<float, kSize + 1> t{};
  /// Sum of harmonics k = 1..count with amplitude amp(k), normalised to peak 1.
  template <class Amp>
  static Wavetable additive(int count, Amp amp) {
    Wavetable w;
    double m = 0;
    std::array<double, kSize> v{};
    for (int i = 0; i < kSize; ++i) {
      for (int k = 1; k <= count; ++k) v[i] += amp(k) * std::sin(2.0 * kPi * k * i / kSize);
      m = std::max(m, std::fabs(v[i]));
    }
    for (int i = 0; i < kSize; ++i) w.t[i] = static_cast<float>(v[i] / m);
    w.t[kSize] = w.t[0];
    return w;
  }
  double operator()(double phase) const {
    const double p = (phase - std::floor(phase)) * kSize;
    const int i = static_cast<int>(p);
    const double f = p - i;
    return t[i] + (t[i + 1] - t[i]) * f;
  }
};

const Wavetable& sine_table() {
  static const Wavetable w = Wavetable::additive(1, [](int) { return 1.0; });
  return w;
}

/// Attack then exponential decay: t / attack rising, then e^{-(t - attack) / tau} (seconds).
double attack_decay(double t, double attack, double tau) {
  if (t < 0) return 0;
  if (t < attack) return t / attack;
  return std::exp(-(t - attack) / tau);
}

/// A Hann window over [0, len) (0 outside).
double hann(double t, double len) {
  if (t < 0 || t >= len) return 0;
  const double s = std::sin(kPi * t / len);
  return s * s;
}

/// Smooth random values in [0, 1] at `rate` knots a second, cosine-interpolated between knots.
double smooth(const Noise& n, double t, double rate) {
  const double k = t * rate, f = k - std::floor(k);
  const int64_t i = static_cast<int64_t>(std::floor(k));
  const double w = (1 - std::cos(kPi * f)) / 2;
  return n.unit(i) * (1 - w) + n.unit(i + 1) * w;
}

/// A sound being built: double samples, added into.
using Buffer = std::vector<double>;

void add_at(Buffer& out, size_t at, const Buffer& x, double gain) {
  if (out.size() < at + x.size()) out.resize(at + x.size(), 0.0);
  for (size_t i = 0; i < x.size(); ++i) out[at + i] += gain * x[i];
}

/// Damped sinusoid (one mode of a struck object): sin(2 pi f t) e^{-t/tau}, `seconds` long.
Buffer mode(double f, double tau, double seconds) {
  Buffer b(samples_of(seconds));
  const double decay = std::exp(-1.0 / (tau * kFs));
  double env = 1;
  for (size_t i = 0; i < b.size(); ++i, env *= decay) b[i] = env * sine_table()(f * static_cast<double>(i) / kFs);
  // A short attack so the mode starts at zero slope.
  for (size_t i = 0; i < std::min<size_t>(b.size(), 44); ++i) b[i] *= static_cast<double>(i) / 44.0;
  return b;
}

/// Noise through a filter chain (each Biquad in turn), times attack_decay(attack, tau), `seconds` long.
Buffer noise_burst(const Noise& n, std::initializer_list<Biquad> filters, double attack, double tau, double seconds) {
  std::vector<Biquad> f(filters);
  Buffer b(samples_of(seconds));
  for (size_t i = 0; i < b.size(); ++i) {
    double x = n(static_cast<int64_t>(i));
    for (Biquad& q : f) x = q(x);
    b[i] = x * attack_decay(static_cast<double>(i) / kFs, attack, tau);
  }
  return b;
}

/// Granular amplitude: `count` Hann grains of `min_len`..`max_len` s, starting at hashed times over `spread` s
/// (denser early: start = spread * u^skew), amplitude 0.3..1 each; the sum, `seconds` long.
Buffer grains(const Noise& n, int count, double spread, double skew, double min_len, double max_len, double seconds) {
  Buffer g(samples_of(seconds), 0.0);
  for (int k = 0; k < count; ++k) {
    const double start = spread * std::pow(n.unit(4 * k), skew);
    const double len = min_len + (max_len - min_len) * n.unit(4 * k + 1);
    const double amp = 0.3 + 0.7 * n.unit(4 * k + 2);
    const size_t s0 = samples_of(start), sl = samples_of(len);
    for (size_t i = 0; i < sl && s0 + i < g.size(); ++i) g[s0 + i] += amp * hann(static_cast<double>(i), static_cast<double>(sl));
  }
  return g;
}

Buffer multiply(Buffer a, const Buffer& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] *= i < b.size() ? b[i] : 0.0;
  return a;
}

/// A bubble (van den Doel 2005): sin(2 pi \int f) e^{-d t} with f(t) = f0 (1 + sigma t), damping
/// d = 0.13 f0 + 0.0072 f0^1.5 (1/s), sigma = xi d with xi = 0.1 (a rising chirp).
void add_bubble(Buffer& out, size_t at, double f0, double amp) {
  const double d = 0.13 * f0 + 0.0072 * std::pow(f0, 1.5), sigma = 0.1 * d;
  const size_t len = samples_of(std::min(0.25, 6.0 / d));
  if (out.size() < at + len) out.resize(at + len, 0.0);
  double phase = 0;
  for (size_t i = 0; i < len; ++i) {
    const double t = static_cast<double>(i) / kFs;
    phase += f0 * (1 + sigma * t) / kFs;
    const double attack = std::min(1.0, static_cast<double>(i) / 22.0);
    out[at + i] += amp * attack * std::exp(-d * t) * sine_table()(phase);
  }
}

/// One strike of a material's surface: `bright` scales its filter frequencies, `length` its decays. The
/// recipes are described in synth.h and docs/ARCHITECTURE.md (Sound).
Buffer strike(Material m, const Noise& n, double bright, double length) {
  Buffer out;
  using B = Biquad;
  switch (m) {
    case Material::kStone: {  // a hard click: band-passed noise high up, two stiff modes, a small low knock
      add_at(out, 0, noise_burst(n, {B(B::kHighPass, 700, 0.7), B(B::kBandPass, 2800 * bright, 0.9)}, 0.0005, 0.018 * length, 0.2 * length), 1.0);
      add_at(out, 0, mode(1650 * bright, 0.012 * length, 0.1 * length), 0.25);
      add_at(out, 0, mode(2930 * bright, 0.009 * length, 0.08 * length), 0.18);
      add_at(out, 0, mode(120, 0.015 * length, 0.1 * length), 0.3);
      break;
    }
    case Material::kDirt: {  // a dull thud with a little rustle
      add_at(out, 0, noise_burst(n, {B(B::kLowPass, 500 * bright, 0.7), B(B::kHighPass, 40, 0.7)}, 0.003, 0.045 * length, 0.25 * length), 1.0);
      add_at(out, 0, mode(80, 0.03 * length, 0.2 * length), 0.5);
      add_at(out, 0, noise_burst(n.sub(1), {B(B::kHighPass, 1500, 0.7), B(B::kLowPass, 4000, 0.7)}, 0.002, 0.03 * length, 0.15 * length), 0.05);
      break;
    }
    case Material::kSand: {  // soft granular hiss, low-passed: many small grains over a slow swell
      const double seconds = 0.32 * length;
      const Buffer body = noise_burst(n, {B(B::kLowPass, 900 * bright, 0.7), B(B::kHighPass, 80, 0.7)}, 0.012, 0.07 * length, seconds);
      add_at(out, 0, multiply(body, grains(n.sub(1), 70, 0.2 * length, 1.6, 0.004, 0.012, seconds)), 1.0);
      add_at(out, 0, body, 0.5);
      break;
    }
    case Material::kGravel: {  // crunch: band-passed noise gated into short clicks
      const double seconds = 0.3 * length;
      const Buffer body = noise_burst(n, {B(B::kBandPass, 2200 * bright, 0.6)}, 0.001, 0.09 * length, seconds);
      add_at(out, 0, multiply(body, grains(n.sub(1), 45, 0.22 * length, 1.4, 0.002, 0.006, seconds)), 1.0);
      add_at(out, 0, noise_burst(n.sub(2), {B(B::kLowPass, 400, 0.7)}, 0.002, 0.03 * length, 0.15 * length), 0.3);
      break;
    }
    case Material::kWood: {  // a hollow knock: four modes of a plank and a short click
      const double modes[4][3] = {{190, 0.06, 1.0}, {440, 0.035, 0.6}, {720, 0.025, 0.4}, {1130, 0.015, 0.25}};
      for (const auto& md : modes) add_at(out, 0, mode(md[0] * std::sqrt(bright), md[1] * length, 0.35 * length), md[2]);
      add_at(out, 0, noise_burst(n, {B(B::kBandPass, 1500 * bright, 1.0)}, 0.0003, 0.004 * length, 0.03), 0.6);
      break;
    }
    case Material::kSnow: {  // a compressed crunch: dense small grains of mid noise, a slow attack
      const double seconds = 0.35 * length;
      const Buffer body = noise_burst(n, {B(B::kLowPass, 1800 * bright, 0.7), B(B::kHighPass, 300, 0.7)}, 0.025, 0.08 * length, seconds);
      add_at(out, 0, multiply(body, grains(n.sub(1), 90, 0.25 * length, 1.0, 0.003, 0.008, seconds)), 1.0);
      break;
    }
    case Material::kWater: {  // a splash: band-passed noise sweeping up, then bubbles
      const size_t len = samples_of(0.4 * length);
      Buffer b(len);
      Biquad f;
      for (size_t i = 0; i < len; ++i) {
        const double t = static_cast<double>(i) / kFs;
        if (i % 32 == 0) f.set(B::kBandPass, (600 + 1200 * std::min(1.0, t / (0.15 * length))) * bright, 0.8);
        b[i] = f(n(static_cast<int64_t>(i))) * attack_decay(t, 0.005, 0.08 * length);
      }
      add_at(out, 0, b, 1.0);
      for (int k = 0; k < 5; ++k) {
        const Noise bn = n.sub(10 + k);
        add_bubble(out, samples_of(0.02 + 0.2 * length * bn.unit(0)), (400 + 1100 * bn.unit(1)) * bright, 0.3 + 0.3 * bn.unit(2));
      }
      break;
    }
    case Material::kGlass: {  // a tink: inharmonic high modes and a sharp click
      const double modes[4][3] = {{2750, 0.09, 1.0}, {4130, 0.06, 0.7}, {5870, 0.04, 0.5}, {7600, 0.025, 0.35}};
      for (const auto& md : modes) add_at(out, 0, mode(md[0] * bright, md[1] * length, 0.45 * length), md[2]);
      add_at(out, 0, noise_burst(n, {B(B::kHighPass, 3000, 0.7)}, 0.0002, 0.003 * length, 0.02), 0.8);
      break;
    }
    case Material::kLeaves: {  // a rustle: high noise in slow overlapping grains
      const double seconds = 0.35 * length;
      const Buffer body = noise_burst(n, {B(B::kHighPass, 1800 * bright, 0.7), B(B::kLowPass, 7000, 0.7)}, 0.01, 0.12 * length, seconds);
      add_at(out, 0, multiply(body, grains(n.sub(1), 20, 0.28 * length, 1.0, 0.015, 0.04, seconds)), 1.0);
      break;
    }
  }
  return out;
}

/// The finishing of every sound: the mean removed (no DC offset), a one-shot's first 1 ms and last 10 ms faded
/// (it starts and ends at zero), then scaled so its peak is `target` full scale.
std::vector<float> finish(Buffer b, double target, bool loop) {
  double mean = 0;
  for (double v : b) mean += v;
  mean /= static_cast<double>(std::max<size_t>(1, b.size()));
  for (double& v : b) v -= mean;
  if (!loop) {
    const size_t in = std::min(b.size(), samples_of(0.001)), out = std::min(b.size(), samples_of(0.01));
    for (size_t i = 0; i < in; ++i) b[i] *= static_cast<double>(i) / static_cast<double>(in);
    for (size_t i = 0; i < out; ++i) b[b.size() - 1 - i] *= static_cast<double>(i) / static_cast<double>(out);
  }
  double p = 0;
  for (double v : b) p = std::max(p, std::fabs(v));
  const double g = p > 0 ? target / p : 0.0;
  std::vector<float> out(b.size());
  for (size_t i = 0; i < b.size(); ++i) out[i] = static_cast<float>(b[i] * g);
  return out;
}

/// The ambience loops: `seconds` long from `x`, `seconds` + `fade_seconds` long (crossfade_loop).
Buffer loop_of(const Buffer& x, double seconds, double fade_seconds) {
  return crossfade_loop(x, samples_of(seconds), samples_of(fade_seconds));
}

constexpr double kFade = 0.25;  // ambience crossfade, seconds

Buffer water_loop(const Noise& n) {
  const size_t len = samples_of(kWaterLoopSeconds + kFade);
  Buffer b(len, 0.0);
  Biquad low(Biquad::kBandPass, 500, 0.5), high(Biquad::kBandPass, 1800, 1.0);
  const Noise m1 = n.sub(1), m2 = n.sub(2), n2 = n.sub(3);
  for (size_t i = 0; i < len; ++i) {
    const double t = static_cast<double>(i) / kFs;
    b[i] = low(n(static_cast<int64_t>(i))) * (0.4 + 0.6 * smooth(m1, t, 6)) +
           0.4 * high(n2(static_cast<int64_t>(i))) * smooth(m2, t, 9);
  }
  const int bubbles = static_cast<int>(12 * (kWaterLoopSeconds + kFade));
  for (int k = 0; k < bubbles; ++k) {
    const Noise bn = n.sub(100 + k);
    const size_t at = samples_of((kWaterLoopSeconds + kFade - 0.25) * bn.unit(0));
    add_bubble(b, at, 300 + 900 * bn.unit(1), 0.15 + 0.35 * bn.unit(2));
  }
  b.resize(len);
  return loop_of(b, kWaterLoopSeconds, kFade);
}

Buffer lava_loop(const Noise& n) {
  const size_t len = samples_of(kLavaLoopSeconds + kFade);
  Buffer b(len, 0.0);
  Biquad rumble(Biquad::kLowPass, 120, 0.7), body(Biquad::kLowPass, 400, 0.7), dc(Biquad::kHighPass, 25, 0.7);
  const Noise m1 = n.sub(1), n2 = n.sub(2);
  for (size_t i = 0; i < len; ++i) {
    const double t = static_cast<double>(i) / kFs;
    b[i] = dc(3.0 * rumble(n(static_cast<int64_t>(i))) + 0.4 * body(n2(static_cast<int64_t>(i))) * smooth(m1, t, 3));
  }
  // Pops: a click and a low knock; blurps: a sine falling 250 -> 90 Hz under a Hann window.
  const int pops = static_cast<int>(3 * (kLavaLoopSeconds + kFade));
  for (int k = 0; k < pops; ++k) {
    const Noise pn = n.sub(100 + k);
    const size_t at = samples_of((kLavaLoopSeconds + kFade - 0.3) * pn.unit(0));
    const double amp = 0.3 + 0.5 * pn.unit(1);
    add_at(b, at, noise_burst(pn, {Biquad(Biquad::kHighPass, 1000, 0.7)}, 0.0003, 0.002, 0.02), amp);
    add_at(b, at, mode(70 + 90 * pn.unit(2), 0.04, 0.2), amp * 0.8);
  }
  const int blurps = static_cast<int>(1.5 * (kLavaLoopSeconds + kFade));
  for (int k = 0; k < blurps; ++k) {
    const Noise pn = n.sub(200 + k);
    const size_t at = samples_of((kLavaLoopSeconds + kFade - 0.2) * pn.unit(0));
    const double dur = 0.06 + 0.06 * pn.unit(1), f_hi = 200 + 100 * pn.unit(2);
    const size_t sl = samples_of(dur);
    Buffer s(sl);
    double phase = 0;
    for (size_t i = 0; i < sl; ++i) {
      const double u = static_cast<double>(i) / static_cast<double>(sl);
      phase += (f_hi + (90 - f_hi) * u) / kFs;
      s[i] = hann(static_cast<double>(i), static_cast<double>(sl)) * sine_table()(phase);
    }
    add_at(b, at, s, 0.5);
  }
  b.resize(len);
  return loop_of(b, kLavaLoopSeconds, kFade);
}

Buffer wind_loop(const Noise& n) {
  const size_t len = samples_of(kWindLoopSeconds + kFade);
  Buffer b(len, 0.0);
  // The centre frequency and the gain wander with sums of sines whose periods divide the loop (L, L/2, L/3), so
  // they are periodic in it; the noise itself is joined by the crossfade.
  double ph[6];
  for (int k = 0; k < 6; ++k) ph[k] = 2 * kPi * n.sub(1).unit(k);
  Biquad band, floor_(Biquad::kLowPass, 300, 0.7);
  const Noise n2 = n.sub(2);
  for (size_t i = 0; i < len; ++i) {
    const double u = 2 * kPi * static_cast<double>(i) / kFs / kWindLoopSeconds;
    if (i % 16 == 0) {
      const double m = 0.6 * std::sin(u + ph[0]) + 0.3 * std::sin(2 * u + ph[1]) + 0.1 * std::sin(3 * u + ph[2]);
      band.set(Biquad::kBandPass, 550 * std::pow(2.0, 0.9 * m), 2.5);
    }
    const double gain = 0.65 + 0.25 * std::sin(u + ph[3]) + 0.1 * std::sin(2 * u + ph[4]);
    b[i] = gain * band(n(static_cast<int64_t>(i))) + 0.25 * floor_(n2(static_cast<int64_t>(i)));
  }
  return loop_of(b, kWindLoopSeconds, kFade);
}

/// The music loop: 8 bars of 4/4 at kMusicBpm in a major key chosen by the seed, a four-chord progression chosen
/// by the seed played twice; every note is added modulo the loop's length (its tail wraps to the start).
Buffer music_loop(const Noise& n) {
  const size_t len = samples_of(kMusicLoopSeconds);
  Buffer b(len, 0.0);
  const double beat = 60.0 / kMusicBpm;
  auto add_wrapped = [&](double start, const Buffer& note, double gain) {
    const size_t s0 = samples_of(start);
    for (size_t i = 0; i < note.size(); ++i) b[(s0 + i) % len] += gain * note[i];
  };
  auto hz = [](double midi) { return 440.0 * std::pow(2.0, (midi - 69.0) / 12.0); };
  constexpr int kScale[7] = {0, 2, 4, 5, 7, 9, 11};  // major
  auto degree_note = [&](int degree) { return 12 * (degree / 7) + kScale[degree % 7]; };
  const int tonic = 48 + std::array<int, 5>{0, 2, 5, 7, 9}[static_cast<size_t>(n.unit(0) * 5)];  // C3 D3 F3 G3 A3
  constexpr int kProgressions[4][4] = {{0, 4, 5, 3}, {5, 3, 0, 4}, {0, 5, 3, 4}, {0, 3, 5, 4}};  // I V vi IV, ...
  const int* prog = kProgressions[static_cast<size_t>(n.unit(1) * 4)];

  const Wavetable pad = Wavetable::additive(6, [](int k) { return 1.0 / k; });
  const Wavetable bass = Wavetable::additive(2, [](int k) { return k == 1 ? 1.0 : 0.3; });
  const Wavetable& sine = sine_table();

  auto pad_note = [&](double f, double seconds) {
    Buffer x(samples_of(seconds + 0.8));
    for (size_t i = 0; i < x.size(); ++i) {
      const double t = static_cast<double>(i) / kFs;
      const double env = std::min(1.0, t / 0.35) * (t < seconds ? 1.0 : std::exp(-(t - seconds) / 0.2));
      x[i] = env * 0.5 * (pad(f * 0.9985 * t) + pad(f * 1.0015 * t));
    }
    return x;
  };
  auto bass_note = [&](double f, double seconds) {
    Buffer x(samples_of(seconds));
    for (size_t i = 0; i < x.size(); ++i) {
      const double t = static_cast<double>(i) / kFs;
      x[i] = attack_decay(t, 0.006, 0.35) * bass(f * t) * std::min(1.0, (seconds - t) / 0.02);
    }
    return x;
  };
  // Chowning's FM: sin(2 pi fc t + I(t) sin(2 pi fm t)), fm = 3.5 fc, index I(t) = 2.5 e^{-t / 0.25}.
  auto bell_note = [&](double f) {
    Buffer x(samples_of(1.4));
    for (size_t i = 0; i < x.size(); ++i) {
      const double t = static_cast<double>(i) / kFs;
      const double index = 2.5 * std::exp(-t / 0.25);
      x[i] = attack_decay(t, 0.003, 0.45) * sine(f * t + index / (2 * kPi) * sine(3.5 * f * t)) *
             std::min(1.0, (1.4 - t) / 0.05);
    }
    return x;
  };

  int melody = 7 * 2 + 2;  // scale degree of the melody's note (two octaves above the tonic, the third)
  for (int bar = 0; bar < kMusicBars; ++bar) {
    const int chord = prog[bar % 4];
    const double t_bar = bar * 4 * beat;
    for (int v = 0; v < 3; ++v) add_wrapped(t_bar, pad_note(hz(tonic + 12 + degree_note(chord + 2 * v)), 4 * beat), 0.09);
    const double root = hz(tonic - 12 + degree_note(chord));
    add_wrapped(t_bar, bass_note(root, 1.9 * beat), 0.3);
    add_wrapped(t_bar + 2 * beat, bass_note(root, 1.4 * beat), 0.25);
    if (n.sub(5).unit(bar) < 0.5) add_wrapped(t_bar + 3.5 * beat, bass_note(root * 1.5, 0.45 * beat), 0.2);
    // The melody in eighths: chord tones on the strong eighths (0, 4), a walk on the major pentatonic between
    // them; a third of the weak eighths rest.
    for (int slot = 0; slot < 8; ++slot) {
      const Noise mn = n.sub(1000 + bar * 8 + slot);
      const bool strong = slot == 0 || slot == 4;
      if (!strong && mn.unit(0) < 0.35) continue;
      if (strong) {
        const int tone = chord + 2 * static_cast<int>(mn.unit(1) * 3);  // root, third or fifth of the chord
        int best = melody;
        for (int d = 7 + tone % 7; d < 7 * 3; d += 7)
          if (std::abs(d - melody) < std::abs(best - melody) || best == melody) best = d;
        melody = best;
      } else {
        const int step = static_cast<int>(mn.unit(1) * 5) - 2;  // -2 .. 2 scale steps
        melody = std::clamp(melody + step, 9, 19);
        if (melody % 7 == 3 || melody % 7 == 6) melody += step >= 0 ? 1 : -1;  // pentatonic: no 4th, no 7th
      }
      add_wrapped(t_bar + slot * beat / 2, bell_note(hz(tonic + degree_note(melody))), strong ? 0.22 : 0.16);
    }
  }
  return b;
}

}  // namespace

std::vector<double> crossfade_loop(std::span<const double> x, size_t length, size_t fade) {
  VOXEN_ASSERT(x.size() >= length + fade && fade <= length);
  std::vector<double> out(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(length));
  for (size_t i = 0; i < fade; ++i) {
    const double a = 0.5 * kPi * static_cast<double>(i) / static_cast<double>(fade);
    out[i] = x[i] * std::sin(a) + x[length + i] * std::cos(a);
  }
  return out;
}

// Appended piece by piece: GCC 12 reports a false -Wrestrict for `"literal" + std::string`.
std::string footstep_name(Material m) { return std::string("footstep_").append(material_name(m)); }
std::string dig_name(Material m) { return std::string("dig_").append(material_name(m)); }
std::string place_name(Material m) { return std::string("place_").append(material_name(m)); }

SoundBank SoundBank::generate(uint64_t seed) {
  SoundBank bank;
  bank.m_seed = seed;
  auto add = [&](std::string name, Buffer b, double target, bool loop) {
    std::vector<float> s = finish(std::move(b), target, loop);
    bank.m_sounds.push_back(Sound{std::move(name), std::move(s), loop});
  };
  auto noise = [&](const std::string& name) { return Noise{seed, name_id(name), 0}; };
  for (Material m : kMaterials) {
    const std::string step = footstep_name(m), dig = dig_name(m), place = place_name(m);
    add(step, strike(m, noise(step), 1.0, 1.0), 0.89, false);
    // Digging: a strike, a second weaker one 110 ms later, and debris (the material's grains, quieter).
    Buffer d = strike(m, noise(dig), 1.1, 1.3);
    add_at(d, samples_of(0.11), strike(m, noise(dig).sub(7), 0.9, 1.0), 0.7);
    if (m != Material::kWater) add_at(d, samples_of(0.2), strike(Material::kGravel, noise(dig).sub(8), 0.5, 0.8), 0.25);
    add(dig, std::move(d), 0.89, false);
    // Placing: one duller, shorter strike and a low thump.
    Buffer p = strike(m, noise(place), 0.7, 0.8);
    add_at(p, 0, mode(90, 0.025, 0.12), 0.5);
    add(place, std::move(p), 0.89, false);
  }
  add(std::string(kWaterAmbience), water_loop(noise(std::string(kWaterAmbience))), 0.6, true);
  add(std::string(kLavaAmbience), lava_loop(noise(std::string(kLavaAmbience))), 0.7, true);
  add(std::string(kWind), wind_loop(noise(std::string(kWind))), 0.6, true);
  add(std::string(kMusic), music_loop(noise(std::string(kMusic))), 0.8, true);
  std::sort(bank.m_sounds.begin(), bank.m_sounds.end(), [](const Sound& a, const Sound& b) { return a.name < b.name; });
  return bank;
}

const Sound* SoundBank::find(std::string_view name) const {
  auto it = std::lower_bound(m_sounds.begin(), m_sounds.end(), name, [](const Sound& s, std::string_view n) { return s.name < n; });
  return it != m_sounds.end() && it->name == name ? &*it : nullptr;
}

}  // namespace voxen::audio
