// Generic resource verbs of the test API server: create (POST), get, list, update (PUT),
// patch (merge, strategic-merge treated as merge, JSON patch, and server-side apply,
// server_side_apply.h), delete and deletecollection, plus the status subresource, for any
// group/version/resource. Creates, updates and patches record who changed which field in
// metadata.managedFields (managed_fields.h). Watches go to watch_stream.h, TokenRequest to
// token_request.h, reviews to reviews.h.
//
// Replies follow kube-apiserver: 201 with the object for create, 200 otherwise; lists are
// {"kind":"<Kind>List","apiVersion","metadata":{"resourceVersion"},"items"} (items of
// built-in kinds carry no kind/apiVersion, custom resources keep them); DELETE answers a
// Success Status for built-in kinds and the object for custom resources or while
// finalizers are pending; a Table when the Accept header asks for one.
// Side effects: Namespace deletion removes everything in it; CustomResourceDefinition
// writes (un)register the resource; creating into a missing namespace is a 404 when
// ServerConfig::require_namespace is set.
//
// Thread-safety: safe to call concurrently.
#pragma once

#include "test/kubeapi/http_types.h"
#include "test/kubeapi/resource_request.h"
#include "test/kubeapi/server_context.h"

namespace credledger::kubeapi {

// Serves `req` (already authenticated and authorized). Errors become Status responses.
HttpResponse ServeResource(ServerContext& ctx, const ResourceRequest& req);

// Deletes object `name` of `resource` in store namespace `ns` ("" for cluster scope) as a
// DELETE request does, side effects included: `options` is a DeleteOptions body (may be
// null) whose preconditions must hold; an object with finalizers is only marked. Returns
// the store's result (`deleted` is false when the object was only marked).
// Errors: NotFound (404) when the object is missing, Conflict (409) when a precondition
// fails.
absl::StatusOr<MutationResult> DeleteObject(ServerContext& ctx, const ResourceInfo& resource,
                                            const std::string& ns, const std::string& name,
                                            const nlohmann::json& options);

}  // namespace credledger::kubeapi
