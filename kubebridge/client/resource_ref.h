// ResourceRef: a generic reference to a Kubernetes collection or object
// ({group, version, resource, namespace, name}) and the REST paths built from it.
//
//   core group ("")  : /api/<version>[/namespaces/<ns>]/<resource>[/<name>[/<sub>]]
//   named group      : /apis/<group>/<version>[/namespaces/<ns>]/<resource>[/<name>[/<sub>]]
//
// Path segments are validated (non-empty where required, never "." or "..", no "/") and
// percent-encoded outside [A-Za-z0-9-._~:@]; query values are percent-encoded.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

// The `{}` initializers let callers use designated initializers without
// -Wmissing-field-initializers warnings (GCC 12 warns for members without one).
struct ResourceRef {
  // API group: "" for the core group, e.g. "rbac.authorization.k8s.io".
  std::string group{};
  // API version, e.g. "v1".
  std::string version{};
  // Plural lower-case resource name, e.g. "secrets".
  std::string resource{};
  // Namespace; empty for cluster-scoped resources or an all-namespaces list/watch.
  std::string namespace_name{};
  // Object name; empty when the reference names the collection.
  std::string name{};

  // This reference with `name` replaced.
  ResourceRef WithName(std::string object_name) const;
  // "<resource>[.<group>] <namespace>/<name>" for messages (omitting empty parts).
  std::string DebugString() const;
};

// The collection path of `ref` (its name is ignored), e.g. /api/v1/namespaces/a/secrets.
// Errors: kInvalidArgument when version or resource is empty or a segment is invalid.
absl::StatusOr<std::string> CollectionPath(const ResourceRef& ref);

// The object path of `ref`, e.g. /api/v1/namespaces/a/secrets/x.
// Errors: as CollectionPath; kInvalidArgument when the name is empty or invalid.
absl::StatusOr<std::string> ObjectPath(const ResourceRef& ref);

// The path of subresource `subresource` of the object `ref`, e.g.
// /api/v1/namespaces/a/serviceaccounts/sa/token.
// Errors: as ObjectPath; kInvalidArgument when `subresource` is empty or invalid.
absl::StatusOr<std::string> SubresourcePath(const ResourceRef& ref, absl::string_view subresource);

// "?k1=v1&k2=v2" with keys and values percent-encoded, skipping pairs with an empty value;
// "" when nothing remains.
std::string BuildQuery(const std::vector<std::pair<std::string, std::string>>& params);

// Percent-encodes every byte of `value` outside [A-Za-z0-9-._~].
std::string QueryEscape(absl::string_view value);

}  // namespace credledger::kubebridge
