// SourceVerifier: verifies a Git, Helm or OCI source's address and credentials and
// classifies the outcome (docs/connections.md, "Sources", "known_hosts" and "TLS").
//
// Steps:
//  1. what the spec alone decides, before anything is read: the auth type ("none", "basic",
//     "bearer", "sshKey"; anything else, or a type without its block, is Unsupported;
//     sshKey only for Git and it requires known_hosts_ref), and the URL against the kind and
//     the type (CheckGitRemote: scheme, host, port, sshKey exactly for SSH URLs;
//     CheckHelmRepositoryUrl; CheckOciRegistryUrl);
//  2. read the Secrets and ConfigMaps from the source's namespace with the SecretResolver
//     (keys: username/password, token, identity/password, known_hosts default
//     "known_hosts", ca.crt default for caPublicCertRef; a missing "password" key means an
//     identity without passphrase, and fails when the identity is protected by one
//     (SshPrivateKeyIsEncrypted); a token loses surrounding whitespace such as the newline
//     of a Secret made from a file; an empty CA bundle fails);
//  3. run ListRemoteRefs, VerifyHelmRepository or VerifyOciRegistry. known_hosts parse
//     warnings become notes.
// Outcome reasons: Verified; Unsupported (never retry: unknown type or kind, missing block
// or known_hosts_ref, unsupported scheme or credentials for the scheme, known_hosts without
// a usable entry); VerifyFailed for everything else (retry), including a Secret that cannot
// be read.
//
// Thread-safety: Verify may run concurrently.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "credledger/v1/connection.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/clusters/secret_resolver.h"

namespace credledger::kubebridge {

// Source auth type strings (SourceAuth.type).
inline constexpr char kSourceAuthNone[] = "none";
inline constexpr char kSourceAuthBasic[] = "basic";
inline constexpr char kSourceAuthBearer[] = "bearer";
inline constexpr char kSourceAuthSshKey[] = "sshKey";

// The data key read when SshKeySourceAuth.known_hosts_ref names none.
inline constexpr char kKnownHostsDefaultKey[] = "known_hosts";

struct SourceVerification {
  // kReasonVerified, kReasonVerifyFailed or kReasonUnsupported (connection_errors.h).
  std::string reason;
  // What was checked (Verified) or what failed; never a credential.
  std::string message;
  std::vector<std::string> notes;
  // Git over SSH: the presented host key's fingerprint, when the connection got that far.
  std::string host_key_fingerprint;
};

struct SourceVerifierOptions {
  absl::Duration timeout = absl::Seconds(30);
};

class SourceVerifier {
 public:
  // `resolver` (not owned; may be null when the service has no home cluster: then any
  // reference gives VerifyFailed "no home cluster connection to read ...").
  SourceVerifier(SecretResolver* resolver, SourceVerifierOptions options = {});

  // Verifies `source` (already validated by the API: kind set, url non-empty).
  SourceVerification Verify(const v1::SourceSpec& source, Cancellation* cancel = nullptr);

 private:
  SecretResolver* resolver_;
  const SourceVerifierOptions options_;
};

}  // namespace credledger::kubebridge
