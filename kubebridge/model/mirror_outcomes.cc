#include "kubebridge/model/mirror_outcomes.h"

#include "absl/strings/str_cat.h"
#include "kubebridge/model/outcomes.h"

namespace credledger::kubebridge {

std::string MirrorOutcomeRequestId(const v1::IdentityState& state, absl::string_view step) {
  return absl::StrCat(kServiceRequestIdPrefix, "mirror/", state.name(), "/",
                      state.incarnation_version(), "/", state.stream_version(), "/", step);
}

}  // namespace credledger::kubebridge
