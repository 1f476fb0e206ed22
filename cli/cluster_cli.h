// The `credledger cluster ...` subcommands (docs/connections.md, "CLI"): one per
// ClusterService RPC, with the client flags of ClientCommand (client_command.h: --server,
// --as, --output).
//
//   cluster register NAME --connection-mode inCluster [--namespace NS]
//   cluster register NAME --connection-mode agentless --namespace NS --auth-type TYPE
//                         [--api-server URL] [--ca-ref KIND/NAME[/KEY]]
//                         [--kubeconfig-secret NAME[/KEY]] [--token-secret NAME[/KEY]]
//                         [--client-cert-secret NAME]
//                         [--exec-url URL [--exec-ca-ref KIND/NAME[/KEY]]
//                          [--exec-token-secret NAME[/KEY]]]
//                                                    or      cluster register NAME -f FILE
//   cluster deregister NAME
//   cluster probe NAME
//   cluster get NAME
//   cluster list [--include-deregistered]
//
// The API server's URL is --api-server, since --server names the credledger server. A spec
// flag given with an empty value is a usage error. With --auth-type kubeconfig (or auth type
// kubeconfig in -f), a server or CA given as well is ignored by the service (the kubeconfig
// names both): a "note: ..." line on stderr says so.
//
// The spec file (-f) holds the spec with the Kubernetes field names:
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
// their path. The spec flags and -f are exclusive.
//
// Mutating subcommands send --request-id, or generate one and print "request-id: <id>" on
// stderr first. A failed call prints "error: <CODE>: <message>" on stderr and exits 1;
// usage errors exit 2. `cluster probe` exits with ProbeClusterExitCode.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cli/framework/subcommands.h"
#include "credledger/v1/api.pb.h"
#include "credledger/v1/connection.pb.h"

namespace credledger::service {

// Adds "cluster register|deregister|probe|get|list" to `dispatcher`.
void AddClusterCommands(Dispatcher& dispatcher);

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

// Parses a spec file (format in the file comment) with the rules of spec_file.h: size
// (1 MiB) checked first, nesting bounded, exactly one non-empty YAML document.
// Errors: kInvalidArgument for ParseSpecDocument's cases (over the limits, malformed YAML,
// no or several documents, an empty one), unknown or duplicated keys (naming the path,
// "agentless.auth.token.secretRef.name"), and values of the wrong shape.
absl::StatusOr<v1::ClusterSpec> ParseClusterSpecYaml(absl::string_view yaml);

// The exit code of `cluster probe` for the probed cluster `view`, as `source verify` has
// them (subcommands.h): kExitOk for Reachable True, kExitCheckFailed for reason ProbeFailed
// (retried with backoff), kExitUnsupported for reason Unsupported (fix the spec), and
// kExitFailure for any other condition.
int ProbeClusterExitCode(const v1::ClusterView& view);

}  // namespace credledger::service
