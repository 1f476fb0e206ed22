// SourceApi: the SourceService RPC VerifySource (proto/credledger/v1/api.proto) without gRPC:
// checks the address and credentials of a Git, Helm or OCI source from the service and
// records the outcome (docs/connections.md, "Sources", "known_hosts" and "TLS").
// The gRPC adapter (source_grpc_service.h) only extracts the actor and maps statuses.
//
// A call, in order:
//  1. validates the request (name, request id, source, actor; ValidateVerifySourceRequest);
//  2. spells out the source's defaults (namespace "default", the default keys of
//     known_hosts_ref and ca_public_cert_ref; unset references and an empty tls block
//     dropped), so that a request that leaves a default out and one that gives it are the
//     same request;
//  3. looks the request id up in the log: a request id that was answered before by the same
//     request (RequestDigest of the defaulted request) returns that answer (replayed = true)
//     without verifying again or appending; one used for another command, stream or request
//     is refused;
//  4. refuses a source that names a Secret or ConfigMap when the service has no home
//     cluster connection to read it from;
//  5. runs the verifier with the defaulted source outside the writer, so a slow remote
//     never holds up other commands;
//  6. appends ONE SourceVerified event to stream source/<namespace>/<name> through the
//     SourceCommandBus (service/bus/source_command_bus.h), with actor,
//     request id and command "VerifySource" in its metadata. Should a concurrent call with
//     the same request id have appended first, that call's event is the answer (replayed)
//     and this outcome is dropped.
// A failed verification is not an error of the call: it is the recorded reason
// (VerifyFailed: retry with backoff; Unsupported: do not retry until the spec changes).
//
// What is recorded: the kind, the URL (RecordedSourceUrl), the auth type, the reason,
// message, notes and SSH host key fingerprint from the verifier, and insecure_skip_verify.
// The verifier never sees a credential in the request: URLs with a password are refused,
// credentials live in Secrets that the verifier reads itself.
//
// Thread-safety: VerifySource may be called concurrently (the verifier must allow it).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/api.pb.h"
#include "credledger/v1/connection.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/sources/source_verifier.h"
#include "service/bus/source_command_bus.h"
#include "store/event_store.h"

namespace credledger::service {

// Longest source URL accepted, in bytes.
inline constexpr size_t kMaxSourceUrlBytes = 2048;
// Longest auth type accepted, in bytes (unknown types are accepted and recorded).
inline constexpr size_t kMaxSourceAuthTypeBytes = 63;

// The URL a SourceVerified event records: `url` without the userinfo ("user@") of a URL
// (common::Url::without_userinfo, as libcurl writes it back), since an HTTPS user name can
// itself be a token; the login name of ssh:// (also git+ssh://, ssh+git://) and scp-like
// "user@host:path" URLs is kept, being part of the address and not a secret; a URL without
// userinfo is recorded as given. REQUIRES: `url` passed ValidateSourceUrl (no password).
std::string RecordedSourceUrl(absl::string_view url);

// Checks source.url: non-empty, at most 2048 bytes, no whitespace or control characters
// (bytes 0x00-0x20 and 0x7f), ASCII, a URL libcurl reads (common::ParseUrl) unless it has no
// scheme (an scp-like address or a local path, common::ScpAddress), no password, and no
// query or fragment: no '?' or '#' anywhere (a query can carry a credential, and the URL is
// recorded). A password is what follows a ':' in the userinfo: of a URL as libcurl reads it,
// or, without a scheme, the part before the first '@' when no '/' precedes it. That rule may
// refuse a rare scp-like path with an '@' before its first '/' ("host:a@b"); it never lets a
// "user:password@" through.
// Errors: kInvalidArgument naming source.url; for a URL libcurl cannot read its rule ("has no
// host", "has an invalid port (...)"); for a password exactly "source.url: must not contain a
// password; put credentials in auth". Neither a password nor a query is quoted.
absl::Status ValidateSourceUrl(absl::string_view url);

// Checks a VerifySourceRequest's shape (not the actor): request_id (printable ASCII, at most
// 128 bytes, not "credledger:"-prefixed); name a DNS-1123 label; source.kind a known kind;
// source.url (ValidateSourceUrl); source.namespace a DNS-1123 label when set;
// source.auth.type non-empty printable ASCII of at most 63 bytes (unknown values are
// accepted: the verifier reports them Unsupported); the auth blocks fit the type: basic,
// bearer and sshKey need their own block (basic, bearer, ssh_key) and no other, none needs
// none, and an unknown type may carry any; in each auth block present, secret_name a
// DNS-1123 subdomain; each set ObjectKeyRef (ssh_key.known_hosts_ref,
// tls.ca_public_cert_ref) with kind "Secret" or "ConfigMap", a DNS-1123 subdomain name and a
// valid data key when a key is given; no tls.insecure_skip_verify and no
// tls.ca_public_cert_ref with an SSH URL (ssh://, git+ssh://, ssh+git:// or scp-like
// user@host:path): SSH has no TLS.
// Errors: kInvalidArgument naming the field ("request_id", "name", "source.kind",
// "source.url", "source.namespace", "source.auth.type", "source.auth.basic" ("required for
// auth type basic", "only for auth type basic (type is none)"),
// "source.auth.basic.secret_name", "source.auth.ssh_key.known_hosts_ref.kind",
// "source.tls.insecure_skip_verify", "source.tls.ca_public_cert_ref.key", ...).
absl::Status ValidateVerifySourceRequest(const v1::VerifySourceRequest& request);

// Runs the verification of a (validated, defaulted: file comment, step 2) source; may block
// up to the verifier's timeout; stops early when `cancel` (may be null) fires. In the server
// this is kubebridge::SourceVerifier::Verify; tests inject their own.
using SourceVerifyFunction = std::function<kubebridge::SourceVerification(
    const v1::SourceSpec& source, kubebridge::Cancellation* cancel)>;

class SourceApi {
 public:
  // `store` is not owned and must outlive the api. `has_home_cluster` tells whether the
  // service has a home cluster connection (--kubeconfig or in-cluster) to read Secrets and
  // ConfigMaps from.
  SourceApi(store::EventStore* store, SourceVerifyFunction verify, bool has_home_cluster);

  // Verifies `request.source` on behalf of `actor` (empty means anonymous) and records the
  // outcome; see the file comment for the steps. `cancel` (may be null) is handed to the
  // verifier.
  // Returns: the recorded SourceVerified, its seq, retryable = (reason == "VerifyFailed"),
  // and replayed.
  // Errors: ValidateVerifySourceRequest's; kInvalidArgument naming credledger-actor;
  // kFailedPrecondition when the request id was used for another command, source or request
  // (FindPriorRequest), or when
  // a Secret or ConfigMap is named and there is no home cluster connection (naming the
  // field); kDataLoss when the event of an earlier request does not decode; kUnavailable
  // when the log cannot be written. A failed call appends nothing.
  absl::StatusOr<v1::VerifySourceResponse> VerifySource(const v1::VerifySourceRequest& request,
                                                        absl::string_view actor,
                                                        kubebridge::Cancellation* cancel = nullptr);

 private:
  SourceCommandBus bus_;
  const SourceVerifyFunction verify_;
  const bool has_home_cluster_;
};

}  // namespace credledger::service
