#include "kubebridge/clusters/cluster_auth.h"

#include <utility>

namespace credledger::kubebridge {

void ClusterAuthRegistry::Register(std::string type,
                                   std::unique_ptr<ClusterAuthenticator> authenticator) {
  by_type_[std::move(type)] = std::move(authenticator);
}

ClusterAuthenticator* ClusterAuthRegistry::Find(absl::string_view type) const {
  const auto it = by_type_.find(type);
  return it == by_type_.end() ? nullptr : it->second.get();
}

}  // namespace credledger::kubebridge
