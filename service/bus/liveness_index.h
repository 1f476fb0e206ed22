// LivenessIndex: the newest heartbeat of every Target recorded in stream `liveness`
// (LivenessObserved batches; docs/reports.md, "Liveness and staleness"), for the report command
// bus.
//
// The index holds only what durable events say: it is filled from committed reads
// (CatchUp) and from views whose transaction the store reported durable (Publish). A
// transaction reads it through a View: the index plus the stream's events after the index's
// position, read inside the transaction, so a decision sees every liveness entry before it.
// The index's position (stream_version and stream_hash of its last event) is checked
// against the stream by the hash chain (stream_hash = SHA-256(previous stream_hash ||
// digest), docs/log-format.md); a position the stream does not continue makes the View
// reread the whole stream.
//
// Memory: one entry per Target that ever sent a heartbeat.
// Thread-safety: all methods are thread-safe; a View is used by one transaction.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "credledger/v1/events.pb.h"
#include "projections/target_state.h"
#include "service/bus/fold_cache.h"
#include "store/event_store.h"

namespace credledger::service {

class LivenessIndex {
 public:
  // A Target's newest liveness entry and the position of the LivenessObserved holding it.
  struct Seen {
    v1::LivenessEntry entry;
    projections::EventPosition at;
  };

  // The index as one transaction sees it.
  class View {
   public:
    // The newest entry of Target <target_namespace>/<name> in this view; nullopt when none.
    std::optional<Seen> Find(absl::string_view target_namespace, absl::string_view name) const;
    // Adds a LivenessObserved this transaction read or appended, after the view's end.
    // Errors: kDataLoss when the event does not decode.
    absl::Status Add(const store::RecordedEvent& event);

   private:
    friend class LivenessIndex;
    explicit View(const LivenessIndex* index) : index_(index) {}

    const LivenessIndex* index_;
    StreamPosition base_;    // the index's position the tail continues
    StreamPosition end_;     // the last event of the view
    bool replaces_ = false;  // the tail is the whole stream and replaces the index
    std::map<std::pair<std::string, std::string>, Seen> tail_;
  };

  // Reads, once per index, the events after its position through committed, paged reads
  // (outside any transaction): a process's first command reads the stream here instead of
  // inside the writer. Errors: store read errors; kDataLoss when an event does not decode.
  absl::Status CatchUp(store::EventStore& store);

  // The view of `tx`: the index plus the stream's events after its position.
  // Errors: store read errors; kDataLoss when an event does not decode.
  absl::StatusOr<View> Open(store::WriteTransaction& tx) const;

  // Takes in what `view` read or added. REQUIRES: the view's transaction is durable.
  void Publish(const View& view);

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, name

  // Merges `tail` into `newest_` at position `end`.
  void MergeLocked(const std::map<Key, Seen>& tail, const StreamPosition& end)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  bool caught_up_ ABSL_GUARDED_BY(mu_) = false;
  StreamPosition position_ ABSL_GUARDED_BY(mu_);
  std::map<Key, Seen> newest_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::service
