// ProjectorWatch<Traits>: one watch stream's source of items over a projector, independent of
// gRPC. A watch sends a snapshot, then the changes, each item with its seq
// (docs/api.md, "WatchTargets: `target watch [--namespace NS] [--after-seq N]`").
// TargetWatch (WatchTargets) and FleetWatch (WatchFleet) are this template.
//
// With after_seq 0 it lists the items (SNAPSHOT items, then one SNAPSHOT_END marker, all at
// the seq the list is consistent with) and then follows the projector from that seq; with
// after_seq > 0 it follows from there without a snapshot. Live changes wait in a queue
// bounded in items and in bytes: the projector's listener never blocks, and a consumer that
// lets more than `queue_limit` changes or `queue_bytes_limit` bytes of them pile up gets
// kResourceExhausted instead of unbounded memory use (docs/api.md, "Threads and streams").
// Changes replayed from the projector's history at start and the snapshot are not counted
// against the limits.
//
// The consumer never waits: Poll answers at once, and when it found nothing the watch calls
// its `wake` function once the next item (or the failure) is there.
//
// Traits provides:
//   using Projector = ...;   // a projections::Projector<P> subclass
//   using State = ...;       // Projector::State
//   using Response = ...;    // the RPC's response: kind, seq, and Kind's KIND_* values
//   static constexpr char kRpc[];  // the RPC's name, for error messages
//   static std::vector<State> List(const Projector&, const std::string& ns, int64_t* seq);
//   static void Render(const Projector&, const State&, Response&);  // the item's view
//   static void RenderSnapshotEnd(const std::vector<State>& snapshot, Response&);
//
// Thread-safety: Poll is for one consumer at a time; the projector's listener pushes from the
// projector's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "service/api/target_scope.h"

namespace credledger::service {

template <typename Traits>
class ProjectorWatch {
 public:
  using Projector = typename Traits::Projector;
  using State = typename Traits::State;
  using Response = typename Traits::Response;
  using Change = typename Projector::Change;

  struct Options {
    // Only items of this namespace; all when empty. REQUIRES: empty or a DNS-1123 label.
    std::string target_namespace;
    // 0: snapshot first; > 0: changes after this seq only. REQUIRES: >= 0.
    int64_t after_seq = 0;
    // Live changes allowed to wait for the consumer (>= 1), and their bytes (the sum of
    // their states' ByteSizeLong; >= 1).
    size_t queue_limit = 1024;
    size_t queue_bytes_limit = size_t{16} << 20;
    // Only items of Targets in this scope (docs/api.md, "Target scopes").
    TargetScope scope = TargetScope::Unrestricted();
  };

  // Starts following `projector` (not owned; must outlive the watch). `wake` is called after
  // a Poll that found nothing, once an item or the failure is there; it runs on the
  // projector's thread under the projector's lock, so it must only hand the work on (queue a
  // task) and never call into the projector or the watch.
  // Errors: kResourceExhausted when the projector no longer keeps the changes after
  // `after_seq` (its history was trimmed, or the service restarted since): list again.
  static absl::StatusOr<std::unique_ptr<ProjectorWatch>> Start(Projector* projector,
                                                               Options options,
                                                               std::function<void()> wake) {
    auto watch = std::unique_ptr<ProjectorWatch>(
        new ProjectorWatch(projector, std::move(options), std::move(wake)));
    int64_t from = watch->options_.after_seq;
    size_t snapshot_items = 0;
    if (from == 0) {
      std::vector<State> items = Traits::List(*projector, watch->options_.target_namespace, &from);
      std::erase_if(items, [&](const State& state) { return !watch->Wanted(state); });
      watch->snapshot_end_.set_kind(Response::KIND_SNAPSHOT_END);
      watch->snapshot_end_.set_seq(from);
      Traits::RenderSnapshotEnd(items, watch->snapshot_end_);
      absl::MutexLock lock(&watch->mu_);
      for (State& state : items) {
        watch->queue_.push_back({Response::KIND_SNAPSHOT, from, std::move(state)});
      }
      watch->queue_.push_back({Response::KIND_SNAPSHOT_END, from, std::nullopt});
      snapshot_items = watch->queue_.size();
    }
    ProjectorWatch* w = watch.get();
    absl::StatusOr<std::vector<Change>> missed = projector->Listen(
        from, &watch->listener_id_, [w](const Change& change) { w->OnChange(change); });
    if (!missed.ok()) {
      watch->listener_id_ = 0;
      return absl::ResourceExhaustedError(absl::StrCat("after_seq: ", missed.status().message(),
                                                       " (", Traits::kRpc,
                                                       " with after_seq 0 lists again)"));
    }
    // Changes the listener delivered meanwhile are newer than the missed ones: insert these
    // before them, right after the snapshot.
    absl::MutexLock lock(&watch->mu_);
    auto at = watch->queue_.begin() + static_cast<std::ptrdiff_t>(snapshot_items);
    for (Change& change : *missed) {
      if (!watch->Wanted(change.state)) continue;
      at = watch->queue_.insert(at, {Response::KIND_CHANGE, change.seq, std::move(change.state)});
      ++at;
    }
    return watch;
  }

  // Stops listening; no listener call runs after it returns.
  ~ProjectorWatch() {
    if (listener_id_ != 0) projector_->RemoveListener(listener_id_);
  }
  ProjectorWatch(const ProjectorWatch&) = delete;
  ProjectorWatch& operator=(const ProjectorWatch&) = delete;

  // The next item without waiting; nullopt when none is queued, and then `wake` is called
  // once one is.
  // Errors: kResourceExhausted once more than queue_limit live changes, or more than
  // queue_bytes_limit bytes of them, were waiting (the watch is over; the message names the
  // last seq delivered for resuming).
  absl::StatusOr<std::optional<Response>> Poll() {
    Item item;
    {
      absl::MutexLock lock(&mu_);
      if (overflow_.has_value()) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "watch: the client fell behind by more than ", *overflow_, "; list again (",
            Traits::kRpc, " with after_seq 0), or resume with after_seq ", last_delivered_seq_,
            " while the server still keeps those changes"));
      }
      if (queue_.empty()) {
        armed_ = true;
        return std::nullopt;
      }
      item = std::move(queue_.front());
      queue_.pop_front();
      if (item.live) {
        --live_queued_;
        live_bytes_ -= item.bytes;
      }
      last_delivered_seq_ = item.seq;
    }
    if (item.kind == Response::KIND_SNAPSHOT_END) return snapshot_end_;
    Response response;
    response.set_kind(item.kind);
    response.set_seq(item.seq);
    if (item.state.has_value()) Traits::Render(*projector_, *item.state, response);
    return response;
  }

 private:
  struct Item {
    typename Response::Kind kind = Response::KIND_UNSPECIFIED;
    int64_t seq = 0;
    std::optional<State> state;
    bool live = false;
    size_t bytes = 0;  // state's ByteSizeLong, for live items
  };

  ProjectorWatch(Projector* projector, Options options, std::function<void()> wake)
      : projector_(projector), options_(std::move(options)), wake_(std::move(wake)) {}

  bool Wanted(const State& state) const {
    return (options_.target_namespace.empty() || state.namespace_() == options_.target_namespace) &&
           options_.scope.Contains(state.namespace_(), state.name());
  }

  void OnChange(const Change& change) {
    if (!Wanted(change.state)) return;
    const size_t bytes = change.state.ByteSizeLong();
    absl::MutexLock lock(&mu_);
    if (overflow_.has_value()) return;
    if (live_queued_ >= options_.queue_limit) {
      Overflow(absl::StrCat(options_.queue_limit, " changes"));
    } else if (live_bytes_ + bytes > options_.queue_bytes_limit) {
      Overflow(absl::StrCat(options_.queue_bytes_limit, " bytes of changes (--watch-queue-bytes)"));
    } else {
      queue_.push_back({Response::KIND_CHANGE, change.seq, change.state, true, bytes});
      ++live_queued_;
      live_bytes_ += bytes;
    }
    if (armed_) {
      armed_ = false;
      wake_();
    }
  }

  // Ends the watch: the queue's memory is released at once.
  void Overflow(std::string what) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    overflow_ = std::move(what);
    std::deque<Item>().swap(queue_);
    live_queued_ = 0;
    live_bytes_ = 0;
  }

  Projector* const projector_;
  const Options options_;
  const std::function<void()> wake_;
  int listener_id_ = 0;
  // The SNAPSHOT_END marker, built at Start; unused when resuming without a snapshot.
  Response snapshot_end_;

  absl::Mutex mu_;
  std::deque<Item> queue_ ABSL_GUARDED_BY(mu_);
  size_t live_queued_ ABSL_GUARDED_BY(mu_) = 0;
  size_t live_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // Set once the consumer fell behind: which limit it passed ("1024 changes").
  std::optional<std::string> overflow_ ABSL_GUARDED_BY(mu_);
  // A Poll found nothing: the next item calls wake_.
  bool armed_ ABSL_GUARDED_BY(mu_) = false;
  int64_t last_delivered_seq_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace credledger::service
