// The remote URL of a Git source as ListRemoteRefs reads it (docs/connections.md, "Git"):
// https://, ssh:// and scp-like `user@host:path` URLs (common/url.h) split into what the
// checks and the messages need, with a form for messages that never holds a password.
// Internal to git_verifier.cc and git_remote_session.cc.
//
// Thread-safety: a pure function and a plain value.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

// The parts of a remote URL that the checks and messages need.
struct RemoteUrl {
  bool ssh = false;
  std::string host;      // without IPv6 brackets, as known_hosts and X509 checks want it
  int port = 0;
  std::string user;      // ssh: the URL's user, "git" when it names none
  std::string password;  // the URL's password as written, "" when none
  std::string raw;       // the URL as given (may hold a password)
  // The URL for messages: never a password. An SSH URL keeps its user (`git@host:repo`,
  // `ssh://git@host/repo`): the login is part of the address and no secret. Any other URL
  // loses its whole userinfo, which may be a token given as the user name.
  std::string display;
};

// Splits `url`: a URL as libcurl reads it (common::ParseUrl), or, without a scheme, an
// scp-like address (common::SplitScpAddress); the port defaults to 22 for SSH and 443 for
// https://.
// Errors (messages start "git remote <display>: "; for a URL libcurl cannot read, the URL
// without what precedes its last '@'): UnsupportedError for a local path (no ':' before a
// '/') or a scheme other than https:// and ssh://; kInvalidArgument for no host, a malformed
// host or IPv6 address, or a port that is not a number from 1 to 65535.
absl::StatusOr<RemoteUrl> ParseRemoteUrl(absl::string_view url);

}  // namespace credledger::kubebridge
