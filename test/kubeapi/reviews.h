// Review endpoints (virtual, create-only resources) of the test API server:
// - TokenReview (authentication.k8s.io/v1): authenticates spec.token for spec.audiences
//   (default: the API server's audiences) and answers status {authenticated, user
//   {username, uid, groups, extra}, audiences}, or status {user: {}, error} when the token
//   is not valid (authenticated is then omitted, as Go's omitempty does for false).
// - SubjectAccessReview (authorization.k8s.io/v1): evaluates RBAC for spec.user/groups and
//   spec.resourceAttributes or spec.nonResourceAttributes; status {allowed[, reason]}.
// - SelfSubjectAccessReview: the same for the caller.
// Replies are 201 with the review echoed back plus status; a malformed review is 400/422.
//
// Thread-safety: safe to call concurrently.
#pragma once

#include "test/kubeapi/http_types.h"
#include "test/kubeapi/resource_request.h"
#include "test/kubeapi/server_context.h"

namespace credledger::kubeapi {

// Serves a create of tokenreviews, subjectaccessreviews or selfsubjectaccessreviews.
// Any other verb on them is 405.
HttpResponse ServeReview(ServerContext& ctx, const ResourceRequest& req);

}  // namespace credledger::kubeapi
