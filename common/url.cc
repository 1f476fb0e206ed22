#include "common/url.h"

#include <curl/curl.h>

#include <algorithm>
#include <memory>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace credledger::common {
namespace {

// The payload of a status that carries a UrlFault: the fault's number in decimal.
constexpr char kFaultPayload[] = "type.credledger/common.UrlFault";

// Any scheme (oci://, ssh://), and the path as written ("/a/../b" is sent as given).
constexpr unsigned int kSetFlags = CURLU_NON_SUPPORT_SCHEME | CURLU_PATH_AS_IS;

struct HandleDeleter {
  void operator()(CURLU* handle) const { curl_url_cleanup(handle); }
};
using Handle = std::unique_ptr<CURLU, HandleDeleter>;

absl::Status Fault(UrlFault fault, absl::string_view rule) {
  absl::Status status = absl::InvalidArgumentError(rule);
  status.SetPayload(kFaultPayload, absl::Cord(absl::StrCat(static_cast<int>(fault))));
  return status;
}

absl::Status BadPort(int min_port) {
  return Fault(UrlFault::kBadPort,
               absl::StrCat("has an invalid port (a port is a number ", min_port, "-65535)"));
}

// The rule of curl's refusal `code`, for a URL whose port is at least `min_port`.
absl::Status Refusal(CURLUcode code, int min_port) {
  switch (code) {
    case CURLUE_BAD_SCHEME:
    case CURLUE_BAD_SLASHES:
    case CURLUE_NO_SCHEME:
      return Fault(UrlFault::kNoScheme, "is not a URL (<scheme>://<host>[:<port>][/<path>])");
    case CURLUE_NO_HOST:
      return Fault(UrlFault::kNoHost, "has no host");
    case CURLUE_BAD_HOSTNAME:
      return Fault(UrlFault::kBadHost, "has no valid host");
    case CURLUE_BAD_IPV6:
      return Fault(UrlFault::kBadIpv6, "has no IPv6 address in its brackets");
    case CURLUE_BAD_PORT_NUMBER:
      return BadPort(min_port);
    case CURLUE_BAD_LOGIN:
    case CURLUE_BAD_USER:
    case CURLUE_BAD_PASSWORD:
      return Fault(UrlFault::kMalformed, "has a malformed userinfo");
    case CURLUE_BAD_PATH:
      return Fault(UrlFault::kMalformed, "has a malformed path");
    case CURLUE_BAD_QUERY:
      return Fault(UrlFault::kMalformed, "has a malformed query");
    case CURLUE_BAD_FRAGMENT:
      return Fault(UrlFault::kMalformed, "has a malformed fragment");
    default:
      return Fault(UrlFault::kMalformed, "is not a well-formed URL");
  }
}

// Part `part` of the URL in `handle`; nullopt when it has none.
std::optional<std::string> Part(CURLU* handle, CURLUPart part) {
  char* text = nullptr;
  if (curl_url_get(handle, part, &text, 0) != CURLUE_OK) return std::nullopt;
  std::string value(text);
  curl_free(text);
  return value;
}

// The host of `handle` without brackets, an IPv6 zone after '%'; sets `*bracketed`.
std::string Host(CURLU* handle, bool* bracketed) {
  std::string host = Part(handle, CURLUPART_HOST).value_or("");
  *bracketed = absl::StartsWith(host, "[");
  if (!*bracketed) return host;
  host = host.substr(1, host.size() - 2);
  if (std::optional<std::string> zone = Part(handle, CURLUPART_ZONEID)) {
    absl::StrAppend(&host, "%", *zone);
  }
  return host;
}

// The URL `handle` holds, split. Clears its userinfo.
absl::StatusOr<Url> Split(CURLU* handle) {
  Url url;
  url.scheme = Part(handle, CURLUPART_SCHEME).value_or("");
  url.user = Part(handle, CURLUPART_USER);
  url.password = Part(handle, CURLUPART_PASSWORD);
  bool bracketed = false;
  url.host = Host(handle, &bracketed);
  if (std::optional<std::string> port = Part(handle, CURLUPART_PORT)) {
    int number = 0;
    // curl took 0-65535; a URL's port is 1-65535.
    if (!absl::SimpleAtoi(*port, &number) || number < 1) return BadPort(1);
    url.port = number;
  }
  url.path = Part(handle, CURLUPART_PATH).value_or("/");
  url.query = Part(handle, CURLUPART_QUERY);
  url.fragment = Part(handle, CURLUPART_FRAGMENT);
  curl_url_set(handle, CURLUPART_PASSWORD, nullptr, 0);
  url.without_password = Part(handle, CURLUPART_URL).value_or("");
  curl_url_set(handle, CURLUPART_USER, nullptr, 0);
  url.without_userinfo = Part(handle, CURLUPART_URL).value_or("");
  return url;
}

// `text` with each '@' of its authority but the last written "%40". curl ends a userinfo at
// its first '@' and then finds no valid host; browsers (the WHATWG URL standard) end it at the
// last, so "https://me@corp.example:pw@host/" has the user "me%40corp.example" and a password.
std::string EscapeInnerAtSigns(absl::string_view text) {
  const size_t scheme_end = text.find("://");
  if (scheme_end == absl::string_view::npos) return std::string(text);
  const size_t start = scheme_end + 3;
  const size_t end = std::min(text.find_first_of("/?#", start), text.size());
  const size_t last_at = text.substr(0, end).rfind('@');
  if (last_at == absl::string_view::npos || last_at < start) return std::string(text);
  std::string escaped(text.substr(0, start));
  for (char c : text.substr(start, last_at - start)) {
    if (c == '@') {
      escaped += "%40";
    } else {
      escaped += c;
    }
  }
  absl::StrAppend(&escaped, text.substr(last_at));
  return escaped;
}

// Sets the URL of `handle` to `text` (read against the URL it holds, if any).
absl::Status Set(CURLU* handle, absl::string_view text, int min_port) {
  if (handle == nullptr) return absl::ResourceExhaustedError("curl_url: out of memory");
  // curl reads a C string: a NUL would end the URL early.
  if (absl::StrContains(text, '\0')) return Refusal(CURLUE_MALFORMED_INPUT, min_port);
  const std::string escaped = EscapeInnerAtSigns(text);
  const CURLUcode code = curl_url_set(handle, CURLUPART_URL, escaped.c_str(), kSetFlags);
  return code == CURLUE_OK ? absl::OkStatus() : Refusal(code, min_port);
}

}  // namespace

UrlFault UrlFaultOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kFaultPayload);
  int number = 0;
  if (!payload.has_value() || !absl::SimpleAtoi(std::string(*payload), &number)) {
    return UrlFault::kNone;
  }
  return static_cast<UrlFault>(number);
}

std::string Url::Authority() const {
  return port.has_value() ? JoinHostPort(host, *port) : BracketedHost(host);
}

absl::StatusOr<Url> ParseUrl(absl::string_view text) {
  Handle handle(curl_url());
  if (absl::Status set = Set(handle.get(), text, 1); !set.ok()) return set;
  return Split(handle.get());
}

absl::StatusOr<Url> ResolveUrl(absl::string_view base, absl::string_view reference) {
  Handle handle(curl_url());
  if (absl::Status set = Set(handle.get(), base, 1); !set.ok()) return set;
  if (absl::Status set = Set(handle.get(), reference, 1); !set.ok()) return set;
  return Split(handle.get());
}

bool HasUrlScheme(absl::string_view text) {
  return UrlFaultOf(ParseUrl(text).status()) != UrlFault::kNoScheme;
}

std::string RedactUnparsedUrl(absl::string_view text) {
  const size_t at = text.rfind('@');
  if (at == absl::string_view::npos) return std::string(text);
  return absl::StrCat("...", text.substr(at));
}

absl::StatusOr<HostPort> SplitHostPort(absl::string_view address, int min_port) {
  constexpr char kBadHostRule[] =
      "has no valid host (a DNS name or an IPv4 address; an IPv6 address goes in brackets: "
      "[::1]:<port>)";
  // Checked before curl reads the text as an authority: these characters would start a path,
  // a query or a fragment, or end a userinfo; curl reads "host:" as a host without a port; and
  // it takes the first ':' of "::1:7443" for the start of the port.
  if (address.find_first_of("/?#@\\") != absl::string_view::npos) {
    return Fault(UrlFault::kBadHost, kBadHostRule);
  }
  if (absl::EndsWith(address, ":")) return BadPort(min_port);
  if (!absl::StartsWith(address, "[") && std::count(address.begin(), address.end(), ':') > 1) {
    return Fault(UrlFault::kBadHost, kBadHostRule);
  }
  Handle handle(curl_url());
  if (absl::Status set = Set(handle.get(), absl::StrCat("x://", address), min_port); !set.ok()) {
    const UrlFault fault = UrlFaultOf(set);
    if (fault == UrlFault::kMalformed || fault == UrlFault::kBadHost) {
      return Fault(UrlFault::kBadHost, kBadHostRule);
    }
    return set;
  }
  HostPort split;
  split.host = Host(handle.get(), &split.bracketed);
  const std::optional<std::string> port = Part(handle.get(), CURLUPART_PORT);
  if (!port.has_value()) return Fault(UrlFault::kNoPort, "has no port (<host>:<port>)");
  // curl reads "0080" as 80; a port is written as curl writes it back.
  if (!absl::SimpleAtoi(*port, &split.port) || split.port < min_port ||
      !absl::EndsWith(address, absl::StrCat(":", *port))) {
    return BadPort(min_port);
  }
  return split;
}

std::string BracketedHost(absl::string_view host) {
  return absl::StrContains(host, ':') ? absl::StrCat("[", host, "]") : std::string(host);
}

std::string JoinHostPort(absl::string_view host, int port) {
  return absl::StrCat(BracketedHost(host), ":", port);
}

ScpAddress SplitScpAddress(absl::string_view text) {
  ScpAddress split;
  absl::string_view rest = text;
  const size_t at = text.find('@');
  if (at != absl::string_view::npos && text.substr(0, at).find('/') == absl::string_view::npos) {
    const absl::string_view userinfo = text.substr(0, at);
    const size_t colon = userinfo.find(':');
    split.user = std::string(userinfo.substr(0, colon));
    if (colon != absl::string_view::npos) split.password = std::string(userinfo.substr(colon + 1));
    rest = text.substr(at + 1);
    split.without_password = absl::StrCat(*split.user, "@");
  }
  absl::StrAppend(&split.without_password, rest);
  // "[host]:path" keeps the ':'s of an IPv6 address inside its brackets.
  const size_t close = absl::StartsWith(rest, "[") ? rest.find("]:") : absl::string_view::npos;
  const size_t colon = close != absl::string_view::npos ? close + 1 : rest.find(':');
  if (colon == absl::string_view::npos ||
      rest.substr(0, colon).find('/') != absl::string_view::npos) {
    split.local_path = true;
    split.path = std::string(rest);
    return split;
  }
  split.host = std::string(close != absl::string_view::npos ? rest.substr(1, close - 1)
                                                            : rest.substr(0, colon));
  split.path = std::string(rest.substr(colon + 1));
  return split;
}

}  // namespace credledger::common
