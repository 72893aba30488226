#include "seed_option.h"

#include <charconv>

namespace voxen::app {

std::optional<uint64_t> parse_seed(std::string_view text) {
  if (text.empty()) return std::nullopt;
  for (char c : text)
    if (c < '0' || c > '9') return std::nullopt;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);  // base 10; out of range: ec set
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

CLI::Option* add_seed_option(CLI::App& cmd, uint64_t& seed, const std::string& help) {
  // A transform, so it runs before CLI11 converts the text: the text it passes on is the canonical decimal, which
  // CLI11's conversion (strtoull with base 0) reads as that very number.
  CLI::Validator check(
      [](std::string& text) -> std::string {
        const auto v = parse_seed(text);
        if (!v) {
          const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
          return "must be a decimal integer 0..18446744073709551615 written with digits only (got '" + shown + "')";
        }
        text = std::to_string(*v);
        return {};
      },
      "", "seed");
  return cmd.add_option("--seed", seed, help)->transform(check);
}

}  // namespace voxen::app
