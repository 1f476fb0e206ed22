// Parsing of a Git remote URL (git_remote_url.h).
#include "kubebridge/sources/git_remote_url.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/url.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {
namespace {

constexpr char kSupported[] = "(https://, ssh:// and user@host:path only)";

// The login of an SSH remote: the URL's user, "git" when it names none.
std::string SshUser(const std::optional<std::string>& user) {
  return user.value_or("").empty() ? "git" : *user;
}

// An scp-like remote ("git@host:repo") or a local path.
absl::StatusOr<RemoteUrl> ParseScpRemote(absl::string_view url, RemoteUrl remote) {
  const common::ScpAddress address = common::SplitScpAddress(url);
  remote.display = address.without_password;
  const std::string prefix = absl::StrCat("git remote ", remote.display, ": ");
  if (address.local_path) {
    return UnsupportedError(absl::StrCat(prefix, "local paths are not supported ", kSupported));
  }
  if (address.host.empty()) return absl::InvalidArgumentError(prefix + "has no host");
  remote.ssh = true;
  remote.host = address.host;
  remote.port = 22;
  remote.user = SshUser(address.user);
  remote.password = address.password.value_or("");
  return remote;
}

}  // namespace

absl::StatusOr<RemoteUrl> ParseRemoteUrl(absl::string_view url) {
  RemoteUrl remote;
  remote.raw = std::string(url);
  const absl::StatusOr<common::Url> parsed = common::ParseUrl(url);
  if (!parsed.ok()) {
    if (common::UrlFaultOf(parsed.status()) == common::UrlFault::kNoScheme) {
      return ParseScpRemote(url, std::move(remote));
    }
    return absl::InvalidArgumentError(absl::StrCat("git remote ", common::RedactUnparsedUrl(url),
                                                   ": ", parsed.status().message()));
  }
  remote.ssh = parsed->scheme == "ssh";
  remote.display = remote.ssh ? parsed->without_password : parsed->without_userinfo;
  const std::string prefix = absl::StrCat("git remote ", remote.display, ": ");
  if (!remote.ssh && parsed->scheme != "https") {
    return UnsupportedError(
        absl::StrCat(prefix, "scheme \"", parsed->scheme, "\" is not supported ", kSupported));
  }
  remote.host = parsed->host;
  remote.port = parsed->port.value_or(remote.ssh ? 22 : 443);
  if (remote.ssh) remote.user = SshUser(parsed->user);
  remote.password = parsed->password.value_or("");
  return remote;
}

}  // namespace credledger::kubebridge
