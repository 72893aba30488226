// Test support for the command tests: the store tests' temporary directory (removed with its contents at the end),
// where `dir / name` gives an entry's path as a string, ready to pass as a command-line argument.
#pragma once

#include <string>

#include "../store/store_test_util.h"

namespace voxen::clitest {

class TempDir : public testing::TempDir {
 public:
  std::string operator/(const std::string& name) const { return (path() / name).string(); }
};

}  // namespace voxen::clitest
