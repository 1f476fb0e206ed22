#include "common/dns_label.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace credledger::common {
namespace {

bool LowerAlnum(char c) { return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'z'); }

}  // namespace

absl::Status ValidateDnsLabel(absl::string_view field, absl::string_view value) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  if (value.size() > 63) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": \"", value.substr(0, 70), "...\" has ", value.size(),
        " characters; a DNS-1123 label has at most 63"));
  }
  bool ok = LowerAlnum(value.front()) && LowerAlnum(value.back());
  for (char c : value) ok = ok && (LowerAlnum(c) || c == '-');
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": \"", value,
        "\" is not a DNS-1123 label (lowercase letters, digits and '-', starting and ending "
        "with a letter or digit)"));
  }
  return absl::OkStatus();
}

}  // namespace credledger::common
