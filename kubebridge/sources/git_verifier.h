// ListRemoteRefs: the verify step of a Git source, like `git ls-remote`, with libgit2
// (docs/connections.md, "Sources", "Git", "known_hosts" and "TLS").
//
// Connects to the remote, authenticates and lists its refs; nothing is fetched or written
// to disk (a detached remote, without a repository).
// - https:// URLs: credentials none, basic (username and password) or bearer (an
//   "Authorization: Bearer" header). The server certificate is checked in libgit2's
//   certificate callback against `ca_pem` when given (with the host name), else libgit2's
//   own verdict (the system store) stands; insecure_skip_tls_verify accepts any.
// - ssh:// and scp-like `user@host:path` URLs: credentials sshKey only (the private key and
//   passphrase in memory); the user is the URL's user, "git" when it names none. The host
//   key libgit2 presents in its certificate callback (raw key) is checked with
//   KnownHosts::Check; anything but kMatch fails the connection. There is no mode that
//   skips this.
// - Other schemes (file://, git://, http:// ...) are Unsupported.
//
// Thread-safety: ListRemoteRefs may run concurrently (libgit2 is initialised once per
// process).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/sources/known_hosts.h"

namespace credledger::kubebridge {

// Credentials of one verification; secret values, kept in memory only.
struct GitCredentials {
  enum class Kind { kNone, kBasic, kBearer, kSshKey };
  Kind kind = Kind::kNone;
  std::string username;     // kBasic
  std::string password;     // kBasic
  std::string token;        // kBearer
  std::string private_key;  // kSshKey: OpenSSH or PEM private key
  std::string passphrase;   // kSshKey: may be empty
  // kSshKey: the parsed known_hosts data (required).
  const KnownHosts* known_hosts = nullptr;
};

struct GitVerifyOptions {
  bool insecure_skip_tls_verify = false;
  // PEM CA bundle for https:// remotes; empty uses the system store.
  std::string ca_pem;
  // Limit of the whole operation (connect, auth, ref listing).
  absl::Duration timeout = absl::Seconds(30);
};

struct GitVerifyResult {
  // Number of refs the remote advertised.
  int refs = 0;
  // For SSH: the presented host key's fingerprint (HostKeyFingerprint); else empty.
  std::string host_key_fingerprint;
};

// The checks of ListRemoteRefs that depend only on `url` and the kind of credentials, made
// before anything is read or sent: the scheme, the host and port, and the kind against the
// scheme. Callers run it before fetching the credentials, so that a combination that cannot
// work is reported as such whatever the credentials are.
// Errors: ListRemoteRefs' UnsupportedError cases for the scheme, a local path and the kind;
// kInvalidArgument for an unparsable host or port.
absl::Status CheckGitRemote(absl::string_view url, GitCredentials::Kind kind);

// Whether `private_key` (PEM or OpenSSH text) is protected by a passphrase: an OpenSSH key
// whose cipher is not "none" (OpenSSH's PROTOCOL.key), a PEM key with "Proc-Type:
// 4,ENCRYPTED", or a PKCS#8 "ENCRYPTED PRIVATE KEY". False for text it cannot read.
bool SshPrivateKeyIsEncrypted(absl::string_view private_key);

// Lists the refs of `url` with `credentials`.
// Errors (messages name the URL without a password: an SSH URL keeps its user, any other
// loses its whole userinfo; never a credential; libgit2's and the server's messages lose
// their trailing line break): UnsupportedError for an unsupported scheme or a local path,
// for sshKey credentials on https:// or anything but sshKey on ssh:// (none included), and
// for sshKey without known_hosts; kInvalidArgument for an unparsable host or port, a bearer
// token with a line break, a passphrase-protected private key without a passphrase
// (SshPrivateKeyIsEncrypted; checked before connecting), or a private key that libssh2
// cannot load (format or wrong passphrase); kPermissionDenied
// naming the host and the fingerprint when the host key is unknown, mismatched or revoked;
// kUnauthenticated when the server refused the credentials; kUnavailable for connection
// failures and timeouts (the deadline is checked in libgit2's callbacks, see
// git_remote_session.h); kFailedPrecondition for TLS verification failures; kCancelled;
// kUnknown for other libgit2 errors (with libgit2's message).
absl::StatusOr<GitVerifyResult> ListRemoteRefs(absl::string_view url,
                                               const GitCredentials& credentials,
                                               const GitVerifyOptions& options,
                                               Cancellation* cancel = nullptr);

}  // namespace credledger::kubebridge
