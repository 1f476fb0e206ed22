// IdentityCommandBus: runs identity commands through the single writer (DESIGN sections 3-4;
// domain/captf-credentials.md).
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
// Thread-safety: Execute and LoadState may be called from any thread.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "credledger/v1/state.pb.h"
#include "service/identity_commands.h"
#include "store/event_store.h"

namespace credledger::service {

struct IdentityCommandResult {
  // The events the command appended, or on a retried request id the ones it appended then.
  std::vector<store::RecordedEvent> events;
  bool replayed = false;
  // The identity's state after the command (the current state on a replay).
  v1::IdentityState state;
};

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

  // Reads (paged, outside any command) and folds one identity's stream; a default state
  // (PHASE_UNSPECIFIED) when it has no events.
  // Errors: kDataLoss when an event does not decode; store read errors.
  absl::StatusOr<v1::IdentityState> LoadState(absl::string_view name);

 private:
  // An identity's state folded up to the event at `state.stream_version()`, whose stream hash
  // is `stream_hash`; empty `stream_hash` when nothing is folded.
  struct Fold {
    v1::IdentityState state;
    std::string stream_hash;
  };
  // Reads events of the stream from `from_version` on (one page or all).
  using StreamReader =
      std::function<absl::StatusOr<std::vector<store::RecordedEvent>>(int64_t from_version)>;

  // The identity's fold as `read` sees the stream: the cached fold advanced by the events
  // after it, or a fold from the start when the cache has none or it does not match.
  absl::StatusOr<Fold> LoadFold(const std::string& name, const StreamReader& read) const;
  // Keeps `fold` unless a fold of a later stream version is kept already.
  // REQUIRES: every event in `fold` is durable.
  void Publish(const std::string& name, const Fold& fold);

  store::EventStore* store_;
  mutable absl::Mutex mu_;
  std::map<std::string, Fold> folds_ ABSL_GUARDED_BY(mu_);
};

// Folds `events` (of one identity stream, in order) into `state`.
// Errors: kDataLoss when an event does not decode.
absl::Status FoldIdentityEvents(const std::vector<store::RecordedEvent>& events,
                                v1::IdentityState& state);

}  // namespace credledger::service
