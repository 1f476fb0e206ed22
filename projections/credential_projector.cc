#include "projections/credential_projector.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace credledger::projections {
namespace {

constexpr int kPage = 512;

absl::StatusOr<CredentialProjection> FromSnapshot(store::EventStore& store, int64_t max_seq) {
  ASSIGN_OR_RETURN(std::optional<store::Snapshot> snapshot,
                   store.LoadSnapshot(kCredentialProjectionName, max_seq));
  if (!snapshot.has_value() || snapshot->schema_version != kCredentialProjectionVersion) {
    return CredentialProjection();
  }
  return CredentialProjection::Deserialize(snapshot->state);
}

}  // namespace

absl::Status CatchUp(store::EventStore& store, int64_t until_seq,
                     CredentialProjection& projection) {
  while (projection.seq() < until_seq) {
    ASSIGN_OR_RETURN(auto page, store.ReadAll(projection.seq(), kPage));
    if (page.empty()) break;
    for (const store::RecordedEvent& e : page) {
      if (e.seq > until_seq) return absl::OkStatus();
      RETURN_IF_ERROR(projection.Apply(e).status());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CredentialProjection> CredentialProjector::AsOf(store::EventStore* store,
                                                               int64_t seq) {
  ASSIGN_OR_RETURN(CredentialProjection projection, FromSnapshot(*store, seq));
  RETURN_IF_ERROR(CatchUp(*store, seq, projection));
  return projection;
}

absl::StatusOr<std::unique_ptr<CredentialProjector>> CredentialProjector::Start(
    store::EventStore* store, Options options) {
  ASSIGN_OR_RETURN(CredentialProjection projection,
                   FromSnapshot(*store, std::numeric_limits<int64_t>::max()));
  RETURN_IF_ERROR(CatchUp(*store, store->HeadSeq(), projection));
  auto projector = std::unique_ptr<CredentialProjector>(
      new CredentialProjector(store, options, std::move(projection)));
  CredentialProjector* p = projector.get();
  int64_t start;
  {
    absl::MutexLock lock(&p->mu_);
    start = p->projection_.seq();
  }
  p->subscription_ = std::make_unique<store::Subscription>(
      store, start, [p](const store::RecordedEvent& e) { return p->ApplyOne(e); });
  return projector;
}

CredentialProjector::CredentialProjector(store::EventStore* store, Options options,
                                         CredentialProjection p)
    : store_(store), options_(options), projection_(std::move(p)) {
  forgotten_through_ = projection_.seq();
}

CredentialProjector::~CredentialProjector() {
  if (subscription_ != nullptr) subscription_->Stop();
}

absl::Status CredentialProjector::ApplyOne(const store::RecordedEvent& event) {
  std::string snapshot;
  {
    absl::MutexLock lock(&mu_);
    absl::StatusOr<std::vector<std::string>> changed = projection_.Apply(event);
    if (!changed.ok()) {
      status_ = changed.status();
      return status_;
    }
    for (const std::string& stream : *changed) {
      TargetChange change{event.seq, *projection_.GetStream(stream)};
      history_.push_back(change);
      while (history_.size() > options_.change_history) {
        forgotten_through_ = history_.front().seq;
        history_.pop_front();
      }
      for (auto& [id, listener] : listeners_) listener(change);
    }
    if (options_.snapshot_every > 0 && event.seq % options_.snapshot_every == 0) {
      snapshot = projection_.Serialize();
    }
  }
  if (!snapshot.empty()) {
    // A failed snapshot costs only replay time at the next start; following goes on.
    store_->SaveSnapshot({kCredentialProjectionName, event.seq, kCredentialProjectionVersion,
                          std::move(snapshot)})
        .IgnoreError();
  }
  return absl::OkStatus();
}

std::optional<v1::TargetState> CredentialProjector::Get(absl::string_view target_namespace,
                                                        absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  return projection_.Get(target_namespace, name);
}

std::vector<v1::TargetState> CredentialProjector::List(absl::string_view target_namespace,
                                                       bool include_finalized,
                                                       int64_t* seq) const {
  absl::MutexLock lock(&mu_);
  if (seq != nullptr) *seq = projection_.seq();
  return projection_.List(target_namespace, include_finalized);
}

v1::ServiceConfigured CredentialProjector::service() const {
  absl::MutexLock lock(&mu_);
  return projection_.service();
}

int64_t CredentialProjector::seq() const {
  absl::MutexLock lock(&mu_);
  return projection_.seq();
}

bool CredentialProjector::WaitForSeq(int64_t seq, absl::Duration timeout) const {
  return subscription_->WaitForPosition(seq, timeout) || this->seq() >= seq;
}

absl::Status CredentialProjector::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

absl::StatusOr<std::vector<TargetChange>> CredentialProjector::Listen(int64_t after_seq,
                                                                      int* listener_id,
                                                                      Listener listener) {
  absl::MutexLock lock(&mu_);
  if (after_seq < forgotten_through_) {
    return absl::OutOfRangeError(absl::StrCat("changes up to seq ", forgotten_through_,
                                              " are no longer kept; list again"));
  }
  std::vector<TargetChange> missed;
  for (const TargetChange& c : history_) {
    if (c.seq > after_seq) missed.push_back(c);
  }
  *listener_id = next_listener_++;
  listeners_[*listener_id] = std::move(listener);
  return missed;
}

void CredentialProjector::RemoveListener(int listener_id) {
  absl::MutexLock lock(&mu_);
  listeners_.erase(listener_id);
}

}  // namespace credledger::projections
