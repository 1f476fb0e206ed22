// Router: the request pipeline of the test API server, independent of the HTTP library.
//
// For every request, in order: fault injection (FaultInjector: a delay, a hang, an error
// reply, or after serving a withheld answer or a cut watch stream); anonymous paths (/version, health checks); bearer-token authentication (401 Status
// "Unauthorized" when the token is missing or invalid); authorization (RBAC, 403 Status
// in kube-apiserver's wording); then discovery for non-resource paths; POST/PUT bodies
// must be JSON (415 otherwise, e.g. for protobuf); dryRun is refused (400); then
// TokenRequest for serviceaccounts/<name>/token, the review endpoints, watch streams, and
// the generic resource verbs. Every authenticated request, refused or served, is counted in
// the RequestRecorder with the status answered.
//
// Thread-safety: safe to call concurrently.
#pragma once

#include "test/kubeapi/http_types.h"
#include "test/kubeapi/server_context.h"

namespace credledger::kubeapi {

// Serves one request. Never throws: exceptions from JSON handling become a 500 Status.
HttpResponse HandleRequest(ServerContext& ctx, const HttpRequest& request);

}  // namespace credledger::kubeapi
