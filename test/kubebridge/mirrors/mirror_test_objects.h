// Test helpers for the mirror bridge: the object that uses an identity (a TerraformCluster),
// as the log records it (v1::OwnerReference) and as the mirror's metadata.ownerReferences
// entry a Kubernetes server returns for it (docs/mirrors.md, "Bindings" and "The mirror");
// and a Secret of someone else's that holds a mirror's name (docs/mirrors.md,
// "Conflicts and safety").
#pragma once

#include <string>

#include "absl/strings/escaping.h"
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

// A Secret named `name` that is no mirror (no labels, no annotations), to POST into a
// namespace.
inline nlohmann::json ForeignSecret(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", name}}},
          {"data", {{"theirs", absl::Base64Escape("x")}}}};
}

}  // namespace credledger::kubebridge
