// StreamCommandBus: runs commands against one kind of named stream (`cluster/<name>`,
// `identity/<name>`) through the single writer, keeping each stream's fold between commands
// (docs/design.md, "Group commit" and "Deciders"). ClusterCommandBus and IdentityCommandBus are
// built on it.
//
// For each command, inside the writer's transaction: the stream is read and folded by
// `Evolve`; a request id seen before returns its original events (nothing is decided or
// appended again); otherwise the decider runs against the folded state and its events are
// appended under the stream version the state was read at. Because the writer batches
// commands, a command sees the events of earlier commands in the same batch.
//
// The fold of each stream is kept (published only after its transaction is durable) and only
// the events after it are folded. A kept fold is used only when the event it ends at is still
// stored with the same stream hash; otherwise the stream is refolded from its start. Memory:
// one State per stream commanded or loaded.
//
// Thread-safety: Execute and LoadState may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "credledger/v1/events.pb.h"
#include "projections/target_state.h"
#include "service/bus/prior_request.h"
#include "store/event_codec.h"
#include "store/event_store.h"

namespace credledger::service {

// What a command run by StreamCommandBus<State, ...> gave.
template <typename State>
struct StreamCommandResult {
  // The events the command appended, or on a retried request id the ones it appended then.
  std::vector<store::RecordedEvent> events;
  bool replayed = false;
  // The stream's state after the command (the current state on a replay).
  State state;
};

// A projection's fold of one stream: Evolve(state, event, position).
template <typename State>
using StreamEvolve = void (*)(State&, const v1::Event&, const projections::EventPosition&);

// Folds `events` (of one stream, in order) into `state` with `Evolve`.
// Errors: kDataLoss when an event does not decode.
template <typename State, StreamEvolve<State> Evolve>
absl::Status FoldStreamEvents(const std::vector<store::RecordedEvent>& events, State& state) {
  for (const store::RecordedEvent& recorded : events) {
    ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
    Evolve(state, event,
           {recorded.seq, recorded.stream_version, absl::FromUnixMicros(recorded.recorded_at_us)});
  }
  return absl::OkStatus();
}

// REQUIRES: State is a state message with `stream_version()` (the version of the last event
// folded).
template <typename State, StreamEvolve<State> Evolve>
class StreamCommandBus {
 public:
  // `store` is not owned and must outlive the bus.
  explicit StreamCommandBus(store::EventStore* store) : store_(store) {}

  // Runs one command, named `command` (IdentityCommandName, ...), for stream `stream`, kept
  // under `key` (the stream's object name), on behalf of `actor` under `request_id`, whose
  // request has digest `request_digest` (RequestDigest; empty for the service's own commands).
  // `decide(const State&)` returns the events to append (absl::StatusOr<std::vector<v1::Event>>).
  // Errors: decide's; kInvalidArgument for an empty request id; kFailedPrecondition when the
  // request id was already used for another command, stream or request; kDataLoss when a stored event
  // does not decode; store errors (kUnavailable when the log cannot be written). Nothing is
  // appended on error.
  template <typename Decide>
  absl::StatusOr<StreamCommandResult<State>> Execute(const std::string& key,
                                                     const std::string& stream,
                                                     absl::string_view command,
                                                     absl::string_view actor,
                                                     absl::string_view request_id,
                                                     absl::string_view request_digest,
                                                     const Decide& decide) {
    if (request_id.empty()) {
      return absl::InvalidArgumentError("request_id: required on every mutating call");
    }
    StreamCommandResult<State> result;
    Fold after;
    RETURN_IF_ERROR(store_->Execute([&](store::WriteTransaction& tx) -> absl::Status {
      ASSIGN_OR_RETURN(Fold fold, LoadFold(key, [&](int64_t from) {
                         return tx.ReadStream(stream, from);
                       }));
      ASSIGN_OR_RETURN(auto prior, FindPriorRequest(tx, request_id, request_digest, stream, command));
      if (prior.has_value()) {
        result = {*std::move(prior), /*replayed=*/true, fold.state};
        after = std::move(fold);
        return absl::OkStatus();
      }
      ASSIGN_OR_RETURN(std::vector<v1::Event> decided, decide(fold.state));
      if (!decided.empty()) {
        ASSIGN_OR_RETURN(store::AppendResult appended,
                         Append(tx, stream, fold, decided, CommandMetadata(actor, request_id,
                                                                           request_digest, command),
                                request_id));
        RETURN_IF_ERROR((FoldStreamEvents<State, Evolve>(appended.events, fold.state)));
        fold.stream_hash = appended.events.back().stream_hash;
        result.events = std::move(appended.events);
      }
      result.state = fold.state;
      after = std::move(fold);
      return absl::OkStatus();
    }));
    Publish(key, after);
    return result;
  }

  // True when `request_id` already answered `command` on `stream` with a request of digest
  // `request_digest`: Execute would replay it. Lets callers skip checks made only for new
  // commands (an access review). Errors: FindPriorRequest's (kFailedPrecondition for an id
  // used for another command, stream or request); store errors.
  absl::StatusOr<bool> Answered(const std::string& stream, absl::string_view command,
                                absl::string_view request_id, absl::string_view request_digest) {
    bool answered = false;
    RETURN_IF_ERROR(store_->Execute([&](store::WriteTransaction& tx) -> absl::Status {
      ASSIGN_OR_RETURN(auto prior,
                       FindPriorRequest(tx, request_id, request_digest, stream, command));
      answered = prior.has_value();
      return absl::OkStatus();
    }));
    return answered;
  }

  // Reads (paged, outside any command) and folds stream `stream`, kept under `key`; a default
  // state when it has no events.
  // Errors: kDataLoss when an event does not decode; store read errors.
  absl::StatusOr<State> LoadState(const std::string& key, const std::string& stream) {
    ASSIGN_OR_RETURN(Fold fold, LoadFold(key, [&](int64_t from) {
                       return store_->ReadStream(stream, from, 512);
                     }));
    Publish(key, fold);
    return std::move(fold.state);
  }

 private:
  // A state folded up to the event at `state.stream_version()`, whose stream hash is
  // `stream_hash`; empty `stream_hash` when nothing is folded.
  struct Fold {
    State state;
    std::string stream_hash;
  };
  // Reads events of the stream from `from_version` on (one page or all).
  using StreamReader =
      std::function<absl::StatusOr<std::vector<store::RecordedEvent>>(int64_t from_version)>;

  // Appends `decided` to `stream` in `tx` under the version `fold` was read at.
  static absl::StatusOr<store::AppendResult> Append(store::WriteTransaction& tx,
                                                    const std::string& stream, const Fold& fold,
                                                    const std::vector<v1::Event>& decided,
                                                    const v1::EventMetadata& metadata,
                                                    absl::string_view request_id) {
    store::StreamAppend append{stream,
                               fold.stream_hash.empty()
                                   ? store::ExpectedVersion::NoStream()
                                   : store::ExpectedVersion::Exactly(fold.state.stream_version()),
                               {}};
    for (const v1::Event& event : decided) {
      ASSIGN_OR_RETURN(store::NewEvent encoded,
                       store::EventCodec::Default().Encode(event, metadata));
      append.events.push_back(std::move(encoded));
    }
    return tx.Append({std::string(request_id), {std::move(append)}});
  }

  // The fold of `key`'s stream as `read` sees it: the kept fold advanced by the events after
  // it, or a fold from the start when none is kept or it does not match.
  absl::StatusOr<Fold> LoadFold(const std::string& key, const StreamReader& read) const {
    Fold fold;
    {
      absl::MutexLock lock(&mu_);
      auto kept = folds_.find(key);
      if (kept != folds_.end()) fold = kept->second;
    }
    int64_t from = 0;
    if (!fold.stream_hash.empty()) {
      // Re-read the kept fold's last event: it is used only if it describes this log.
      ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> page, read(fold.state.stream_version()));
      if (page.empty() || page.front().stream_version != fold.state.stream_version() ||
          page.front().stream_hash != fold.stream_hash) {
        fold = Fold();
      } else {
        page.erase(page.begin());
        RETURN_IF_ERROR((FoldStreamEvents<State, Evolve>(page, fold.state)));
        if (page.empty()) return fold;
        fold.stream_hash = page.back().stream_hash;
        from = fold.state.stream_version() + 1;
      }
    }
    while (true) {
      ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> page, read(from));
      if (page.empty()) break;
      RETURN_IF_ERROR((FoldStreamEvents<State, Evolve>(page, fold.state)));
      fold.stream_hash = page.back().stream_hash;
      from = page.back().stream_version + 1;
    }
    return fold;
  }

  // Keeps `fold` unless a fold of a later stream version is kept already.
  // REQUIRES: every event in `fold` is durable.
  void Publish(const std::string& key, const Fold& fold) {
    if (fold.stream_hash.empty()) return;
    absl::MutexLock lock(&mu_);
    Fold& kept = folds_[key];
    if (kept.stream_hash.empty() || kept.state.stream_version() < fold.state.stream_version()) {
      kept = fold;
    }
  }

  store::EventStore* store_;
  mutable absl::Mutex mu_;
  std::map<std::string, Fold> folds_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::service
