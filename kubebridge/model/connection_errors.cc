#include "kubebridge/model/connection_errors.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace credledger::kubebridge {
namespace {

// Payload type URL of the error class; its value is the class name.
constexpr char kErrorClassPayload[] = "type.credledger.dev/connection-error-class";

}  // namespace

absl::Status UnsupportedError(absl::string_view message) {
  absl::Status status = absl::FailedPreconditionError(message);
  status.SetPayload(kErrorClassPayload, absl::Cord(kReasonUnsupported));
  return status;
}

bool IsUnsupported(const absl::Status& status) {
  const auto payload = status.GetPayload(kErrorClassPayload);
  return payload.has_value() && *payload == kReasonUnsupported;
}

absl::Status Annotate(const absl::Status& status, absl::string_view prefix) {
  if (status.ok()) return status;
  absl::Status annotated(status.code(), absl::StrCat(prefix, ": ", status.message()));
  status.ForEachPayload([&](absl::string_view type_url, const absl::Cord& payload) {
    annotated.SetPayload(type_url, payload);
  });
  return annotated;
}

}  // namespace credledger::kubebridge
