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
#include <optional>

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
      // Appends piece by piece: GCC 12 reports a false -Wrestrict for `"literal" + std::string` here.
      if (line >= 0) s.append(":").append(std::to_string(line));
      if (offset >= 0) s.append(" @ byte ").append(std::to_string(offset));
      s.append(": ");
    } else if (offset >= 0) {
      s.append("byte ").append(std::to_string(offset)).append(": ");
    }
    return s.append(message);
  }
};

/// Either a value or an Error (std::expected arrives in C++23; this fills the gap). Stored as an optional value
/// beside an Error rather than a std::variant: GCC 12 reports a false -Wfree-nonheap-object in variant's destructor.
template <class T>
class Result {
 public:
  Result(T value) : m_value(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : m_error(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return m_value.has_value(); }
  explicit operator bool() const { return ok(); }
  T& value() & { return *m_value; }
  const T& value() const& { return *m_value; }
  T&& value() && { return std::move(*m_value); }
  const Error& error() const { return m_error; }
  T* operator->() { return &*m_value; }
  const T* operator->() const { return &*m_value; }
  T& operator*() & { return *m_value; }
  const T& operator*() const& { return *m_value; }

 private:
  std::optional<T> m_value;
  Error m_error;
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
