#include "service/wire/host_port.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/quote_cut.h"

namespace credledger::service {
namespace {

// Longest part of a refused address quoted in an error.
constexpr size_t kMaxShownAddressBytes = 200;
// Longest part of a refused port quoted in an error.
constexpr size_t kMaxShownPortBytes = 20;

}  // namespace

absl::StatusOr<HostPort> SplitHostPort(absl::string_view field, absl::string_view address,
                                       uint32_t min_port) {
  const std::string shown = common::QuoteCut(address, kMaxShownAddressBytes);
  HostPort split;
  absl::string_view port;
  if (absl::StartsWith(address, "[")) {
    const size_t close = address.find("]:");
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", shown, " is not [<IPv6 address>]:<port>"));
    }
    split.host = address.substr(1, close - 1);
    split.bracketed = true;
    port = address.substr(close + 2);
  } else {
    const size_t colon = address.rfind(':');
    if (colon == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", shown, " has no port (<host>:<port>)"));
    }
    split.host = address.substr(0, colon);
    port = address.substr(colon + 1);
  }
  bool digits = !port.empty();
  for (char c : port) digits = digits && absl::ascii_isdigit(c);
  if (!digits || !absl::SimpleAtoi(port, &split.port) || split.port < min_port ||
      split.port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", shown, " has port ",
                                                   common::QuoteCut(port, kMaxShownPortBytes),
                                                   "; a port is a number ", min_port, "-65535"));
  }
  return split;
}

}  // namespace credledger::service
