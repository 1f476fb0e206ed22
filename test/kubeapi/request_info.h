// RequestInfo: what an HTTP request addresses, parsed from its method, path and query the
// way kube-apiserver's RequestInfoFactory does.
//
// Resource paths:
//   /api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]
//   /apis/<group>/<version>[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]
//   /api/v1/namespaces/<name>[/<subresource>]   (the Namespace object itself)
//   legacy /api/v1/watch/... and /apis/<g>/<v>/watch/... (verb watch)
// Verbs: GET get | list | watch (collection with watch=true|1), POST create, PUT update,
// PATCH patch, DELETE delete | deletecollection. A list/watch whose fieldSelector requires
// metadata.name=<n> carries name <n> (for RBAC resourceNames), as in Kubernetes.
// Everything else (/api, /apis, /apis/<g>[/<v>], /version, /healthz, /openapi/...) is a
// non-resource request whose verb is the lowercase HTTP method.
//
// Thread-safety: pure function.
#pragma once

#include <map>
#include <string>

namespace credledger::kubeapi {

struct RequestInfo {
  bool is_resource_request = false;
  std::string path;
  std::string verb;
  std::string group;
  std::string version;
  std::string namespace_name;  // from /namespaces/<ns>/ (for namespaces: the object's name)
  bool namespaced_path = false;  // the path had /namespaces/<ns>/<resource>
  std::string resource;
  std::string name;  // from the path, or from a metadata.name field selector (list/watch)
  bool name_from_path = false;
  std::string subresource;
};

// Parses a request. `params` are the decoded query parameters (first value per key).
RequestInfo ParseRequestInfo(const std::string& method, const std::string& path,
                             const std::multimap<std::string, std::string>& params);

// The value of query parameter `key`, or "" when absent.
std::string QueryParam(const std::multimap<std::string, std::string>& params,
                       const std::string& key);

}  // namespace credledger::kubeapi
