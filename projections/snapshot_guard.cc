#include "projections/snapshot_guard.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_macros.h"

namespace credledger::projections {

absl::Status SnapshotGuard::Save(store::EventStore& store, store::Snapshot snapshot,
                                 absl::string_view chain_hash) const {
  RETURN_IF_ERROR(seal_->Seal(chain_hash, snapshot));
  return store.SaveSnapshot(std::move(snapshot));
}

absl::StatusOr<std::optional<store::Snapshot>> SnapshotGuard::LoadNewestVerified(
    store::EventStore& store, absl::string_view projection, int64_t max_seq) {
  for (int64_t below = max_seq;;) {
    ASSIGN_OR_RETURN(std::optional<store::Snapshot> snapshot,
                     store.LoadSnapshot(projection, below));
    if (!snapshot.has_value()) return snapshot;
    ASSIGN_OR_RETURN(std::optional<store::RecordedEvent> event, store.ReadEvent(snapshot->seq));
    absl::Status checked =
        seal_->Check(*snapshot, event.has_value() ? event->chain_hash : std::string());
    if (checked.ok()) return snapshot;
    common::Log(common::LogLevel::kWarning,
                "projection snapshot refused: it does not verify; folding from an earlier one",
                {{"projection", std::string(projection)},
                 {"seq", absl::StrCat(snapshot->seq)},
                 {"reason", std::string(checked.message())}});
    {
      absl::MutexLock lock(&mu_);
      ++rejected_[std::string(projection)];
    }
    below = snapshot->seq - 1;
  }
}

std::map<std::string, int64_t> SnapshotGuard::Rejected() const {
  absl::MutexLock lock(&mu_);
  return rejected_;
}

}  // namespace credledger::projections
