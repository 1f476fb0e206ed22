// Text output of `credledger status` and `credledger fleet`: the release and check tables,
// capacity, the fleet summary and watch lines.
#include "cli/status_printer.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::cli {
namespace status_printer_test {

using ::testing::HasSubstr;
using ::testing::StartsWith;

v1::TargetStatusView View() {
  v1::TargetStatusView s;
  s.set_namespace_("demo");
  s.set_name("edge-1");
  s.set_active(true);
  for (const char* type : {"Reporting", "PreflightReady", "ReleasesReady"}) {
    v1::StatusCondition& c = *s.add_conditions();
    c.set_type(type);
    c.set_status("True");
    c.set_reason("Fine");
  }
  v1::ReleaseView& app = *s.add_releases();
  app.set_name("app");
  app.set_namespace_("flux-system");
  app.set_phase("Ready");
  app.set_revision("1.2.0-abc");
  app.set_verified(true);
  app.set_rolled_back(true);
  app.set_reported(true);
  v1::ReleaseView& bound = *s.add_releases();
  bound.set_name("monitoring");
  bound.set_namespace_("flux-system");
  bound.set_phase("Pending");
  bound.set_bound(true);
  v1::PreflightCheck& check = *s.add_preflight_checks();
  check.set_type("DiskSpace");
  check.set_status("False");
  check.set_reason("Low");
  check.set_message("3% free");
  v1::ClusterCapacity& capacity = *s.mutable_capacity();
  capacity.set_node_count(3);
  v1::ResourceQuantity& cpu = *capacity.add_allocatable();
  cpu.set_resource("cpu");
  cpu.set_quantity("8");
  v1::ResourceQuantity& used = *capacity.add_used();
  used.set_resource("cpu");
  used.set_quantity("7500m");
  s.add_bound_releases()->set_name("monitoring");
  s.mutable_bound_releases(0)->set_namespace_("flux-system");
  s.set_last_seq(42);
  return s;
}

TEST(StatusPrinterTest, OneTargetShowsReleasesWithFlagsChecksAndCapacity) {
  const std::string text = FormatStatusText(View());
  EXPECT_THAT(text, StartsWith("demo/edge-1\n"));
  EXPECT_THAT(text, HasSubstr("  Reporting:       True Fine (since -)\n"));
  EXPECT_THAT(text, HasSubstr("flux-system/app"));
  EXPECT_THAT(text, HasSubstr("1.2.0-abc"));
  EXPECT_THAT(text, HasSubstr("verified,rolled-back\n"));
  EXPECT_THAT(text, HasSubstr("bound,not-reported\n"));
  EXPECT_THAT(text, HasSubstr("DiskSpace"));
  EXPECT_THAT(text, HasSubstr("3% free"));
  EXPECT_THAT(text, HasSubstr("capacity:        3 nodes; allocatable cpu=8; used cpu=7500m\n"));
  EXPECT_THAT(text, HasSubstr("bound:           flux-system/monitoring\n"));
  EXPECT_THAT(text, HasSubstr("seq:             42\n"));
}

TEST(StatusPrinterTest, TableRowShowsEachConditionAsStatusAndReason) {
  EXPECT_THAT(FormatStatusTableHeader(), StartsWith("TARGET"));
  const std::string row = FormatStatusRow(View());
  EXPECT_THAT(row, StartsWith("demo/edge-1 "));
  EXPECT_THAT(row, HasSubstr("True/Fine"));
}

TEST(StatusPrinterTest, SummaryNamesProblemTargetsOrNone) {
  v1::FleetSummary summary;
  summary.set_targets(2);
  summary.add_stale_targets("demo/edge-1");
  summary.mutable_release_counts()->set_ready(3);
  const std::string text = FormatFleetSummary(summary, 9);
  EXPECT_THAT(text, StartsWith("targets: 2 (seq 9)\n"));
  EXPECT_THAT(text,
              HasSubstr("releases: 0 pending, 0 progressing, 3 ready, 0 degraded, 0 failed\n"));
  EXPECT_THAT(text, HasSubstr("stale: demo/edge-1\n"));
  EXPECT_THAT(text, HasSubstr("rolled back: none\n"));
}

TEST(StatusPrinterTest, WatchLinesMarkFinalizedTargetsAndEndTheSnapshotWithTheSummary) {
  v1::WatchFleetResponse change;
  change.set_kind(v1::WatchFleetResponse::KIND_CHANGE);
  change.set_seq(12);
  *change.mutable_status() = View();
  change.mutable_status()->set_active(false);
  EXPECT_EQ(FormatFleetWatchItem(change),
            "12 change demo/edge-1 Reporting=True/Fine PreflightReady=True/Fine "
            "ReleasesReady=True/Fine finalized\n");

  v1::WatchFleetResponse end;
  end.set_kind(v1::WatchFleetResponse::KIND_SNAPSHOT_END);
  end.set_seq(10);
  end.mutable_summary()->set_targets(4);
  EXPECT_THAT(FormatFleetWatchItem(end), StartsWith("10 end-of-snapshot\ntargets: 4 (seq 10)\n"));
}

}  // namespace status_printer_test
}  // namespace credledger::cli
