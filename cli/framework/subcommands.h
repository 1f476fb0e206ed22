// The `credledger` subcommand dispatch layer (docs/api.md, "RPCs and subcommands": every
// subcommand takes `--help`), decided once for every subcommand: a subcommand is named by one
// or more words ("serve", "target register"), owns a FlagSet that only it parses, and runs with
// its positional arguments.
//
// Exit codes: 0 success (and --help); 2 usage errors (unknown subcommand, unknown flag, bad
// flag value, wrong number of arguments), printed as "error: ..." followed by the relevant
// usage on stderr; otherwise what the subcommand returns (1 for failures by convention).
// Flags go after the subcommand's words: for `cluster --server X list` the error shows the
// command as it should be written ("error: flags go after the subcommand: credledger
// cluster list --server X").
//
// Thread-safety: not thread-safe; one Dispatcher per process.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "cli/framework/flag_set.h"

namespace credledger::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
// Exit codes of the subcommands that run a check on the server and print its outcome
// (`source verify`, `cluster probe`), beside kExitOk for a check that passed; each lists them
// in its --help.
inline constexpr int kExitCheckFailed = 3;  // the check failed; a retry may succeed
inline constexpr int kExitUnsupported = 4;  // retrying cannot help until the spec changes

// Prints "error: <CODE>: <message>" (CODE as in absl::StatusCodeToString, for example
// INVALID_ARGUMENT; the message through common::TerminalSafe) to `err` and returns
// kExitFailure.
int ReportError(const absl::Status& status, std::ostream& err);

// Prints "error: <message>" (through common::TerminalSafe) to `err` and returns kExitUsage:
// for a command line that cannot be run as written.
int ReportUsageError(absl::string_view message, std::ostream& err);

// One subcommand's behaviour. Flags bind to the object's own members in DefineFlags.
class Subcommand {
 public:
  virtual ~Subcommand() = default;
  // Declares the subcommand's flags, bound to members of this object.
  virtual void DefineFlags(FlagSet& flags) = 0;
  // Runs with the positional arguments (count already checked); returns the exit code.
  // Output goes to `out`, diagnostics and errors ("error: ...") to `err`.
  virtual int Run(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err) = 0;
  // Checks flag values beyond what their parser checks, after parsing and before Run.
  // Errors: kInvalidArgument naming the flag; the dispatcher prints it and exits kExitUsage.
  virtual absl::Status CheckFlags() const { return absl::OkStatus(); }
};

struct SubcommandSpec {
  std::string path;          // words, space-separated: "target register"
  std::string args_usage;    // positional arguments for the usage line: "<namespace>/<name>"
  std::string summary;       // one line, lower-case, no final period
  size_t min_args = 0;       // positional arguments accepted
  size_t max_args = 0;
  std::function<std::unique_ptr<Subcommand>()> make;
  // Optional paragraphs printed by --help after the summary (lines end with '\n').
  std::string description = "";
};

class Dispatcher {
 public:
  // `program` is the name printed in usage lines ("credledger").
  explicit Dispatcher(std::string program) : program_(std::move(program)) {}

  // REQUIRES: `spec.path` is unique and `spec.make` non-null.
  void Add(SubcommandSpec spec);

  // Dispatches `args` (argv without the program name) and returns the exit code.
  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) const;

  // The program's usage: every subcommand with its summary.
  std::string Usage() const;
  // The path of every subcommand ("serve", "target register"), in the order added.
  std::vector<std::string> Paths() const;
  // A subcommand's usage line, summary, description and its own flags only.
  std::string Help(const SubcommandSpec& spec) const;

 private:
  // The subcommand whose words are the longest prefix of `args`; nullptr when none.
  const SubcommandSpec* Match(const std::vector<std::string>& args, size_t* words) const;
  // For `args` that Match refused: the subcommand with the most words that appear in `args`
  // in order with only flags and their values among or before them (`cluster --server X
  // list`, `--server X cluster list`); sets `*rest` to the other arguments in order. nullptr
  // when none.
  const SubcommandSpec* MatchAroundFlags(const std::vector<std::string>& args,
                                         std::vector<std::string>* rest) const;
  // Usage restricted to the subcommands under `prefix` ("target").
  std::string GroupUsage(const std::string& prefix) const;

  std::string program_;
  std::vector<SubcommandSpec> specs_;
};

}  // namespace credledger::cli
