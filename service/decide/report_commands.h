// Commands of the report side: status reports, bound releases, staleness and liveness
// batches (docs/reports.md, "Ingest", "Rollups" and "Liveness and staleness"). Plain
// structs, named as imperatives. Each addresses the Target named in its CommandContext
// (service/decide/target_commands.h), except RecordLiveness, which addresses stream `liveness`.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/report.pb.h"
#include "service/decide/target_commands.h"

namespace credledger::service {

// Which way a report came in (docs/reports.md, "Ingest"). Its errors name the fields of what
// the sender wrote: "spec.<field>" of a TargetReport, "report.<field>" of a PushReport request.
enum class ReportSource { kPushReport, kTargetReport };

// The prefix of the field paths of a report from `source`: "report" or "spec".
absl::string_view ReportFieldPrefix(ReportSource source);

// A TargetReport's spec as the agent wrote it (from the TargetReport watch or PushReport).
struct SubmitReport {
  v1::TargetReportSpec report;
  // When credledger received it, by the service's clock.
  absl::Time received_at;
  // The newest lastReportTime of this Target's heartbeats not yet in the log; nullopt when
  // none. A report must be later than it, as it must be later than any logged one.
  std::optional<absl::Time> heartbeat_floor;
  // --report-min-interval: a changed report received sooner than this after the Target's
  // last ReportAccepted is held, unless it is urgent (DecideReport); zero never holds.
  absl::Duration min_interval = absl::ZeroDuration();
  // Free space is below --space-reserve: a changed report is refused unless it confirms a
  // rollout (docs/reports.md, "Limits").
  bool space_low = false;
  // Where the report came from: the field paths its errors name.
  ReportSource source = ReportSource::kPushReport;
};

// The releases the platform bound to the Target, and the bootstrap version it rendered them
// into (may be empty).
struct SetBoundReleases {
  std::vector<v1::BoundRelease> releases;
  std::string bootstrap_version;
};

// The scheduler found the Target silent: nothing received since `last_seen_at` (its view of
// the Target's last report or heartbeat) for `stale_after` (--report-stale-after).
struct MarkStale {
  absl::Time last_seen_at;
  absl::Duration stale_after;
};

// One batch of heartbeats (the newest per Target since the last batch) for stream `liveness`.
struct RecordLiveness {
  std::vector<v1::LivenessEntry> entries;
};

using ReportCommand = std::variant<SubmitReport, SetBoundReleases, MarkStale, RecordLiveness>;

// The command's type name ("SubmitReport", "SetBoundReleases", "MarkStale",
// "RecordLiveness"), recorded in each event's metadata.
std::string CommandName(const ReportCommand& command);

}  // namespace credledger::service
