#include "service/target_watch.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "service/target_view.h"

namespace credledger::service {

absl::StatusOr<std::unique_ptr<TargetWatch>> TargetWatch::Start(
    projections::CredentialProjector* projector, Options options) {
  auto watch = std::unique_ptr<TargetWatch>(new TargetWatch(projector, std::move(options)));
  int64_t from = watch->options_.after_seq;
  size_t snapshot_items = 0;
  if (from == 0) {
    std::vector<v1::TargetState> targets =
        projector->List(watch->options_.target_namespace, /*include_finalized=*/false, &from);
    absl::MutexLock lock(&watch->mu_);
    for (v1::TargetState& state : targets) {
      watch->queue_.push_back({v1::WatchTargetsResponse::KIND_SNAPSHOT, from, std::move(state)});
    }
    watch->queue_.push_back({v1::WatchTargetsResponse::KIND_SNAPSHOT_END, from, std::nullopt});
    snapshot_items = watch->queue_.size();
  }
  TargetWatch* w = watch.get();
  absl::StatusOr<std::vector<projections::TargetChange>> missed = projector->Listen(
      from, &watch->listener_id_,
      [w](const projections::TargetChange& change) { w->OnChange(change); });
  if (!missed.ok()) {
    watch->listener_id_ = 0;
    return absl::ResourceExhaustedError(
        absl::StrCat("after_seq: ", missed.status().message(),
                     " (WatchTargets with after_seq 0 lists again)"));
  }
  // Changes the listener delivered meanwhile are newer than the missed ones: insert these
  // before them, right after the snapshot.
  absl::MutexLock lock(&watch->mu_);
  auto at = watch->queue_.begin() + static_cast<std::ptrdiff_t>(snapshot_items);
  for (projections::TargetChange& change : *missed) {
    if (!watch->Wanted(change.state)) continue;
    at = watch->queue_.insert(
        at, {v1::WatchTargetsResponse::KIND_CHANGE, change.seq, std::move(change.state)});
    ++at;
  }
  return watch;
}

TargetWatch::TargetWatch(projections::CredentialProjector* projector, Options options)
    : projector_(projector), options_(std::move(options)) {}

TargetWatch::~TargetWatch() {
  if (listener_id_ != 0) projector_->RemoveListener(listener_id_);
}

bool TargetWatch::Wanted(const v1::TargetState& state) const {
  return options_.target_namespace.empty() || state.namespace_() == options_.target_namespace;
}

void TargetWatch::OnChange(const projections::TargetChange& change) {
  if (!Wanted(change.state)) return;
  absl::MutexLock lock(&mu_);
  if (overflowed_) return;
  if (live_queued_ >= options_.queue_limit) {
    overflowed_ = true;
    queue_.clear();
    return;
  }
  queue_.push_back({v1::WatchTargetsResponse::KIND_CHANGE, change.seq, change.state, true});
  ++live_queued_;
}

absl::StatusOr<std::optional<v1::WatchTargetsResponse>> TargetWatch::Next(
    absl::Duration timeout) {
  Item item;
  {
    absl::MutexLock lock(&mu_);
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return overflowed_ || !queue_.empty();
    };
    if (!mu_.AwaitWithTimeout(absl::Condition(&ready), timeout)) return std::nullopt;
    if (overflowed_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "watch: the client fell more than ", options_.queue_limit,
          " changes behind; list again (WatchTargets with after_seq 0), or resume with "
          "after_seq ",
          last_delivered_seq_, " while the server still keeps those changes"));
    }
    item = std::move(queue_.front());
    queue_.pop_front();
    if (item.live) --live_queued_;
  }
  last_delivered_seq_ = item.seq;
  v1::WatchTargetsResponse response;
  response.set_kind(item.kind);
  response.set_seq(item.seq);
  if (item.state.has_value()) {
    *response.mutable_target() =
        ToTargetView(*item.state, projector_->service().connection_hash());
  }
  return response;
}

}  // namespace credledger::service
