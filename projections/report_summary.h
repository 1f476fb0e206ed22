// ReportSummary: the fields of a stored ReportAccepted payload (proto/credledger/v1/events.proto)
// that decide the statuses of a Target's rollup conditions (target_status.h), read without
// decoding the report. The fleet fold of the status projection reads every report of a run but
// the last this way (StatusProjection::ApplyDeferred): a report's Flux conditions, check
// messages and capacity, most of its bytes, are skipped by wire type and length.
//
// Thread-safety: a pure function over caller-owned values.
#pragma once

#include <google/protobuf/timestamp.pb.h>

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "credledger/v1/report.pb.h"

namespace credledger::projections {

struct ReportSummary {
  // One entry of report.releases: what the ReleasesReady status depends on.
  struct Release {
    std::string name;
    std::string namespace_;
    v1::ReleasePhase phase = v1::RELEASE_PHASE_UNSPECIFIED;
  };

  std::string target_uid;
  google::protobuf::Timestamp received_at;       // by the service's clock
  google::protobuf::Timestamp last_report_time;  // report.last_report_time, the agent's clock
  int checks = 0;                                // size of report.preflight_checks
  bool any_check_failed = false;                 // a check with status "False"
  bool any_check_errored = false;  // a check with a status other than "True" and "False"
  std::vector<Release> releases;   // report.releases in report order
  // False when either Timestamp holds fields other than seconds and nanos (unknown fields a
  // client or an older binary left): a fold copies the whole Timestamp message, so such a
  // report must be folded from its decoded form.
  bool plain_times = true;
};

// Reads `payload`, the stored bytes of a v1::ReportAccepted at the current schema version,
// into `out` (its vectors' memory is reused). Fields not listed in ReportSummary are skipped:
// they are checked only to be well-formed wire data, not parsed (their UTF-8 is not checked).
// A listed field with another wire type than its declared one is skipped too, as Protobuf's
// parser keeps it as an unknown field. Repeated occurrences merge as in Protobuf's parser.
// Returns false when the bytes are not well-formed Protobuf wire data; `out` is then
// unspecified.
bool ReadReportSummary(absl::string_view payload, ReportSummary& out);

}  // namespace credledger::projections
