// URLs and host:port pairs as libcurl's URL API (curl_url) reads them, for every layer: the
// checks of source and cluster URLs (docs/connections.md, "Clusters" and "Sources"), the
// source checks themselves, the credential provider's URL, and the server's and the client's
// addresses (docs/api.md, "Transport"). Beside them, the scp-like Git addresses
// (`git@host:repo`), which are no URLs and which curl refuses.
//
// The header includes none of curl's, so a library that links common but not libcurl (the
// deciders) uses it within its layer (docs/architecture.md, "Layers").
//
// Thread-safety: pure functions (each call uses a curl URL handle of its own) and plain values.
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::common {

// What an error of ParseUrl, ResolveUrl or SplitHostPort refuses (UrlFaultOf).
enum class UrlFault {
  kNone,       // a status of no URL function, or OK
  kNoScheme,   // no "<scheme>:" followed by 1-3 slashes: a local path or an scp-like address
  kNoHost,     // an empty host
  kBadHost,    // a host of characters no host name has (an IPv6 address needs brackets)
  kBadIpv6,    // brackets around no IPv6 address, or an unclosed '['
  kNoPort,     // SplitHostPort only: no ":<port>"
  kBadPort,    // a port that is not a decimal number in range
  kMalformed,  // anything else curl refuses: a bad userinfo, path, query or fragment
};

// The fault an error of this module carries; kNone for any other status.
UrlFault UrlFaultOf(const absl::Status& status);

// A URL split by curl. Nothing is decoded: the parts are as written (percent-encoded).
struct Url {
  std::string scheme;                   // lowercased
  std::optional<std::string> user;      // set when the URL has a userinfo ("" for "@", ":pw@")
  std::optional<std::string> password;  // after the userinfo's first ':' ("" for "user:@")
  std::string host;  // without an IPv6 address's brackets ("::1", "fe80::1%eth0"); curl writes
                     // an IPv4 address as four decimal numbers; empty for file:///path
  std::optional<int> port;              // 1-65535, when the URL names one
  std::string path;                     // as written, dot segments kept; "/" when none
  std::optional<std::string> query;     // without its '?' ("" for a bare '?')
  std::optional<std::string> fragment;  // without its '#'; curl drops an empty one
  // The URL as curl writes it back without its userinfo ("/" as the path of a bare host), for
  // messages and the log; and the same keeping the user (an SSH login).
  std::string without_userinfo;
  std::string without_password;

  // The host (an IPv6 address in brackets), then ":<port>" when the URL names one.
  std::string Authority() const;
};

// Splits `text`, an absolute URL of any scheme ("https://host:6443/x", "oci://registry/app").
// The userinfo ends at the authority's last '@', as browsers read it (curl alone ends it at
// the first): an earlier '@' is part of the user or password, written "%40".
// Errors: kInvalidArgument whose message is the rule broken, without any part of `text` (it
// may hold a credential): "is not a URL (...)" (kNoScheme), "has no host", "has no valid
// host", "has no IPv6 address in its brackets", "has an invalid port (a port is a number
// 1-65535)", and for kMalformed "has a malformed path" (userinfo, query, fragment) or "is
// not a well-formed URL"; UrlFaultOf names the fault.
absl::StatusOr<Url> ParseUrl(absl::string_view text);

// `reference` read against the URL `base`, as a browser reads a link ("x.tgz", "/x.tgz",
// "//cdn.example/x.tgz" and absolute URLs). Errors: ParseUrl's, for either text.
absl::StatusOr<Url> ResolveUrl(absl::string_view base, absl::string_view reference);

// Whether `text` starts with a scheme as curl reads one: a letter, letters, digits, '+', '-' or
// '.', then ':' and 1-3 slashes ("https://", "oci:/x"); "git@host:repo", "host:path",
// "[::1]:7443" and local paths have none.
bool HasUrlScheme(absl::string_view text);

// `text`, which ParseUrl refused, as an error may quote it: as given when it holds no '@',
// else "...@" and what follows its last '@' (what precedes may be a credential).
std::string RedactUnparsedUrl(absl::string_view text);

// A host and port of a gRPC or HTTP address.
struct HostPort {
  std::string host;        // as Url::host: without brackets, an IPv4 address as curl writes it
  int port = 0;            // min_port..65535
  bool bracketed = false;  // given as "[<IPv6 address>]:<port>"
};

// Splits "<host>:<port>" or "[<IPv6 address>]:<port>" (with a zone: "[fe80::1%eth0]:7443") as
// curl reads the authority of a URL. <port> is decimal without sign or leading zeros, from
// `min_port` to 65535. Nothing else may come with them: no userinfo, path, query or fragment.
// Errors: kInvalidArgument whose message is the rule broken, without `address`: "has no host"
// (kNoHost); "has no valid host (...)" (kBadHost: a character no host name has, one of
// "/?#@\\", or an IPv6 address without brackets); "has no IPv6 address in its brackets"
// (kBadIpv6); "has no port (<host>:<port>)" (kNoPort); "has an invalid port (a port is a
// number <min_port>-65535)" (kBadPort, also for an empty or zero-padded port).
absl::StatusOr<HostPort> SplitHostPort(absl::string_view address, int min_port);

// `host` in brackets when it is an IPv6 address (holds ':'), else as given.
std::string BracketedHost(absl::string_view host);

// "<host>:<port>", with BracketedHost.
std::string JoinHostPort(absl::string_view host, int port);

// A Git remote without a scheme (HasUrlScheme false), split by git's rule: the userinfo is the
// text before the first '@' when no '/' comes before it; an scp-like address follows it,
// "<host>:<path>" or "[<host>]:<path>" with no '/' before the ':'; anything else is a local
// path ("/srv/repo.git", "./a:b", "repo.git").
struct ScpAddress {
  std::optional<std::string> user;      // the userinfo up to its first ':'
  std::optional<std::string> password;  // the userinfo after its first ':'
  bool local_path = false;
  std::string host;              // without brackets; empty for a local path
  std::string path;              // after the host's ':'; the whole rest for a local path
  std::string without_password;  // the text without ":<password>", for messages
};

// Splits `text` by ScpAddress's rule. REQUIRES: !HasUrlScheme(text).
ScpAddress SplitScpAddress(absl::string_view text);

}  // namespace credledger::common
