// NamedStreamProjection: a read model of one kind of named stream (`cluster/<name>`,
// `identity/<name>`), each stream folded into its own state (docs/design.md, "Projections").
// Pure: Apply takes stored events in seq order and does no I/O. ClusterProjection and
// IdentityProjection are built on it.
//
// Serialize gives a deterministic byte string (a fleet message holding the states ordered by
// name, then the seq), so a full rebuild from seq 1 and the incremental path can be compared
// byte for byte, and snapshots can be stored and loaded.
//
// `Derived` is the projection class itself (Deserialize returns one). `Streams` describes the
// stream kind:
//   using State = ...;   // the state message of one stream; has name() and set_name()
//   using Fleet = ...;   // the snapshot message: seq and a repeated State
//   static constexpr absl::string_view kPrefix;  // "cluster/"
//   static constexpr absl::string_view kKind;    // "cluster", for error messages
//   static void Evolve(State&, const v1::Event&, const EventPosition&);
//   static bool IsActive(const State&);
//   static google::protobuf::RepeatedPtrField<State>* States(Fleet&);
//
// Thread-safety: not thread-safe; the projector wraps it with a lock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "store/event_codec.h"
#include "store/event_store.h"

namespace credledger::projections {

template <typename Derived, typename Streams>
class NamedStreamProjection {
 public:
  using State = typename Streams::State;

  // Folds `event`. REQUIRES: event.seq == seq() + 1 (events in log order, none skipped).
  // Returns the stream names that changed: the event's own stream when it is one of these
  // streams, nothing otherwise. Events of other streams are not decoded.
  // Errors: kDataLoss when the event is out of order or one of these streams' events does not
  // decode (nothing changes).
  absl::StatusOr<std::vector<std::string>> Apply(const store::RecordedEvent& recorded) {
    if (recorded.seq != seq_ + 1) {
      return absl::DataLossError(absl::StrCat(Streams::kKind, " projection at seq ", seq_,
                                              " was handed seq ", recorded.seq));
    }
    std::vector<std::string> changed;
    if (!absl::StartsWith(recorded.stream, Streams::kPrefix)) {
      seq_ = recorded.seq;
      return changed;
    }
    absl::StatusOr<v1::Event> event = store::EventCodec::Default().Decode(recorded);
    if (!event.ok()) return event.status();
    seq_ = recorded.seq;
    const std::string name = recorded.stream.substr(Streams::kPrefix.size());
    State& state = states_[name];
    // The stream names the state even before (or without) its creating event, so that a
    // snapshot keeps every stream under its name.
    if (state.name().empty()) state.set_name(name);
    Streams::Evolve(
        state, *event,
        {recorded.seq, recorded.stream_version, absl::FromUnixMicros(recorded.recorded_at_us)});
    changed.push_back(recorded.stream);
    return changed;
  }

  // One state by name; nullopt when its stream has no events.
  std::optional<State> GetByName(absl::string_view name) const {
    auto it = states_.find(name);
    if (it == states_.end()) return std::nullopt;
    return it->second;
  }
  // Projector<P>'s lookup (projector.h). These streams are not namespaced: `ns` is ignored.
  std::optional<State> Get(absl::string_view /*ns*/, absl::string_view name) const {
    return GetByName(name);
  }
  // One state by stream name ("<prefix><name>"); nullopt for other streams.
  std::optional<State> GetStream(absl::string_view stream) const {
    if (!absl::ConsumePrefix(&stream, Streams::kPrefix)) return std::nullopt;
    return GetByName(stream);
  }
  // States ordered by name: the active ones, and also the others (ended, or without a
  // creating event) when `include_inactive`.
  std::vector<State> List(bool include_inactive) const {
    std::vector<State> out;
    for (const auto& [name, state] : states_) {
      if (include_inactive || Streams::IsActive(state)) out.push_back(state);
    }
    return out;
  }
  // Calls `visit` for every active state, ordered by name, without copying it.
  void ForEachActive(const std::function<void(const State&)>& visit) const {
    for (const auto& [name, state] : states_) {
      if (Streams::IsActive(state)) visit(state);
    }
  }
  // The seq of the last event folded; 0 for none.
  int64_t seq() const { return seq_; }

  // Deterministic serialization (a Streams::Fleet).
  std::string Serialize() const {
    typename Streams::Fleet fleet;
    fleet.set_seq(seq_);
    for (const auto& [name, state] : states_) *Streams::States(fleet)->Add() = state;
    return store::SerializeDeterministic(fleet);
  }
  // Rebuilds a projection from Serialize output. Errors: kDataLoss when it does not parse.
  static absl::StatusOr<Derived> Deserialize(absl::string_view bytes) {
    typename Streams::Fleet fleet;
    if (!fleet.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return absl::DataLossError(
          absl::StrCat(Streams::kKind, " projection snapshot does not parse"));
    }
    Derived derived;
    NamedStreamProjection& p = derived;
    p.seq_ = fleet.seq();
    for (State& state : *Streams::States(fleet)) {
      std::string name = state.name();
      p.states_[std::move(name)] = std::move(state);
    }
    return derived;
  }

 private:
  std::map<std::string, State, std::less<>> states_;  // by name
  int64_t seq_ = 0;
};

}  // namespace credledger::projections
