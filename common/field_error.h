// FieldError: the form of every bad-input error (docs/api.md, "Bad input"): kInvalidArgument
// with the message "<field path>: <rule>", e.g. `spec.releases[1].name: must not be empty`.
//
// Thread-safety: a pure function.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::common {

// kInvalidArgument "<field>: <rule>". `field` names the field as the caller wrote it (a flag,
// a proto field path, a YAML path); `rule` says what the value must be.
inline absl::Status FieldError(absl::string_view field, absl::string_view rule) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", rule));
}

}  // namespace credledger::common
