// The API views of report rollups: TargetStatusView (conditions in a fixed order, phase
// names, flags, report details) and the FleetSummary counts and lists.
#include "service/offline/status_view.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"

namespace credledger::service {
namespace status_view_test {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

v1::Condition MakeCondition(const std::string& type, const std::string& status,
                            const std::string& reason) {
  v1::Condition c;
  c.set_type(type);
  c.set_status(status);
  c.set_reason(reason);
  c.set_message(reason + " message");
  *c.mutable_last_transition_time() = projections::ToProto(absl::FromUnixSeconds(1000));
  return c;
}

// A rollup with the given Reporting status and one release per phase in `phases`.
v1::TargetStatus MakeStatus(const std::string& ns, const std::string& name,
                            const std::string& reporting,
                            const std::vector<v1::ReleasePhase>& phases, bool rolled_back = false,
                            bool drifted = false) {
  v1::TargetStatus s;
  s.set_namespace_(ns);
  s.set_name(name);
  s.set_target_uid("0f8fad5b-d9cb-469f-a165-70867728950e");
  s.set_active(true);
  *s.mutable_reporting() = MakeCondition("Reporting", reporting, "R");
  *s.mutable_preflight_ready() = MakeCondition("PreflightReady", "True", "AllChecksPassed");
  *s.mutable_releases_ready() = MakeCondition("ReleasesReady", "False", "Degraded");
  for (v1::ReleasePhase phase : phases) {
    v1::ReleaseRollup& r = *s.add_releases();
    r.mutable_status()->set_name("app");
    r.mutable_status()->set_phase(phase);
    r.mutable_flags()->set_rolled_back(rolled_back);
    r.mutable_flags()->set_drifted(drifted);
    r.set_reported(true);
    v1::PhaseCounts& p = *s.mutable_phase_counts();
    if (phase == v1::RELEASE_PHASE_READY) p.set_ready(p.ready() + 1);
    if (phase == v1::RELEASE_PHASE_DEGRADED) p.set_degraded(p.degraded() + 1);
    if (phase == v1::RELEASE_PHASE_PENDING) p.set_pending(p.pending() + 1);
    v1::FlagCounts& f = *s.mutable_flag_counts();
    f.set_rolled_back(f.rolled_back() + (rolled_back ? 1 : 0));
    f.set_drifted(f.drifted() + (drifted ? 1 : 0));
  }
  return s;
}

TEST(StatusViewTest, ConditionsComeInTheOrderReportingPreflightReadyReleasesReady) {
  v1::TargetStatus status = MakeStatus("demo", "edge-1", "True", {});
  v1::TargetStatusView view = ToStatusView(status);
  ASSERT_EQ(view.conditions_size(), 3);
  EXPECT_EQ(view.conditions(0).type(), "Reporting");
  EXPECT_EQ(view.conditions(0).status(), "True");
  EXPECT_EQ(view.conditions(0).message(), "R message");
  EXPECT_EQ(view.conditions(0).last_transition_time().seconds(), 1000);
  EXPECT_EQ(view.conditions(1).type(), "PreflightReady");
  EXPECT_EQ(view.conditions(1).reason(), "AllChecksPassed");
  EXPECT_EQ(view.conditions(2).type(), "ReleasesReady");
  EXPECT_EQ(view.conditions(2).status(), "False");
}

TEST(StatusViewTest, AConditionTheRollupNeverSetIsTypedAndUnknown) {
  v1::TargetStatus status;
  status.set_namespace_("demo");
  status.set_name("edge-1");
  v1::TargetStatusView view = ToStatusView(status);
  ASSERT_EQ(view.conditions_size(), 3);
  EXPECT_EQ(view.conditions(1).type(), "PreflightReady");
  EXPECT_EQ(view.conditions(1).status(), "Unknown");
  EXPECT_FALSE(view.conditions(1).has_last_transition_time());
  EXPECT_FALSE(view.active());
  EXPECT_FALSE(view.has_last_seen_at());
  EXPECT_FALSE(view.has_capacity());
}

TEST(StatusViewTest, ReleasesCarryPhaseNamesFlagsAndBinding) {
  v1::TargetStatus status = MakeStatus("demo", "edge-1", "True", {v1::RELEASE_PHASE_DEGRADED},
                                       /*rolled_back=*/true);
  v1::ReleaseRollup& bound = *status.add_releases();
  bound.mutable_status()->set_name("monitoring");
  bound.mutable_status()->set_namespace_("flux-system");
  bound.mutable_status()->set_phase(v1::RELEASE_PHASE_PENDING);
  bound.set_bound(true);
  v1::ReportCondition& helm = *status.mutable_releases(0)->mutable_status()->add_helm_conditions();
  helm.set_type("Remediated");
  status.mutable_releases(0)->mutable_status()->set_revision("1.2.0-abc");
  status.mutable_releases(0)->mutable_flags()->set_verified(true);

  v1::TargetStatusView view = ToStatusView(status);
  ASSERT_EQ(view.releases_size(), 2);
  EXPECT_EQ(view.releases(0).phase(), "Degraded");
  EXPECT_EQ(view.releases(0).revision(), "1.2.0-abc");
  EXPECT_TRUE(view.releases(0).rolled_back());
  EXPECT_TRUE(view.releases(0).verified());
  EXPECT_FALSE(view.releases(0).drifted());
  EXPECT_TRUE(view.releases(0).reported());
  EXPECT_FALSE(view.releases(0).bound());
  ASSERT_EQ(view.releases(0).helm_conditions_size(), 1);
  EXPECT_EQ(view.releases(0).helm_conditions(0).type(), "Remediated");
  EXPECT_EQ(view.releases(1).name(), "monitoring");
  EXPECT_EQ(view.releases(1).phase(), "Pending");
  EXPECT_TRUE(view.releases(1).bound());
  EXPECT_FALSE(view.releases(1).reported());
  EXPECT_EQ(view.release_counts().degraded(), 1);
  EXPECT_EQ(view.release_counts().rolled_back(), 1);
}

TEST(StatusViewTest, ReportDetailsTimesAndBindingsAreCopied) {
  v1::TargetStatus status = MakeStatus("demo", "edge-1", "True", {});
  v1::PreflightCheck& check = *status.mutable_last_report()->add_preflight_checks();
  check.set_type("DiskSpace");
  check.set_status("False");
  status.mutable_last_report()->mutable_capacity()->set_node_count(3);
  *status.mutable_last_seen_at() = projections::ToProto(absl::FromUnixSeconds(50));
  *status.mutable_last_report_time() = projections::ToProto(absl::FromUnixSeconds(40));
  *status.mutable_last_report_received_at() = projections::ToProto(absl::FromUnixSeconds(30));
  status.add_bound_releases()->set_name("app");
  status.set_bootstrap_version("2.0.0");
  status.set_last_seq(77);

  v1::TargetStatusView view = ToStatusView(status);
  EXPECT_EQ(view.namespace_(), "demo");
  EXPECT_EQ(view.uid(), "0f8fad5b-d9cb-469f-a165-70867728950e");
  EXPECT_TRUE(view.active());
  ASSERT_EQ(view.preflight_checks_size(), 1);
  EXPECT_EQ(view.preflight_checks(0).type(), "DiskSpace");
  EXPECT_EQ(view.capacity().node_count(), 3);
  EXPECT_EQ(view.last_seen_at().seconds(), 50);
  EXPECT_EQ(view.last_report_time().seconds(), 40);
  EXPECT_EQ(view.last_report_received_at().seconds(), 30);
  ASSERT_EQ(view.bound_releases_size(), 1);
  EXPECT_EQ(view.bootstrap_version(), "2.0.0");
  EXPECT_EQ(view.last_seq(), 77);
}

TEST(StatusViewTest, SummaryCountsConditionsAndReleasesAndListsProblemTargetsInOrder) {
  // Given out of order; "a-b" sorts after "a" by namespace.
  const std::vector<v1::TargetStatus> fleet = {
      MakeStatus("a-b", "x", "False", {v1::RELEASE_PHASE_READY}, /*rolled_back=*/true),
      MakeStatus("a", "y", "True", {v1::RELEASE_PHASE_DEGRADED, v1::RELEASE_PHASE_READY},
                 /*rolled_back=*/false, /*drifted=*/true),
      MakeStatus("a", "x", "False", {v1::RELEASE_PHASE_PENDING}, /*rolled_back=*/true,
                 /*drifted=*/true),
  };
  v1::FleetSummary summary = SummarizeFleet(fleet);
  EXPECT_EQ(summary.targets(), 3);
  std::vector<std::string> counts;
  for (const v1::ConditionCount& c : summary.condition_counts()) {
    counts.push_back(c.condition() + ":" + std::to_string(c.targets()));
  }
  EXPECT_THAT(counts, ElementsAre("PreflightReady=False:0", "PreflightReady=True:3",
                                  "PreflightReady=Unknown:0", "ReleasesReady=False:3",
                                  "ReleasesReady=True:0", "ReleasesReady=Unknown:0",
                                  "Reporting=False:2", "Reporting=True:1",
                                  "Reporting=Unknown:0"));
  EXPECT_EQ(summary.release_counts().ready(), 2);
  EXPECT_EQ(summary.release_counts().degraded(), 1);
  EXPECT_EQ(summary.release_counts().pending(), 1);
  EXPECT_EQ(summary.release_counts().rolled_back(), 2);
  EXPECT_EQ(summary.release_counts().drifted(), 3);
  EXPECT_THAT(summary.stale_targets(), ElementsAre("a/x", "a-b/x"));
  EXPECT_THAT(summary.rolled_back_targets(), ElementsAre("a/x", "a-b/x"));
  EXPECT_THAT(summary.drifted_targets(), ElementsAre("a/x", "a/y"));
}

TEST(StatusViewTest, AnEmptyFleetHasZeroCountsForEveryCondition) {
  v1::FleetSummary summary = SummarizeFleet({});
  EXPECT_EQ(summary.targets(), 0);
  EXPECT_EQ(summary.condition_counts_size(), 9);
  for (const v1::ConditionCount& c : summary.condition_counts()) EXPECT_EQ(c.targets(), 0);
  EXPECT_THAT(summary.stale_targets(), IsEmpty());
}

}  // namespace status_view_test
}  // namespace credledger::service
