#include "service/wire/server_address.h"

#include <arpa/inet.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/quote_cut.h"
#include "service/wire/host_port.h"

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

// A DNS name or IPv4 address as gRPC's resolvers take it: no separators of other parts of a
// target, no spaces or control bytes.
bool IsPlainHost(absl::string_view host) {
  if (host.empty()) return false;
  for (char c : host) {
    if (c <= 0x20 || c >= 0x7f || c == ':' || c == '/' || c == '[' || c == ']' || c == '@') {
      return false;
    }
  }
  return true;
}

// An IPv6 address, optionally with a zone ("fe80::1%eth0").
bool IsIpv6Host(absl::string_view host) {
  const std::string address(host.substr(0, host.find('%')));
  in6_addr parsed;
  return inet_pton(AF_INET6, address.c_str(), &parsed) == 1;
}

absl::Status CheckHostPort(absl::string_view field, absl::string_view address,
                           absl::string_view host_port) {
  absl::StatusOr<HostPort> split = SplitHostPort(field, host_port, /*min_port=*/1);
  if (!split.ok()) {
    // The message quotes the host:port part; a dns: address is named whole as well.
    const std::string whole =
        host_port.size() == address.size()
            ? ""
            : absl::StrCat(" (in ", common::QuoteCut(address, kMaxShownServerBytes), ")");
    return absl::InvalidArgumentError(
        absl::StrCat(split.status().message(), whole, "; expected ", kServerAddressForms));
  }
  if (split->bracketed ? !IsIpv6Host(split->host) : !IsPlainHost(split->host)) {
    return BadServerAddress(field, address,
                            split->bracketed ? "has no IPv6 address in its brackets"
                                             : "has no valid host before :<port> (an IPv6 "
                                               "address goes in brackets: [::1]:7443)");
  }
  return absl::OkStatus();
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
  if (const size_t scheme = rest.find("://");
      scheme != absl::string_view::npos && !absl::StartsWith(rest, "dns:")) {
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

}  // namespace credledger::service
