#include "service/decide/access_decider.h"

#include "absl/strings/str_cat.h"
#include "kubebridge/model/outcomes.h"

namespace credledger::service {

std::vector<v1::Event> DecideCallsDenied(const RecordCallsDenied& command) {
  std::vector<v1::Event> events;
  events.reserve(command.entries.size());
  for (const v1::CallsDenied& entry : command.entries) {
    *events.emplace_back().mutable_calls_denied() = entry;
  }
  return events;
}

std::string CallsDeniedRequestId(int64_t stream_version) {
  return absl::StrCat(kubebridge::kServiceRequestIdPrefix, "calls-denied/", stream_version + 1);
}

}  // namespace credledger::service
