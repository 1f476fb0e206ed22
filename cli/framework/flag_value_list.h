// FlagValueList: the values of a repeatable flag (--public-key a.pem --public-key b.pem, or
// --public-key a.pem,b.pem). absl's flag marshalling finds AbslParseFlag and AbslUnparseFlag by
// argument-dependent lookup, so a FlagSet takes a FlagValueList like any flag value.
//
// Thread-safety: a FlagValueList belongs to one FlagSet; the functions are thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace credledger::cli {

// Every occurrence of the flag appends its comma-separated values, in order.
struct FlagValueList {
  std::vector<std::string> values;
};

// Appends the comma-separated values of `text` to `list`; false (with `error`) for an empty
// value.
bool AbslParseFlag(absl::string_view text, FlagValueList* list, std::string* error);
// The values joined with commas.
std::string AbslUnparseFlag(const FlagValueList& list);

}  // namespace credledger::cli
