#include "service/decide/validation.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/quote_cut.h"
#include "common/status_macros.h"
#include "kubebridge/model/outcomes.h"

namespace credledger::service {
namespace {

// Longest kind accepted (a CustomResourceDefinition's kind is at most 63 characters).
constexpr size_t kMaxKindBytes = 63;
// Longest part of a refused api_version quoted in an error.
constexpr size_t kMaxShownBytes = 300;
// Longest part of a refused kind or uid quoted in an error.
constexpr size_t kMaxShownShortBytes = 80;

// "v1" (the core group) or "<group>/<version>": a DNS-1123 subdomain and a DNS-1123 label.
absl::Status ValidateApiVersion(absl::string_view field, absl::string_view value) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  if (value == "v1") return absl::OkStatus();
  const size_t slash = value.find('/');
  if (slash == absl::string_view::npos ||
      !common::ValidateDnsSubdomain(field, value.substr(0, slash)).ok() ||
      !common::ValidateDnsLabel(field, value.substr(slash + 1)).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", common::QuoteCut(value, kMaxShownBytes),
        " is neither \"v1\" nor \"<group>/<version>\" (a DNS-1123 subdomain and a DNS-1123 "
        "label)"));
  }
  return absl::OkStatus();
}

// A Kubernetes kind: 1-63 ASCII letters and digits.
absl::Status ValidateKind(absl::string_view field, absl::string_view value) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  bool ok = value.size() <= kMaxKindBytes;
  for (char c : value) ok = ok && absl::ascii_isalnum(c);
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", common::QuoteCut(value, kMaxShownShortBytes),
        " is not a kind (1-63 ASCII letters and digits)"));
  }
  return absl::OkStatus();
}

}  // namespace

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
        field, ": ", common::QuoteCut(value, kMaxShownShortBytes),
        " is not a lowercase RFC 4122 UUID (8-4-4-4-12 lowercase hex digits)"));
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

absl::Status ValidateClientRequestId(absl::string_view field, absl::string_view value,
                                     size_t max_bytes) {
  if (absl::Status s = ValidateToken(field, value, max_bytes); !s.ok()) return s;
  if (absl::StartsWith(value, kubebridge::kServiceRequestIdPrefix)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": the prefix \"",
                                                   kubebridge::kServiceRequestIdPrefix,
                                                   "\" is reserved for credledger's own commands"));
  }
  return absl::OkStatus();
}

absl::Status ValidateClientRequestId(absl::string_view value, size_t max_bytes) {
  return ValidateClientRequestId("request_id", value, max_bytes);
}

absl::Status ValidateOwnerReference(const v1::OwnerReference& owner, bool require_uid) {
  RETURN_IF_ERROR(ValidateApiVersion("owner.api_version", owner.api_version()));
  RETURN_IF_ERROR(ValidateKind("owner.kind", owner.kind()));
  RETURN_IF_ERROR(common::ValidateDnsSubdomain("owner.name", owner.name()));
  if (owner.uid().empty()) {
    return require_uid ? absl::InvalidArgumentError("owner.uid: required") : absl::OkStatus();
  }
  return ValidateUid("owner.uid", owner.uid());
}

absl::Status ValidateTarget(absl::string_view target_namespace, absl::string_view name) {
  RETURN_IF_ERROR(ValidateDnsLabel("namespace", target_namespace));
  return ValidateDnsLabel("name", name);
}

absl::Status ValidateNamespaceFilter(absl::string_view target_namespace) {
  if (target_namespace.empty()) return absl::OkStatus();
  return ValidateDnsLabel("namespace", target_namespace);
}

absl::Status ValidateWatchStart(absl::string_view target_namespace, int64_t after_seq) {
  RETURN_IF_ERROR(ValidateNamespaceFilter(target_namespace));
  if (after_seq < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("after_seq: ", after_seq, " is negative; use 0 for a snapshot"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ResolveActor(absl::string_view actor) {
  if (actor.empty()) return std::string(kAnonymousActor);
  RETURN_IF_ERROR(ValidateToken(kActorMetadataKey, actor, kMaxActorBytes));
  return std::string(actor);
}

}  // namespace credledger::service
