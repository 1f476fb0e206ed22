// Text output of the `credledger identity ...` client commands (docs/mirrors.md, "CLI");
// `--output json` prints the protobuf JSON mapping instead (target_printer.h, ToJson).
// Sources and mirrors are shown by the first 12 hex characters of their source fingerprint
// (projections::ShortSourceDigest) and by key names; the API returns no credential data, and
// nothing else is printed.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "credledger/v1/api.pb.h"
#include "credledger/v1/identity.pb.h"
#include "credledger/v1/state.pb.h"

namespace credledger::cli {

// The allowed namespaces of `spec` in words: "no namespace (unset)", "every namespace
// (selector {})", "namespaces a, b", "selector env=prod, tier In (a, b)", or both joined
// by "; or ".
std::string FormatAllowedNamespaces(const v1::IdentitySpec& spec);

// A multi-line description of one identity: a header with name and phase, the spec
// (secret, allowed namespaces), the source as last observed (found, short fingerprint and key
// id, keys: projections::SourceDigestWords), the last access review, times and seq; then per
// namespace one line with its bindings (a gone one marked "(gone)"), one with its mirror (name,
// short fingerprint and key id, current or stale) and one per condition (IdentityAllowed,
// CredentialsMirrored as status/reason: message).
std::string FormatIdentityText(const v1::IdentityState& identity);

// The answer of a mutating command: "<verb> identity <name> (seq N)" (or that the request
// was answered before, or that nothing changed), then FormatIdentityText.
std::string FormatIdentityChangeText(absl::string_view verb,
                                     const v1::IdentityChangeResponse& response);

// The header and one row per identity of `identity list`: name, phase, source Secret,
// bound namespaces, mirrors and the source's short fingerprint.
std::string FormatIdentityTableHeader();
std::string FormatIdentityRow(const v1::IdentityState& identity);

// The header and one row per mirror of `identity mirrors`: identity, namespace, Secret,
// short fingerprint, current or stale, CredentialsMirrored status/reason and the owners.
std::string FormatMirrorTableHeader();
std::string FormatMirrorRow(const v1::MirrorView& mirror);

}  // namespace credledger::cli
