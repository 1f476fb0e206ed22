// Discovery and other non-resource endpoints of the test API server, in the plain
// (unaggregated) JSON forms that kubectl falls back to:
//   /version                       version.Info (reports v1.32)
//   /api                           APIVersions ["v1"]
//   /apis                          APIGroupList of every registered group
//   /apis/<group>                  APIGroup
//   /api/v1, /apis/<group>/<ver>   APIResourceList (name, singularName, namespaced, kind,
//                                  verbs, shortNames; subresources such as
//                                  serviceaccounts/token and <resource>/status)
//   /healthz, /livez, /readyz      "ok"
// Everything else (including /openapi/*) is a 404 Status.
//
// Thread-safety: safe to call concurrently.
#pragma once

#include "test/kubeapi/http_types.h"
#include "test/kubeapi/request_info.h"
#include "test/kubeapi/server_context.h"

namespace credledger::kubeapi {

// True for the paths served without authentication (/version and the health checks).
bool IsAnonymousPath(const std::string& path);

// Serves a GET of a non-resource path.
HttpResponse ServeNonResource(ServerContext& ctx, const RequestInfo& info);

}  // namespace credledger::kubeapi
