#include "service/decide/report_decider.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "projections/proto_time.h"
#include "projections/release_phase.h"
#include "projections/report_validation.h"
#include "projections/target_status.h"
#include "service/decide/heartbeat_rule.h"
#include "service/decide/target_decider.h"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

using projections::FromProto;
using projections::ToProto;
using v1::Event;
using v1::TargetState;

// Longest bootstrap version accepted (like rotation request values and revisions).
constexpr size_t kMaxBootstrapVersionBytes = 253;

std::string Name(const CommandContext& context) {
  return absl::StrCat("target \"", context.target_namespace, "/", context.target_name, "\"");
}

absl::Status RequireRegistered(const TargetState& target, const CommandContext& context) {
  if (target.phase() == TargetState::PHASE_UNSPECIFIED ||
      target.phase() == TargetState::PHASE_FINALIZED) {
    return absl::NotFoundError(absl::StrCat(Name(context), ": not found"));
  }
  return absl::OkStatus();
}

absl::Status RequireActive(const TargetState& target, const CommandContext& context) {
  RETURN_IF_ERROR(RequireRegistered(target, context));
  if (target.phase() == TargetState::PHASE_DELETING) {
    return absl::FailedPreconditionError(
        absl::StrCat(Name(context), ": is being deleted; it takes no reports or bindings"));
  }
  return absl::OkStatus();
}

// The RolloutConfirmed a report proves, if any: the Target decider's ConfirmRollout for the
// first release that is Ready, not rolled back, and confirms something (docs/reports.md,
// "Ingest"; docs/credentials.md, "Rollout confirmation and cleanup"). An error of
// ConfirmRollout (no current credential, an unusable revision) confirms nothing.
std::vector<Event> ConfirmRolloutFor(const v1::TargetReportSpec& report, const TargetState& target,
                                     const CommandContext& context) {
  for (const v1::ReleaseStatus& release : report.releases()) {
    if (release.phase() != v1::RELEASE_PHASE_READY || release.revision().empty()) continue;
    if (projections::DeriveFlags(release.source_conditions(), release.helm_conditions())
            .rolled_back()) {
      continue;
    }
    absl::StatusOr<std::vector<Event>> confirmed =
        DecideTarget(ConfirmRollout{release.revision()}, target, context);
    if (confirmed.ok() && !confirmed->empty()) return *std::move(confirmed);
  }
  return {};
}

// Whether `report` has a release in phase Failed that was absent or not Failed in `last`.
bool NewlyFailed(const v1::TargetReportSpec& report, const v1::TargetReportSpec& last) {
  for (const v1::ReleaseStatus& release : report.releases()) {
    if (release.phase() != v1::RELEASE_PHASE_FAILED) continue;
    const bool failed_before = std::any_of(
        last.releases().begin(), last.releases().end(), [&](const v1::ReleaseStatus& before) {
          return before.name() == release.name() && before.namespace_() == release.namespace_() &&
                 before.phase() == v1::RELEASE_PHASE_FAILED;
        });
    if (!failed_before) return true;
  }
  return false;
}

// Whether a changed report that confirms nothing waits for min_interval (docs/reports.md,
// "Limits"): it came too soon after the last ReportAccepted and changes nothing the rollup
// must show at once.
bool Holds(const SubmitReport& c, const v1::TargetStatus& status) {
  if (!status.has_last_report_received_at() || status.reporting().status() != "True") {
    return false;
  }
  return c.received_at < FromProto(status.last_report_received_at()) + c.min_interval &&
         !NewlyFailed(c.report, status.last_report());
}

class ReportDecider {
 public:
  ReportDecider(const TargetState& target, const v1::TargetStatus& status,
                const CommandContext& context)
      : target_(target), status_(status), context_(context) {}

  absl::StatusOr<ReportDecision> operator()(const SubmitReport& c) {
    const absl::string_view prefix = ReportFieldPrefix(c.source);
    RETURN_IF_ERROR(projections::ValidateReportContent(c.report, prefix));
    RETURN_IF_ERROR(RequireActive(target_, context_));
    const absl::Time report_time = FromProto(c.report.last_report_time());
    const ReportBaseline baseline = BaselineOf(status_);
    const std::string field = absl::StrCat(prefix, ".lastReportTime");
    switch (ClassifyReport(baseline, ReportContentDigest(c.report), report_time, c.heartbeat_floor,
                           context_.now)) {
      case ReportKind::kRetry:
      case ReportKind::kSeenHeartbeat:
        return Heartbeat();
      case ReportKind::kTooOld:
        return projections::ValidateReportOrder(report_time,
                                                NewestAccepted(baseline, c.heartbeat_floor), field);
      case ReportKind::kTooFarAhead:
        return RefuseClockSkew(c, report_time, field);
      case ReportKind::kHeartbeat:
        if (!c.space_low) ClearClockSkew(c);
        return Heartbeat();
      case ReportKind::kChanged:
        break;
    }
    std::vector<Event> confirmed = ConfirmRolloutFor(c.report, target_, context_);
    if (confirmed.empty() && c.space_low) {
      decision_.refused = true;
      return std::move(decision_);
    }
    if (confirmed.empty() && Holds(c, status_)) {
      decision_.held = true;
      return std::move(decision_);
    }
    ClearClockSkew(c);
    Event e;
    v1::ReportAccepted* accepted = e.mutable_report_accepted();
    accepted->set_target_uid(target_.target_uid());
    *accepted->mutable_report() = c.report;
    *accepted->mutable_received_at() = ToProto(c.received_at);
    decision_.report_events.push_back(std::move(e));
    decision_.target_events = std::move(confirmed);
    return std::move(decision_);
  }

  absl::StatusOr<ReportDecision> operator()(const SetBoundReleases& c) {
    for (size_t i = 0; i < c.releases.size(); ++i) {
      const v1::BoundRelease& r = c.releases[i];
      RETURN_IF_ERROR(ValidateDnsLabel(absl::StrCat("releases[", i, "].name"), r.name()));
      RETURN_IF_ERROR(
          ValidateDnsLabel(absl::StrCat("releases[", i, "].namespace"), r.namespace_()));
    }
    auto key = [&](size_t i) { return std::tie(c.releases[i].namespace_(), c.releases[i].name()); };
    std::vector<size_t> order(c.releases.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return key(a) < key(b); });
    for (size_t k = 1; k < order.size(); ++k) {
      if (key(order[k - 1]) == key(order[k])) {
        const size_t first = std::min(order[k - 1], order[k]);
        const size_t second = std::max(order[k - 1], order[k]);
        return absl::InvalidArgumentError(absl::StrCat(
            "releases[", second, "]: ", c.releases[second].namespace_(), "/",
            c.releases[second].name(), " is bound twice (also releases[", first, "])"));
      }
    }
    if (!c.bootstrap_version.empty()) {
      RETURN_IF_ERROR(
          ValidateToken("bootstrap_version", c.bootstrap_version, kMaxBootstrapVersionBytes));
    }
    RETURN_IF_ERROR(RequireActive(target_, context_));
    Event e;
    v1::BoundReleasesSet* set = e.mutable_bound_releases_set();
    set->set_target_uid(target_.target_uid());
    for (size_t i : order) *set->add_releases() = c.releases[i];
    set->set_bootstrap_version(c.bootstrap_version);
    if (projections::SameBoundReleases(status_, *set)) return std::move(decision_);
    decision_.report_events.push_back(std::move(e));
    return std::move(decision_);
  }

  absl::StatusOr<ReportDecision> operator()(const MarkStale& c) {
    if (c.stale_after <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("stale_after: must be positive, got ", absl::FormatDuration(c.stale_after)));
    }
    RETURN_IF_ERROR(RequireRegistered(target_, context_));
    // Something newer arrived, the Target is stale already, or not silent for long enough.
    if (status_.reporting().status() != "True" ||
        FromProto(status_.last_seen_at()) != c.last_seen_at ||
        context_.now < c.last_seen_at + c.stale_after) {
      return std::move(decision_);
    }
    Event e;
    v1::ReportingStale* stale = e.mutable_reporting_stale();
    stale->set_target_uid(target_.target_uid());
    *stale->mutable_last_seen_at() = ToProto(c.last_seen_at);
    stale->set_stale_after_seconds(
        absl::ToInt64Seconds(absl::Ceil(c.stale_after, absl::Seconds(1))));
    decision_.report_events.push_back(std::move(e));
    return std::move(decision_);
  }

  absl::StatusOr<ReportDecision> operator()(const RecordLiveness&) {
    return absl::InvalidArgumentError(
        "RecordLiveness addresses stream liveness, not one Target: decide it with "
        "DecideLiveness");
  }

 private:
  ReportDecision Heartbeat() {
    decision_.heartbeat = true;
    return std::move(decision_);
  }

  // Refuses the report `c` of `report_time`, too far ahead, naming `field`, and records the
  // clock skew unless one is in force already (docs/reports.md, "Clock skew"). A recorded
  // refusal is worded from the event, as a retry of its request is (ClockSkewRefusal).
  ReportDecision RefuseClockSkew(const SubmitReport& c, absl::Time report_time,
                                 absl::string_view field) {
    if (status_.has_clock_skew()) {
      decision_.refusal = projections::ValidateReportClock(report_time, context_.now, field);
      return std::move(decision_);
    }
    Event e;
    v1::ReportClockSkewDetected* detected = e.mutable_report_clock_skew_detected();
    detected->set_target_uid(target_.target_uid());
    *detected->mutable_last_report_time() = c.report.last_report_time();
    *detected->mutable_server_time() = ToProto(context_.now);
    decision_.refusal = ClockSkewRefusal(*detected, c.source);
    decision_.report_events.push_back(std::move(e));
    return std::move(decision_);
  }

  // Ends the clock skew in force, if any, with the report or heartbeat `c` being accepted;
  // one received before the skew was detected (a held report) ends nothing.
  void ClearClockSkew(const SubmitReport& c) {
    if (!status_.has_clock_skew() ||
        c.received_at < FromProto(status_.clock_skew().server_time())) {
      return;
    }
    Event e;
    v1::ReportClockSkewCleared* cleared = e.mutable_report_clock_skew_cleared();
    cleared->set_target_uid(target_.target_uid());
    *cleared->mutable_last_report_time() = c.report.last_report_time();
    *cleared->mutable_received_at() = ToProto(c.received_at);
    decision_.report_events.push_back(std::move(e));
  }

  const TargetState& target_;
  const v1::TargetStatus& status_;
  const CommandContext& context_;
  ReportDecision decision_;
};

}  // namespace

absl::StatusOr<ReportDecision> DecideReport(const ReportCommand& command, const TargetState& target,
                                            const v1::TargetStatus& status,
                                            const CommandContext& context) {
  ReportDecider decision(target, status, context);
  return std::visit(decision, command);
}

absl::Status ClockSkewRefusal(const v1::ReportClockSkewDetected& detected, ReportSource source) {
  return projections::ValidateReportClock(
      FromProto(detected.last_report_time()), FromProto(detected.server_time()),
      absl::StrCat(ReportFieldPrefix(source), ".lastReportTime"));
}

std::vector<Event> DecideLiveness(const RecordLiveness& command,
                                  const std::vector<TargetState>& targets) {
  std::vector<const v1::LivenessEntry*> kept;
  for (size_t i = 0; i < command.entries.size(); ++i) {
    const v1::LivenessEntry& entry = command.entries[i];
    const TargetState& target = targets[i];
    if ((target.phase() == TargetState::PHASE_ACTIVE ||
         target.phase() == TargetState::PHASE_DELETING) &&
        target.target_uid() == entry.target_uid()) {
      kept.push_back(&entry);
    }
  }
  auto key = [](const v1::LivenessEntry* e) { return std::tie(e->namespace_(), e->name()); };
  std::stable_sort(kept.begin(), kept.end(), [&](const auto* a, const auto* b) {
    if (key(a) != key(b)) return key(a) < key(b);
    return FromProto(a->received_at()) < FromProto(b->received_at());
  });
  if (kept.empty()) return {};
  Event e;
  v1::LivenessObserved* observed = e.mutable_liveness_observed();
  for (size_t k = 0; k < kept.size(); ++k) {
    // One per Target: the last of a run of the same Target is its latest heartbeat.
    if (k + 1 < kept.size() && key(kept[k]) == key(kept[k + 1])) continue;
    *observed->add_entries() = *kept[k];
  }
  return {std::move(e)};
}

}  // namespace credledger::service
