#include "projections/clock_skew.h"

#include "absl/strings/str_cat.h"
#include "common/rfc3339.h"
#include "projections/proto_time.h"
#include "projections/report_validation.h"

namespace credledger::projections {

namespace {

// `t` without its fraction of a second, as the agent's times are written.
absl::Time WholeSeconds(absl::Time t) { return absl::FromUnixSeconds(absl::ToUnixSeconds(t)); }

}  // namespace

absl::Duration ClockSkewOffset(const v1::ReportClockSkewDetected& detected) {
  const absl::Duration offset =
      FromProto(detected.last_report_time()) - FromProto(detected.server_time());
  return absl::Floor(offset + absl::Milliseconds(500), absl::Seconds(1));
}

std::string ClockSkewMessage(const v1::ReportClockSkewDetected& detected) {
  return absl::StrCat("the agent's clock is ", absl::FormatDuration(ClockSkewOffset(detected)),
                      " ahead of the server's (a report of ",
                      common::FormatRfc3339(FromProto(detected.last_report_time())), " arrived at ",
                      common::FormatRfc3339(WholeSeconds(FromProto(detected.server_time()))),
                      "): reports more than ", absl::FormatDuration(kMaxReportTimeAhead),
                      " ahead are refused until the agent's node syncs its clock (NTP)");
}

}  // namespace credledger::projections
