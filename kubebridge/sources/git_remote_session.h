// GitSession: the state of one ListRemoteRefs call shared with libgit2's remote callbacks, the
// callbacks themselves, and the mapping of libgit2's errors to statuses (docs/connections.md,
// "Git", "known_hosts" and "TLS").
//
// Limits of libgit2 1.5 that shape these callbacks:
// - No per-call timeout or cancellation: the deadline and the Cancellation are checked in
//   the remote_ready, certificate_check and credentials callbacks, which are the only ones
//   that run while connecting and listing refs. A TCP connect or a read that stalls is
//   bounded only by the kernel's TCP timeouts; a timeout noticed after the call returns is
//   still reported as kUnavailable.
// - TLS (Debian builds libgit2 with mbedTLS): the certificate callback receives only the
//   leaf certificate (DER), so a `ca_pem` bundle must hold every intermediate as well as
//   the root.
// - SSH: libssh2 negotiates the host key type without looking at known_hosts (it prefers
//   ECDSA, then Ed25519, then RSA), so known_hosts must hold the server's key of the type
//   negotiated; a host listed only with other types is a mismatch (the message says so).
//
// Thread-safety: a GitSession belongs to one call; libgit2 runs its callbacks on the calling
// thread.
#pragma once

#include <git2.h>

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/sources/git_remote_url.h"
#include "kubebridge/sources/git_verifier.h"

namespace credledger::kubebridge {

// State shared with the libgit2 callbacks of one ListRemoteRefs call. `remote`, `credentials`,
// `options` and `cancel` must outlive it.
struct GitSession {
  GitSession(const RemoteUrl& r, const GitCredentials& c, const GitVerifyOptions& o,
             Cancellation* cancellation)
      : remote(r),
        credentials(c),
        options(o),
        cancel(cancellation),
        deadline(absl::Now() + o.timeout) {}

  const RemoteUrl& remote;
  const GitCredentials& credentials;
  const GitVerifyOptions& options;
  Cancellation* cancel;
  absl::Time deadline;
  int attempts = 0;       // credentials handed to libgit2
  absl::Status failure;   // why a callback stopped the operation
  std::string fingerprint;

  // Sets `failure` when cancelled or past the deadline; returns true then.
  bool Stopped();
  // Sets `failure` to `status`; returns GIT_EUSER, which makes libgit2 stop.
  int Fail(absl::Status status);
};

// Points the remote_ready, certificate_check and credentials callbacks of `callbacks` at the
// checks of `session` (the deadline, the host key against known_hosts or the certificate
// against `ca_pem`, the credentials of its kind), with `session` as their payload.
void SetGitSessionCallbacks(GitSession& session, git_remote_callbacks& callbacks);

// The status of a failed libgit2 call `rc` (after the callbacks had their say): the session's
// failure when a callback stopped the call; otherwise libgit2's last error, without secrets:
// kUnauthenticated (GIT_EAUTH), kFailedPrecondition (GIT_ECERTIFICATE), kInvalidArgument
// (an SSH key libssh2 could not load), kUnavailable (network, OS, TLS, HTTP and SSH errors),
// kUnknown for the rest.
absl::Status MapGitError(int rc, const GitSession& session);

}  // namespace credledger::kubebridge
