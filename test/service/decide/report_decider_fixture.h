// The given-events / when-command / then-events fixture of the report decider tests
// (report_decider_test.cc, report_clock_skew_test.cc): the given events (of the target, report
// and liveness streams) are folded into the Target's state with projections::EvolveTarget and
// into its status with projections::EvolveStatus; the command is decided with DecideReport, and
// the emitted events are compared field by field with the expected ones.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "projections/target_state.h"
#include "projections/target_status.h"
#include "service/decide/report_decider.h"
#include "test/support/event_matchers.h"
#include "test/support/fleet_target_events.h"
#include "test/support/status_matchers.h"

// gtest prints events in failure messages through this (found by argument-dependent lookup)
// instead of its generic protobuf printer, which GCC 12 at -O3 warns about (-Wrestrict).
namespace credledger::v1 {
inline void PrintTo(const Event& event, std::ostream* os) { *os << event.ShortDebugString(); }
}  // namespace credledger::v1

namespace credledger::service::report_decider_fixture {

// A release in namespace apps.
inline v1::ReleaseStatus Release(const std::string& name, v1::ReleasePhase phase,
                                 const std::string& revision = "1.0.0") {
  v1::ReleaseStatus r;
  r.set_namespace_("apps");
  r.set_name(name);
  r.set_phase(phase);
  r.set_revision(revision);
  return r;
}

// A report at `last_report_time` with `releases`.
inline v1::TargetReportSpec Report(absl::Time last_report_time,
                                   const std::vector<v1::ReleaseStatus>& releases = {
                                       Release("web", v1::RELEASE_PHASE_READY)}) {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = projections::ToProto(last_report_time);
  for (const v1::ReleaseStatus& r : releases) *report.add_releases() = r;
  return report;
}

using ::credledger::testing::EqualsEvent;

class ReportDeciderTest : public ::testing::Test {
 protected:
  ReportDeciderTest() {
    service_.set_agent_apiserver_url("https://agents.example:6443");
    service_.set_credentials_enabled(true);
  }

  // Given: folds `events` in order, each one second after the previous, ending at now_.
  void Given(const std::vector<v1::Event>& events) {
    for (v1::Event e : events) {
      ++seq_;
      const projections::EventPosition at{seq_, seq_ - 1, now_};
      projections::EvolveTarget(state_, e, at, service_);
      projections::EvolveStatus(status_, e, at);
    }
  }
  void GivenAccepted(absl::Time report_time) {
    Given({testing::fleet_target::Accepted(Report(report_time), report_time)});
  }

  absl::StatusOr<ReportDecision> When(const ReportCommand& command) {
    const CommandContext context{testing::fleet_target::kNamespace,
                                 testing::fleet_target::kName,
                                 now_,
                                 "alice",
                                 "req-1",
                                 service_};
    return DecideReport(command, state_, status_, context);
  }

  // Then: the decision emitted exactly these events for the two streams.
  static void Then(const absl::StatusOr<ReportDecision>& decided,
                   const std::vector<v1::Event>& report_events,
                   const std::vector<v1::Event>& target_events = {}) {
    ASSERT_OK(decided);
    ASSERT_EQ(decided->report_events.size(), report_events.size());
    for (size_t i = 0; i < report_events.size(); ++i) {
      EXPECT_THAT(decided->report_events[i], EqualsEvent(report_events[i]));
    }
    ASSERT_EQ(decided->target_events.size(), target_events.size());
    for (size_t i = 0; i < target_events.size(); ++i) {
      EXPECT_THAT(decided->target_events[i], EqualsEvent(target_events[i]));
    }
  }
  // Then: nothing is appended, and the report counts as a heartbeat (or a retry).
  static void ThenHeartbeat(const absl::StatusOr<ReportDecision>& decided) {
    ASSERT_OK(decided);
    EXPECT_TRUE(decided->heartbeat);
    EXPECT_THAT(decided->report_events, ::testing::IsEmpty());
    EXPECT_THAT(decided->target_events, ::testing::IsEmpty());
  }

  v1::ServiceConfigured service_;
  absl::Time now_ = testing::fleet_target::kT0;
  int64_t seq_ = 0;
  v1::TargetState state_;
  v1::TargetStatus status_;
};

}  // namespace credledger::service::report_decider_fixture
