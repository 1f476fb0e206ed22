// The heartbeat rule the report decider and ReportIngest's fast path share (docs/reports.md,
// "Ingest" and "How a heartbeat is decided").
#include "service/decide/heartbeat_rule.h"

#include "gtest/gtest.h"
#include "projections/proto_time.h"

namespace credledger::service {
namespace heartbeat_rule_test {

const absl::Time kT0 = absl::FromUnixSeconds(1767225600);

v1::TargetReportSpec Report(const std::string& revision, absl::Time report_time) {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = projections::ToProto(report_time);
  report.add_releases()->set_revision(revision);
  return report;
}

// The baseline of a status whose last report, of revision 1.0.0, was taken at kT0, and whose
// newest accepted lastReportTime is `newest`.
ReportBaseline Baseline(absl::Time newest) {
  v1::TargetStatus status;
  *status.mutable_last_report() = Report("1.0.0", kT0);
  *status.mutable_last_report_time() = projections::ToProto(newest);
  return BaselineOf(status);
}

ReportKind Classify(const std::string& revision, absl::Time report_time,
                    std::optional<absl::Time> floor = std::nullopt) {
  const ReportBaseline baseline = Baseline(kT0 + absl::Seconds(10));
  return ClassifyReport(baseline, ReportContentDigest(Report(revision, report_time)), report_time,
                        floor, kT0 + absl::Minutes(1));
}

TEST(HeartbeatRuleTest, TheDigestIgnoresLastReportTimeAndNothingElse) {
  EXPECT_EQ(ReportContentDigest(Report("1.0.0", kT0)),
            ReportContentDigest(Report("1.0.0", kT0 + absl::Hours(1))));
  EXPECT_NE(ReportContentDigest(Report("1.0.0", kT0)), ReportContentDigest(Report("1.0.1", kT0)));
}

TEST(HeartbeatRuleTest, EachKindInTheOrderTheRuleTakesThem) {
  EXPECT_EQ(Classify("1.0.0", kT0), ReportKind::kRetry);
  EXPECT_EQ(Classify("1.0.0", kT0 + absl::Seconds(10)), ReportKind::kSeenHeartbeat);
  EXPECT_EQ(Classify("1.0.0", kT0 + absl::Seconds(20), kT0 + absl::Seconds(20)),
            ReportKind::kSeenHeartbeat);
  EXPECT_EQ(Classify("1.0.0", kT0 + absl::Seconds(5)), ReportKind::kTooOld);
  EXPECT_EQ(Classify("1.0.1", kT0 + absl::Seconds(10)), ReportKind::kTooOld);
  EXPECT_EQ(Classify("1.0.0", kT0 + absl::Seconds(20), kT0 + absl::Seconds(30)),
            ReportKind::kTooOld);
  EXPECT_EQ(Classify("1.0.0", kT0 + absl::Minutes(7)), ReportKind::kTooFarAhead);
  EXPECT_EQ(Classify("1.0.0", kT0 + absl::Seconds(11)), ReportKind::kHeartbeat);
  EXPECT_EQ(Classify("1.0.1", kT0 + absl::Seconds(11)), ReportKind::kChanged);
}

TEST(HeartbeatRuleTest, BeforeTheFirstReportEveryReportIsChanged) {
  const ReportBaseline none = BaselineOf(v1::TargetStatus());
  EXPECT_EQ(ClassifyReport(none, ReportContentDigest(Report("1.0.0", kT0)), kT0, std::nullopt, kT0),
            ReportKind::kChanged);
  EXPECT_EQ(NewestAccepted(none, std::nullopt), std::nullopt);
  EXPECT_EQ(NewestAccepted(none, kT0), kT0);
}

}  // namespace heartbeat_rule_test
}  // namespace credledger::service
