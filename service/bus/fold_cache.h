// The validated fold cache of the command bus (docs/architecture.md, "One command bus"): per
// addressed stream, the fold its last command left, and the position (stream_version,
// stream_hash) of the last event it includes from each folded stream, so the next command
// folds only the events after them.
//
// A kept fold is used only when the event at each of its positions is still stored with the
// same stream hash (the hash chain of docs/log-format.md makes that a check of the whole
// prefix); otherwise every folded stream is refolded from its start. Events of several
// streams and side inputs are folded in seq order. Only folds of durable transactions are
// kept (the bus publishes after the store reports the batch durable).
//
// Memory: one Fold per addressed stream commanded or loaded.
// Thread-safety: FoldCache's methods are thread-safe; the functions are stateless.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/status_macros.h"
#include "service/bus/bus_decider.h"
#include "store/event_store.h"

namespace credledger::service {

// The position of the last event of a stream that a fold includes.
struct StreamPosition {
  int64_t version = -1;     // -1: none
  std::string stream_hash;  // 32 raw bytes; empty when version is -1
};

// A State folded from some streams as of a point of the log.
template <typename State>
struct Fold {
  State state;
  std::vector<StreamPosition> positions;  // one per folded stream, in BusStreams order
  int64_t seq = 0;                        // the highest seq folded; 0 when nothing
};

// How a fold reads a stream: inside a transaction (`page_limit` 0: `read` returns every event
// from a version on; `version` gives a stream's last stream_version) or through committed,
// paged reads (`read` returns at most `page_limit` events; no `version`).
struct StreamReader {
  std::function<absl::StatusOr<std::vector<store::RecordedEvent>>(const std::string& stream,
                                                                  int64_t from_version)>
      read;
  std::function<absl::StatusOr<int64_t>(const std::string& stream)> version;
  int page_limit = 0;
};

// Every event of `stream` from `from_version` on, page after page.
// Errors: the reader's.
absl::StatusOr<std::vector<store::RecordedEvent>> ReadStreamFrom(const StreamReader& reader,
                                                                 const std::string& stream,
                                                                 int64_t from_version);

// The events of `stream` after `position`, or nullopt when the stored event at
// `position.version` is missing or has another stream hash (a fold not of this log). From a
// position of none: every event, or for a `last_event_only` stream read in a transaction
// only its last one. Errors: the reader's.
absl::StatusOr<std::optional<std::vector<store::RecordedEvent>>> ReadAfter(
    const StreamReader& reader, const FoldedStream& stream, const StreamPosition& position);

// `fold` advanced over the events of `streams` after its positions and the `side` inputs
// after its seq, all in seq order; refolded from an empty fold when a position does not
// match. `evolve(State&, const store::RecordedEvent&)` folds one event.
// Errors: the reader's; evolve's (kDataLoss when an event does not decode).
template <typename State, typename EvolveFn>
absl::StatusOr<Fold<State>> AdvanceFold(Fold<State> fold, const std::vector<FoldedStream>& streams,
                                        const StreamReader& reader,
                                        std::vector<SideInput<State>> side,
                                        const EvolveFn& evolve) {
  if (fold.positions.size() != streams.size()) fold = Fold<State>();
  fold.positions.resize(streams.size());
  std::vector<store::RecordedEvent> fresh;
  for (size_t i = 0; i < streams.size(); ++i) {
    ASSIGN_OR_RETURN(auto after, ReadAfter(reader, streams[i], fold.positions[i]));
    if (!after.has_value()) {
      return AdvanceFold(Fold<State>(), streams, reader, std::move(side), evolve);
    }
    std::move(after->begin(), after->end(), std::back_inserter(fresh));
  }
  std::stable_sort(fresh.begin(), fresh.end(),
                   [](const auto& a, const auto& b) { return a.seq < b.seq; });
  std::erase_if(side, [&](const SideInput<State>& input) { return input.seq <= fold.seq; });
  std::stable_sort(side.begin(), side.end(),
                   [](const auto& a, const auto& b) { return a.seq < b.seq; });
  size_t s = 0;
  for (const store::RecordedEvent& event : fresh) {
    for (; s < side.size() && side[s].seq < event.seq; ++s) side[s].apply(fold.state);
    RETURN_IF_ERROR(evolve(fold.state, event));
    for (size_t i = 0; i < streams.size(); ++i) {
      if (streams[i].name == event.stream) {
        fold.positions[i] = {event.stream_version, event.stream_hash};
      }
    }
    fold.seq = std::max(fold.seq, event.seq);
  }
  for (; s < side.size(); ++s) {
    side[s].apply(fold.state);
    fold.seq = std::max(fold.seq, side[s].seq);
  }
  return fold;
}

// Folds `appended` (the events one append wrote, in seq order) of the `streams` into `fold`;
// events of other streams are left out. Errors: evolve's.
template <typename State, typename EvolveFn>
absl::Status FoldAppended(Fold<State>& fold, const std::vector<FoldedStream>& streams,
                          const std::vector<store::RecordedEvent>& appended,
                          const EvolveFn& evolve) {
  for (const store::RecordedEvent& event : appended) {
    for (size_t i = 0; i < streams.size(); ++i) {
      if (streams[i].name != event.stream) continue;
      RETURN_IF_ERROR(evolve(fold.state, event));
      fold.positions[i] = {event.stream_version, event.stream_hash};
      fold.seq = std::max(fold.seq, event.seq);
    }
  }
  return absl::OkStatus();
}

// The kept folds of one bus, by addressed stream, all under one scope.
template <typename State>
class FoldCache {
 public:
  // The fold kept for `key` under `scope`; an empty fold when none.
  Fold<State> Kept(const std::string& key, const std::string& scope) const {
    absl::MutexLock lock(&mu_);
    if (scope != scope_) return Fold<State>();
    auto it = folds_.find(key);
    return it == folds_.end() ? Fold<State>() : it->second;
  }

  // Keeps `fold` for `key` unless a fold of the same or a later seq is kept already (a fold
  // of the same seq is the same fold: nothing is copied); a new `scope` drops every fold kept
  // under the old one. A fold of nothing is not kept.
  // REQUIRES: every event in `fold` is durable.
  void Publish(const std::string& key, const std::string& scope, const Fold<State>& fold) {
    if (fold.seq == 0) return;
    absl::MutexLock lock(&mu_);
    if (scope != scope_) {
      folds_.clear();
      scope_ = scope;
    }
    auto [it, inserted] = folds_.try_emplace(key, fold);
    if (!inserted && it->second.seq < fold.seq) it->second = fold;
  }

 private:
  mutable absl::Mutex mu_;
  std::string scope_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Fold<State>> folds_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::service
