// The DNS-1123 label rule of Kubernetes names (namespaces, and Target and release names),
// shared by the API edge (service/) and report validation (projections/).
//
// Thread-safety: pure function.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::common {

// Checks that `value` is a DNS-1123 label: 1-63 characters of [a-z0-9-], starting and ending
// with [a-z0-9] (Kubernetes' rule for namespace names).
// Errors: kInvalidArgument naming `field` ("<field>: required" when empty; the length or the
// character rule otherwise).
absl::Status ValidateDnsLabel(absl::string_view field, absl::string_view value);

}  // namespace credledger::common
