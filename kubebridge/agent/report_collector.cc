#include "kubebridge/agent/report_collector.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kubebridge/agent/capacity.h"
#include "kubebridge/agent/flux_release.h"

namespace credledger::kubebridge {
namespace {

// Pods are listed in pages: a large cluster has tens of thousands.
constexpr int64_t kPodPageSize = 500;

absl::Status Prefixed(absl::string_view what, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(what, ": ", status.message()));
}

// The items of `ref`'s list as a JSON array. With `missing_kind_ok`, a 404 (the CRD is not
// installed) gives an empty array and a line in `skipped`.
absl::StatusOr<nlohmann::json> ListItems(KubeClient& client, const ResourceRef& ref,
                                         const ListOptions& options, absl::string_view what,
                                         bool missing_kind_ok, Cancellation* cancel,
                                         std::vector<std::string>& skipped) {
  absl::StatusOr<ObjectList> list = client.List(ref, options, cancel);
  if (!list.ok()) {
    if (missing_kind_ok && list.status().code() == absl::StatusCode::kNotFound) {
      skipped.push_back(absl::StrCat(what, ": the API server does not serve ", ref.resource, ".",
                                     ref.group, "/", ref.version,
                                     " (Flux CRD missing); no objects of that kind"));
      return nlohmann::json::array();
    }
    return Prefixed(absl::StrCat("list ", what), list.status());
  }
  nlohmann::json items = nlohmann::json::array();
  for (nlohmann::json& item : list->items) items.push_back(std::move(item));
  return items;
}

}  // namespace

ResourceRef OCIRepositoryResource() {
  return {.group = "source.toolkit.fluxcd.io", .version = "v1", .resource = "ocirepositories"};
}

ResourceRef HelmReleaseResource() {
  return {.group = "helm.toolkit.fluxcd.io", .version = "v2", .resource = "helmreleases"};
}

ResourceRef NodeResource() { return {.version = "v1", .resource = "nodes"}; }

ResourceRef PodResource() { return {.version = "v1", .resource = "pods"}; }

absl::StatusOr<CollectedReport> CollectTargetReport(KubeClient& target_cluster,
                                                    Cancellation* cancel) {
  CollectedReport report;
  ListOptions labelled;
  labelled.label_selector = kReleaseKey;
  ASSIGN_OR_RETURN(nlohmann::json sources,
                   ListItems(target_cluster, OCIRepositoryResource(), labelled, "OCIRepositories",
                             /*missing_kind_ok=*/true, cancel, report.skipped));
  ASSIGN_OR_RETURN(nlohmann::json helm_releases,
                   ListItems(target_cluster, HelmReleaseResource(), labelled, "HelmReleases",
                             /*missing_kind_ok=*/true, cancel, report.skipped));
  ASSIGN_OR_RETURN(nlohmann::json nodes,
                   ListItems(target_cluster, NodeResource(), {}, "Nodes",
                             /*missing_kind_ok=*/false, cancel, report.skipped));
  ListOptions running;
  running.field_selector = "status.phase=Running";
  running.page_size = kPodPageSize;
  ASSIGN_OR_RETURN(nlohmann::json pods,
                   ListItems(target_cluster, PodResource(), running, "Pods",
                             /*missing_kind_ok=*/false, cancel, report.skipped));

  absl::StatusOr<std::vector<v1::ReleaseStatus>> releases =
      ReleasesFromFlux(sources, helm_releases, &report.skipped);
  if (!releases.ok()) return Prefixed("releases", releases.status());
  for (v1::ReleaseStatus& release : *releases) *report.spec.add_releases() = std::move(release);
  *report.spec.mutable_capacity() = CapacityFrom(nodes, pods, &report.skipped);
  return report;
}

}  // namespace credledger::kubebridge
