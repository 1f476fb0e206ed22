// FlagSet: the flags of one `credledger` subcommand. absl/flags has one process-wide
// registry, which cannot give each subcommand its own flags and `--help`; so subcommands
// declare their flags here, bound to their own variables, and values are converted by
// absl's flag marshalling (absl::ParseFlag / absl::UnparseFlag), so every type absl flags
// accept (strings, integers, bool, absl::Duration, ...) parses the same way.
//
// Accepted forms: `--name=value`, `--name value`, and for bool flags `--name`,
// `--noname`, `--name=true|false`; a flag with a one-letter alias also `-x value` and
// `-x=value`. A repeated flag (AddRepeated) collects one value per occurrence; any other
// flag given twice keeps the last value. `--help` and `-h` ask for help; `--` ends the
// flags. Any other argument is positional. Flags and positional arguments may be
// interleaved.
//
// Thread-safety: not thread-safe; one FlagSet per parse.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/flags/marshalling.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::cli {

class FlagSet {
 public:
  // Declares --`name` bound to `*value`; the value `*value` holds now is the default shown
  // by Help. `value` must outlive the FlagSet. REQUIRES: `name` is unique in this set.
  template <typename T>
  void Add(absl::string_view name, T* value, absl::string_view help) {
    Flag flag;
    flag.name = std::string(name);
    flag.help = std::string(help);
    flag.default_text = absl::UnparseFlag<T>(*value);
    flag.is_bool = std::is_same_v<T, bool>;
    flag.expected = ExpectedValue<T>();
    flag.parse = [value](absl::string_view text, std::string* error) {
      return absl::ParseFlag<T>(text, value, error);
    };
    flags_.push_back(std::move(flag));
  }

  // Declares --`name` bound to `*value`, accepting only one of `choices`.
  void AddChoice(absl::string_view name, std::string* value, std::vector<std::string> choices,
                 absl::string_view help);

  // Declares --`name` bound to `*value` whose value, when given, must not be empty (a path or
  // a connection string: an empty one would silently mean "not given").
  void AddNonEmpty(absl::string_view name, std::string* value, absl::string_view help);

  // Declares --`name` that may be given several times; each occurrence appends its value
  // (taken verbatim, commas included) to `*values`. `values` must outlive the FlagSet.
  void AddRepeated(absl::string_view name, std::vector<std::string>* values,
                   absl::string_view help);

  // Lets `-<letter>` stand for the declared flag --`name` (as `-f` for --file).
  // REQUIRES: --`name` is declared and `letter` is not 'h' (help).
  void AddAlias(char letter, absl::string_view name);

  // Parses `args` (the arguments after the subcommand's words) into the bound variables.
  // Returns the positional arguments in order; sets `*help` when --help or -h was given
  // (parsing stops there).
  // Errors: kInvalidArgument for an unknown flag, a missing value, or a value the flag's
  // type or choices reject; the message names the flag.
  absl::StatusOr<std::vector<std::string>> Parse(const std::vector<std::string>& args, bool* help);

  // Whether the last Parse set --`name` explicitly (even to an empty value).
  bool Given(absl::string_view name) const;

  // How many of the last Parse's positional arguments came before `--`: all of them when
  // there was no `--`. Lets a subcommand that runs another command insist that the command
  // follows `--`, so that its flags are never taken for ours.
  size_t positional_before_terminator() const { return positional_before_terminator_; }

  // One line per flag, in declaration order: "  --name=<value>  help (default: ...)".
  std::string Help() const;
  bool empty() const { return flags_.empty(); }

 private:
  struct Flag {
    std::string name;
    std::string help;
    std::string default_text;
    bool is_bool = false;
    bool given = false;
    char alias = '\0';  // one-letter alias, '\0' when none
    // What a valid value looks like, for errors; empty for strings.
    std::string expected;
    std::function<bool(absl::string_view, std::string*)> parse;
  };

  template <typename T>
  static std::string ExpectedValue() {
    if constexpr (std::is_same_v<T, absl::Duration>) {
      return "a duration such as 90s, 10m or 24h";
    } else if constexpr (std::is_same_v<T, bool>) {
      return "true or false";
    } else if constexpr (std::is_integral_v<T>) {
      return absl::StrCat("an integer from ", std::numeric_limits<T>::min(), " to ",
                          std::numeric_limits<T>::max());
    } else if constexpr (std::is_floating_point_v<T>) {
      return "a number";
    } else {
      return "";
    }
  }
  Flag* Find(absl::string_view name);
  Flag* FindAlias(char letter);

  std::vector<Flag> flags_;
  size_t positional_before_terminator_ = 0;
};

}  // namespace credledger::cli
