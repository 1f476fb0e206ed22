// Input rules for references to Secrets and ConfigMaps of the home cluster
// (proto/credledger/v1/connection.proto: ObjectKeyRef, SecretKeyRef; docs/connections.md,
// "Secret and ConfigMap resolution"), shared by the API edges that accept them. Each check returns kInvalidArgument naming the field and the rule, or OK.
//
// Thread-safety: pure functions.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/connection.pb.h"

namespace credledger::service {

// The namespace of a source that names none (api.proto, VerifySourceRequest.name).
inline constexpr char kDefaultSourceNamespace[] = "default";

// Checks that `key` is a valid key of a Secret's or ConfigMap's data (Kubernetes' rule): 1-253
// characters of [-._a-zA-Z0-9], not "." or "..", not starting with "..".
// Errors: kInvalidArgument naming `field` ("<field>: required" when empty).
absl::Status ValidateDataKey(absl::string_view field, absl::string_view key);

// True when any field of `ref` is non-empty: an all-empty reference means "unset" (proto3
// cannot tell an empty message from an absent one once it crossed the wire).
bool IsSet(const v1::ObjectKeyRef& ref);

// Checks a set ObjectKeyRef: kind "Secret" or "ConfigMap", name a DNS-1123 subdomain, key
// empty (the reference's default) or ValidateDataKey.
// Errors: kInvalidArgument naming "<field>.kind", "<field>.name" or "<field>.key".
absl::Status ValidateObjectKeyRef(absl::string_view field, const v1::ObjectKeyRef& ref);

}  // namespace credledger::service
