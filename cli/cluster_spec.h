// The ClusterSpec of `credledger cluster register` (docs/connections.md, "CLI"), from the
// spec flags (cluster_spec_flags.cc) or from a spec file given with -f (cluster_spec_file.cc).
//
// The spec file holds the spec with the Kubernetes field names:
//   connectionMode: agentless            # or inCluster
//   namespace: fleet
//   agentless:
//     server: https://edge-1.example:6443
//     caRef: {kind: ConfigMap, name: edge-1-ca, key: ca.crt}
//     auth:
//       type: token                      # kubeconfig, token, clientCert, execPlugin, ...
//       kubeconfig: {secretRef: {name: edge-1-kubeconfig, key: value}}
//       token: {secretRef: {name: edge-1-token, key: token}}
//       clientCert: {secretName: edge-1-client}
//       execPlugin: {url: https://creds.example/exec, caRef: {...}, tokenRef: {name, key}}
// Unknown keys, keys duplicated in a mapping, and values of the wrong shape (connectionMode
// other than inCluster or agentless, a mapping where a string belongs) are refused naming
// their path.
//
// Thread-safety: pure functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/connection.pb.h"

namespace credledger::cli {

// The values of --connection-mode and of the file's connectionMode.
inline constexpr char kInCluster[] = "inCluster";
inline constexpr char kAgentless[] = "agentless";

// The spec flags of `cluster register`, as given.
struct ClusterSpecFlags {
  std::string connection_mode;     // --connection-mode: "inCluster" or "agentless"
  std::string namespace_name;      // --namespace
  std::string api_server;          // --api-server: spec.agentless.server
  std::string ca_ref;              // --ca-ref "<kind>/<name>[/<key>]"
  std::string auth_type;           // --auth-type
  std::string kubeconfig_secret;   // --kubeconfig-secret "<name>[/<key>]"
  std::string token_secret;        // --token-secret "<name>[/<key>]"
  std::string client_cert_secret;  // --client-cert-secret "<name>"
  std::string exec_url;            // --exec-url
  std::string exec_ca_ref;         // --exec-ca-ref "<kind>/<name>[/<key>]"
  std::string exec_token_secret;   // --exec-token-secret "<name>[/<key>]"
};

// The spec the flags describe; an empty string is a flag not given. Only the block of
// --auth-type is set: --kubeconfig-secret for kubeconfig, --token-secret for token,
// --client-cert-secret for clientCert, --exec-url (required) with --exec-ca-ref and
// --exec-token-secret for execPlugin; another type (accepted, and reported Unsupported by the
// service) takes none of them. Names, keys and URLs are checked by the server.
// Errors: kInvalidArgument naming the flag: --connection-mode missing or neither inCluster
// nor agentless; an agentless-only flag with inCluster; --namespace or --auth-type missing
// with agentless; --auth-type a known type in another case ("Token": ValidateAuthTypeCase's
// did-you-mean, checked before the block flags); a block flag of another type than
// --auth-type ("--client-cert-secret: only with --auth-type clientCert"); the block flag a
// known type requires missing ("--token-secret: required with --auth-type token");
// --api-server missing with a type that needs it (AuthTypeNeedsServer); a reference not of
// the shape "<kind>/<name>[/<key>]" or "<name>[/<key>]".
absl::StatusOr<v1::ClusterSpec> ClusterSpecFromFlags(const ClusterSpecFlags& flags);

// The flags that describe an agentless connection, by name (without "--") and value (pointing
// into `flags`).
std::vector<std::pair<const char*, const std::string*>> AgentlessFlags(
    const ClusterSpecFlags& flags);
// The agentless flags given (non-empty), as "--flag" names.
std::vector<std::string> AgentlessFlagsGiven(const ClusterSpecFlags& flags);

// Parses a spec file (format in the file comment) with the rules of spec_file.h: size
// (1 MiB) checked first, nesting bounded, exactly one non-empty YAML document.
// Errors: kInvalidArgument for ParseSpecDocument's cases (over the limits, malformed YAML,
// no or several documents, an empty one), unknown or duplicated keys (naming the path,
// "agentless.auth.token.secretRef.name"), and values of the wrong shape.
absl::StatusOr<v1::ClusterSpec> ParseClusterSpecYaml(absl::string_view yaml);

// The spec of a parsed spec file's root node (the SpecNodeParser of ReadSpecFile and
// ParseSpecYaml). Errors: as ParseClusterSpecYaml, for the document's content.
absl::StatusOr<v1::ClusterSpec> ParseClusterSpecNode(const YAML::Node& root);

// The connection mode named `mode` (kInCluster or kAgentless). Errors: kInvalidArgument
// "<field>: required: inCluster or agentless" when empty, "<field>: \"<mode>\" is neither
// inCluster nor agentless" for another value.
absl::StatusOr<v1::ClusterConnectionMode> ParseConnectionMode(absl::string_view field,
                                                              absl::string_view mode);

}  // namespace credledger::cli
