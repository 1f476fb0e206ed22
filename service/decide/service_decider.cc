#include "service/decide/service_decider.h"

#include <google/protobuf/util/message_differencer.h>

#include "absl/strings/str_cat.h"
#include "kubebridge/model/outcomes.h"

namespace credledger::service {

std::optional<v1::ServiceConfigured> DecideServiceConfigured(
    const std::optional<v1::ServiceConfigured>& last, const v1::ServiceConfigured& current) {
  if (last.has_value() && google::protobuf::util::MessageDifferencer::Equals(*last, current)) {
    return std::nullopt;
  }
  return current;
}

std::string ServiceConfiguredRequestId(int64_t stream_version) {
  return absl::StrCat(kubebridge::kServiceRequestIdPrefix, "service-configured/",
                      stream_version + 1);
}

}  // namespace credledger::service
