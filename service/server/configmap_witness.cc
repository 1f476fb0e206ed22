#include "service/server/configmap_witness.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace credledger::service {

ConfigMapWitness::ConfigMapWitness(kubebridge::KubeClient* client, audit::WitnessSpec spec)
    : client_(client),
      spec_(std::move(spec)),
      ref_{.version = "v1",
           .resource = "configmaps",
           .namespace_name = spec_.configmap_namespace,
           .name = spec_.configmap_name} {}

absl::StatusOr<std::pair<nlohmann::json, std::vector<v1::Checkpoint>>> ConfigMapWitness::Load() {
  absl::StatusOr<nlohmann::json> object = client_->Get(ref_);
  if (absl::IsNotFound(object.status())) {
    return absl::NotFoundError(
        absl::StrCat("witness ", spec_.text, ": ConfigMap ", spec_.configmap_namespace, "/",
                     spec_.configmap_name,
                     " does not exist; create it with the manifests (docs/audit.md, "
                     "\"Witnesses\")"));
  }
  if (!object.ok()) {
    return absl::Status(object.status().code(),
                        absl::StrCat("witness ", spec_.text, ": ", object.status().message()));
  }
  std::string text;
  const nlohmann::json* data = object->contains("data") ? &(*object)["data"] : nullptr;
  if (data != nullptr && data->is_object() && data->contains(kWitnessDataKey) &&
      (*data)[kWitnessDataKey].is_string()) {
    text = (*data)[kWitnessDataKey].get<std::string>();
  }
  ASSIGN_OR_RETURN(std::vector<v1::Checkpoint> checkpoints,
                   audit::ParseWitnessLines(spec_.text, text));
  return std::make_pair(*std::move(object), std::move(checkpoints));
}

absl::StatusOr<std::vector<v1::Checkpoint>> ConfigMapWitness::Read() {
  ASSIGN_OR_RETURN(auto loaded, Load());
  return std::move(loaded.second);
}

absl::Status ConfigMapWitness::Append(const v1::Checkpoint& checkpoint) {
  ASSIGN_OR_RETURN(auto loaded, Load());
  auto& [object, checkpoints] = loaded;
  checkpoints.push_back(checkpoint);
  if (checkpoints.size() > audit::kWitnessHistory) {
    checkpoints.erase(checkpoints.begin(), checkpoints.end() - audit::kWitnessHistory);
  }
  object["data"][kWitnessDataKey] = audit::RenderWitnessLines(checkpoints);
  absl::StatusOr<nlohmann::json> updated = client_->Update(ref_, object);
  if (!updated.ok()) {
    return absl::Status(updated.status().code(),
                        absl::StrCat("witness ", spec_.text, ": ", updated.status().message()));
  }
  return absl::OkStatus();
}

}  // namespace credledger::service
