#include "service/api/target_watch.h"

#include "service/offline/target_view.h"

namespace credledger::service {

template class ProjectorWatch<TargetWatchTraits>;

std::vector<v1::TargetState> TargetWatchTraits::List(const Projector& projector,
                                                     const std::string& target_namespace,
                                                     int64_t* seq) {
  return projector.List(target_namespace, /*include_finalized=*/false, seq);
}

void TargetWatchTraits::Render(const Projector& projector, const State& state,
                               Response& response) {
  *response.mutable_target() = ToTargetView(state, projector.service().connection_hash());
}

}  // namespace credledger::service
