// ExecPluginAuthenticator ("execPlugin"; docs/connections.md, "execPlugin"): credentials
// from a credential provider service over HTTPS. credledger never starts a local process.
//
// Protocol: POST <auth.exec_plugin.url> with Content-Type application/json and body
//   {"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
//    "spec":{"interactive":false,
//            "cluster":{"server":<agentless.server>,
//                       "certificate-authority-data":<base64 of the cluster CA, when set>}}}
// over TLS verified against auth.exec_plugin.ca_ref (key default "ca.crt"; the system store
// when unset), with "Authorization: Bearer <token>" when auth.exec_plugin.token_ref is set
// (key default "token"). Redirects are not followed. The answer must be 200 with an
// ExecCredential of apiVersion client.authentication.k8s.io/v1 whose status holds `token`,
// or `clientCertificateData` and `clientKeyData` (PEM), and optionally
// `expirationTimestamp` (RFC 3339).
//
// Server and CA of the target cluster come from the cluster spec (agentless.server, ca_ref),
// as for "token".
//
// Caching: a credential with an expirationTimestamp is reused for the same cluster and the
// same inputs (provider URL, provider CA, provider token, cluster server and CA, compared
// by SHA-256) until less than max(refresh_min_remaining, refresh_fraction of its lifetime)
// remains; then the next connection asks the provider again. A credential without expiry is
// never reused. A changed input (a rotated token_ref Secret, say) misses the cache.
//
// One provider call per cluster at a time: a connection that misses the cache while another
// one asks the provider for the same cluster waits for that call (at most `timeout`) and then
// reads the cache again, so a burst of connections costs one provider call.
//
// Thread-safety: Authenticate may run concurrently; the cache is guarded.
#pragma once

#include <map>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kubebridge/clusters/cluster_auth.h"

namespace credledger::kubebridge {

struct ExecPluginOptions {
  // Time source of the cache. REQUIRES: outlives the authenticator.
  common::Clock* clock = common::RealClock::Default();
  // Whole-request limit of one provider call.
  absl::Duration timeout = absl::Seconds(15);
  // Refresh once less than max(refresh_min_remaining, refresh_fraction * lifetime) is left,
  // lifetime measured from when the credential was received.
  absl::Duration refresh_min_remaining = absl::Minutes(1);
  double refresh_fraction = 0.2;
  // Largest provider response accepted (bytes).
  size_t max_response_bytes = size_t{1} << 20;
};

class ExecPluginAuthenticator final : public ClusterAuthenticator {
 public:
  explicit ExecPluginAuthenticator(ExecPluginOptions options = {});

  // Errors: UnsupportedError when auth.exec_plugin is unset; kInvalidArgument when the URL
  // is not https://host[:port][/path][?query] as libcurl reads it (user info, fragments and
  // ports outside 1-65535 are refused) or agentless.server is empty; resolver errors
  // (prefixed with the reference's field), and kInvalidArgument for a provider token that is
  // empty after trimming whitespace;
  // kUnavailable when the provider cannot be reached or answers 429/5xx;
  // kFailedPrecondition when its certificate does not verify; kPermissionDenied /
  // kUnauthenticated for 403 / 401; other non-200 answers get the code status_mapping.h
  // gives their HTTP status (kInvalidArgument for another 2xx); kResourceExhausted for an
  // answer above max_response_bytes; kInvalidArgument when the answer is not a v1
  // ExecCredential with a token or a certificate and key, or has a malformed
  // expirationTimestamp. Messages name the provider URL (without its query) and never a
  // credential or the provider's answer.
  absl::StatusOr<ConnectionConfig> Authenticate(const ClusterAuthRequest& request,
                                                SecretResolver& resolver,
                                                Cancellation* cancel) override;

  // Number of provider calls made so far (tests).
  int provider_calls() const;
  // Number of Authenticate calls now waiting for another one's provider call (tests).
  int waiting_for_provider() const;

 private:
  struct Cached {
    std::string inputs_sha256;
    ConnectionConfig config;
    absl::Time refresh_at;
  };
  const ExecPluginOptions options_;
  mutable absl::Mutex mu_;
  std::map<std::string, Cached> cache_ ABSL_GUARDED_BY(mu_);
  // Clusters whose provider call is in flight.
  std::set<std::string> in_flight_ ABSL_GUARDED_BY(mu_);
  int provider_calls_ ABSL_GUARDED_BY(mu_) = 0;
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace credledger::kubebridge
