// TokenRequest (POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token): issues a
// service-account JWT, like kube-apiserver's serviceaccounts/token subresource.
//
// Input: an authentication.k8s.io/v1 TokenRequest with spec.audiences (default: the API
// server's audiences), spec.expirationSeconds (default 3600) and an optional
// spec.boundObjectRef {kind Secret|Pod, apiVersion v1, name, uid}.
// Checks, in kube-apiserver's order: body metadata.name/namespace must match the URL
// (422); the ServiceAccount must exist (404); expirationSeconds must be 600..2^32 (422
// `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid
// value: 599: may not specify a duration less than 10 minutes`); the bound object must be
// a v1 Secret or Pod (400 "cannot bind token to object of type ...") that exists (404),
// a Pod must run as this ServiceAccount (400), and a given uid must match (409 Conflict on
// `Secret "<name>"`). An expiration above ServerConfig::max_token_expiration is clamped,
// with a `Warning: 299` header as the only trace.
// Output: 201 with the TokenRequest echoed back (spec completed) and status.token (ES256
// JWT: iss, sub, aud, exp, iat, nbf, jti, kubernetes.io {namespace, serviceaccount
// {name, uid}, secret|pod {name, uid}}) and status.expirationTimestamp (RFC 3339). Times
// come from the injected clock.
//
// Thread-safety: safe to call concurrently.
#pragma once

#include "test/kubeapi/http_types.h"
#include "test/kubeapi/resource_request.h"
#include "test/kubeapi/server_context.h"

namespace credledger::kubeapi {

// Serves a TokenRequest; `req` addresses serviceaccounts/<name>/token with verb create.
HttpResponse ServeTokenRequest(ServerContext& ctx, const ResourceRequest& req);

}  // namespace credledger::kubeapi
