// Test helpers for the mirror bridge: the object that uses an identity (a TerraformCluster),
// as the log records it (v1::OwnerReference) and as the mirror's metadata.ownerReferences
// entry a Kubernetes server returns for it (domain/captf-credentials.md, "The pieces").
#pragma once

#include <string>

#include "credledger/v1/identity.pb.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

inline constexpr char kTestOwnerApiVersion[] = "infrastructure.cluster.x-k8s.io/v1beta1";
inline constexpr char kTestOwnerKind[] = "TerraformCluster";

// The TerraformCluster `name` with uid `uid`, as a bound owner in the log.
inline v1::OwnerReference Owner(const std::string& name, const std::string& uid) {
  v1::OwnerReference o;
  o.set_api_version(kTestOwnerApiVersion);
  o.set_kind(kTestOwnerKind);
  o.set_name(name);
  o.set_uid(uid);
  return o;
}

// The same object as an ownerReferences entry, written by hand in the Kubernetes JSON form
// (no controller or blockOwnerDeletion field: the mirror's references set neither).
inline nlohmann::json OwnerJson(const std::string& name, const std::string& uid) {
  return {{"apiVersion", kTestOwnerApiVersion},
          {"kind", kTestOwnerKind},
          {"name", name},
          {"uid", uid}};
}

}  // namespace credledger::kubebridge
