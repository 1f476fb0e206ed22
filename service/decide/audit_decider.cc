#include "service/decide/audit_decider.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/common.h"
#include "kubebridge/model/outcomes.h"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

// True when `text` is well-formed UTF-8 (protobuf's check) without ASCII control characters.
bool IsPlainText(absl::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return google::protobuf::internal::IsStructurallyValidUTF8(text.data(),
                                                             static_cast<int>(text.size()));
}

}  // namespace

absl::Status ValidateAdoptionReason(absl::string_view field, absl::string_view reason) {
  if (absl::StripAsciiWhitespace(reason).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": required: say why the log is adopted (it is recorded)"));
  }
  if (reason.size() > kMaxReasonBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", reason.size(), " bytes; at most ", kMaxReasonBytes, " allowed"));
  }
  if (!IsPlainText(reason)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be UTF-8 text without control characters"));
  }
  return absl::OkStatus();
}

absl::Status ValidateAdoptedBy(absl::string_view field, absl::string_view adopted_by) {
  return ValidateToken(field, adopted_by, kMaxActorBytes);
}

absl::StatusOr<v1::Event> DecideLogAdopted(const AdoptLog& command) {
  const v1::LogAdopted& adoption = command.adoption;
  if (absl::Status s = ValidateAdoptionReason("reason", adoption.reason()); !s.ok()) return s;
  if (absl::Status s = ValidateAdoptedBy("adopted_by", adoption.adopted_by()); !s.ok()) return s;
  if (adoption.refusals().empty()) {
    return absl::InvalidArgumentError("refusals: a log is adopted only over a refusal");
  }
  if (adoption.head_chain_hash().size() != 32) {
    return absl::InvalidArgumentError(
        absl::StrCat("head_chain_hash: ", adoption.head_chain_hash().size(), " bytes; must be 32"));
  }
  v1::Event event;
  *event.mutable_log_adopted() = adoption;
  return event;
}

std::string LogAdoptedRequestId(int64_t stream_version) {
  return absl::StrCat(kubebridge::kServiceRequestIdPrefix, "log-adopted/", stream_version + 1);
}

}  // namespace credledger::service
