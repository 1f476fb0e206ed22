// Input rules shared by the API edge and the deciders. Each returns kInvalidArgument naming
// `field` and the rule, or OK.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/dns_label.h"
#include "credledger/v1/identity.pb.h"

namespace credledger::service {

// A DNS-1123 label (common/dns_label.h): Kubernetes namespace names, and Target names, which
// are used as label values.
using common::ValidateDnsLabel;

// A lowercase RFC 4122 UUID: 8-4-4-4-12 lowercase hex digits.
absl::Status ValidateUid(absl::string_view field, absl::string_view value);

// A non-empty value of printable ASCII (0x21-0x7e), at most `max_bytes` bytes; used for
// request ids, rotation request values (stored in an annotation) and revisions.
absl::Status ValidateToken(absl::string_view field, absl::string_view value, size_t max_bytes);

// A client request id: ValidateToken(field, value, max_bytes), and not starting with
// "credledger:", the prefix reserved for the service's own commands. The API checks the
// request_id field with it; the CLI its --request-id flag before any call.
absl::Status ValidateClientRequestId(absl::string_view field, absl::string_view value,
                                     size_t max_bytes);
// The same for the RPC field: ValidateClientRequestId("request_id", value, max_bytes).
absl::Status ValidateClientRequestId(absl::string_view value, size_t max_bytes);

// An owner reference naming the object that uses an identity (domain/captf-credentials.md,
// "The pieces": one owner reference of the mirror per object). The rules: api_version "v1"
// or "<group>/<version>" (group a DNS-1123 subdomain, version a DNS-1123 label); kind 1-63
// ASCII letters and digits; name a DNS-1123 subdomain; uid a lowercase RFC 4122 UUID
// (ValidateUid: Kubernetes object uids are UUIDs), required only when `require_uid`
// (BindIdentity) and checked when given (UnbindIdentity).
// Errors: kInvalidArgument naming "owner.api_version", "owner.kind", "owner.name" or
// "owner.uid" and the rule.
absl::Status ValidateOwnerReference(const v1::OwnerReference& owner, bool require_uid);

}  // namespace credledger::service
