// ProbeCluster: connects to a registered cluster and reads /version and the API groups
// (docs/connections.md, "Error classes" and "Probes and the Reachable condition").
//
// The outcome is classified: success gives reason ProbeSucceeded; an Unsupported connection
// error gives Unsupported (never retried until the spec changes); every other error gives
// ProbeFailed (retried with backoff).
//
// Thread-safety: stateless; probes of different clusters may run concurrently.
#pragma once

#include <string>

#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/clusters/cluster_connector.h"

namespace credledger::kubebridge {

// Probes `cluster` with a new client (`options`; callers usually set retry.max_attempts = 1
// so a probe stays short). GETs /version (gitVersion) and /apis (the group names, sorted;
// the core group "" is not listed). Returns the ClusterProbed payload to record:
// spec_version from the state, reason, message (empty on success; otherwise
// `cluster "<name>": ` and the endpoint or object that failed, e.g. `cluster "edge-1": GET
// /apis: HTTP 401 Unauthorized`; never a credential, nor what the probed cluster's API
// server wrote), server_version, api_groups, auth_type.
// A cancelled probe returns reason ProbeFailed with message "cancelled".
v1::ClusterProbed ProbeCluster(ClusterConnector& connector, const v1::ClusterState& cluster,
                               const KubeClientOptions& options, Cancellation* cancel);

}  // namespace credledger::kubebridge
