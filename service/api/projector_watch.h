// ProjectorWatch<Traits>: one watch stream's source of items over a projector, independent of
// gRPC. A watch sends a snapshot, then the changes, each item with its seq
// (docs/api.md, "WatchTargets: `target watch [--namespace NS] [--after-seq N]`").
// TargetWatch (WatchTargets) and FleetWatch (WatchFleet) are this template.
//
// With after_seq 0 it lists the items (SNAPSHOT items, then one SNAPSHOT_END marker, all at
// the seq the list is consistent with) and then follows the projector from that seq; with
// after_seq > 0 it follows from there without a snapshot. Live changes wait in a bounded
// queue: the projector's listener never blocks, and a consumer that lets more than
// `queue_limit` changes pile up gets kResourceExhausted instead of unbounded memory use.
// Changes replayed from the projector's history at start are not counted against the limit.
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
// Thread-safety: Next is for one consumer thread; the projector's listener pushes from the
// projector's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
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
    // Live changes allowed to wait for the consumer (>= 1).
    size_t queue_limit = 1024;
    // Only items of Targets in this scope (docs/api.md, "Target scopes").
    TargetScope scope = TargetScope::Unrestricted();
  };

  // Starts following `projector` (not owned; must outlive the watch).
  // Errors: kResourceExhausted when the projector no longer keeps the changes after
  // `after_seq` (its history was trimmed, or the service restarted since): list again.
  static absl::StatusOr<std::unique_ptr<ProjectorWatch>> Start(Projector* projector,
                                                               Options options) {
    auto watch = std::unique_ptr<ProjectorWatch>(new ProjectorWatch(projector, std::move(options)));
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

  // The next item, waiting at most `timeout`; nullopt when none arrived in time.
  // Errors: kResourceExhausted once more than queue_limit live changes were waiting (the
  // watch is over; the message names the last seq delivered for resuming).
  absl::StatusOr<std::optional<Response>> Next(absl::Duration timeout) {
    Item item;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return overflowed_ || !queue_.empty();
      };
      if (!mu_.AwaitWithTimeout(absl::Condition(&ready), timeout)) return std::nullopt;
      if (overflowed_) {
        return absl::ResourceExhaustedError(
            absl::StrCat("watch: the client fell more than ", options_.queue_limit,
                         " changes behind; list again (", Traits::kRpc,
                         " with after_seq 0), or resume with after_seq ", last_delivered_seq_,
                         " while the server still keeps those changes"));
      }
      item = std::move(queue_.front());
      queue_.pop_front();
      if (item.live) --live_queued_;
    }
    last_delivered_seq_ = item.seq;
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
  };

  ProjectorWatch(Projector* projector, Options options)
      : projector_(projector), options_(std::move(options)) {}

  bool Wanted(const State& state) const {
    return (options_.target_namespace.empty() || state.namespace_() == options_.target_namespace) &&
           options_.scope.Contains(state.namespace_(), state.name());
  }

  void OnChange(const Change& change) {
    if (!Wanted(change.state)) return;
    absl::MutexLock lock(&mu_);
    if (overflowed_) return;
    if (live_queued_ >= options_.queue_limit) {
      overflowed_ = true;
      queue_.clear();
      return;
    }
    queue_.push_back({Response::KIND_CHANGE, change.seq, change.state, true});
    ++live_queued_;
  }

  Projector* const projector_;
  const Options options_;
  int listener_id_ = 0;
  int64_t last_delivered_seq_ = 0;  // consumer thread only
  // The SNAPSHOT_END marker, built at Start; unused when resuming without a snapshot.
  Response snapshot_end_;

  absl::Mutex mu_;
  std::deque<Item> queue_ ABSL_GUARDED_BY(mu_);
  size_t live_queued_ ABSL_GUARDED_BY(mu_) = 0;
  bool overflowed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace credledger::service
