// Errors for bad external input (files, command-line arguments, records), after filament's three tiers:
//   1. programmer errors: VOXEN_ASSERT (file:line, abort);
//   2. expected outcomes: std::optional or enums;
//   3. bad input: Result<T> carrying an Error that names what and where (file, line, byte offset, coordinates).
// Exceptions are caught only at the CLI edge.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace voxen {

/// What went wrong and where. Fields left empty/-1 are unknown. to_string() gives a one-line message such as
/// "data/blocks.toml:12: block 'stone': field 'opacity' must be an integer 0-15".
struct Error {
  std::string message;   // what is wrong, naming the field/argument/record
  std::string file;      // file path, if the input was a file
  int64_t line = -1;     // 1-based line in a text file
  int64_t offset = -1;   // byte offset in a binary file

  std::string to_string() const {
    std::string s;
    if (!file.empty()) {
      s += file;
      if (line >= 0) s += ":" + std::to_string(line);
      if (offset >= 0) s += " @ byte " + std::to_string(offset);
      s += ": ";
    } else if (offset >= 0) {
      s += "byte " + std::to_string(offset) + ": ";
    }
    return s + message;
  }
};

/// Either a value or an Error (std::expected arrives in C++23; this fills the gap).
template <class T>
class Result {
 public:
  Result(T value) : m_v(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : m_v(std::move(error)) {}      // NOLINT(google-explicit-constructor)
  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(m_v); }
  const T& value() const& { return std::get<0>(m_v); }
  T&& value() && { return std::get<0>(std::move(m_v)); }
  const Error& error() const { return std::get<1>(m_v); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Error> m_v;
};

/// Result for operations with no value.
struct Ok {};
using Status = Result<Ok>;

}  // namespace voxen

/// Programmer-error check: prints file:line and the condition, then aborts. Active in every build type.
#define VOXEN_ASSERT(cond)                                                                   \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);     \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)
