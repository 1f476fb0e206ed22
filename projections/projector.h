// Projector<P>: keeps a read model P current by following the log, writes a sealed snapshot
// every `snapshot_every` events, and tells listeners about every changed item (docs/design.md,
// "Snapshots" and "As-of replay"; docs/audit.md, "Snapshots"). The credential and status
// projectors (credential_projector.h, status_projector.h) are this template over their
// projection. Snapshots are written and loaded only through a SnapshotGuard
// (snapshot_guard.h), which loads none that does not verify; without one, none is written or
// loaded and every fold starts from seq 1.
//
// Follow (run once by a subclass's Start) loads the newest verified snapshot, catches up to
// the head synchronously (so a started projector answers reads at least as fresh as the log
// was at start), compacts the projection (its states rest encoded from then on), then follows
// live. It keeps the last `change_history` item changes so that watchers can resume by seq.
//
// CatchUpTogether folds two projections in one pass over the log, one of them on the reading
// thread, and AsOfTogether answers "both projections as of seq" with it (audit as-of and diff).
//
// A projection type P provides: a default constructor; `Apply(const store::RecordedEvent&)`
// returning StatusOr<std::vector<std::string>> (the keys of the changed items; REQUIRES the
// event at seq() + 1); `int64_t seq() const`; `Get(namespace, name)` returning
// std::optional<State>; `std::string Serialize() const` (deterministic) and
// `static StatusOr<P> Deserialize(absl::string_view)`. ProjectionTraits<P> names the rest.
// A fold reads only the fields of store::EventFields::kForFolding: catching up reads no more
// (the live path hands over whole events).
//
// Thread-safety: all public methods are thread-safe. Listeners run on the projector's thread,
// in seq order, under the projector's lock: they must not block or call the projector.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/run_at_once.h"
#include "common/status_macros.h"
#include "projections/snapshot_guard.h"
#include "store/event_store.h"
#include "store/page_reader.h"
#include "store/subscription.h"

namespace credledger::projections {

// What Projector<P> needs to know about P; specialized next to each projector:
//   using State = ...;                    // one item of the read model (a proto message)
//   static constexpr char kName[];        // snapshot name in projection_snapshots
//   static constexpr uint32_t kVersion;   // state version; other versions are not loaded
//   static std::optional<State> GetByKey(const P&, const std::string& key);  // Apply's keys
template <typename P>
struct ProjectionTraits;

// One item as of the event at `seq`.
template <typename State>
struct ProjectionChange {
  int64_t seq = 0;
  State state;
};

// Folds `event` into `projection` for a fold read only when done: with ApplyDeferred when P
// has one (then Settle must follow, see status_projection.h), else with Fold (Apply without
// the list of changes) when P has one, else with Apply.
template <typename P>
absl::Status ApplyInBulk(P& projection, const store::RecordedEvent& event) {
  if constexpr (requires { projection.ApplyDeferred(event); }) {
    return projection.ApplyDeferred(event);
  } else if constexpr (requires { projection.Fold(event); }) {
    return projection.Fold(event);
  } else {
    return projection.Apply(event).status();
  }
}

// Threads a bulk fold's Settle may use at once: the catch-up's own and the one its reading
// thread ran on, idle once the log is read.
inline constexpr int kSettleThreads = 2;

// Ends a fold of ApplyInBulk calls: Settle when P has one, spread over kSettleThreads threads
// (common::RunAtOnce).
template <typename P>
absl::Status SettleBulk(P& projection) {
  if constexpr (requires { projection.Settle(kSettleThreads, common::RunAtOnce); }) {
    return projection.Settle(kSettleThreads, common::RunAtOnce);
  } else {
    return absl::OkStatus();
  }
}

// Ends a bulk fold whose projection is kept (a projector's start, from then on folding event by
// event): Compact when P has one (its states held decoded for the fold are encoded).
template <typename P>
void CompactBulk(P& projection) {
  if constexpr (requires { projection.Compact(); }) projection.Compact();
}

// Events per read of a catch-up.
inline constexpr int kCatchUpPage = 512;

// Folds the events of `page` after `projection.seq()` into it (ApplyInBulk). Errors: those
// of the fold.
template <typename P>
absl::Status FoldPage(P& projection, const std::vector<store::RecordedEvent>& page) {
  for (const store::RecordedEvent& e : page) {
    if (e.seq > projection.seq()) RETURN_IF_ERROR(ApplyInBulk(projection, e));
  }
  return absl::OkStatus();
}

// Folds the log from `projection.seq()` up to `until_seq` (inclusive; the head when the log
// is shorter) into `projection`, page by page with the next pages read meanwhile
// (store::PageReader; ApplyInBulk, then SettleBulk). Errors: kDataLoss for undecodable
// events; store read errors; kResourceExhausted when the reading thread cannot start.
template <typename P>
absl::Status CatchUp(store::EventStore& store, int64_t until_seq, P& projection) {
  if (projection.seq() >= until_seq) return absl::OkStatus();
  store::PageReader pages(&store, projection.seq(), until_seq, kCatchUpPage,
                          store::EventFields::kForFolding);
  std::vector<store::RecordedEvent> page;
  while (true) {
    RETURN_IF_ERROR(pages.Next(page));
    if (page.empty()) break;
    RETURN_IF_ERROR(FoldPage(projection, page));
  }
  return SettleBulk(projection);
}

// Folds the log up to `until_seq` (inclusive; the head when the log is shorter) into two
// projections in one pass: `first` on PageReader's reading thread as each page is read,
// `second` on the calling thread, so that the two folds run side by side (a rebuild, an
// as-of answer of both projections). Each projection starts after its own seq(); one already
// at or past `until_seq` is left as it is. REQUIRES: `first` and `second` are different
// objects. Errors: as CatchUp, from either fold (the other is then left part-way).
template <typename First, typename Second>
absl::Status CatchUpTogether(store::EventStore& store, int64_t until_seq, First& first,
                             Second& second) {
  const int64_t from = std::min(first.seq(), second.seq());
  if (from >= until_seq) return absl::OkStatus();
  {
    // The reader is gone (its last read and hook waited for) before `first` is touched here.
    store::PageReader pages(
        &store, from, until_seq, kCatchUpPage, store::EventFields::kForFolding,
        [&first](const std::vector<store::RecordedEvent>& page) { return FoldPage(first, page); });
    std::vector<store::RecordedEvent> page;
    while (true) {
      RETURN_IF_ERROR(pages.Next(page));
      if (page.empty()) break;
      RETURN_IF_ERROR(FoldPage(second, page));
    }
  }
  RETURN_IF_ERROR(SettleBulk(first));
  return SettleBulk(second);
}

template <typename P>
class Projector {
 public:
  using Traits = ProjectionTraits<P>;
  using State = typename Traits::State;
  using Change = ProjectionChange<State>;
  struct Options {
    int64_t snapshot_every = 1000;  // events between snapshots; 0 disables them
    size_t change_history = 10000;  // item changes kept for resuming watchers
    // Seals, writes and checks snapshots (not owned; must outlive the projector); null: no
    // snapshot is written or loaded.
    SnapshotGuard* snapshots = nullptr;
  };
  using Listener = std::function<void(const Change&)>;
  // Told only the key of each changed item (for a projection whose items are large, so that
  // no copy is made for it).
  using KeyListener = std::function<void(const std::string& key)>;

  ~Projector() {
    if (subscription_ != nullptr) subscription_->Stop();
  }
  Projector(const Projector&) = delete;
  Projector& operator=(const Projector&) = delete;

  // One item by namespace and name; nullopt when the projection has none.
  std::optional<State> Get(absl::string_view target_namespace, absl::string_view name) const {
    return Read([&](const P& p) { return p.Get(target_namespace, name); });
  }
  // The seq of the last event folded; 0 for none.
  int64_t seq() const {
    return Read([](const P& p) { return p.seq(); });
  }
  // Blocks until seq() >= `seq` or `timeout`; true when reached.
  bool WaitForSeq(int64_t seq, absl::Duration timeout) const {
    return subscription_->WaitForPosition(seq, timeout) || this->seq() >= seq;
  }
  // OK while following; the error that stopped the projector otherwise.
  absl::Status status() const {
    absl::ReaderMutexLock lock(&mu_);
    return status_;
  }

  // Registers `listener` and, atomically with it, returns the changes after `after_seq`
  // (from the kept history) so that a watcher misses nothing.
  // Errors: kOutOfRange when changes after `after_seq` are no longer kept (trimmed, or
  // before the projector started).
  absl::StatusOr<std::vector<Change>> Listen(int64_t after_seq, int* listener_id,
                                             Listener listener) {
    absl::MutexLock lock(&mu_);
    if (after_seq < forgotten_through_) {
      return absl::OutOfRangeError(absl::StrCat("changes up to seq ", forgotten_through_,
                                                " are no longer kept; list again"));
    }
    std::vector<Change> missed;
    for (const Change& c : history_) {
      if (c.seq > after_seq) missed.push_back(c);
    }
    *listener_id = next_listener_++;
    listeners_[*listener_id] = std::move(listener);
    return missed;
  }
  // Registers `listener` for the keys of items changed from now on (no history, no copy of
  // the items). Returns its id for RemoveListener.
  int AddKeyListener(KeyListener listener) {
    absl::MutexLock lock(&mu_);
    const int id = next_listener_++;
    key_listeners_[id] = std::move(listener);
    return id;
  }
  // Unregisters a listener (of either kind); no call of it starts after this returns.
  void RemoveListener(int listener_id) {
    absl::MutexLock lock(&mu_);
    listeners_.erase(listener_id);
    key_listeners_.erase(listener_id);
  }

  // The projection as of `seq`: from the nearest earlier snapshot that `snapshots` verifies
  // (from seq 1 when `snapshots` is null or none verifies) plus the events after it.
  // Errors: kDataLoss for undecodable events or snapshots; store read errors.
  static absl::StatusOr<P> AsOf(store::EventStore* store, int64_t seq, SnapshotGuard* snapshots) {
    ASSIGN_OR_RETURN(P projection, FromSnapshot(*store, seq, snapshots));
    RETURN_IF_ERROR(CatchUp(*store, seq, projection));
    return projection;
  }

  // The projection from the newest snapshot at or before `max_seq` that `snapshots`
  // verifies, when it has this state version; empty (seq 0) when there is none, it has
  // another version, or `snapshots` is null. Errors: kDataLoss when it does not parse; store
  // reads.
  static absl::StatusOr<P> FromSnapshot(store::EventStore& store, int64_t max_seq,
                                        SnapshotGuard* snapshots) {
    if (snapshots == nullptr) return P();
    ASSIGN_OR_RETURN(std::optional<store::Snapshot> snapshot,
                     snapshots->LoadNewestVerified(store, Traits::kName, max_seq));
    if (!snapshot.has_value() || snapshot->schema_version != Traits::kVersion) return P();
    return P::Deserialize(snapshot->state);
  }

 protected:
  // `store` is not owned and must outlive the projector.
  Projector(store::EventStore* store, Options options) : store_(store), options_(options) {}

  // Loads the newest verified snapshot, catches up to the head, compacts the projection
  // (CompactBulk) and starts following. Called once, right after construction.
  // Errors: kDataLoss for an undecodable event or snapshot; store read errors.
  absl::Status Follow() {
    ASSIGN_OR_RETURN(P projection, FromSnapshot(*store_, std::numeric_limits<int64_t>::max(),
                                                options_.snapshots));
    RETURN_IF_ERROR(CatchUp(*store_, store_->HeadSeq(), projection));
    CompactBulk(projection);
    const int64_t start = projection.seq();
    {
      absl::MutexLock lock(&mu_);
      projection_ = std::move(projection);
      forgotten_through_ = start;
    }
    subscription_ = std::make_unique<store::Subscription>(
        store_, start, [this](const store::RecordedEvent& e) { return ApplyOne(e); });
    return absl::OkStatus();
  }

  // Runs `read` on the projection under the lock, shared with other readers (folding takes
  // it exclusively), and returns its result. `read` must only read and must not call the
  // projector.
  template <typename F>
  auto Read(F&& read) const {
    absl::ReaderMutexLock lock(&mu_);
    return read(projection_);
  }

 private:
  absl::Status ApplyOne(const store::RecordedEvent& event) {
    std::string snapshot;
    {
      absl::MutexLock lock(&mu_);
      absl::StatusOr<std::vector<std::string>> changed = projection_.Apply(event);
      if (!changed.ok()) {
        status_ = changed.status();
        return status_;
      }
      // Items are copied only for change listeners and the history.
      const bool copy = !listeners_.empty() || options_.change_history > 0;
      for (const std::string& key : *changed) {
        for (auto& [id, listener] : key_listeners_) listener(key);
        if (!copy) {
          forgotten_through_ = event.seq;
          continue;
        }
        std::optional<State> state = Traits::GetByKey(projection_, key);
        if (!state.has_value()) continue;
        Change change{event.seq, *std::move(state)};
        history_.push_back(change);
        while (history_.size() > options_.change_history) {
          forgotten_through_ = history_.front().seq;
          history_.pop_front();
        }
        for (auto& [id, listener] : listeners_) listener(change);
      }
      if (options_.snapshots != nullptr && options_.snapshot_every > 0 &&
          event.seq % options_.snapshot_every == 0) {
        snapshot = projection_.Serialize();
      }
    }
    if (!snapshot.empty()) {
      // A failed snapshot costs only replay time at the next start; following goes on.
      options_.snapshots
          ->Save(*store_,
                 {.projection = Traits::kName,
                  .seq = event.seq,
                  .schema_version = Traits::kVersion,
                  .state = std::move(snapshot)},
                 event.chain_hash)
          .IgnoreError();
    }
    return absl::OkStatus();
  }

  store::EventStore* const store_;
  const Options options_;
  mutable absl::Mutex mu_;
  P projection_ ABSL_GUARDED_BY(mu_);
  std::deque<Change> history_ ABSL_GUARDED_BY(mu_);
  // Changes at or before this seq are not in history_ (dropped, or before Follow).
  int64_t forgotten_through_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int, Listener> listeners_ ABSL_GUARDED_BY(mu_);
  std::map<int, KeyListener> key_listeners_ ABSL_GUARDED_BY(mu_);
  int next_listener_ ABSL_GUARDED_BY(mu_) = 1;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<store::Subscription> subscription_;
};

// Two projections as of `seq`, each from its own newest snapshot at or before `seq` that
// `snapshots` verifies (from seq 1 when `snapshots` is null), caught up in one pass side by
// side (CatchUpTogether; `First` on the reading thread). Errors as Projector<P>::AsOf.
template <typename First, typename Second>
absl::StatusOr<std::pair<First, Second>> AsOfTogether(store::EventStore* store, int64_t seq,
                                                      SnapshotGuard* snapshots) {
  ASSIGN_OR_RETURN(First first, Projector<First>::FromSnapshot(*store, seq, snapshots));
  ASSIGN_OR_RETURN(Second second, Projector<Second>::FromSnapshot(*store, seq, snapshots));
  RETURN_IF_ERROR(CatchUpTogether(*store, seq, first, second));
  return std::pair<First, Second>(std::move(first), std::move(second));
}

}  // namespace credledger::projections
