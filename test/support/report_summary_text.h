// For tests of projections/report_summary.h: what ReadReportSummary must give for a report,
// taken from the fully decoded message, and one line of text per summary, so that two
// summaries compare as strings and a mismatch prints readably.
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "credledger/v1/events.pb.h"
#include "projections/report_summary.h"

namespace credledger::testing {

// One text per summary: equal texts, equal summaries.
inline std::string SummaryText(const projections::ReportSummary& s) {
  std::string text =
      absl::StrCat("uid=", s.target_uid, " received=", s.received_at.seconds(), ".",
                   s.received_at.nanos(), " reported=", s.last_report_time.seconds(), ".",
                   s.last_report_time.nanos(), " checks=", s.checks, " failed=", s.any_check_failed,
                   " errored=", s.any_check_errored, " releases=[");
  for (const projections::ReportSummary::Release& r : s.releases) {
    absl::StrAppend(&text, r.namespace_, "/", r.name, ":", static_cast<int>(r.phase), ";");
  }
  return absl::StrCat(text, "]");
}

// The summary of a decoded ReportAccepted, from its fields.
inline projections::ReportSummary SummaryOf(const v1::ReportAccepted& e) {
  projections::ReportSummary s;
  s.target_uid = e.target_uid();
  s.received_at = e.received_at();
  s.last_report_time = e.report().last_report_time();
  for (const v1::PreflightCheck& check : e.report().preflight_checks()) {
    ++s.checks;
    if (check.status() == "False") {
      s.any_check_failed = true;
    } else if (check.status() != "True") {
      s.any_check_errored = true;
    }
  }
  for (const v1::ReleaseStatus& release : e.report().releases()) {
    s.releases.push_back({release.name(), release.namespace_(), release.phase()});
  }
  return s;
}

}  // namespace credledger::testing
