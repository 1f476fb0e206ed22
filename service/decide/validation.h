// Input rules shared by the API edge, the deciders and the CLI: the API's limits, the actor's
// name, and checks that each return kInvalidArgument naming `field` and the rule, or OK.
// The CLI checks its flags with the same rules before it calls.
//
// Thread-safety: constants and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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

// An owner reference naming the object that uses an identity (docs/mirrors.md, "Bindings"
// and "The mirror": one owner reference of the mirror per object). The rules: api_version "v1"
// or "<group>/<version>" (group a DNS-1123 subdomain, version a DNS-1123 label); kind 1-63
// ASCII letters and digits; name a DNS-1123 subdomain; uid a lowercase RFC 4122 UUID
// (ValidateUid: Kubernetes object uids are UUIDs), required only when `require_uid`
// (BindIdentity) and checked when given (UnbindIdentity).
// Errors: kInvalidArgument naming "owner.api_version", "owner.kind", "owner.name" or
// "owner.uid" and the rule.
absl::Status ValidateOwnerReference(const v1::OwnerReference& owner, bool require_uid);

// Request metadata key naming the caller; its value becomes the actor of every event.
inline constexpr char kActorMetadataKey[] = "credledger-actor";
// The gRPC metadata key of a caller's bearer token ("Bearer <token>"; docs/api.md,
// "ServiceAccount tokens").
inline constexpr char kAuthorizationMetadataKey[] = "authorization";
// The prefix of a Kubernetes ServiceAccount's username, "system:serviceaccount:<ns>:<name>".
inline constexpr char kServiceAccountUserPrefix[] = "system:serviceaccount:";
// The actor when a call names none.
inline constexpr char kAnonymousActor[] = "anonymous";
// A name a local caller declared (the CLI's --as) is recorded as "declared:<name>", so the log
// tells declared callers from authenticated ones (docs/api.md, "Declared names").
inline constexpr char kDeclaredActorPrefix[] = "declared:";
// The actor recorded on events the service decides on its own.
inline constexpr char kServiceActor[] = "credledger";
// Longest request id and actor accepted, in bytes.
inline constexpr size_t kMaxRequestIdBytes = 128;
inline constexpr size_t kMaxActorBytes = 128;
// Longest declared name accepted, in bytes: its recorded form fits kMaxActorBytes.
inline constexpr size_t kMaxDeclaredNameBytes = kMaxActorBytes - (sizeof(kDeclaredActorPrefix) - 1);
// Longest revocation reason accepted, in bytes.
inline constexpr size_t kMaxReasonBytes = 1024;

// Checks the address of a Target: `namespace` and `name` are DNS-1123 labels.
// Errors: kInvalidArgument naming "namespace" or "name" and the rule.
absl::Status ValidateTarget(absl::string_view target_namespace, absl::string_view name);

// Checks the namespace filter of a list or watch: empty (every namespace) or a DNS-1123
// label. Errors: kInvalidArgument naming "namespace".
absl::Status ValidateNamespaceFilter(absl::string_view target_namespace);

// Checks the start of a watch: its namespace filter and `after_seq` >= 0.
// Errors: kInvalidArgument naming "namespace" or "after_seq".
absl::Status ValidateWatchStart(absl::string_view target_namespace, int64_t after_seq);

// The actor recorded for a call: `actor` (the credledger-actor metadata) when given, else
// "anonymous". Errors: kInvalidArgument naming credledger-actor when it is not 1-128 bytes
// of printable ASCII.
absl::StatusOr<std::string> ResolveActor(absl::string_view actor);

}  // namespace credledger::service
