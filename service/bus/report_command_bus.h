// ReportCommandBus: the command bus of the report side (docs/reports.md, "Ingest", "Rollups"
// and "Liveness and staleness"; docs/architecture.md, "One command bus").
//
// A command addressed to a Target (SubmitReport, SetBoundReleases, MarkStale) addresses
// `report/<namespace>/<name>` and folds two streams, the Target's `target/...` stream and its
// report stream, into ReportFolds: the Target's state (projections::EvolveTarget) and its
// status (projections::EvolveStatus over both streams, plus projections::ApplyLiveness for the
// Target's newest liveness entry, merged at its seq as a side input). The report decider's
// events for both streams (a changed report and the rollout confirmation it proves) are
// appended together, each under the version folded.
//
// RecordLiveness addresses stream `liveness` and folds nothing: it reads the state of every
// Target its entries name (folded in the same transaction through the TargetCommandBus) and
// appends one LivenessObserved under ExpectedVersion::Any, the stream being shared by every
// batch.
//
// The parameters of the bus this kind sets (service/bus/bus_decider.h): its note (whether a
// report was a heartbeat), its reads (the liveness index's view of the transaction, and the
// Targets' states for a batch), its side input and its fold scope (the service configuration).
//
// The newest liveness entry of every Target is kept in a LivenessIndex, read once per process
// from the liveness stream (paged, outside the writer: Prepare) and then kept current from the
// stream's tail inside each transaction; it is updated only after the store reports the batch
// durable. Memory: one fold per Target a command addressed, one liveness entry per Target that
// ever sent a heartbeat. A heartbeat costs one transaction with a few single-row reads and no
// append.
//
// Thread-safety: as CommandBus.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/target_state.h"
#include "service/bus/bus_decider.h"
#include "service/bus/command_bus.h"
#include "service/bus/liveness_index.h"
#include "service/bus/target_command_bus.h"
#include "service/decide/report_commands.h"
#include "service/decide/target_commands.h"
#include "store/event_store.h"

namespace credledger::service {

// The folds a report decision reads: the Target's state and its status.
struct ReportFolds {
  v1::TargetState state;
  v1::TargetStatus status;
};

// What a report decision says beyond its events.
struct ReportNote {
  // The report was a heartbeat or a retry: nothing was appended (ReportDecision::heartbeat).
  bool heartbeat = false;
  // The changed report was held or refused: nothing was appended (ReportDecision::held,
  // ReportDecision::refused).
  bool held = false;
  bool refused = false;
  // The report was refused for a lastReportTime too far ahead: the error to answer, although
  // a ReportClockSkewDetected may have been appended (ReportDecision::refusal).
  absl::Status refusal;
};

// The bus decider of the report side (service/bus/bus_decider.h).
class ReportBusDecider : public BusDeciderDefaults<ReportFolds> {
 public:
  using Command = ReportCommand;
  using Context = CommandContext;
  using State = ReportFolds;
  using Note = ReportNote;
  // The liveness view of the transaction and, for RecordLiveness, the state of each entry's
  // Target in entry order.
  struct Reads {
    LivenessIndex::View view;
    std::vector<v1::TargetState> targets;
  };

  // With a liveness index of its own; the states of the Targets a liveness batch names are
  // folded through `targets`, which is not owned and must outlive the decider.
  explicit ReportBusDecider(TargetCommandBus* targets);

  // RecordLiveness: addresses `liveness`, folds nothing. Others: address the Target's report
  // stream and fold its target and report streams.
  BusStreams Streams(const ReportCommand& command, const CommandContext& context) const;
  void Evolve(ReportFolds& folds, v1::Event& event, const projections::EventPosition& at,
              const CommandContext& context) const;
  std::string Name(const ReportCommand& command) const;
  // DecideLiveness for RecordLiveness, DecideReport for the others.
  // Errors: DecideReport's.
  absl::StatusOr<Decision<ReportNote>> Decide(const ReportCommand& command,
                                              const ReportFolds& folds,
                                              const CommandContext& context, Reads& reads) const;
  std::string FoldScope(const CommandContext& context) const;

  // Catches the liveness index up before the first command. Errors: store read errors.
  absl::Status Prepare(store::EventStore& store, const ReportCommand& command,
                       const CommandContext& context) const;
  // The liveness view of `tx`, and the Targets' states of a RecordLiveness.
  // Errors: store read errors; kDataLoss when an event does not decode.
  absl::StatusOr<Reads> Open(store::WriteTransaction& tx, const ReportCommand& command,
                             const CommandContext& context) const;
  // The Target's newest liveness entry in the view, at its seq.
  std::vector<SideInput<ReportFolds>> SideInputs(const Reads& reads,
                                                 const CommandContext& context) const;
  // Takes the LivenessObserved a RecordLiveness appended into the view.
  absl::Status Appended(Reads& reads, const std::vector<store::RecordedEvent>& events) const;
  // Keeps what the view read and added. REQUIRES: its transaction is durable.
  void Publish(const Reads& reads) const;

 private:
  TargetCommandBus* targets_;
  std::shared_ptr<LivenessIndex> liveness_;
};

using ReportCommandBus = CommandBus<ReportBusDecider>;
// What a report command gave; `state.status` is the Target's status after it (the current one
// on a replay or when nothing was appended; empty for RecordLiveness).
using ReportCommandResult = ReportCommandBus::Result;

// The superseded credential Secrets the RolloutConfirmed events among `events` released.
// Errors: kDataLoss when an event does not decode.
absl::StatusOr<std::vector<std::string>> ReleasedSecrets(
    const std::vector<store::RecordedEvent>& events);

// The answer of a SubmitReport from `source` whose events were `events`, for a retried request
// id: ClockSkewRefusal's error when they hold a ReportClockSkewDetected (the report was
// refused when it was first decided), else OK. kDataLoss when an event does not decode.
absl::Status RefusalOf(const std::vector<store::RecordedEvent>& events, ReportSource source);

}  // namespace credledger::service
