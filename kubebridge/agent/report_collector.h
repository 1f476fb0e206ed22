// Collects the status report of the target cluster the agent runs on; the Flux conditions
// are the source of truth for the releases (docs/reports.md, "The agent" and
// "Release phases").
//
// With a KubeClient of the TARGET cluster, one collection lists, across all namespaces:
//   - OCIRepositories (source.toolkit.fluxcd.io/v1) and HelmReleases
//     (helm.toolkit.fluxcd.io/v2) carrying the label solar.opendefense.cloud/release (any
//     value), turned into spec.releases by ReleasesFromFlux (flux_release.h);
//   - Nodes and the Pods in status.phase Running, turned into spec.capacity by CapacityFrom
//     (capacity.h).
// A list answered 404 (the Flux CRD of that kind is not installed) gives no objects of that
// kind; every release then misses that half and is Pending. Preflight checks are not
// collected: capacity preflight is out of scope (docs/reports.md, "The agent"), so
// spec.preflight stays empty.
//
// The spec has no lastReportTime: the agent stamps it when it pushes (report_agent.h).
//
// Thread-safety: stateless; safe to call concurrently with distinct or shared clients.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "credledger/v1/report.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"

namespace credledger::kubebridge {

// The resources one collection lists.
ResourceRef OCIRepositoryResource();
ResourceRef HelmReleaseResource();
ResourceRef NodeResource();
ResourceRef PodResource();

// One collection: the report content and what was left out of it.
struct CollectedReport {
  // releases and capacity; no lastReportTime, no preflight checks.
  v1::TargetReportSpec spec;
  // One line per object or value left out: a Flux object that lost its (namespace, release)
  // to another (flux_release.h), a quantity that did not parse (capacity.h), a Flux kind
  // whose CRD is missing. Messages name objects and fields; they hold no secrets.
  std::vector<std::string> skipped;
};

// Lists the objects above through `target_cluster` and builds the report.
// Errors (the code of the failed call kept, the message naming what failed, e.g.
// "list Pods: GET /api/v1/pods?...: Forbidden: ..."): any list error other than a 404 on a
// Flux kind; kInvalidArgument when a paired Flux object has a field of the wrong type
// (ReleasesFromFlux); kCancelled when `cancel` or the client's Stop() fired.
absl::StatusOr<CollectedReport> CollectTargetReport(KubeClient& target_cluster,
                                                    Cancellation* cancel = nullptr);

}  // namespace credledger::kubebridge
