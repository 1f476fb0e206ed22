#include "kubebridge/mirrors/consumer_pod_spec.h"

#include <string>

#include "projections/mirror_naming.h"

namespace credledger::kubebridge {

nlohmann::json ConsumerPodSpec(absl::string_view identity, absl::string_view container) {
  const std::string mirror = projections::MirrorSecretName(identity);
  nlohmann::json volume = {
      {"name", kCredentialsVolumeName},
      {"secret", {{"secretName", mirror}, {"defaultMode", kCredentialsFileMode}}}};
  nlohmann::json consumer = {
      {"name", std::string(container)},
      {"envFrom", nlohmann::json::array({{{"secretRef", {{"name", mirror}}}}})},
      {"volumeMounts", nlohmann::json::array({{{"name", kCredentialsVolumeName},
                                               {"mountPath", kCredentialsMountPath},
                                               {"readOnly", true}}})}};
  return {{"volumes", nlohmann::json::array({volume})},
          {"containers", nlohmann::json::array({consumer})}};
}

}  // namespace credledger::kubebridge
