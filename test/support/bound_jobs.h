// Objects an identity can be bound to, made real on a Kubernetes API server for tests
// (docs/mirrors.md, "Bindings"): the bridge writes an owner reference only to an object that
// exists with the bound uid, so tests bind Jobs they created, by the uid the server gave.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "credledger/v1/identity.pb.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kube_client.h"
#include "nlohmann/json.hpp"

namespace credledger::testing {

// The batch/v1 Jobs of namespace `ns` (or the Job `name` there).
inline kubebridge::ResourceRef JobResource(const std::string& ns, const std::string& name = "") {
  return {"batch", "v1", "jobs", ns, name};
}

// The Job `name` as a bound owner with `uid` (empty: any uid, as an unbind may name it).
inline v1::OwnerReference JobOwner(const std::string& name, const std::string& uid) {
  v1::OwnerReference owner;
  owner.set_api_version("batch/v1");
  owner.set_kind("Job");
  owner.set_name(name);
  owner.set_uid(uid);
  return owner;
}

// Creates the Job `name` in `ns` through `client` and returns it as a bound owner.
// Errors: the client's (kAlreadyExists when it exists).
inline absl::StatusOr<v1::OwnerReference> CreateJob(kubebridge::KubeClient& client,
                                                    const std::string& ns,
                                                    const std::string& name) {
  absl::StatusOr<nlohmann::json> created = client.Create(
      JobResource(ns), {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", name}}}});
  if (!created.ok()) return created.status();
  return JobOwner(name, kubebridge::StringAt(*created, {"metadata", "uid"}));
}

}  // namespace credledger::testing
