// Parsing of a Git remote URL (git_remote_url.h).
#include "kubebridge/sources/git_remote_url.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {
namespace {

// Finds the userinfo of `url`: sets `start` to where it begins (or would begin) and `end` to
// its '@', and returns whether there is one. For a scheme://authority URL it is the
// authority's part before its last '@'; for an scp-like `user@host:path` the part before the
// first '@' when no '/' precedes it (the rule of the API's URL check, so that a
// `user:password@` is always found).
bool FindUserinfo(absl::string_view url, size_t& start, size_t& end) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == absl::string_view::npos) {
    start = 0;
    end = url.find('@');
    return end != absl::string_view::npos && url.substr(0, end).find('/') == url.npos;
  }
  start = scheme_end + 3;
  const absl::string_view authority = url.substr(start, url.find('/', start) - start);
  const size_t at = authority.rfind('@');
  if (at == absl::string_view::npos) return false;
  end = start + at;
  return true;
}

// `url` for messages (RemoteUrl::display); `ssh` says whether it is an SSH URL.
std::string DisplayUrl(absl::string_view url, bool ssh) {
  size_t start = 0;
  size_t end = 0;
  if (!FindUserinfo(url, start, end)) return std::string(url);
  if (!ssh) return absl::StrCat(url.substr(0, start), url.substr(end + 1));
  const absl::string_view userinfo = url.substr(start, end - start);
  return absl::StrCat(url.substr(0, start), userinfo.substr(0, userinfo.find(':')),
                      url.substr(end));
}

// Splits "host[:port]" or "[v6]:port"; `port` keeps its value when none is given.
absl::Status SplitHostPort(absl::string_view hostport, std::string& host, int& port) {
  absl::string_view port_text;
  if (absl::StartsWith(hostport, "[")) {
    const size_t close = hostport.find(']');
    if (close == absl::string_view::npos) return absl::InvalidArgumentError("unclosed '['");
    host = std::string(hostport.substr(1, close - 1));
    absl::string_view rest = hostport.substr(close + 1);
    if (!rest.empty() && !absl::ConsumePrefix(&rest, ":")) {
      return absl::InvalidArgumentError("unexpected text after ']'");
    }
    port_text = rest;
  } else {
    const size_t colon = hostport.find(':');
    host = std::string(hostport.substr(0, colon));
    if (colon != absl::string_view::npos) port_text = hostport.substr(colon + 1);
  }
  if (host.empty()) return absl::InvalidArgumentError("no host");
  if (!port_text.empty() && (!absl::SimpleAtoi(port_text, &port) || port < 1 || port > 65535)) {
    return absl::InvalidArgumentError("the port is not a number from 1 to 65535");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RemoteUrl> ParseRemoteUrl(absl::string_view url) {
  RemoteUrl remote;
  remote.raw = std::string(url);
  const size_t scheme_end = url.find("://");
  const std::string scheme =
      scheme_end == absl::string_view::npos ? "" : absl::AsciiStrToLower(url.substr(0, scheme_end));
  remote.ssh = scheme_end == absl::string_view::npos || scheme == "ssh";
  size_t userinfo_start = 0;
  size_t userinfo_end = 0;
  const bool has_userinfo = FindUserinfo(url, userinfo_start, userinfo_end);
  if (has_userinfo) {
    remote.userinfo = std::string(url.substr(userinfo_start, userinfo_end - userinfo_start));
  }
  const size_t host_start = has_userinfo ? userinfo_end + 1 : userinfo_start;
  // An scp-like URL without a ':' before any '/' is a local path, which is not SSH.
  const size_t scp_colon = url.find(':', host_start);
  const bool local_path =
      scheme_end == absl::string_view::npos &&
      (scp_colon == absl::string_view::npos ||
       url.substr(host_start, scp_colon - host_start).find('/') != absl::string_view::npos);
  if (local_path) remote.ssh = false;
  remote.display = DisplayUrl(url, remote.ssh);
  const std::string prefix = absl::StrCat("git remote ", remote.display, ": ");
  if (local_path) {
    return UnsupportedError(absl::StrCat(
        prefix, "local paths are not supported (https://, ssh:// and user@host:path only)"));
  }
  if (scheme_end == absl::string_view::npos) {
    remote.port = 22;
    absl::string_view host = url.substr(host_start, scp_colon - host_start);
    if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
      host = host.substr(1, host.size() - 2);
    }
    remote.host = std::string(host);
    if (remote.host.empty()) return absl::InvalidArgumentError(prefix + "no host");
  } else {
    if (scheme != "https" && scheme != "ssh") {
      return UnsupportedError(absl::StrCat(prefix, "scheme \"", scheme,
                                           "\" is not supported (https://, ssh:// and "
                                           "user@host:path only)"));
    }
    remote.port = remote.ssh ? 22 : 443;
    const absl::string_view authority =
        url.substr(host_start, url.find('/', host_start) - host_start);
    absl::Status split = SplitHostPort(authority, remote.host, remote.port);
    if (!split.ok()) return absl::InvalidArgumentError(prefix + std::string(split.message()));
  }
  if (remote.ssh) {
    remote.user = remote.userinfo.substr(0, remote.userinfo.find(':'));
    if (remote.user.empty()) remote.user = "git";
  }
  return remote;
}

}  // namespace credledger::kubebridge
