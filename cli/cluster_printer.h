// Text output of the `credledger cluster ...` client commands (docs/connections.md, "CLI");
// `--output json` prints the protobuf JSON mapping instead (target_printer.h, ToJson).
// References are shown by kind, name and key; the API returns no credential data, and
// nothing else is printed.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "credledger/v1/api.pb.h"
#include "credledger/v1/connection.pb.h"

namespace credledger::cli {

// The Kubernetes-style name of a connection mode: "inCluster", "agentless", or
// "unspecified".
std::string ConnectionModeName(v1::ClusterConnectionMode mode);

// The connection of `spec` in words: "inCluster" or "agentless, auth <type>: <what the
// block names>" (for example "agentless, auth token: Secret edge-token, key token").
std::string FormatClusterAuth(const v1::ClusterSpec& spec);

// A multi-line description of one cluster: a header with name and phase, the spec (mode,
// namespace, server, CA reference, auth; with kubeconfig auth, server and CA are "from the
// kubeconfig"), the Reachable condition (status/reason, message, last transition time; for
// a deregistered cluster marked as the last probe before deregistration), the server
// version, the number of API groups, the auth type and time of the last probe (the view's,
// which includes this process's unrecorded probes), registration and update times, and seq.
std::string FormatClusterText(const v1::ClusterView& view);

// The answer of a mutating command: "<verb> cluster <name> (seq N)" (or that the request was
// answered before, or that nothing changed), then FormatClusterText.
std::string FormatClusterChangeText(absl::string_view verb,
                                    const v1::ClusterChangeResponse& response);

// The table of `cluster list`: a header, then one row per cluster of `views` in order, with
// name, phase, mode, auth type, Reachable status/reason ("-" for a deregistered cluster,
// which is no longer probed), server version, number of API groups, last probe time. Each
// column is as wide as its widest cell (long server versions such as "v1.29.3+k3s1-gke.100"
// are shown whole), columns are separated by two spaces, and an empty value is "-".
std::string FormatClusterTable(const google::protobuf::RepeatedPtrField<v1::ClusterView>& views);

}  // namespace credledger::cli
