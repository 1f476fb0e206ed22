// CommandBus<Decider>: the one path by which a command's events enter the log (docs/design.md,
// "Group commit" and "Deciders"; docs/architecture.md, "One command bus"). Every stream kind is
// an instance: TargetCommandBus, ReportCommandBus, ClusterCommandBus, IdentityCommandBus,
// SourceCommandBus, AccessCommandBus and ServiceCommandBus; `Decider` is the kind's bus
// decider (service/bus/bus_decider.h), whose optional parameters are all that differs.
//
// For each command, inside the writer's transaction: the command's folded streams are folded
// from the fold kept for its addressed stream plus the events after it (fold_cache.h), with
// the decider's side inputs; a request id seen before returns its original events (nothing is
// decided or appended again); otherwise the decider runs against the fold and its events are
// appended in one atomic append, each folded stream under the version it was folded at,
// every other stream under ExpectedVersion::Any. Every event carries the command's metadata
// (actor, request id, request digest, command name), for a credential mint step the attempt
// id as correlation id, and the seq of the event that caused it when the decider names one.
// Because the writer batches commands, a command sees the events of earlier commands in the
// same batch. The fold, and the decider's reads, are kept only once the store reports the
// batch durable.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "credledger/v1/events.pb.h"
#include "service/bus/bus_decider.h"
#include "service/bus/fold_cache.h"
#include "service/bus/prior_request.h"
#include "store/event_codec.h"
#include "store/event_store.h"

namespace credledger::service {

// What a command gave: the events it appended, or on a retried request id the ones it
// appended then (`replayed`); the fold of its streams after it (the current one on a replay);
// and the decider's note (default on a replay).
template <typename State, typename Note>
struct BusResult {
  std::vector<store::RecordedEvent> events;
  bool replayed = false;
  State state;
  Note note{};
};

template <typename Decider>
class CommandBus {
 public:
  using Command = typename Decider::Command;
  using Context = typename Decider::Context;
  using State = typename Decider::State;
  using Result = BusResult<State, typename Decider::Note>;

  // `store` is not owned and must outlive the bus.
  explicit CommandBus(store::EventStore* store, Decider decider = Decider())
      : store_(store), decider_(std::move(decider)) {}

  // The store the bus appends to.
  store::EventStore* store() const { return store_; }

  // Runs `command` on behalf of the context's actor under its request id.
  // Errors: the decider's; kInvalidArgument for an empty request id; kFailedPrecondition when
  // the request id was already used for another command, stream or request
  // (FindPriorRequest); kDataLoss when a stored event does not decode; store errors (kAborted
  // on a concurrent append, kUnavailable when the log cannot be written). Nothing is
  // appended on error.
  absl::StatusOr<Result> Execute(const Command& command, const Context& context) {
    const BusStreams streams = decider_.Streams(command, context);
    const std::string scope = decider_.FoldScope(context);
    const std::string name = decider_.Name(command);
    RETURN_IF_ERROR(decider_.Prepare(*store_, command, context));
    Result result;
    Fold<State> fold;
    std::optional<typename Decider::Reads> reads;
    RETURN_IF_ERROR(store_->Execute([&](store::WriteTransaction& tx) -> absl::Status {
      result = Result();
      const StreamReader reader = InTransaction(tx);
      ASSIGN_OR_RETURN(reads, decider_.Open(tx, command, context));
      ASSIGN_OR_RETURN(fold,
                       Load(streams, scope, reader, decider_.SideInputs(*reads, context), context));
      const std::string request_id = decider_.RequestId(context, fold.state);
      if (request_id.empty()) {
        return absl::InvalidArgumentError("request_id: required on every mutating call");
      }
      ASSIGN_OR_RETURN(auto prior, FindPriorRequest(tx, request_id, context.request_digest,
                                                    streams.addressed, name));
      if (prior.has_value()) {
        result.events = *std::move(prior);
        result.replayed = true;
        return absl::OkStatus();
      }
      ASSIGN_OR_RETURN(auto decision, decider_.Decide(command, fold.state, context, *reads));
      result.note = std::move(decision.note);
      ASSIGN_OR_RETURN(
          store::AppendRequest request,
          Encode(streams, fold, decision.appends,
                 CommandMetadata(context.actor, request_id, context.request_digest, name)));
      if (!request.streams.empty()) {
        ASSIGN_OR_RETURN(store::AppendResult appended, tx.Append(request));
        RETURN_IF_ERROR(FoldAppended(fold, streams.folded, appended.events, Evolver(context)));
        RETURN_IF_ERROR(decider_.Appended(*reads, appended.events));
        result.events = std::move(appended.events);
      }
      return absl::OkStatus();
    }));
    // The batch is durable: what the command read and appended may be kept. The copies are
    // made here, outside the writer.
    decider_.Publish(*reads);
    folds_.Publish(streams.addressed, scope, fold);
    result.state = std::move(fold.state);
    return result;
  }

  // The events an earlier request with the context's request id appended for `command`;
  // nullopt when none, so Execute would decide anew. Lets callers skip work done only for new
  // commands (an access review, a source check). Errors: FindPriorRequest's; store errors.
  absl::StatusOr<std::optional<std::vector<store::RecordedEvent>>> FindAnswer(
      const Command& command, const Context& context) {
    const std::string addressed = decider_.Streams(command, context).addressed;
    std::optional<std::vector<store::RecordedEvent>> prior;
    RETURN_IF_ERROR(store_->Execute([&](store::WriteTransaction& tx) -> absl::Status {
      ASSIGN_OR_RETURN(prior, FindPriorRequest(tx, context.request_id, context.request_digest,
                                               addressed, decider_.Name(command)));
      return absl::OkStatus();
    }));
    return prior;
  }

  // The State `command` would be decided against for `context`, folded inside `tx`, a
  // transaction of another bus's command, from the kept fold and without side inputs; nothing
  // is kept. Lets one kind read another's state (a liveness batch the states of its Targets).
  // Errors: kDataLoss when an event does not decode; store read errors.
  absl::StatusOr<State> FoldIn(store::WriteTransaction& tx, const Context& context,
                               const Command& command = Command()) const {
    ASSIGN_OR_RETURN(Fold<State> fold,
                     Load(decider_.Streams(command, context), decider_.FoldScope(context),
                          InTransaction(tx), {}, context));
    return std::move(fold.state);
  }

  // Reads (paged, outside any command) and folds the streams `command` would fold for
  // `context`, without side inputs; a default State when they have no events.
  // Errors: kDataLoss when an event does not decode; store read errors.
  absl::StatusOr<State> LoadState(const Context& context, const Command& command = Command()) {
    const BusStreams streams = decider_.Streams(command, context);
    const std::string scope = decider_.FoldScope(context);
    const StreamReader reader{[this](const std::string& stream, int64_t from) {
                                return store_->ReadStream(stream, from, kPageLimit);
                              },
                              nullptr, kPageLimit};
    ASSIGN_OR_RETURN(Fold<State> fold, Load(streams, scope, reader, {}, context));
    folds_.Publish(streams.addressed, scope, fold);
    return std::move(fold.state);
  }

 private:
  static constexpr int kPageLimit = 512;

  static StreamReader InTransaction(store::WriteTransaction& tx) {
    return {[&tx](const std::string& stream, int64_t from) { return tx.ReadStream(stream, from); },
            [&tx](const std::string& stream) { return tx.StreamVersion(stream); }, 0};
  }

  // Folds one recorded event into a State with the decider's Evolve.
  auto Evolver(const Context& context) const {
    return [this, &context](State& state, const store::RecordedEvent& recorded) -> absl::Status {
      ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
      // Evolve may take from the event: it is decoded for this call alone.
      decider_.Evolve(
          state, event,
          {recorded.seq, recorded.stream_version, absl::FromUnixMicros(recorded.recorded_at_us)},
          context);
      return absl::OkStatus();
    };
  }

  // The fold of `streams` as `reader` sees it, from the fold kept for the addressed stream.
  absl::StatusOr<Fold<State>> Load(const BusStreams& streams, const std::string& scope,
                                   const StreamReader& reader, std::vector<SideInput<State>> side,
                                   const Context& context) const {
    return AdvanceFold(folds_.Kept(streams.addressed, scope), streams.folded, reader,
                       std::move(side), Evolver(context));
  }

  // The append of `appends` with `metadata`: each folded stream under the version `fold`
  // holds, any other under ExpectedVersion::Any; streams without events are left out. Each
  // event's causation seq is the decider's, from the fold.
  absl::StatusOr<store::AppendRequest> Encode(const BusStreams& streams, const Fold<State>& fold,
                                              const std::vector<StreamEvents>& appends,
                                              v1::EventMetadata metadata) const {
    store::AppendRequest request{metadata.request_id(), {}};
    for (const StreamEvents& append : appends) {
      if (append.events.empty()) continue;
      store::StreamAppend& out = request.streams.emplace_back();
      out.stream = append.stream;
      for (size_t i = 0; i < streams.folded.size(); ++i) {
        if (streams.folded[i].name != append.stream) continue;
        const StreamPosition& position = fold.positions[i];
        out.expected = position.version < 0 ? store::ExpectedVersion::NoStream()
                                            : store::ExpectedVersion::Exactly(position.version);
      }
      for (const v1::Event& event : append.events) {
        metadata.set_correlation_id(CorrelationIdOf(event));
        metadata.set_causation_seq(decider_.CausationSeq(fold.state, event));
        ASSIGN_OR_RETURN(out.events.emplace_back(),
                         store::EventCodec::Default().Encode(event, metadata));
      }
    }
    return request;
  }

  store::EventStore* const store_;
  const Decider decider_;
  FoldCache<State> folds_;
};

}  // namespace credledger::service
