// IdentityCommandBus: runs identity commands through the single writer (docs/design.md,
// "Group commit" and "Deciders"; docs/mirrors.md, "Bindings").
//
// For each command, inside the writer's transaction: stream `identity/<name>` is read and
// folded (projections::EvolveIdentity); a request id seen before returns its original events
// (nothing is decided or appended again); otherwise DecideIdentity runs and its events are
// appended under the stream version the state was read at. Because the writer batches
// commands, a command sees the events of earlier commands in the same batch. The identity's
// name is validated by the API edge, not here.
//
// The bus keeps each identity's fold between commands (published only after its transaction
// is durable) and folds only the events after it: an identity bound in many namespaces
// gathers a MirrorWritten per namespace per rotation, and refolding that history for every
// outcome batch would make a rotation quadratic. A cached fold is used only when the event
// it ends at is still stored with the same stream hash; otherwise the stream is refolded from
// its start. Memory: one IdentityState per identity commanded or loaded.
//
// The fold cache and the command flow are StreamCommandBus's (stream_command_bus.h).
//
// Thread-safety: Execute and LoadState may be called from any thread.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/state.pb.h"
#include "projections/identity_state.h"
#include "service/bus/stream_command_bus.h"
#include "service/decide/identity_commands.h"
#include "store/event_store.h"

namespace credledger::service {

// The events the command appended (or on a retried request id the ones it appended then),
// whether it was a replay, and the identity's state after the command (the current state on a
// replay).
using IdentityCommandResult = StreamCommandResult<v1::IdentityState>;

class IdentityCommandBus {
 public:
  // `store` is not owned and must outlive the bus.
  explicit IdentityCommandBus(store::EventStore* store);

  // Runs `command` for the identity named in `context`.
  // Errors: the decider's (kNotFound, kFailedPrecondition, kInvalidArgument); kInvalidArgument
  // for an empty request id; kFailedPrecondition when the request id was already used for
  // another command or stream; kDataLoss when a stored event does not decode; store errors
  // (kUnavailable when the log cannot be written). Nothing is appended on error.
  absl::StatusOr<IdentityCommandResult> Execute(const IdentityCommand& command,
                                                const IdentityCommandContext& context);

  // True when `request` already answered `command` for identity `identity`, so Execute would
  // replay it (StreamCommandBus::Answered).
  absl::StatusOr<bool> Answered(const IdentityCommand& command, absl::string_view identity,
                                const RequestKey& request);

  // Reads (paged, outside any command) and folds one identity's stream; a default state
  // (PHASE_UNSPECIFIED) when it has no events.
  // Errors: kDataLoss when an event does not decode; store read errors.
  absl::StatusOr<v1::IdentityState> LoadState(absl::string_view name);

 private:
  StreamCommandBus<v1::IdentityState, &projections::EvolveIdentity> bus_;
};

// Folds `events` (of one identity stream, in order) into `state`.
// Errors: kDataLoss when an event does not decode.
absl::Status FoldIdentityEvents(const std::vector<store::RecordedEvent>& events,
                                v1::IdentityState& state);

}  // namespace credledger::service
