// Timeline: a Target's history in readable form (docs/forensics.md, "What happened to this
// Target, and who did it?"). Pure: events in, entries out, no I/O.
//
// Feed it, in seq order, the events of the Target's `target/<ns>/<name>` and
// `report/<ns>/<name>` streams and of the `liveness` stream. Every event of the Target's own
// streams gives one entry; its summary, Secret, credentialTag (a Secret's tag is the one
// its uid defines), attempt and target_uid come from the event, its actor and request id
// from the event's metadata. Heartbeats in `liveness` give an entry only when they end a
// silence (the first heartbeat of the Target after a ReportingStale with no report or
// ReportClockSkewCleared in between), so that the timeline shows each liveness gap and its
// end without listing every heartbeat. An entry's summary and subject fields are
// DescribeEvent's (event_summary.h, which declares SummarizeEvent as well).
//
// Thread-safety: not thread-safe.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/event_summary.h"
#include "store/event_store.h"

namespace credledger::projections {

class TimelineBuilder {
 public:
  // The Target's namespace and name (DNS-1123 labels, already validated).
  TimelineBuilder(std::string target_namespace, std::string name);
  // The history of identity `identity` (already validated) instead: one entry per event of
  // its stream identity/<identity> (docs/mirrors.md, "History"); liveness batches give none.
  // While the identity's spec.cluster names a registered cluster, the summaries of events
  // that happened in that cluster (mirrors written, deleted or failed, namespace labels
  // observed) start with "in cluster <name>: "; a failure whose kind is about the cluster
  // itself names it in its message already. Home-cluster entries are unchanged.
  static TimelineBuilder ForIdentity(const std::string& identity);

  // The entry for `event`; nullopt for an event of another stream, a heartbeat that ends no
  // silence, or a LivenessObserved batch without the Target.
  // Errors: kDataLoss when the event or its metadata does not decode.
  absl::StatusOr<std::optional<v1::TimelineEntry>> Apply(const store::RecordedEvent& event);

 private:
  TimelineBuilder(std::string target_namespace, std::string name, std::string own_stream,
                  std::string report_stream);

  // Names the identity's cluster in `entry` for an event in that cluster, after following
  // the spec.cluster of IdentityCreated and IdentityUpdated.
  void NameCluster(const v1::Event& event, v1::TimelineEntry& entry);

  std::string namespace_;
  std::string name_;
  std::string target_stream_;
  std::string report_stream_;
  // A ReportingStale was the Target's last liveness fact (no report, clock skew cleared, new
  // incarnation or finalization since): the next heartbeat ends a gap.
  bool silent_ = false;
  // spec.cluster of the identity as of the events applied so far; empty: the home cluster.
  std::string cluster_;
};

// One timeline entry as one line of text: "<RFC 3339 UTC time, whole seconds>  seq <n>
// <actor>  <event type>  <summary>", then " secret=<name>" and " tag=<tag>" when set, and a
// newline. Control characters in the text parts are written as "\xNN", so an entry cannot
// break the line or forge another one.
std::string FormatTimelineEntry(const v1::TimelineEntry& entry);

}  // namespace credledger::projections
