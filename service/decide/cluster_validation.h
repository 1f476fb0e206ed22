// Input rules of a cluster's connection spec (proto/credledger/v1/connection.proto,
// ClusterSpec; docs/connections.md, "Clusters", "Auth types" and
// "Secret and ConfigMap resolution"), shared by ClusterApi and the cluster decider. Each error is kInvalidArgument and starts with the proto field path
// ("spec.agentless.auth.token.secret_ref.name: ...") followed by the rule.
//
// An unknown auth type is accepted here (checked for its shape only) and becomes
// Reachable=False/Unsupported when the cluster is probed (docs/connections.md, "Auth types");
// a known type written in another case ("Token") is refused as a misspelling. The auth
// blocks must fit the type: a known type needs its own block and no other, an unknown type
// none of the known blocks, so that a spec says what it uses.
//
// Thread-safety: pure functions.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/connection.pb.h"

namespace credledger::service {

// Longest API server or credential provider URL accepted, in bytes.
inline constexpr size_t kMaxClusterUrlBytes = 2048;

// Checks a cluster name (ClusterService `name`, IdentitySpec.cluster): a DNS-1123 label,
// as Kubernetes object names that are used as label values.
// Errors: kInvalidArgument naming `field` and the rule.
absl::Status ValidateClusterName(absl::string_view field, absl::string_view name);

// Checks `spec`:
//   connection_mode      CLUSTER_CONNECTION_MODE_IN_CLUSTER or _AGENTLESS.
//   inCluster            agentless unset; namespace optional (a DNS-1123 label when given).
//   agentless            namespace required (a DNS-1123 label); agentless set; auth.type
//                        1-63 ASCII letters and digits starting with a letter, and not a
//                        known type in another case (ValidateAuthTypeCase); server required
//                        when AuthTypeNeedsServer (optional otherwise; "kubeconfig" ignores
//                        it) and, when given, an https:// URL (ValidateHttpsUrl).
//   auth blocks          for auth types "kubeconfig", "token", "clientCert" and
//                        "execPlugin" their block (kubeconfig, token, client_cert,
//                        exec_plugin) is required ("spec.agentless.auth.token: required for
//                        auth type token"); every other block is refused, also for unknown
//                        types ("spec.agentless.auth.client_cert: only for auth type
//                        clientCert (type is token)").
//   references           agentless.ca_ref and those of the selected block: a DNS-1123
//                        subdomain name (required); keys, when given, data keys
//                        (reference_validation.h, ValidateDataKey); ObjectKeyRef as
//                        ValidateObjectKeyRef; exec_plugin.url required, an https:// URL.
// Errors: kInvalidArgument naming the field path and the rule.
absl::Status ValidateClusterSpec(const v1::ClusterSpec& spec);

// `value` is an https:// URL as libcurl reads one (common::ParseUrl) with a host and, when it
// names a port, a port from 1 to 65535; at most kMaxClusterUrlBytes bytes of ASCII, without
// userinfo ("user@"), a query ("?...") or a fragment ("#..."), and without whitespace or
// control characters. A query, fragment or userinfo could carry a credential and a cluster
// spec is recorded in the log: they are refused without quoting the value, and so is a URL
// libcurl cannot read ("has no host", "has an invalid port (...)").
// Errors: kInvalidArgument naming `field` ("<field>: required" when empty).
absl::Status ValidateHttpsUrl(absl::string_view field, absl::string_view value);

// Whether auth type `type` takes the API server from spec.agentless.server: "token",
// "clientCert" and "execPlugin" (kubeconfig names its own; unknown types connect nowhere).
bool AuthTypeNeedsServer(absl::string_view type);

// Refuses an auth type that equals a known one ("kubeconfig", "token", "clientCert",
// "execPlugin", "oidc") but for case, which would otherwise be accepted as an unknown type
// and probed as Unsupported.
// Errors: kInvalidArgument `<field>: "Token" is not an auth type; auth types are
// case-sensitive: did you mean token?`.
absl::Status ValidateAuthTypeCase(absl::string_view field, absl::string_view type);

// `spec` with its documented defaults written out, so that one spec written two ways is
// one spec (equal messages, equal request digests): an empty key of a set reference becomes
// its default (kubeconfig.secret_ref "value", token.secret_ref "token", agentless.ca_ref and
// exec_plugin.ca_ref "ca.crt", exec_plugin.token_ref "token"; connection.proto); with auth
// type "kubeconfig", agentless.server and agentless.ca_ref are cleared, since the kubeconfig
// names the server and CA and they would be ignored (docs/connections.md,
// "Auth types"). Idempotent; unset references stay unset; a spec that passes
// ValidateClusterSpec still does. Needs no valid spec: RegisterCluster normalizes first, so
// that the ignored server and CA of a kubeconfig cluster are dropped without being checked.
v1::ClusterSpec NormalizedClusterSpec(v1::ClusterSpec spec);

}  // namespace credledger::service
