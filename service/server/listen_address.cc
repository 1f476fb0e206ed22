#include "service/server/listen_address.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/quote_cut.h"
#include "common/url.h"
#include "service/wire/server_address.h"

namespace credledger::service {
namespace {

// Longest part of a refused address quoted in an error.
constexpr size_t kMaxShownAddressBytes = 200;

}  // namespace

absl::Status CheckListenAddress(absl::string_view field, absl::string_view address, bool tls) {
  if (absl::StartsWith(address, "unix:") || absl::StartsWith(address, "unix-abstract:")) {
    if (address.substr(address.find(':') + 1).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": \"", address, "\" names no socket path"));
    }
    return absl::OkStatus();
  }
  const absl::StatusOr<common::HostPort> split = common::SplitHostPort(address, /*min_port=*/0);
  if (common::UrlFaultOf(split.status()) == common::UrlFault::kNoHost) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": \"", address, "\" names no host (0.0.0.0 or [::] listens on every address)"));
  }
  if (!split.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ",
                                                   common::QuoteCut(address, kMaxShownAddressBytes),
                                                   " ", split.status().message()));
  }
  if (!tls && !IsLoopbackHost(split->host)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": \"", address,
        "\" is not a loopback address; without TLS credledger listens only on loopback "
        "(127.0.0.0/8, ::1, localhost) or a unix socket (give --tls-cert and --tls-key to "
        "listen on the network)"));
  }
  return absl::OkStatus();
}

}  // namespace credledger::service
