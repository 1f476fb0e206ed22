// Runs the `credledger` command line in the test's own process (service/credledger_main.h)
// and keeps what it printed, for tests of commands that need no server.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "service/credledger_main.h"

namespace credledger::testing {

// What one run of the command line ended with.
struct CliRun {
  int code = 0;  // the exit code
  std::string out;
  std::string err;
};

// Runs `credledger <args>`.
inline CliRun Credledger(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = service::CredledgerMain(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace credledger::testing
