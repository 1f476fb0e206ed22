// A manifest's container as kubelet would start it, laid out in a folder so that a test can
// start the real binary with its arguments (docs/kubernetes.md, "Installing"): each volume
// the container mounts becomes a folder under a root (ConfigMap keys from the manifest's own
// ConfigMaps, Secret keys from what the test says the installation creates, emptyDir and
// persistentVolumeClaim folders empty), and the arguments get kubelet's `$(NAME)` expansion
// from the container's env and every path under a mount moved below the root.
//
// Read-only mounts, file modes and the read-only root file system are not reproduced: the
// tests check those fields themselves.
//
// Thread-safety: pure functions of their arguments and the files under the root.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace credledger::testing {

// The Secrets an installation creates: Secret name to key to bytes.
using SecretData = std::map<std::string, std::map<std::string, std::string>>;

// Writes the volumes that the first container of `deployment` mounts under `root` (created
// when missing; a mount at /etc/x is the folder <root>/etc/x) and returns that container's
// arguments as its process would receive them. `objects` are the manifest's objects (its
// ConfigMaps are mounted from there); `secrets` are the Secrets created beside it. The pod
// is named `<deployment name>-7c9d8f6b5-x2k4q` with a fixed uid, in the Deployment's
// namespace, for env fieldRefs metadata.name, metadata.uid and metadata.namespace.
// Errors: kInvalidArgument naming the volume, Secret, ConfigMap or env var when the
// container mounts a Secret or ConfigMap that is not there, a kind of volume
// other than secret, configMap, emptyDir and persistentVolumeClaim, a projection by `items`,
// mounts at a relative path, has an argument that is not a string, or reads env from
// anything but a literal value or those fieldRefs; kInternal when a file cannot be written.
absl::StatusOr<std::vector<std::string>> LayOutPod(const nlohmann::json& deployment,
                                                   const std::vector<nlohmann::json>& objects,
                                                   const SecretData& secrets,
                                                   const std::filesystem::path& root);

}  // namespace credledger::testing
