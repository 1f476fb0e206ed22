// ResourceRegistry: which resources the test API server knows, their kind, scope and
// subresources, for routing, defaulting, error messages and discovery.
//
// Built in: core v1 namespaces (cluster), secrets, serviceaccounts (+token), configmaps,
// events, pods, nodes (cluster); rbac.authorization.k8s.io/v1 roles, rolebindings,
// clusterroles, clusterrolebindings; apiextensions.k8s.io/v1 customresourcedefinitions;
// authentication.k8s.io/v1 tokenreviews; authorization.k8s.io/v1 subjectaccessreviews and
// selfsubjectaccessreviews; coordination.k8s.io/v1 leases; batch/v1 jobs (+status); and,
// as if their CRDs were installed, solar.opendefense.cloud/v1alpha1 targets and
// targetreports, source.toolkit.fluxcd.io/v1 ocirepositories and helm.toolkit.fluxcd.io/v2
// helmreleases.
// Creating a CustomResourceDefinition registers its resource (and discovery shows it);
// deleting it unregisters it. A resource nobody registered is still served: it is
// namespaced when addressed under /namespaces/<ns>/ and cluster-scoped otherwise, and its
// kind is learned from the first object created (invisible to discovery).
//
// Thread-safety: all methods are safe to call concurrently (internal mutex).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/group_resource.h"

namespace credledger::kubeapi {

struct ResourceInfo {
  std::string group;                  // "" for core
  std::vector<std::string> versions;  // served versions, preferred first
  std::string resource;               // plural
  std::string singular;
  std::string kind;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> subresources;  // "status", "token"
  // Custom resources (CRD-backed): metadata.generation is kept, list items keep
  // kind/apiVersion, and DELETE answers with the object instead of a Status.
  bool custom = false;
  // Virtual resources that only accept create (TokenReview, SubjectAccessReview).
  bool create_only = false;
  // False for resources learned from traffic; they do not appear in discovery.
  bool discoverable = true;

  GroupResource gr() const { return {group, resource}; }
  // "v1" or "<group>/<version>".
  std::string ApiVersion(const std::string& version) const;
  bool HasSubresource(const std::string& name) const;
};

class ResourceRegistry {
 public:
  // A registry holding the built-in table above.
  ResourceRegistry();

  // The registered resource, if any.
  std::optional<ResourceInfo> Find(const std::string& group, const std::string& resource) const;

  // The registered resource of `kind` in `group` that serves `version`, if any: how an
  // ownerReference's apiVersion and kind name a resource (docs/testing.md, "Garbage
  // collection"). Resources learned from traffic are not found, as discovery does not show
  // them.
  std::optional<ResourceInfo> FindKind(const std::string& group, const std::string& version,
                                       const std::string& kind) const;

  // The registered resource, or a synthesized one for an unknown resource: namespaced iff
  // `namespaced_path`, version `version`, kind as learned or derived from the plural.
  ResourceInfo Resolve(const std::string& group, const std::string& version,
                       const std::string& resource, bool namespaced_path) const;

  // Remembers `kind` for an unregistered resource (from a created object's body).
  void LearnKind(const std::string& group, const std::string& resource, const std::string& kind);

  // Registers the resource a CustomResourceDefinition object describes.
  // Errors: kInvalidArgument when spec.group, spec.names.plural/kind, spec.scope or a
  // served version is missing.
  absl::Status RegisterCrd(const nlohmann::json& crd);

  // Removes the resource registered by `crd` (no-op when absent).
  void UnregisterCrd(const nlohmann::json& crd);

  // All discoverable resources, ordered by group then resource.
  std::vector<ResourceInfo> Discoverable() const;

 private:
  mutable absl::Mutex mu_;
  std::map<GroupResource, ResourceInfo> resources_ ABSL_GUARDED_BY(mu_);
  std::map<GroupResource, std::string> learned_kinds_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::kubeapi
