// Kubeconfig loading (docs/kubernetes.md, "serve: cluster connection and flags"; Secret
// kubeconfigs: docs/connections.md, "Auth types"): turns one context of a kubeconfig file
// into a ConnectionConfig.
//
// Supported: current-context or a named context; the context's namespace; cluster server,
// certificate-authority-data (base64) or certificate-authority (a file; a relative path is
// resolved against the kubeconfig's own folder), insecure-skip-tls-verify,
// disable-compression (responses are never asked for compressed); user token, tokenFile
// (relative paths resolved the same way; re-read on change by the transport),
// client-certificate(-data) and client-key(-data). An inline "-data" field wins over its
// file field. `extensions` are ignored, as by kubectl.
// Not supported (kUnimplemented), rather than ignored, because ignoring them would change
// where or as whom requests go: cluster proxy-url and tls-server-name; user exec and
// auth-provider plugins, basic auth, and impersonation (as, as-uid, as-groups,
// as-user-extra). The message names the field, e.g. clusters[].cluster.proxy-url.
//
// The YAML is untrusted: it is loaded by common/yaml_text.h, which bounds its size and
// nesting, and every yaml-cpp exception is caught here. Error messages start with
// "kubeconfig <path>: " and name the context, cluster or user and the field, e.g.
//   kubeconfig /x/config: context "a": cluster "b" not found
// They never contain a token, key or certificate.
//
// Thread-safety: stateless functions.
#pragma once

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kubebridge/client/connection.h"

namespace credledger::kubebridge {

// Reads and parses the kubeconfig at `path`; `context` selects a context by name, empty
// means the file's current-context.
// Returns the selected context's connection; `source` is `kubeconfig <path> context "<c>"`.
// Errors: kNotFound when `path` (or a file it names) does not exist; kFailedPrecondition
// when a file cannot be read or is larger than 1 MiB; otherwise as ParseKubeconfig.
absl::StatusOr<ConnectionConfig> LoadKubeconfig(const std::filesystem::path& path,
                                                absl::string_view context = "");

// Whether the file fields of a kubeconfig (certificate-authority, client-certificate,
// client-key, tokenFile) may be read from disk. kRefuse is for kubeconfigs that do not come
// from the service's own disk (a Secret of a cluster's auth block, static_authenticators.h):
// reading their files would expose the service's local files to whoever wrote the Secret.
enum class KubeconfigFiles { kRead, kRefuse };

// Parses kubeconfig text `yaml` as if read from `path` (used for messages and as the base
// of relative paths; with kRead, files named inside are read from disk).
// Errors: kInvalidArgument when the text is larger than 1 MiB, nested deeper than 499
// levels, not valid YAML, not a mapping, has no usable context, names a context, cluster
// or user that is missing or duplicated, lacks the cluster's server, has a field of the
// wrong type, bad base64 in a -data field, a certificate without its key (or the reverse),
// or a CA together with insecure-skip-tls-verify; kUnimplemented for the unsupported
// fields above (the message names the field), and with kRefuse for any file field that is
// set; kNotFound / kFailedPrecondition for referenced files as in LoadKubeconfig.
absl::StatusOr<ConnectionConfig> ParseKubeconfig(absl::string_view yaml,
                                                 const std::filesystem::path& path,
                                                 absl::string_view context = "",
                                                 KubeconfigFiles files = KubeconfigFiles::kRead);

}  // namespace credledger::kubebridge
