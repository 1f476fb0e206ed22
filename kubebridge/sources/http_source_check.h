// The verify steps of Helm and OCI sources over HTTPS (docs/connections.md, "Sources" and
// "TLS").
//
// - VerifyHelmRepository: GET <url>/index.yaml with the credentials (a trailing slash of the
//   URL is not doubled) and parse it as a Helm repository index (a mapping with
//   apiVersion and entries). 200 with a valid index passes. Notes: for every other host
//   that chart URLs in the index point to, "chart URLs point to <host>, which would also
//   receive the credentials" (only when credentials are set).
// - VerifyOciRegistry: GET https://<host>/v2/ with the credentials; 200 and 401 pass, with
//   the note that the credentials are only checked at the first pull (for 401, and for 200
//   when credentials were sent: /v2/ does not check them).
// TLS: the server certificate is verified against `ca_pem` when given, else the system
// store; insecure_skip_tls_verify disables the check. Redirects are not followed.
//
// Thread-safety: stateless; calls may run concurrently.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kubebridge/client/cancellation.h"

namespace credledger::kubebridge {

// Credentials of one check; secret values, kept in memory only.
struct HttpSourceCredentials {
  enum class Kind { kNone, kBasic, kBearer };
  Kind kind = Kind::kNone;
  std::string username;
  std::string password;
  std::string token;
};

struct HttpSourceOptions {
  bool insecure_skip_tls_verify = false;
  // PEM CA bundle; empty uses the system store.
  std::string ca_pem;
  absl::Duration timeout = absl::Seconds(30);
  // Largest index.yaml accepted (bytes).
  size_t max_index_bytes = size_t{64} << 20;
};

// What a passing check found.
struct HttpSourceCheck {
  // One line, e.g. "index.yaml lists 12 charts" or "registry answered 401".
  std::string message;
  std::vector<std::string> notes;
};

// The checks of VerifyHelmRepository and VerifyOciRegistry that depend only on `url`, made
// before anything is read or sent, so that callers can run them before fetching credentials.
// Errors: the verify steps' UnsupportedError cases (below) for the URL: scheme, host, port;
// for Helm, a query or fragment.
absl::Status CheckHelmRepositoryUrl(absl::string_view url);
absl::Status CheckOciRegistryUrl(absl::string_view url);

// Errors (messages name the URL without userinfo, never a credential): UnsupportedError
// when the URL is not https:// (Helm) or not oci:// or https:// (OCI), has no host or a
// bad port, or (Helm) a query or fragment; kUnauthenticated for 401 (Helm);
// kPermissionDenied for 403; kNotFound for 404; kUnavailable for 5xx, 429, connection
// failures and timeouts; kFailedPrecondition for TLS verification failures;
// kInvalidArgument when index.yaml is not a Helm index or is larger than max_index_bytes, when a bearer
// token holds a control character, or for any other status (redirects included);
// kCancelled.
absl::StatusOr<HttpSourceCheck> VerifyHelmRepository(absl::string_view url,
                                                     const HttpSourceCredentials& credentials,
                                                     const HttpSourceOptions& options,
                                                     Cancellation* cancel = nullptr);
absl::StatusOr<HttpSourceCheck> VerifyOciRegistry(absl::string_view url,
                                                  const HttpSourceCredentials& credentials,
                                                  const HttpSourceOptions& options,
                                                  Cancellation* cancel = nullptr);

}  // namespace credledger::kubebridge
