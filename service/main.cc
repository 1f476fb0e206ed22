// The `credledger` binary (DESIGN section 6): service, migrations and API client in one.
#include <iostream>
#include <string>
#include <vector>

#include "service/credledger_cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return credledger::service::CredledgerMain(args, std::cout, std::cerr);
}
