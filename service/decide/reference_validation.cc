#include "service/decide/reference_validation.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/dns_label.h"
#include "common/quote_cut.h"
#include "common/status_macros.h"

namespace credledger::service {
namespace {

// Longest data key Kubernetes accepts.
constexpr size_t kMaxDataKeyBytes = 253;
// Bytes of a refused kind shown in its error.
constexpr size_t kShownKindBytes = 20;
// Bytes of a refused data key shown in its error.
constexpr size_t kShownKeyBytes = 80;

bool DataKeyChar(char c) { return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.'; }

}  // namespace

absl::Status ValidateDataKey(absl::string_view field, absl::string_view key) {
  if (key.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  if (key.size() > kMaxDataKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", key.size(), " bytes; a data key has at most ", kMaxDataKeyBytes));
  }
  for (char c : key) {
    if (!DataKeyChar(c)) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": ", common::QuoteCut(key, kShownKeyBytes),
          " is not a data key (letters, digits, '-', '_' and '.' only)"));
    }
  }
  if (key == "." || absl::StartsWith(key, "..")) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", common::QuoteCut(key, kShownKeyBytes),
        " is not a data key (not \".\", not starting with \"..\")"));
  }
  return absl::OkStatus();
}

bool IsSet(const v1::ObjectKeyRef& ref) {
  return !ref.kind().empty() || !ref.name().empty() || !ref.key().empty();
}

absl::Status ValidateObjectKeyRef(absl::string_view field, const v1::ObjectKeyRef& ref) {
  if (ref.kind() != "Secret" && ref.kind() != "ConfigMap") {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".kind: ", common::QuoteCut(ref.kind(), kShownKindBytes),
                     " is not a kind a reference may name (\"Secret\" or \"ConfigMap\")"));
  }
  RETURN_IF_ERROR(common::ValidateDnsSubdomain(absl::StrCat(field, ".name"), ref.name()));
  if (ref.key().empty()) return absl::OkStatus();
  return ValidateDataKey(absl::StrCat(field, ".key"), ref.key());
}

}  // namespace credledger::service
