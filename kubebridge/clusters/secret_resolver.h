// SecretResolver: reads one key of a Secret or ConfigMap of the home cluster with a direct
// GET (never an informer cache), for cluster auth and source verification
// (docs/connections.md, "Secret and ConfigMap resolution").
//
// Every reference is local to the namespace of the object that holds it (a Cluster's
// spec.namespace, a source's namespace). Values are returned as bytes (Secret data is
// base64-decoded) and are secret: callers keep them in memory and never log them.
//
// Messages name the object and the key, never a value: `Secret "ns/name" has no key "token"`.
//
// Thread-safety: methods may be called concurrently (KubeClient is thread-safe).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/connection.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/model/cluster_auth_names.h"

namespace credledger::kubebridge {


class SecretResolver {
 public:
  // `home` is not owned and must outlive the resolver.
  explicit SecretResolver(KubeClient& home) : home_(home) {}

  // data[key] of Secret `ns`/`name`, decoded.
  // Errors: kInvalidArgument when `name`, `ns` or `key` is empty ("Secret reference in
  // namespace \"ns\" has no name (key \"k\")"); kNotFound naming the Secret and the key
  // when it does not exist (`Secret "ns/name" not found (key "k")`) or has no such key;
  // kDataLoss when the value is not valid base64; other client errors prefixed with
  // `Secret "ns/name"`.
  absl::StatusOr<std::string> ResolveSecretKey(absl::string_view ns, absl::string_view name,
                                               absl::string_view key,
                                               Cancellation* cancel = nullptr);

  // data[key] of ConfigMap `ns`/`name`, else binaryData[key] decoded.
  // Errors: as ResolveSecretKey, with "ConfigMap".
  absl::StatusOr<std::string> ResolveConfigMapKey(absl::string_view ns, absl::string_view name,
                                                  absl::string_view key,
                                                  Cancellation* cancel = nullptr);

  // ResolveSecretKey with ref.key, or `default_key` when ref.key is empty.
  absl::StatusOr<std::string> Resolve(absl::string_view ns, const v1::SecretKeyRef& ref,
                                      absl::string_view default_key,
                                      Cancellation* cancel = nullptr);

  // Secret or ConfigMap by ref.kind ("Secret" or "ConfigMap"; kInvalidArgument for any
  // other), key defaulting to `default_key`.
  absl::StatusOr<std::string> Resolve(absl::string_view ns, const v1::ObjectKeyRef& ref,
                                      absl::string_view default_key,
                                      Cancellation* cancel = nullptr);

 private:
  KubeClient& home_;
};

}  // namespace credledger::kubebridge
