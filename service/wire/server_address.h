// The `credledger` client's --server address (docs/api.md, "RPCs and subcommands"): checked
// before the CLI dials, so that a mistyped address is a usage error naming the flag rather
// than a failed call (docs/api.md, "Bad input").
//
// Pure functions; thread-safe.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::service {

// The forms CheckServerAddress accepts, for usage lines and errors.
inline constexpr char kServerAddressForms[] =
    "<host>:<port>, [<IPv6>]:<port>, dns:///<host>:<port>, unix:<path>, unix:///<absolute "
    "path> or unix-abstract:<name>";

// Accepts the gRPC target forms a credledger server listens on (listen_address.h):
//   <host>:<port> and [<IPv6 address>]:<port>  port 1-65535, without leading zeros; a host
//                                              as libcurl reads a URL's (common::SplitHostPort)
//   dns:[//<authority>/]<host>:<port>          the same after gRPC's dns scheme
//   unix:<path>, unix:///<absolute path>      a non-empty socket path
//   unix-abstract:<name>                      a non-empty name
// An IPv6 address must be in brackets (gRPC reads "::1:7443" as a host without a port).
// Errors: kInvalidArgument naming `field`, quoting `address` and naming the rule: empty,
// no port, a port outside 1-65535 or not decimal, an empty or malformed host, an empty
// socket path, "unix://" followed by no absolute path, a URL ("https://host:port").
absl::Status CheckServerAddress(absl::string_view field, absl::string_view address);

// True for a host of this machine: "localhost", IPv4 127.0.0.0/8 and IPv6 ::1 (without
// brackets).
bool IsLoopbackHost(absl::string_view host);

// True for an address CheckServerAddress accepts that stays on this machine: a unix socket,
// or a loopback host (with or without dns:); false for anything else.
bool IsLocalServerAddress(absl::string_view address);

}  // namespace credledger::service
