// Kubernetes object semantics applied by the test API server on writes: validation,
// server-set metadata, defaults and per-kind rules. Pure functions of their inputs (time
// and ids come in as arguments) so they can run inside ObjectStore::Mutate.
//
// Create: the body must be a JSON object whose kind and apiVersion match the URL (missing
// -> 400 BadRequest "Object 'Kind' is missing in '...'", different -> 422 Invalid);
// metadata.namespace must match the URL (400) and is set from it; metadata.name (or
// generateName plus 5 random characters) must be a DNS subdomain (namespaces: a DNS label;
// RBAC objects: a path segment) -> 422 Invalid otherwise. The server sets uid,
// creationTimestamp, generation 1 (custom resources and CRDs), drops client-set
// resourceVersion/deletionTimestamp/managedFields (the handlers then record the creator's
// fields, managed_fields.h), and drops status when the resource has a
// status subresource, except a Node's (a kubelet registers its Node with status). Per kind:
// Secret type defaults to Opaque, stringData is merged into data, data values must be
// base64 (400); Namespace gets status.phase Active; a CRD's name must be <plural>.<group>
// and it gets Established/NamesAccepted conditions.
// Update (PUT): a non-empty metadata.resourceVersion different from the stored one is a 409
// Conflict; a different metadata.uid is a 409 precondition failure; the URL name wins over
// an empty body name and must match a non-empty one (400). uid, creationTimestamp,
// deletionTimestamp and generation are kept; generation is bumped when anything outside
// metadata and status changes (custom resources and CRDs). Status stays as stored unless
// this is the status subresource, which changes only status. Secret type and data of an
// immutable Secret/ConfigMap cannot change (422). An update that changes nothing is a
// no-op (same resourceVersion, no watch event). Removing the last finalizer of an object
// being deleted deletes it.
// Delete: DeleteOptions preconditions (uid, resourceVersion) must match (409); an object
// with finalizers is only marked (deletionTimestamp) and deleted when they are gone.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/object_store.h"
#include "test/kubeapi/resource_registry.h"

namespace credledger::kubeapi {

// Server-side inputs of a write.
struct WriteContext {
  const ResourceInfo* resource;  // REQUIRES: non-null
  std::string version;           // the URL's version
  std::string namespace_name;    // "" for cluster scope
  absl::Time now;
  std::string new_uid;         // used by creates
  std::string random_suffix;   // 5 characters for generateName
};

// Validates `body` for creation and returns the object to store.
// Errors: BadRequest (400) and Invalid (422) Status errors as described above.
absl::StatusOr<nlohmann::json> PrepareCreate(const WriteContext& ctx, nlohmann::json body);

// Decides the update of `current` by `body` for URL name `name`.
// `status_subresource` is true for PUT .../<name>/status.
// Errors: Conflict (409), BadRequest (400), Invalid (422) Status errors.
absl::StatusOr<Mutation> PrepareUpdate(const WriteContext& ctx, const std::string& name,
                                       const nlohmann::json& current, nlohmann::json body,
                                       bool status_subresource);

// Decides the deletion of `current` given a DeleteOptions body (`options`, may be null).
// Errors: Conflict (409) when a precondition fails.
absl::StatusOr<Mutation> PrepareDelete(const WriteContext& ctx, const nlohmann::json& current,
                                       const nlohmann::json& options);

// `object` as served for `version`: apiVersion rewritten to the URL's group/version.
nlohmann::json ForVersion(const ResourceInfo& info, const std::string& version,
                          nlohmann::json object);

}  // namespace credledger::kubeapi
