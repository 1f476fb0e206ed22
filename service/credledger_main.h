// The `credledger` command line: every subcommand registered on one Dispatcher
// (subcommands.h). main.cc only forwards argv here.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/framework/subcommands.h"

namespace credledger::service {

// A dispatcher with every `credledger` subcommand: serve, migrate, target ..., identity
// ..., exec.
cli::Dispatcher CredledgerDispatcher();

// Runs `credledger` with `args` (argv without the program name); returns the exit code.
int CredledgerMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace credledger::service
