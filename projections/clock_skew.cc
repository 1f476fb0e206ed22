#include "projections/clock_skew.h"

#include "absl/strings/str_cat.h"
#include "common/rfc3339.h"
#include "projections/proto_time.h"
#include "projections/report_validation.h"

namespace credledger::projections {

absl::Duration ClockSkewOffset(const v1::ReportClockSkewDetected& detected) {
  return absl::Trunc(FromProto(detected.last_report_time()) - FromProto(detected.server_time()),
                     absl::Seconds(1));
}

std::string ClockSkewMessage(const v1::ReportClockSkewDetected& detected) {
  return absl::StrCat("the agent's clock is ", absl::FormatDuration(ClockSkewOffset(detected)),
                      " ahead of the server's (a report of ",
                      common::FormatRfc3339(FromProto(detected.last_report_time())), " arrived at ",
                      common::FormatRfc3339(FromProto(detected.server_time())),
                      "): reports more than ", absl::FormatDuration(kMaxReportTimeAhead),
                      " ahead are refused until the agent's node syncs its clock (NTP)");
}

}  // namespace credledger::projections
