#include "service/api/report_api.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/quote_cut.h"
#include "common/status_macros.h"
#include "projections/proto_time.h"
#include "service/api/report_ingest.h"
#include "service/api/target_api.h"
#include "service/decide/validation.h"
#include "service/offline/status_view.h"

namespace credledger::service {
namespace {

// Longest part of a refused filter value quoted in an error.
constexpr size_t kShownValueBytes = 40;

// OK when `value` is one of `allowed`; kInvalidArgument naming `field` otherwise.
template <size_t N>
absl::Status CheckOneOf(absl::string_view field, const std::string& value,
                        const char* const (&allowed)[N]) {
  if (std::find(std::begin(allowed), std::end(allowed), value) != std::end(allowed)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ": ",
                                                 common::QuoteCut(value, kShownValueBytes),
                                                 " is not one of ", absl::StrJoin(allowed, ", ")));
}

absl::Status ValidateConditionFilter(const v1::ListFleetStatusRequest& request) {
  const bool has_type = !request.condition_type().empty();
  const bool has_status = !request.condition_status().empty();
  if (has_type && !has_status) {
    return absl::InvalidArgumentError(
        "condition_status: required when condition_type is given (both or neither)");
  }
  if (has_status && !has_type) {
    return absl::InvalidArgumentError(
        "condition_type: required when condition_status is given (both or neither)");
  }
  if (!has_type) return absl::OkStatus();
  RETURN_IF_ERROR(CheckOneOf("condition_type", request.condition_type(), kStatusConditionTypes));
  return CheckOneOf("condition_status", request.condition_status(), kConditionStatuses);
}

bool HasCondition(const v1::TargetStatusView& view, const std::string& type,
                  const std::string& status) {
  return std::any_of(
      view.conditions().begin(), view.conditions().end(),
      [&](const v1::StatusCondition& c) { return c.type() == type && c.status() == status; });
}

}  // namespace

ReportApi::ReportApi(ReportIngest* ingest, projections::StatusProjector* statuses, Options options)
    : ingest_(ingest), statuses_(statuses), options_(options) {}

void ReportApi::AwaitFolded(int64_t seq) const {
  if (seq > 0) statuses_->WaitForSeq(seq, options_.read_your_writes_timeout);
}

absl::StatusOr<v1::PushReportResponse> ReportApi::PushReport(const v1::PushReportRequest& request,
                                                             absl::string_view actor) {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  if (!request.has_report()) return absl::InvalidArgumentError("report: required");
  ASSIGN_OR_RETURN(ReportIngest::PushResult result,
                   ingest_->Push(request.namespace_(), request.name(), request.report(), resolved,
                                 KeyOf(request), ReportSource::kPushReport));
  AwaitFolded(result.seq);
  v1::PushReportResponse response;
  response.set_heartbeat(result.heartbeat);
  response.set_replayed(result.replayed);
  response.set_seq(result.seq);
  response.set_held(result.held);
  if (result.held) *response.mutable_held_until() = projections::ToProto(result.held_until);
  for (std::string& name : result.released_secrets) {
    response.add_released_secrets(std::move(name));
  }
  return response;
}

absl::StatusOr<v1::SetBoundReleasesResponse> ReportApi::SetBoundReleases(
    const v1::SetBoundReleasesRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  for (int i = 0; i < request.releases_size(); ++i) {
    const v1::BoundRelease& release = request.releases(i);
    RETURN_IF_ERROR(ValidateDnsLabel(absl::StrCat("releases[", i, "].name"), release.name()));
    RETURN_IF_ERROR(
        ValidateDnsLabel(absl::StrCat("releases[", i, "].namespace"), release.namespace_()));
  }
  const std::vector<v1::BoundRelease> releases(request.releases().begin(),
                                               request.releases().end());
  ASSIGN_OR_RETURN(
      ReportIngest::SetResult result,
      ingest_->SetBoundReleases(request.namespace_(), request.name(), releases,
                                request.bootstrap_version(), resolved, KeyOf(request)));
  AwaitFolded(result.seq);
  v1::SetBoundReleasesResponse response;
  response.set_replayed(result.replayed);
  response.set_seq(result.seq);
  return response;
}

absl::StatusOr<v1::GetTargetStatusResponse> ReportApi::GetTargetStatus(
    const v1::GetTargetStatusRequest& request) const {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  std::optional<v1::TargetStatus> status = statuses_->Get(request.namespace_(), request.name());
  if (!status.has_value()) {
    return absl::NotFoundError(
        absl::StrCat("target \"", request.namespace_(), "/", request.name(), "\": not found"));
  }
  v1::GetTargetStatusResponse response;
  *response.mutable_status() = ToStatusView(*status);
  return response;
}

absl::StatusOr<v1::ListFleetStatusResponse> ReportApi::ListFleetStatus(
    const v1::ListFleetStatusRequest& request, const TargetScope& scope) const {
  RETURN_IF_ERROR(ValidateNamespaceFilter(request.namespace_()));
  RETURN_IF_ERROR(ValidateConditionFilter(request));
  int64_t seq = 0;
  std::vector<v1::TargetStatus> listed = statuses_->List(request.namespace_(), &seq);
  std::vector<v1::TargetStatus> kept;
  v1::ListFleetStatusResponse response;
  response.set_seq(seq);
  for (v1::TargetStatus& status : listed) {
    if (!scope.Contains(status.namespace_(), status.name())) continue;
    v1::TargetStatusView view = ToStatusView(status);
    if (!request.condition_type().empty() &&
        !HasCondition(view, request.condition_type(), request.condition_status())) {
      continue;
    }
    *response.add_targets() = std::move(view);
    kept.push_back(std::move(status));
  }
  *response.mutable_summary() = SummarizeFleet(kept);
  return response;
}

absl::StatusOr<std::unique_ptr<FleetWatch>> ReportApi::WatchFleet(
    const v1::WatchFleetRequest& request, const TargetScope& scope,
    std::function<void()> wake) const {
  RETURN_IF_ERROR(ValidateWatchStart(request.namespace_(), request.after_seq()));
  FleetWatch::Options options;
  options.target_namespace = request.namespace_();
  options.scope = scope;
  options.after_seq = request.after_seq();
  options.queue_limit = options_.watch_queue_limit;
  options.queue_bytes_limit = options_.watch_queue_bytes;
  return FleetWatch::Start(statuses_, std::move(options), std::move(wake));
}

}  // namespace credledger::service
