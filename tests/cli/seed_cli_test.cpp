// --seed through the real binary (app/voxen/seed_option.h): every command takes a decimal 0..2^64-1 written with
// digits only; a sign, a base prefix, spaces or a value past 2^64-1 is refused with exit code 2 naming --seed
// (CLI11's own conversion wrapped them all to 18446744073709551615), and leading zeros are decimal, not octal.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_command.h"

namespace voxen {
namespace {

using testing::line_count;
using testing::run_voxen;

/// The seed `voxen gen` says it used (its JSON's "seed"), after checking it ran.
uint64_t seed_used(const std::string& seed) {
  auto r = run_voxen({"gen", "--seed", seed, "--radius", "0", "--json"});
  EXPECT_EQ(r.exit_code, 0) << seed << ": " << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded() || !j.contains("seed")) {
    ADD_FAILURE() << "no JSON seed for " << seed << ": " << r.out;
    return 0;
  }
  return j["seed"].get<uint64_t>();
}

const std::vector<std::string> kBadSeeds = {
    "18446744073709551616",     // 2^64
    "99999999999999999999999",  // far past 2^64
    "-1", "-0", "+5", "0x10", "1e3", " 5", "5 ", "", "12a",
};

TEST(SeedCli, ValuesOutsideUint64OrNotPlainDecimalAreRefused) {
  for (const std::string& s : kBadSeeds) {
    auto r = run_voxen({"gen", "--seed", s, "--radius", "0", "--json"});
    EXPECT_EQ(r.exit_code, 2) << "'" << s << "' accepted: " << r.out;
    EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("0..18446744073709551615"), std::string::npos) << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // A long value is quoted cut short, not whole.
  auto r = run_voxen({"gen", "--seed", std::string(5000, '9'), "--radius", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_LT(r.err.size(), 300u) << r.err;
}

TEST(SeedCli, EveryCommandWithASeedUsesTheSameCheck) {
  // probe, mesh, shot, export-vox, play and tour take --seed through WorldFlags; fuzz-play has its own option.
  const std::vector<std::vector<std::string>> commands = {
      {"probe", "--at", "0,0,0"},
      {"export-vox", "--from", "0,0,0", "--to", "1,1,1", "--out", "/nonexistent/x.vox"},
      {"fuzz-play", "--frames", "1", "--headless", "--out-dir", "/nonexistent"},
  };
  for (const auto& base : commands)
    for (const std::string& s : {std::string("-1"), std::string("18446744073709551616")}) {
      auto args = base;
      args.insert(args.begin() + 1, {"--seed", s});
      auto r = run_voxen(args);
      EXPECT_EQ(r.exit_code, 2) << base[0] << " --seed " << s << ": " << r.err;
      EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
    }
}

TEST(SeedCli, TheWholeRangeIsDecimal) {
  EXPECT_EQ(seed_used("0"), 0u);
  EXPECT_EQ(seed_used("18446744073709551615"), 18446744073709551615ull);
  EXPECT_EQ(seed_used("010"), 10u);  // not octal 8
  EXPECT_EQ(seed_used("00000000000000000000000042"), 42u);
}

}  // namespace
}  // namespace voxen
