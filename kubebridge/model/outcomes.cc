#include "kubebridge/model/outcomes.h"

#include "absl/strings/str_cat.h"

namespace credledger::kubebridge {

std::string OutcomeRequestId(const v1::TargetState& state, absl::string_view step) {
  return absl::StrCat(kServiceRequestIdPrefix, "bridge/", state.target_uid(), "/",
                      state.incarnation_version(), "/", step);
}

}  // namespace credledger::kubebridge
