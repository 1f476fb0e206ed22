// The table of the bad-input suite of the `credledger` command line (docs/api.md, "Bad input"):
// command lines that break one rule each, and the refusal each must get. bad_input_cli_test.cc
// runs every row in this process through service::CredledgerMain against a real Server and
// checks the exit code, stderr, and that nothing was appended or written.
#pragma once

#include <string>
#include <vector>

namespace credledger::testing {

// Placeholders a row's arguments and expected texts may hold; the test replaces them.
inline constexpr char kCliInputs[] = "{in}";      // the folder of input files (below)
inline constexpr char kCliServer[] = "{server}";  // the test server's address
inline constexpr char kCliServerDb[] = "{db}";    // the test server's database file

// One bad command line and its refusal.
struct BadInputCliRow {
  // The arguments after the program name.
  std::vector<std::string> args;
  // 2 for usage errors (nothing was sent), 1 for refusals by the server or of a file.
  int exit_code;
  // Substrings of stderr: the flag, argument, field or file, and the rule.
  std::vector<std::string> err;
  // A substring stdout must hold; empty: stdout must be empty. Only `verify` prints its
  // verdict on stdout ("FAILED: ...").
  std::string out = "";
};

// Every row. Rows assume the state BadInputCliTest sets up: Target demo/edge-1 registered
// (so that the log head is at least 2), and in the inputs folder:
//   a-folder/                  an empty folder
//   not-a-folder               a regular file (so "not-a-folder/x" cannot be created)
//   invalid.yaml               YAML that does not parse
//   two-docs.yaml              two identity specs separated by ---
//   unknown-key.yaml           an identity spec with an unknown key
//   not-utf8.yaml              bytes that are not UTF-8
//   too-big.yaml               a spec over the 1 MiB limit of spec files
//   deep.yaml                  a spec nested deeper than the limit of 499 levels
//   long-label.yaml            an identity spec whose label value has 64 characters
//   cluster-bad-mode.yaml      a cluster spec with connectionMode "sideways"
//   cluster-unknown-key.yaml   a cluster spec with an unknown key under agentless
//   source-yes.yaml            a source spec with insecureSkipVerify: yes (YAML 1.1 boolean)
//   kubeconfig-invalid.yaml    a kubeconfig that does not parse
//   kubeconfig-valid.yaml      a kubeconfig of an unreachable server (parses, never dialled)
//   policy-unknown-rpc.yaml    an authorization policy naming TargetService/Bogus
//   not-a-key.pem              text that is no PEM key
//   public-key.pem             a real Ed25519 public key (keygen)
//   garbage.jsonl              a line that is not JSON
//   empty.jsonl                an empty file
// Paths that do not exist: missing.yaml, missing.pem, missing.jsonl, missing.db, missing/.
std::vector<BadInputCliRow> BadInputCliRows();

}  // namespace credledger::testing
