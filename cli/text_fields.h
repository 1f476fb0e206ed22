// The building blocks of the CLI's text output (*_printer.cc): aligned "label: value" lines and
// a dash for an empty value.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace credledger::cli {

// "  <label>:" padded with spaces to `width` + 3 columns, then " <value>\n"; a label longer
// than `width` - 1 characters pushes the value right.
inline std::string LabeledLine(absl::string_view label, absl::string_view value, int width) {
  return absl::StrFormat("  %-*s %s\n", width, absl::StrCat(label, ":"), value);
}

// `value`, or "-" when it is empty.
inline std::string OrDash(absl::string_view value) {
  return value.empty() ? "-" : std::string(value);
}

}  // namespace credledger::cli
