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
// The spec flags and the spec file (-f, with the Kubernetes field names) are read as
// cluster_spec.h says; they are exclusive.
//
// Mutating subcommands send --request-id, or generate one and print "request-id: <id>" on
// stderr first. A failed call prints "error: <CODE>: <message>" on stderr and exits 1;
// usage errors exit 2. `cluster probe` exits with ProbeClusterExitCode.
#pragma once

#include "cli/cluster_spec.h"  // the spec input of `cluster register`, for its callers
#include "cli/framework/subcommands.h"
#include "credledger/v1/api.pb.h"

namespace credledger::cli {

// Adds "cluster register|deregister|probe|get|list" to `dispatcher`.
void AddClusterCommands(Dispatcher& dispatcher);

// The exit code of `cluster probe` for the probed cluster `view`, as `source verify` has
// them (subcommands.h): kExitOk for Reachable True, kExitCheckFailed for reason ProbeFailed
// (retried with backoff), kExitUnsupported for reason Unsupported (fix the spec), and
// kExitFailure for any other condition.
int ProbeClusterExitCode(const v1::ClusterView& view);

}  // namespace credledger::cli
