// ConfigMapWitness: a witness kept in a ConfigMap of the home cluster (docs/audit.md,
// "Witnesses"; audit/witness.h). Its data key `checkpoints` holds the newest
// audit::kWitnessHistory checkpoints, one JSON line each, oldest first. The ConfigMap comes with
// the manifests (docs/manifests/), so the service needs only get and update on that one object;
// each Append reads it and writes it back under its resourceVersion.
//
// Thread-safety: not thread-safe; one writer (the service holding the log).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "audit/witness.h"
#include "kubebridge/client/kube_client.h"

namespace credledger::service {

// The ConfigMap data key that holds the checkpoints.
inline constexpr char kWitnessDataKey[] = "checkpoints";

class ConfigMapWitness final : public audit::WitnessStore {
 public:
  // `client` is not owned and must outlive the witness; `spec` is a kKubernetes spec.
  ConfigMapWitness(kubebridge::KubeClient* client, audit::WitnessSpec spec);

  // The checkpoints the ConfigMap holds; empty when its data key is missing or empty.
  // Errors: kNotFound (naming the manifests) when the ConfigMap does not exist; kDataLoss when
  // its data does not parse; the client's mapped errors (kPermissionDenied without RBAC).
  absl::StatusOr<std::vector<v1::Checkpoint>> Read() override;
  // Adds `checkpoint`, keeping the newest kWitnessHistory, with one update under the
  // resourceVersion read. Errors: as Read; kAborted when the ConfigMap changed in between.
  absl::Status Append(const v1::Checkpoint& checkpoint) override;
  const std::string& name() const override { return spec_.text; }

 private:
  // The ConfigMap and its checkpoints.
  absl::StatusOr<std::pair<nlohmann::json, std::vector<v1::Checkpoint>>> Load();

  kubebridge::KubeClient* const client_;
  const audit::WitnessSpec spec_;
  const kubebridge::ResourceRef ref_;
};

}  // namespace credledger::service
