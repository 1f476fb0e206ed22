#include "service/validation.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kubebridge/outcomes.h"

namespace credledger::service {

absl::Status ValidateUid(absl::string_view field, absl::string_view value) {
  bool ok = value.size() == 36;
  for (size_t i = 0; ok && i < value.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      ok = value[i] == '-';
    } else {
      ok = absl::ascii_isdigit(value[i]) || (value[i] >= 'a' && value[i] <= 'f');
    }
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": \"", value.substr(0, 40),
        "\" is not a lowercase RFC 4122 UUID (8-4-4-4-12 lowercase hex digits)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateToken(absl::string_view field, absl::string_view value, size_t max_bytes) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  if (value.size() > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", value.size(), " bytes; at most ", max_bytes, " allowed"));
  }
  for (char c : value) {
    if (c < 0x21 || c > 0x7e) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": only printable ASCII without spaces is allowed"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateClientRequestId(absl::string_view value, size_t max_bytes) {
  if (absl::Status s = ValidateToken("request_id", value, max_bytes); !s.ok()) return s;
  if (absl::StartsWith(value, kubebridge::kServiceRequestIdPrefix)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "request_id: the prefix \"", kubebridge::kServiceRequestIdPrefix,
        "\" is reserved for credledger's own commands"));
  }
  return absl::OkStatus();
}

}  // namespace credledger::service
