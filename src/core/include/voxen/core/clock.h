// Clocks for measuring work (the figures commands print, the per-frame and per-phase costs); never used to decide
// what the world or a frame holds (determinism). Wall time is std::chrono::steady_clock (monotonic); a thread's CPU
// time is POSIX CLOCK_THREAD_CPUTIME_ID (what a job cost its worker, whatever else the machine runs).
#pragma once

#include <time.h>

#include <chrono>

namespace voxen {

/// Wall-clock milliseconds since an unspecified start (steady_clock): only differences mean anything.
inline double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// CPU milliseconds the calling thread has used (CLOCK_THREAD_CPUTIME_ID).
inline double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

/// Wall-clock time since construction (or the last lap()), in seconds or milliseconds.
class Stopwatch {
 public:
  Stopwatch() : m_start(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count(); }
  double ms() const { return seconds() * 1000.0; }
  /// Seconds since the start or the last lap, and starts again now.
  double lap_seconds() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - m_start).count();
    m_start = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace voxen
