// KnownHosts: OpenSSH known_hosts data parsed in memory and host key checks against it
// (docs/connections.md, "known_hosts"; Git over SSH: docs/connections.md, "Git").
// Nothing is written to disk.
//
// Accepted lines (CRLF and LF line ends; blank lines and `#` comments skipped):
//   [marker] hostpatterns keytype base64key [comment]
// - hostpatterns: comma-separated; `*` and `?` wildcards; `!pattern` negates (a host that
//   matches a negated pattern never matches the line, whatever else matches; `!` alone makes
//   the line malformed); `[host]:port`
//   for a port other than 22 (patterns are matched against `host` for port 22 and
//   `[host]:port` otherwise, as OpenSSH does, so a plain pattern without wildcards matches
//   port 22 only); hashed entries
//   `|1|base64(salt)|base64(HMAC-SHA1(salt, name))` where name is `host` or `[host]:port`,
//   each line with its own salt. Host names compare case-insensitively (lowercased), as
//   OpenSSH does.
// - marker `@revoked`: the key must never be accepted for the hosts the line matches.
// - marker `@cert-authority`: skipped with a warning (CA-based host verification is not
//   supported).
// - keytype must equal the type named inside the decoded key blob.
// Malformed lines (bad base64, unknown marker, missing fields, type mismatch, `!` without a
// pattern) are skipped and reported in `warnings`; they never make the whole data fail unless
// no usable line remains. @revoked lines alone are not usable: they accept no key.
//
// Thread-safety: a parsed KnownHosts is immutable; Check may run concurrently.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

// A host key as an SSH server presents it.
struct HostKey {
  // Key type name, e.g. "ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa".
  std::string type;
  // The public key blob in SSH wire format (what base64 encodes in known_hosts).
  std::string blob;
};

enum class HostKeyVerdict {
  kMatch,        // an entry for the host holds this key
  kRevoked,      // an @revoked entry for the host holds this key
  kMismatch,     // the host has entries, none with this key
  kUnknownHost,  // no entry matches the host
};

struct HostKeyCheck {
  HostKeyVerdict verdict;
  // For messages: e.g. `host key SHA256:... of [git.example]:2222 does not match the 2
  // known_hosts entries for it`. Names the host and fingerprints, nothing secret.
  std::string message;
};

class KnownHosts {
 public:
  struct Entry;
  KnownHosts();
  ~KnownHosts();
  KnownHosts(KnownHosts&&) noexcept;
  KnownHosts& operator=(KnownHosts&&) noexcept;

  // Parses `data`. Malformed, @cert-authority and negated-only lines are skipped; each adds
  // one line to `warnings` (may be null) naming the line number and the problem.
  // Errors: UnsupportedError (connection_errors.h) when no usable entry remains
  // (everything blank, comments, @cert-authority, @revoked or malformed).
  static absl::StatusOr<KnownHosts> Parse(absl::string_view data,
                                          std::vector<std::string>* warnings = nullptr);

  // Checks `key` presented by `host` (a name or an IP address, without brackets) on `port`.
  // Order: a matching @revoked entry with this key → kRevoked; else a matching entry with
  // this key → kMatch; else any matching entry → kMismatch; else kUnknownHost.
  HostKeyCheck Check(absl::string_view host, int port, const HostKey& key) const;

  // Entries parsed, @revoked ones included (tests). Defined out of line: Entry is incomplete
  // here.
  size_t size() const;

 private:
  std::vector<Entry> entries_;
};

// "SHA256:" and the unpadded base64 SHA-256 of key.blob, as ssh-keygen -l prints.
std::string HostKeyFingerprint(const HostKey& key);

}  // namespace credledger::kubebridge
