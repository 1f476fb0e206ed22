#include "common/dns_label.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/quote_cut.h"

namespace credledger::common {
namespace {

bool LowerAlnum(char c) { return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'z'); }

// [a-z0-9-]+ starting and ending with [a-z0-9]; no length rule.
bool LabelShape(absl::string_view value) {
  if (value.empty() || !LowerAlnum(value.front()) || !LowerAlnum(value.back())) return false;
  for (char c : value) {
    if (!LowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// Bytes of a too long value shown in its error (QuoteCut adds its length).
constexpr size_t kShownTooLongBytes = 20;
// Bytes of a value of the wrong shape shown in its error.
constexpr size_t kShownBytes = 80;

absl::Status TooLong(absl::string_view field, absl::string_view value, absl::string_view rule,
                     size_t max) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ",
                                                 QuoteCut(value, kShownTooLongBytes),
                                                 " is too long; a ", rule, " has at most ", max,
                                                 " bytes"));
}

}  // namespace

absl::Status ValidateDnsLabel(absl::string_view field, absl::string_view value) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  if (value.size() > 63) return TooLong(field, value, "DNS-1123 label", 63);
  if (!LabelShape(value)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", QuoteCut(value, kShownBytes),
        " is not a DNS-1123 label (lowercase letters, digits and '-', starting and ending "
        "with a letter or digit)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateDnsSubdomain(absl::string_view field, absl::string_view value) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  if (value.size() > 253) return TooLong(field, value, "DNS-1123 subdomain", 253);
  for (absl::string_view part : absl::StrSplit(value, '.')) {
    if (!LabelShape(part)) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": ", QuoteCut(value, kShownBytes),
          " is not a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', each "
          "'.'-separated part starting and ending with a letter or digit)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace credledger::common
