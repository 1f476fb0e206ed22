#include "service/decide/heartbeat_rule.h"

#include <algorithm>
#include <string>

#include "common/sha256.h"
#include "projections/proto_time.h"
#include "projections/report_validation.h"

namespace credledger::service {

using projections::FromProto;

ReportDigest ReportContentDigest(const v1::TargetReportSpec& report) {
  v1::TargetReportSpec content = report;
  content.clear_last_report_time();
  const common::Sha256Bytes sha = common::Sha256Of(content.SerializeAsString());
  ReportDigest digest;
  std::copy_n(sha.begin(), digest.size(), digest.begin());
  return digest;
}

ReportBaseline BaselineOf(const v1::TargetStatus& status) {
  ReportBaseline baseline;
  if (status.has_last_report()) {
    baseline.last_report = ReportContentDigest(status.last_report());
    baseline.last_report_time = FromProto(status.last_report().last_report_time());
  }
  if (status.has_last_report_time()) {
    baseline.newest_report_time = FromProto(status.last_report_time());
  }
  return baseline;
}

std::optional<absl::Time> NewestAccepted(const ReportBaseline& baseline,
                                         std::optional<absl::Time> heartbeat_floor) {
  if (!baseline.newest_report_time.has_value()) return heartbeat_floor;
  return std::max(*baseline.newest_report_time,
                  heartbeat_floor.value_or(*baseline.newest_report_time));
}

ReportKind ClassifyReport(const ReportBaseline& baseline, const ReportDigest& digest,
                          absl::Time report_time, std::optional<absl::Time> heartbeat_floor,
                          absl::Time now) {
  const bool same = baseline.last_report == digest;
  if (same && report_time == baseline.last_report_time) return ReportKind::kRetry;
  const std::optional<absl::Time> newest = NewestAccepted(baseline, heartbeat_floor);
  if (same && newest == report_time) return ReportKind::kSeenHeartbeat;
  if (!projections::ValidateReportOrder(report_time, newest, "").ok()) return ReportKind::kTooOld;
  if (projections::ReportTimeTooFarAhead(report_time, now)) return ReportKind::kTooFarAhead;
  return same ? ReportKind::kHeartbeat : ReportKind::kChanged;
}

}  // namespace credledger::service
