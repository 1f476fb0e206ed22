// Text output of `credledger source verify` (docs/connections.md, "Sources"); `--output json`
// prints the protobuf JSON mapping instead (target_printer.h, ToJson). Prints what the
// service recorded: the URL as stored (without an HTTPS user name), the auth type, the
// reason, message, notes and SSH host key fingerprint; never credential data (the API
// returns none).
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "credledger/v1/api.pb.h"
#include "credledger/v1/connection.pb.h"

namespace credledger::cli {

// "git", "helm", "oci"; "unspecified" for SOURCE_KIND_UNSPECIFIED and unknown values. The
// names the CLI accepts for --kind and `kind:`.
absl::string_view SourceKindName(v1::SourceKind kind);

// The answer of `source verify` for the source named by `request`:
//   source <namespace>/<name>: <reason> (seq N)   [or: (request already answered, nothing
//                                                   appended; seq N)]
//     kind:      git
//     url:       ssh://git@example.com/org/repo.git
//     auth:      sshKey
//     message:   <what was checked or what failed>
//     host key:  SHA256:...                      (only when the server presented one)
//     tls:       server certificate not verified (only with insecure_skip_verify)
//     note:      <one line per note>
//     retry:     yes, with backoff | no | no: change the source's spec first (Unsupported)
// The namespace is "default" when the request names none.
std::string FormatVerifySourceText(const v1::VerifySourceRequest& request,
                                   const v1::VerifySourceResponse& response);

}  // namespace credledger::cli
