// TargetCommandBus: runs Target commands through the single writer (docs/design.md,
// "Group commit" and "Deciders").
//
// For each command, inside the writer's transaction: a request id seen before returns its
// original events (nothing is decided or appended again); otherwise the Target's stream is
// folded into its state, the decider runs, and its events are appended under the stream
// version the state was read at. Because the writer batches commands, a command sees the
// events of earlier commands in the same batch.
//
// Thread-safety: Execute may be called from any thread.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "service/decide/target_commands.h"
#include "store/event_store.h"

namespace credledger::service {

struct CommandResult {
  // The events the command appended, or on a retried request id the ones it appended then.
  std::vector<store::RecordedEvent> events;
  bool replayed = false;
  // The Target's state after the command (the current state on a replay).
  v1::TargetState state;
};

class TargetCommandBus {
 public:
  // `store` is not owned and must outlive the bus.
  explicit TargetCommandBus(store::EventStore* store);

  // Runs `command` for the Target named in `context`.
  // Errors: the decider's (kNotFound, kFailedPrecondition, kInvalidArgument); kInvalidArgument
  // for an empty request id; kFailedPrecondition when the request id was already used for
  // another stream; store errors (kUnavailable when the log cannot be written).
  absl::StatusOr<CommandResult> Execute(const TargetCommand& command,
                                        const CommandContext& context);

  // Reads and folds one Target's stream outside any command (for recovery and tests).
  // Errors: kDataLoss when an event does not decode; store read errors.
  absl::StatusOr<v1::TargetState> LoadState(absl::string_view target_namespace,
                                            absl::string_view name,
                                            const v1::ServiceConfigured& service);

 private:
  store::EventStore* store_;
};

// Folds `events` (of one Target stream, in order) into `state`.
// Errors: kDataLoss when an event does not decode.
absl::Status FoldTargetEvents(const std::vector<store::RecordedEvent>& events,
                              const v1::ServiceConfigured& service, v1::TargetState& state);

}  // namespace credledger::service
