// The DNS-1123 label and subdomain rules of Kubernetes names (namespaces, Target and release
// names, Secret names), shared by the API edge (service/) and validation in projections/.
//
// Thread-safety: pure function.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::common {

// Checks that `value` is a DNS-1123 label: 1-63 bytes of [a-z0-9-], starting and ending with
// [a-z0-9] (Kubernetes' rule for namespace names).
// Errors: kInvalidArgument naming `field` ("<field>: required" when empty; the length rule,
// with the value's length in bytes, or the character rule otherwise). The value is quoted
// with common::QuoteCut: escaped and, when long, cut.
absl::Status ValidateDnsLabel(absl::string_view field, absl::string_view value);

// Checks that `value` is a DNS-1123 subdomain: at most 253 bytes, one or more '.'-separated
// parts, each of [a-z0-9-] starting and ending with [a-z0-9] (Kubernetes' rule for Secret
// names and label-key prefixes).
// Errors: as ValidateDnsLabel's.
absl::Status ValidateDnsSubdomain(absl::string_view field, absl::string_view value);

}  // namespace credledger::common
