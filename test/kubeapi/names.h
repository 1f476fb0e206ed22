// Kubernetes name rules (RFC 1123 DNS labels and subdomains, qualified-name parts) and the
// field-error messages kube-apiserver returns when a name breaks them.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace credledger::kubeapi {

// RFC 1123 subdomain: at most 253 characters of [a-z0-9.-], each dot-separated part
// starting and ending with [a-z0-9]. The rule for most object names (metadata.name).
bool IsDnsSubdomain(absl::string_view name);

// RFC 1123 label: at most 63 characters of [a-z0-9-], starting and ending with [a-z0-9].
// The rule for namespace names.
bool IsDnsLabel(absl::string_view name);

// The name part of a qualified name (label keys and values): at most 63 characters of
// [A-Za-z0-9._-], starting and ending with an alphanumeric character.
bool IsQualifiedNamePart(absl::string_view name);

// The explanation kube-apiserver appends to `Invalid value: "<name>": ` for a name that is
// not a DNS subdomain / DNS label.
std::string DnsSubdomainErrorMessage();
std::string DnsLabelErrorMessage();

}  // namespace credledger::kubeapi
