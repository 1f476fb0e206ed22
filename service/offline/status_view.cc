#include "service/offline/status_view.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "projections/release_phase.h"

namespace credledger::service {
namespace {

// The rollup's conditions in view order.
std::vector<const v1::Condition*> Conditions(const v1::TargetStatus& status) {
  return {&status.reporting(), &status.preflight_ready(), &status.releases_ready()};
}

v1::StatusCondition ToConditionView(const char* type, const v1::Condition& c) {
  v1::StatusCondition view;
  view.set_type(type);
  view.set_status(c.status().empty() ? "Unknown" : c.status());
  view.set_reason(c.reason());
  view.set_message(c.message());
  if (c.has_last_transition_time()) {
    *view.mutable_last_transition_time() = c.last_transition_time();
  }
  return view;
}

v1::ReleaseView ToReleaseView(const v1::ReleaseRollup& rollup) {
  const v1::ReleaseStatus& r = rollup.status();
  v1::ReleaseView view;
  view.set_name(r.name());
  view.set_namespace_(r.namespace_());
  view.set_phase(projections::PhaseName(r.phase()));
  view.set_revision(r.revision());
  view.set_verified(rollup.flags().verified());
  view.set_rolled_back(rollup.flags().rolled_back());
  view.set_test_failed(rollup.flags().test_failed());
  view.set_drifted(rollup.flags().drifted());
  view.set_bound(rollup.bound());
  view.set_reported(rollup.reported());
  *view.mutable_source_conditions() = r.source_conditions();
  *view.mutable_helm_conditions() = r.helm_conditions();
  return view;
}

// Adds the counts of `status` to `counts`.
void AddCounts(const v1::TargetStatus& status, v1::ReleaseCounts& counts) {
  const v1::PhaseCounts& p = status.phase_counts();
  const v1::FlagCounts& f = status.flag_counts();
  counts.set_pending(counts.pending() + p.pending());
  counts.set_progressing(counts.progressing() + p.progressing());
  counts.set_ready(counts.ready() + p.ready());
  counts.set_degraded(counts.degraded() + p.degraded());
  counts.set_failed(counts.failed() + p.failed());
  counts.set_verified(counts.verified() + f.verified());
  counts.set_rolled_back(counts.rolled_back() + f.rolled_back());
  counts.set_test_failed(counts.test_failed() + f.test_failed());
  counts.set_drifted(counts.drifted() + f.drifted());
}

}  // namespace

v1::TargetStatusView ToStatusView(const v1::TargetStatus& status) {
  v1::TargetStatusView view;
  view.set_namespace_(status.namespace_());
  view.set_name(status.name());
  view.set_uid(status.target_uid());
  view.set_active(status.active());
  const std::vector<const v1::Condition*> conditions = Conditions(status);
  for (size_t i = 0; i < conditions.size(); ++i) {
    *view.add_conditions() = ToConditionView(kStatusConditionTypes[i], *conditions[i]);
  }
  for (const v1::ReleaseRollup& rollup : status.releases()) {
    *view.add_releases() = ToReleaseView(rollup);
  }
  AddCounts(status, *view.mutable_release_counts());
  *view.mutable_preflight_checks() = status.last_report().preflight_checks();
  if (status.last_report().has_capacity()) {
    *view.mutable_capacity() = status.last_report().capacity();
  }
  if (status.has_last_report_time()) *view.mutable_last_report_time() = status.last_report_time();
  if (status.has_last_seen_at()) *view.mutable_last_seen_at() = status.last_seen_at();
  if (status.has_last_report_received_at()) {
    *view.mutable_last_report_received_at() = status.last_report_received_at();
  }
  *view.mutable_bound_releases() = status.bound_releases();
  view.set_bootstrap_version(status.bootstrap_version());
  view.set_last_seq(status.last_seq());
  return view;
}

v1::FleetSummary SummarizeFleet(const std::vector<v1::TargetStatus>& statuses) {
  v1::FleetSummary summary;
  summary.mutable_release_counts();  // present (all zero) even for an empty fleet
  std::map<std::string, int32_t> by_condition;
  for (const char* type : kStatusConditionTypes) {
    for (const char* value : kConditionStatuses) by_condition[absl::StrCat(type, "=", value)] = 0;
  }
  using Name = std::pair<std::string, std::string>;
  std::vector<Name> stale, rolled_back, drifted;
  summary.set_targets(static_cast<int32_t>(statuses.size()));
  for (const v1::TargetStatus& status : statuses) {
    const std::vector<const v1::Condition*> conditions = Conditions(status);
    for (size_t i = 0; i < conditions.size(); ++i) {
      const v1::StatusCondition c = ToConditionView(kStatusConditionTypes[i], *conditions[i]);
      ++by_condition[absl::StrCat(c.type(), "=", c.status())];
    }
    AddCounts(status, *summary.mutable_release_counts());
    const Name name(status.namespace_(), status.name());
    if (status.reporting().status() == "False") stale.push_back(name);
    if (status.flag_counts().rolled_back() > 0) rolled_back.push_back(name);
    if (status.flag_counts().drifted() > 0) drifted.push_back(name);
  }
  for (const auto& [condition, targets] : by_condition) {
    v1::ConditionCount& count = *summary.add_condition_counts();
    count.set_condition(condition);
    count.set_targets(targets);
  }
  auto fill = [](std::vector<Name>& names, google::protobuf::RepeatedPtrField<std::string>* out) {
    std::sort(names.begin(), names.end());
    for (const auto& [ns, name] : names) out->Add(absl::StrCat(ns, "/", name));
  };
  fill(stale, summary.mutable_stale_targets());
  fill(rolled_back, summary.mutable_rolled_back_targets());
  fill(drifted, summary.mutable_drifted_targets());
  return summary;
}

}  // namespace credledger::service
