// ClusterCommandBus: runs cluster commands through the single writer (docs/design.md,
// "Group commit" and "Deciders"; docs/connections.md, "Clusters").
//
// For each command, inside the writer's transaction: stream `cluster/<name>` is read and
// folded (projections::EvolveCluster); a request id seen before returns its original events
// (nothing is decided or appended again); otherwise DecideCluster runs and its events are
// appended under the stream version the state was read at. Because the writer batches
// commands, a command sees the events of earlier commands in the same batch. The cluster's
// name is validated by the API edge, not here.
//
// The bus keeps each cluster's fold between commands (published only after its transaction
// is durable) and folds only the events after it: the bridge reports a probe of every
// cluster every few minutes, and an unchanged outcome is still recorded once per record
// interval, so a long-lived cluster's stream keeps growing. A cached fold is used only when
// the event it ends at is still stored with the same stream hash; otherwise the stream is
// refolded from its start. Memory: one ClusterState per cluster commanded or loaded.
//
// The fold cache and the command flow are StreamCommandBus's (stream_command_bus.h).
//
// Thread-safety: Execute and LoadState may be called from any thread.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/state.pb.h"
#include "projections/cluster_state.h"
#include "service/bus/stream_command_bus.h"
#include "service/decide/cluster_decider.h"
#include "store/event_store.h"

namespace credledger::service {

// The events the command appended (or on a retried request id the ones it appended then),
// whether it was a replay, and the cluster's state after the command (the current state on a
// replay).
using ClusterCommandResult = StreamCommandResult<v1::ClusterState>;

class ClusterCommandBus {
 public:
  // `store` is not owned and must outlive the bus.
  explicit ClusterCommandBus(store::EventStore* store);

  // Runs `command` for the cluster named in `context`.
  // Errors: the decider's (kNotFound, kFailedPrecondition, kInvalidArgument); kInvalidArgument
  // for an empty request id; kFailedPrecondition when the request id was already used for
  // another command or stream; kDataLoss when a stored event does not decode; store errors
  // (kUnavailable when the log cannot be written). Nothing is appended on error.
  absl::StatusOr<ClusterCommandResult> Execute(const ClusterCommand& command,
                                               const ClusterCommandContext& context);

  // Reads (paged, outside any command) and folds one cluster's stream; a default state
  // (PHASE_UNSPECIFIED) when it has no events.
  // Errors: kDataLoss when an event does not decode; store read errors.
  absl::StatusOr<v1::ClusterState> LoadState(absl::string_view name);

 private:
  StreamCommandBus<v1::ClusterState, &projections::EvolveCluster> bus_;
};

// Folds `events` (of one cluster stream, in order) into `state`.
// Errors: kDataLoss when an event does not decode.
absl::Status FoldClusterEvents(const std::vector<store::RecordedEvent>& events,
                               v1::ClusterState& state);

}  // namespace credledger::service
