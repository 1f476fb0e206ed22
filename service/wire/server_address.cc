#include "service/wire/server_address.h"

#include <arpa/inet.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/quote_cut.h"
#include "common/url.h"

namespace credledger::service {
namespace {

// Longest part of a refused address quoted in an error.
constexpr size_t kMaxShownServerBytes = 200;

// `message` about `address`, ending with the forms that are accepted.
absl::Status BadServerAddress(absl::string_view field, absl::string_view address,
                              absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ",
                                                 common::QuoteCut(address, kMaxShownServerBytes),
                                                 " ", message, "; expected ", kServerAddressForms));
}

absl::Status CheckHostPort(absl::string_view field, absl::string_view address,
                           absl::string_view host_port) {
  const absl::StatusOr<common::HostPort> split = common::SplitHostPort(host_port, /*min_port=*/1);
  if (split.ok()) return absl::OkStatus();
  switch (common::UrlFaultOf(split.status())) {
    case common::UrlFault::kNoHost:
    case common::UrlFault::kBadHost:
      return BadServerAddress(field, address,
                              "has no valid host before :<port> (an IPv6 address goes in "
                              "brackets: [::1]:7443)");
    case common::UrlFault::kBadIpv6:
      return BadServerAddress(field, address, "has no IPv6 address in its brackets");
    default: {
      // The message quotes the host:port part; a dns: address is named whole as well.
      const std::string whole =
          host_port.size() == address.size()
              ? ""
              : absl::StrCat(" (in ", common::QuoteCut(address, kMaxShownServerBytes), ")");
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", common::QuoteCut(host_port, kMaxShownServerBytes), " ",
                       split.status().message(), whole, "; expected ", kServerAddressForms));
    }
  }
}

}  // namespace

absl::Status CheckServerAddress(absl::string_view field, absl::string_view address) {
  if (address.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": required (", kServerAddressForms, ")"));
  }
  absl::string_view rest = address;
  if (absl::ConsumePrefix(&rest, "unix-abstract:")) {
    return rest.empty() ? BadServerAddress(field, address, "names no socket") : absl::OkStatus();
  }
  if (absl::ConsumePrefix(&rest, "unix:")) {
    if (rest.empty()) return BadServerAddress(field, address, "names no socket path");
    // gRPC takes "unix://" as the start of an absolute path only ("unix:///run/x.sock").
    if (absl::StartsWith(rest, "//") && (rest.size() < 4 || rest[2] != '/')) {
      return BadServerAddress(field, address, "names no absolute path after unix://");
    }
    return absl::OkStatus();
  }
  // "http://", "https://", "grpc://": a URL, which gRPC would take for a host named "http".
  if (!absl::StartsWith(rest, "dns:") && common::HasUrlScheme(rest)) {
    return BadServerAddress(field, address,
                            "is a URL; give <host>:<port> without a scheme (TLS comes from "
                            "--tls-ca, not from https://)");
  }
  if (absl::ConsumePrefix(&rest, "dns:") && absl::ConsumePrefix(&rest, "//")) {
    const size_t slash = rest.find('/');
    if (slash == absl::string_view::npos) {
      return BadServerAddress(field, address, "has no / after the DNS authority");
    }
    rest.remove_prefix(slash + 1);
  }
  return CheckHostPort(field, address, rest);
}

bool IsLoopbackHost(absl::string_view host) {
  if (host == "localhost") return true;
  const std::string text(host);
  in_addr v4;
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) {
    return IN6_IS_ADDR_LOOPBACK(&v6);
  }
  return false;
}

bool IsLocalServerAddress(absl::string_view address) {
  absl::string_view rest = address;
  if (absl::StartsWith(rest, "unix:") || absl::StartsWith(rest, "unix-abstract:")) return true;
  if (absl::ConsumePrefix(&rest, "dns:") && absl::ConsumePrefix(&rest, "//")) {
    const size_t slash = rest.find('/');
    if (slash == absl::string_view::npos) return false;
    rest.remove_prefix(slash + 1);
  }
  const absl::StatusOr<common::HostPort> split = common::SplitHostPort(rest, /*min_port=*/1);
  return split.ok() && IsLoopbackHost(split->host);
}

}  // namespace credledger::service
