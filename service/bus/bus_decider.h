// The one interface through which CommandBus<Decider> (service/bus/command_bus.h) runs a kind of
// stream (docs/design.md, "Deciders"; docs/architecture.md, "One command bus").
//
// A bus decider adapts a pure decider of service/decide to the bus: it names the streams a
// command addresses and reads, folds their events, and decides. It derives from
// BusDeciderDefaults<State> and provides:
//
//   using Command, Context, State;      Context has actor, request_id and request_digest.
//   BusStreams Streams(const Command&, const Context&) const;
//   void Evolve(State&, v1::Event&, const projections::EventPosition&,
//               const Context&) const;  folds one event of a folded stream (seq order);
//                                       the event is decoded for it and may be taken from
//   std::string Name(const Command&) const;  the command's name, recorded in the metadata
//   absl::StatusOr<Decision<Note>> Decide(const Command&, const State&, const Context&,
//                                         Reads&) const;  pure but for what Reads holds
//
// and may replace the defaults of BusDeciderDefaults, each a parameter a kind needs:
//   Note     what a decision says beyond its events (the report decider's heartbeat);
//   Reads    what a command reads beside its folds, opened inside the transaction (Open)
//            and kept once the batch is durable (Publish): the report decider's liveness
//            view, and the states of the Targets a liveness batch names, which it folds
//            through the Target bus (CommandBus::FoldIn);
//   Prepare  reads before the transaction, outside the writer (the liveness index's first
//            catch-up);
//   SideInputs  inputs from outside the folded streams merged into the fold at their seq
//            (a Target's newest liveness entry);
//   Appended what the decider's Reads take in of the events a command appended;
//   FoldScope  folds kept under another scope are dropped (the service configuration a
//            Target's state depends on);
//   RequestId  the request id of a command whose id names its stream position (the service's
//            configuration and refused-call records); by default the context's;
//   CausationSeq  the seq of the event that caused an appended one, from the fold the command
//            was decided against (a Secret deletion a revocation brought about); 0 by default.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "store/event_store.h"

namespace credledger::service {

// A stream a command folds. `last_event_only`: only the stream's last event (and the events
// after a kept fold) are folded, for streams whose state is their last event, such as
// `service`; otherwise every event from the stream's start.
struct FoldedStream {
  std::string name;
  bool last_event_only = false;
};

// The streams of one command: `addressed` is the stream its request id is checked against
// (its events are looked up there on a retry) and under whose name its fold is kept; `folded`
// are the streams folded into its State, `addressed` among them or not. A command appends
// to a folded stream under the version it folded (ExpectedVersion::Exactly, or NoStream when
// the stream had no events), and to any other stream under ExpectedVersion::Any: shared
// append-only streams (`liveness`) and streams whose state no decision reads (`source/...`).
struct BusStreams {
  std::string addressed;
  std::vector<FoldedStream> folded;
};

// The events decided for one stream, in append order.
struct StreamEvents {
  std::string stream;
  std::vector<v1::Event> events;
};

// A decision: the events of each stream, appended together in one atomic append (nothing
// when every list is empty), and the decider's note.
template <typename Note>
struct Decision {
  std::vector<StreamEvents> appends;
  Note note{};
};

// The note of deciders that say nothing beyond their events.
struct NoNote {};

// The reads of deciders that read nothing beside their folds.
struct NoReads {};

// An input from outside the folded streams, applied to a fold at log position `seq`.
template <typename State>
struct SideInput {
  int64_t seq = 0;
  std::function<void(State&)> apply;
};

// The defaults of a bus decider's optional parameters (see the file comment). A decider that
// sets its own Reads provides Open, SideInputs, Appended and Publish for it.
template <typename State>
struct BusDeciderDefaults {
  using Note = NoNote;
  using Reads = NoReads;

  template <typename Command, typename Context>
  absl::Status Prepare(store::EventStore&, const Command&, const Context&) const {
    return absl::OkStatus();
  }
  template <typename Command, typename Context>
  absl::StatusOr<NoReads> Open(store::WriteTransaction&, const Command&, const Context&) const {
    return NoReads();
  }
  template <typename Context>
  std::vector<SideInput<State>> SideInputs(const NoReads&, const Context&) const {
    return {};
  }
  absl::Status Appended(NoReads&, const std::vector<store::RecordedEvent>&) const {
    return absl::OkStatus();
  }
  void Publish(const NoReads&) const {}
  template <typename Context>
  std::string FoldScope(const Context&) const {
    return "";
  }
  template <typename Context>
  std::string RequestId(const Context& context, const State&) const {
    return context.request_id;
  }
  int64_t CausationSeq(const State&, const v1::Event&) const { return 0; }
};

}  // namespace credledger::service
