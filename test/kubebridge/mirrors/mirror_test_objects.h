// Test helpers for the mirror bridge: the object that uses an identity (a TerraformCluster),
// as the log records it (v1::OwnerReference), as the mirror's metadata.ownerReferences entry
// a Kubernetes server returns for it, and as an object created on the test API server
// (docs/mirrors.md, "Bindings" and "The mirror"); and a Secret of someone else's that holds a
// mirror's name (docs/mirrors.md, "Conflicts and safety").
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "credledger/v1/identity.pb.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kube_client.h"
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

// The CustomResourceDefinition serving TerraformClusters (namespaced) on a test API server.
inline nlohmann::json TerraformClusterCrd() {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "terraformclusters.infrastructure.cluster.x-k8s.io"}}},
          {"spec",
           {{"group", "infrastructure.cluster.x-k8s.io"},
            {"scope", "Namespaced"},
            {"names",
             {{"plural", "terraformclusters"},
              {"singular", "terraformcluster"},
              {"kind", kTestOwnerKind}}},
            {"versions", nlohmann::json::array(
                             {{{"name", "v1beta1"}, {"served", true}, {"storage", true}}})}}}};
}

// The collection of TerraformClusters in `ns` (or the object `name` there).
inline ResourceRef TerraformClusters(const std::string& ns, const std::string& name = "") {
  return {"infrastructure.cluster.x-k8s.io", "v1beta1", "terraformclusters", ns, name};
}

// Creates the TerraformCluster `name` in `ns` through `client` (registering its CRD first
// when needed) and returns it as a bound owner, with the uid the server gave it.
inline absl::StatusOr<v1::OwnerReference> CreateOwner(KubeClient& client, const std::string& ns,
                                                      const std::string& name) {
  absl::Status crd =
      client
          .Create({"apiextensions.k8s.io", "v1", "customresourcedefinitions", "", ""},
                  TerraformClusterCrd())
          .status();
  if (!crd.ok() && !absl::IsAlreadyExists(crd)) return crd;
  absl::StatusOr<nlohmann::json> created =
      client.Create(TerraformClusters(ns), {{"apiVersion", kTestOwnerApiVersion},
                                            {"kind", kTestOwnerKind},
                                            {"metadata", {{"name", name}}}});
  if (!created.ok()) return created.status();
  return Owner(name, StringAt(*created, {"metadata", "uid"}));
}

// `owner` as an ownerReferences entry (OwnerJson).
inline nlohmann::json OwnerJson(const v1::OwnerReference& owner) {
  return OwnerJson(owner.name(), owner.uid());
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
