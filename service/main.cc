// The `credledger` binary (docs/api.md, "RPCs and subcommands" and "Server subcommands"):
// service, migrations and API client in one.
#include <iostream>
#include <string>
#include <vector>

#include "service/credledger_main.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return credledger::service::CredledgerMain(args, std::cout, std::cerr);
}
