#include "cli/status_printer.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/target_printer.h"
#include "cli/text_fields.h"

namespace credledger::cli {
namespace {

// Width of the labels of LabeledLine.
constexpr int kStatusLabelWidth = 16;

std::string ConditionText(const v1::StatusCondition& c) {
  return absl::StrCat(c.status(), " ", c.reason(),
                      c.message().empty() ? "" : absl::StrCat(": ", c.message()), " (since ",
                      FormatTimestamp(c.last_transition_time(), c.has_last_transition_time()),
                      ")");
}

std::string Quantities(const google::protobuf::RepeatedPtrField<v1::ResourceQuantity>& list) {
  return absl::StrJoin(list, ", ", [](std::string* out, const v1::ResourceQuantity& q) {
    absl::StrAppend(out, q.resource(), "=", q.quantity());
  });
}

std::string CapacityText(const v1::TargetStatusView& s) {
  if (!s.has_capacity()) return "-";
  const v1::ClusterCapacity& c = s.capacity();
  return absl::StrCat(c.node_count(), " nodes; allocatable ", OrDash(Quantities(c.allocatable())),
                      "; used ", OrDash(Quantities(c.used())));
}

std::string FlagsText(const v1::ReleaseView& r) {
  std::vector<std::string> flags;
  if (r.verified()) flags.push_back("verified");
  if (r.rolled_back()) flags.push_back("rolled-back");
  if (r.test_failed()) flags.push_back("test-failed");
  if (r.drifted()) flags.push_back("drifted");
  if (r.bound()) flags.push_back("bound");
  if (!r.reported()) flags.push_back("not-reported");
  return flags.empty() ? "-" : absl::StrJoin(flags, ",");
}

std::string ReleasesTable(const v1::TargetStatusView& s) {
  if (s.releases().empty()) return "releases: none\n";
  std::string out = absl::StrFormat("releases:\n  %-40s %-12s %-32s %s\n", "NAMESPACE/NAME",
                                    "PHASE", "REVISION", "FLAGS");
  for (const v1::ReleaseView& r : s.releases()) {
    absl::StrAppend(&out, absl::StrFormat("  %-40s %-12s %-32s %s\n",
                                          absl::StrCat(r.namespace_(), "/", r.name()), r.phase(),
                                          OrDash(r.revision()), FlagsText(r)));
  }
  return out;
}

std::string ChecksTable(const v1::TargetStatusView& s) {
  if (s.preflight_checks().empty()) return "preflight checks: none\n";
  std::string out = absl::StrFormat("preflight checks:\n  %-24s %-8s %-24s %s\n", "TYPE",
                                    "STATUS", "REASON", "MESSAGE");
  for (const v1::PreflightCheck& c : s.preflight_checks()) {
    absl::StrAppend(&out, absl::StrFormat("  %-24s %-8s %-24s %s\n", c.type(), c.status(),
                                          c.reason(), OrDash(c.message())));
  }
  return out;
}

// "<status>/<reason>" of each condition, in view order.
std::vector<std::string> ConditionCells(const v1::TargetStatusView& s) {
  std::vector<std::string> cells;
  for (const v1::StatusCondition& c : s.conditions()) {
    cells.push_back(absl::StrCat(c.status(), "/", c.reason()));
  }
  cells.resize(3, "-");
  return cells;
}

std::string NamesOrNone(const google::protobuf::RepeatedPtrField<std::string>& names) {
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

}  // namespace

std::string FormatStatusText(const v1::TargetStatusView& s) {
  std::string out = absl::StrCat(s.namespace_(), "/", s.name(), "\n");
  absl::StrAppend(&out, LabeledLine("uid", s.uid(), kStatusLabelWidth),
                  LabeledLine("active", s.active() ? "yes" : "no", kStatusLabelWidth));
  for (const v1::StatusCondition& c : s.conditions()) {
    absl::StrAppend(&out, LabeledLine(c.type(), ConditionText(c), kStatusLabelWidth));
  }
  absl::StrAppend(
      &out,
      LabeledLine("last report",
                  absl::StrCat(FormatTimestamp(s.last_report_time(), s.has_last_report_time()),
                               s.has_last_report_time() ? " (agent clock)" : ""),
                  kStatusLabelWidth),
      LabeledLine("last seen", FormatTimestamp(s.last_seen_at(), s.has_last_seen_at()),
                  kStatusLabelWidth),
      LabeledLine("report received",
                  FormatTimestamp(s.last_report_received_at(), s.has_last_report_received_at()),
                  kStatusLabelWidth),
      LabeledLine("bootstrap", OrDash(s.bootstrap_version()), kStatusLabelWidth));
  const std::string bound = absl::StrJoin(
      s.bound_releases(), ", ", [](std::string* out, const v1::BoundRelease& b) {
        absl::StrAppend(out, b.namespace_(), "/", b.name());
      });
  absl::StrAppend(&out, LabeledLine("bound", OrDash(bound), kStatusLabelWidth),
                  LabeledLine("capacity", CapacityText(s), kStatusLabelWidth),
                  LabeledLine("seq", absl::StrCat(s.last_seq()), kStatusLabelWidth),
                  ReleasesTable(s), ChecksTable(s));
  return out;
}

std::string FormatStatusTableHeader() {
  return absl::StrFormat("%-40s %-24s %-32s %-22s %s\n", "TARGET", "REPORTING", "PREFLIGHT",
                         "RELEASES", "LAST SEEN");
}

std::string FormatStatusRow(const v1::TargetStatusView& s) {
  const std::vector<std::string> cells = ConditionCells(s);
  return absl::StrFormat("%-40s %-24s %-32s %-22s %s\n",
                         absl::StrCat(s.namespace_(), "/", s.name()), cells[0], cells[1],
                         cells[2], FormatTimestamp(s.last_seen_at(), s.has_last_seen_at()));
}

std::string FormatFleetSummary(const v1::FleetSummary& summary, int64_t seq) {
  std::string out = absl::StrCat("targets: ", summary.targets(), " (seq ", seq, ")\n");
  absl::StrAppend(&out, "conditions:\n");
  for (const v1::ConditionCount& c : summary.condition_counts()) {
    absl::StrAppend(&out, absl::StrFormat("  %-24s %d\n", c.condition(), c.targets()));
  }
  const v1::ReleaseCounts& r = summary.release_counts();
  absl::StrAppend(
      &out,
      absl::StrFormat("releases: %d pending, %d progressing, %d ready, %d degraded, %d failed\n",
                      r.pending(), r.progressing(), r.ready(), r.degraded(), r.failed()),
      absl::StrFormat("flags: %d verified, %d rolled back, %d test failed, %d drifted\n",
                      r.verified(), r.rolled_back(), r.test_failed(), r.drifted()),
      "stale: ", NamesOrNone(summary.stale_targets()), "\n",
      "rolled back: ", NamesOrNone(summary.rolled_back_targets()), "\n",
      "drifted: ", NamesOrNone(summary.drifted_targets()), "\n");
  return out;
}

std::string FormatFleetWatchItem(const v1::WatchFleetResponse& item) {
  if (item.kind() == v1::WatchFleetResponse::KIND_SNAPSHOT_END) {
    return absl::StrCat(item.seq(), " end-of-snapshot\n",
                        FormatFleetSummary(item.summary(), item.seq()));
  }
  const v1::TargetStatusView& s = item.status();
  std::string out = absl::StrCat(
      item.seq(), " ", item.kind() == v1::WatchFleetResponse::KIND_SNAPSHOT ? "snapshot" : "change",
      " ", s.namespace_(), "/", s.name());
  for (const v1::StatusCondition& c : s.conditions()) {
    absl::StrAppend(&out, " ", c.type(), "=", c.status(), "/", c.reason());
  }
  if (!s.active()) absl::StrAppend(&out, " finalized");
  return absl::StrCat(out, "\n");
}

}  // namespace credledger::cli
