// Cluster capacity for spec.capacity of a TargetReport: the agent collects the node count, the
// nodes' allocatable resources and the requests of running pods (docs/reports.md, "The agent"),
// as a ClusterCapacity with nodeCount, allocatable and used (docs/reports.md, "TargetReport").
//
// From the items of a Node list and a Pod list:
//   nodeCount    every Node object in the list (ready or not, schedulable or not);
//   allocatable  per resource, the sum of the nodes' status.allocatable;
//   used         per resource, the sum of the requests of the pods in status.phase
//                "Running", each pod counted as the scheduler counts it (Kubernetes'
//                PodRequests): the larger of (a) the regular containers' requests plus
//                those of sidecars (initContainers with restartPolicy "Always") and
//                (b) for each init container in order, its requests plus those of the
//                sidecars declared before it (for a sidecar: the sidecars up to and
//                including it); then spec.overhead added. Pod-level spec.resources is not
//                read.
// Both lists are ordered by resource name; quantities are canonical (quantity.h).
//
// A value that is not a valid quantity string, or whose addition would exceed 2^63-1, is
// skipped: it counts as absent, and a line naming the object, the field path and the reason
// is appended to `skipped` (for example
//   pod "team-a/web-0": spec.containers[1].resources.requests.cpu: quantity "x": ...).
// One bad value in a node or pod thus does not hide the capacity of the whole cluster; the
// caller logs the lines. An item that is not an object is skipped the same way.
//
// Thread-safety: pure function.
#pragma once

#include <string>
#include <vector>

#include "credledger/v1/report.pb.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// Capacity of the cluster whose Node list items are `nodes` and Pod list items are `pods`
// (JSON arrays; anything else counts as empty and is reported in `skipped`). `skipped` may
// be null.
v1::ClusterCapacity CapacityFrom(const nlohmann::json& nodes, const nlohmann::json& pods,
                                 std::vector<std::string>* skipped = nullptr);

}  // namespace credledger::kubebridge
