// CredentialProjector: keeps a CredentialProjection current by following the log, writes a
// snapshot every `snapshot_every` events, and tells listeners about every changed Target
// (DESIGN section 4).
//
// Start loads the newest snapshot, catches up to the head synchronously (so a started
// projector answers reads at least as fresh as the log was at start), then follows live.
// It keeps the last `change_history` Target changes so that watchers can resume by seq.
//
// Thread-safety: all methods are thread-safe. Listeners run on the projector's thread, in
// seq order, and must not block.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "projections/credential_projection.h"
#include "store/event_store.h"
#include "store/subscription.h"

namespace credledger::projections {

// One Target as of the event at `seq`.
struct TargetChange {
  int64_t seq = 0;
  v1::TargetState state;
};

class CredentialProjector {
 public:
  struct Options {
    int64_t snapshot_every = 1000;  // events between snapshots; 0 disables them
    size_t change_history = 10000;  // Target changes kept for resuming watchers
  };
  using Listener = std::function<void(const TargetChange&)>;

  // `store` is not owned and must outlive the projector.
  // Errors: kDataLoss for an undecodable event or snapshot; store read errors.
  static absl::StatusOr<std::unique_ptr<CredentialProjector>> Start(store::EventStore* store,
                                                                    Options options);
  ~CredentialProjector();

  std::optional<v1::TargetState> Get(absl::string_view target_namespace,
                                     absl::string_view name) const;
  // See CredentialProjection::List. `seq` receives the position the list is consistent with.
  std::vector<v1::TargetState> List(absl::string_view target_namespace, bool include_finalized,
                                    int64_t* seq) const;
  v1::ServiceConfigured service() const;
  int64_t seq() const;
  // Blocks until seq() >= `seq` or `timeout`; true when reached.
  bool WaitForSeq(int64_t seq, absl::Duration timeout) const;
  // OK while following; the error that stopped the projector otherwise.
  absl::Status status() const;

  // Registers `listener` and, atomically with it, returns the changes after `after_seq`
  // (from the kept history) so that a watcher misses nothing.
  // Errors: kOutOfRange when changes after `after_seq` are no longer kept.
  absl::StatusOr<std::vector<TargetChange>> Listen(int64_t after_seq, int* listener_id,
                                                   Listener listener);
  void RemoveListener(int listener_id);

  // The projection as of `seq` (from the nearest earlier snapshot plus the events after it).
  // Errors: kDataLoss for undecodable events or snapshots; store read errors.
  static absl::StatusOr<CredentialProjection> AsOf(store::EventStore* store, int64_t seq);

 private:
  CredentialProjector(store::EventStore* store, Options options, CredentialProjection p);
  absl::Status ApplyOne(const store::RecordedEvent& event);

  store::EventStore* store_;
  const Options options_;
  mutable absl::Mutex mu_;
  CredentialProjection projection_ ABSL_GUARDED_BY(mu_);
  std::deque<TargetChange> history_ ABSL_GUARDED_BY(mu_);
  // Changes at or before this seq are not in history_ (dropped, or before Start).
  int64_t forgotten_through_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int, Listener> listeners_ ABSL_GUARDED_BY(mu_);
  int next_listener_ ABSL_GUARDED_BY(mu_) = 1;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<store::Subscription> subscription_;
};

// Folds the log from `projection.seq()` up to `until_seq` (inclusive) into `projection`,
// page by page. Errors: kDataLoss for undecodable events; store read errors.
absl::Status CatchUp(store::EventStore& store, int64_t until_seq,
                     CredentialProjection& projection);

}  // namespace credledger::projections
