// Builders of the rows of the `credledger` command-line bad-input table (bad_input_cli_rows.h),
// shared by the files that hold the rows of each area.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "test/integration/bad_input_cli_rows.h"

namespace credledger::testing {

inline constexpr char kCliUid[] = "0f8fad5b-d9cb-469f-a165-70867728950e";
inline constexpr char kCliNotLabel[] = "is not a DNS-1123 label";
inline constexpr char kCliNotSubdomain[] = "is not a DNS-1123 subdomain";

// A row of a client subcommand: --server names the test server.
inline BadInputCliRow CliClientRow(std::vector<std::string> args, int exit_code,
                                   std::vector<std::string> err) {
  args.push_back("--server");
  args.push_back(kCliServer);
  return {std::move(args), exit_code, std::move(err)};
}

// A row of a subcommand that needs no server (or a client row that sets --server itself).
inline BadInputCliRow CliOfflineRow(std::vector<std::string> args, int exit_code,
                                    std::vector<std::string> err) {
  return {std::move(args), exit_code, std::move(err)};
}

// "{in}/<name>".
inline std::string CliInput(const char* name) { return absl::StrCat(kCliInputs, "/", name); }

// `n` times 'a' (a value over a length limit).
inline std::string CliRepeat(size_t n) { return std::string(n, 'a'); }

// The rows of `identity`, and of `cluster` and `source` (bad_input_cli_identity_rows.cc).
void AddCliIdentityRows(std::vector<BadInputCliRow>& rows);
void AddCliClusterAndSourceRows(std::vector<BadInputCliRow>& rows);

}  // namespace credledger::testing
