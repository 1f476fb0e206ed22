#include "kubebridge/mirrors/mirror_plan_runner.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/fault_points.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/status_mapping.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/owner_check.h"
#include "projections/identity_state.h"

namespace credledger::kubebridge {
namespace {

std::string NamespaceOf(const MirrorOutcome& outcome) {
  return std::visit(
      [](const auto& o) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(o)>, RecordSourceObserved>) {
          return "";
        } else {
          return o.namespace_name;
        }
      },
      outcome);
}

v1::SecretRef MirrorRef(const std::string& name, const std::string& uid) {
  v1::SecretRef ref;
  ref.set_name(name);
  ref.set_uid(uid);
  return ref;
}

// What one action did: its outcomes in order, its counts, and its Kubernetes error (already
// turned into a WRITE_FAILED outcome) or kCancelled.
struct ActionDone {
  std::vector<MirrorOutcome> outcomes;
  MirrorReconcileResult counts;
  absl::Status status;
};

void AddCounts(MirrorReconcileResult& into, const MirrorReconcileResult& from) {
  into.created += from.created;
  into.updated += from.updated;
  into.adopted += from.adopted;
  into.deleted += from.deleted;
  into.deleted_externally += from.deleted_externally;
  into.failed += from.failed;
  into.bound_objects_gone += from.bound_objects_gone;
  into.held_back += from.held_back;
  into.retry = into.retry || from.retry;
  into.updated_versions.insert(into.updated_versions.end(), from.updated_versions.begin(),
                               from.updated_versions.end());
}

// Plans and carries out the actions of one pass on up to ctx.writers threads and records
// their outcomes in plan order from the calling thread.
class PlanRun {
 public:
  PlanRun(const MirrorPlanContext& ctx, size_t actions, const MirrorActionPlanner& plan)
      : ctx_(ctx),
        plan_(plan),
        owner_check_(ctx.client, ctx.cancel, ctx.server_free),
        done_(actions),
        stream_version_(ctx.state.stream_version()) {}

  absl::StatusOr<MirrorReconcileResult> Run(MirrorReconcileResult counts) {
    const size_t threads = std::min(done_.size(), static_cast<size_t>(std::max(1, ctx_.writers)));
    std::vector<std::thread> workers;
    for (size_t i = 0; i < threads; ++i) workers.emplace_back([this] { Work(); });
    absl::Status recorded = RecordAll();
    if (!recorded.ok()) Stop();
    for (std::thread& t : workers) t.join();
    if (!recorded.ok()) return recorded;
    absl::MutexLock lock(&mu_);
    if (cancelled_) return absl::CancelledError("mirror pass cancelled");
    counts.stream_version = stream_version_;
    counts.others_appended = counts.others_appended || others_appended_;
    absl::Status first_error;
    for (const std::optional<ActionDone>& done : done_) {
      if (!done.has_value()) continue;
      AddCounts(counts, done->counts);
      if (first_error.ok()) first_error = done->status;
    }
    if (!first_error.ok()) return first_error;
    return counts;
  }

 private:
  // Takes the next action until none is left or the run stops.
  void Work() {
    while (true) {
      size_t i;
      {
        absl::MutexLock lock(&mu_);
        if (stopped_ || next_ == done_.size()) return;
        if (ctx_.cancel != nullptr && ctx_.cancel->cancelled()) {
          stopped_ = cancelled_ = true;
          return;
        }
        i = next_++;
        ++running_;
      }
      const MirrorAction action = plan_(i);
      ActionDone done;
      done.status = CarryOut(action, done);
      if (!done.status.ok() && !absl::IsCancelled(done.status)) {
        done.outcomes.push_back(RecordMirrorFailed{
            action.namespace_name, v1::MIRROR_FAILURE_KIND_WRITE_FAILED,
            absl::StrCat("mirror \"", action.namespace_name, "/", ctx_.mirror_name,
                         "\" could not be made current: ", Describe(done.status))});
        ++done.counts.failed;
      }
      absl::MutexLock lock(&mu_);
      // A cancelled action ends the run; what was begun is still recorded.
      if (absl::IsCancelled(done.status)) stopped_ = cancelled_ = true;
      done_[i] = std::move(done);
      --running_;
    }
  }

  void Stop() {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
  }

  std::string Describe(const absl::Status& status) const {
    return ctx_.server_free ? ServerFreeMessage(status) : std::string(status.message());
  }

  // Records the outcomes of the actions in plan order as they become ready (see the header)
  // until every action begun is recorded.
  // Errors: the sink's.
  absl::Status RecordAll() {
    // The state the next call's request id derives from: the plan's, then each call's answer.
    const v1::IdentityState* state = &ctx_.state;
    v1::IdentityState answered;
    std::vector<MirrorOutcome> pending;
    while (true) {
      bool finished = false;
      {
        absl::MutexLock lock(&mu_);
        auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          size_t outcomes = pending.size();
          for (size_t i = taken_; i < done_.size() && done_[i].has_value(); ++i) {
            outcomes += done_[i]->outcomes.size();
          }
          return outcomes >= kMinOutcomesPerRecord || Finished();
        };
        mu_.Await(absl::Condition(&ready));
        for (; taken_ < done_.size() && done_[taken_].has_value(); ++taken_) {
          std::vector<MirrorOutcome>& outcomes = done_[taken_]->outcomes;
          std::move(outcomes.begin(), outcomes.end(), std::back_inserter(pending));
          outcomes.clear();
        }
        finished = Finished();
      }
      // The last call of a cancelled run is made even so, to keep what was written explained.
      while (!pending.empty() && (finished || pending.size() >= kMinOutcomesPerRecord)) {
        const size_t n = std::min(pending.size(), kMaxOutcomesPerRecord);
        std::vector<MirrorOutcome> call(std::make_move_iterator(pending.begin()),
                                        std::make_move_iterator(pending.begin() + n));
        pending.erase(pending.begin(), pending.begin() + n);
        const std::string step = absl::StrCat("mirrors/", NamespaceOf(call.front()));
        ASSIGN_OR_RETURN(
            RecordedOutcomes recorded,
            ctx_.sink.Record(state->name(), call, MirrorOutcomeRequestId(*state, step)));
        // Events of others came between the plan and this call: the plan did not see them.
        if (recorded.state.stream_version() != state->stream_version() + recorded.appended) {
          others_appended_ = true;
        }
        answered = std::move(recorded.state);
        state = &answered;
        stream_version_ = answered.stream_version();
        common::FaultPoint("mirror.after_outcomes_recorded");
      }
      if (finished) return absl::OkStatus();
    }
  }

  // No action runs and none will begin.
  bool Finished() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return running_ == 0 && (stopped_ || next_ == done_.size());
  }

  // Checks every owner `action` would write a reference to, recording those found gone.
  // Returns whether all exist (only then may the mirror be written).
  // Errors: OwnerCheck::Check's.
  absl::StatusOr<bool> OwnersExist(const MirrorAction& action, ActionDone& done) {
    bool all_exist = true;
    for (const v1::OwnerReference& owner : action.owners) {
      ASSIGN_OR_RETURN(std::optional<v1::BoundObjectAbsence> absence,
                       owner_check_.Check(action.namespace_name, owner));
      if (!absence.has_value()) continue;
      done.outcomes.push_back(RecordBoundObjectGone{action.namespace_name, owner, *absence});
      ++done.counts.bound_objects_gone;
      all_exist = false;
    }
    return all_exist;
  }

  RecordMirrorWritten Written(const MirrorAction& action, const std::string& uid,
                              v1::MirrorWriteKind kind) const {
    return RecordMirrorWritten{action.namespace_name,
                               MirrorRef(ctx_.mirror_name, uid),
                               ctx_.source_fingerprint,
                               action.owners,
                               kind,
                               action.changes};
  }

  // Carries out `action`, adding its outcomes and counts to `done`. Returns the Kubernetes
  // error of its write (outcomes added before it stay).
  absl::Status CarryOut(const MirrorAction& action, ActionDone& done) {
    const std::string& ns = action.namespace_name;
    const v1::IdentityNamespaceState* entry = projections::FindIdentityNamespace(ctx_.state, ns);
    if (action.mirror_gone) {
      done.outcomes.push_back(RecordMirrorDeletedExternally{ns, entry->mirror().secret()});
      ++done.counts.deleted_externally;
    }
    if (action.held_back) ++done.counts.held_back;
    switch (action.kind) {
      case MirrorAction::Kind::kNone:
        return absl::OkStatus();
      case MirrorAction::Kind::kCreate: {
        ASSIGN_OR_RETURN(const bool owners_exist, OwnersExist(action, done));
        if (!owners_exist) return absl::OkStatus();
        common::FaultPoint("mirror.before_secret_write");
        ASSIGN_OR_RETURN(nlohmann::json created,
                         ctx_.client.Create(SecretResource(ns), action.object, ctx_.cancel));
        common::FaultPoint("mirror.after_secret_write");
        done.outcomes.push_back(
            Written(action, StringAt(created, {"metadata", "uid"}), v1::MIRROR_WRITE_KIND_CREATED));
        ++done.counts.created;
        return absl::OkStatus();
      }
      case MirrorAction::Kind::kUpdate: {
        ASSIGN_OR_RETURN(const bool owners_exist, OwnersExist(action, done));
        if (!owners_exist) return absl::OkStatus();
        common::FaultPoint("mirror.before_secret_write");
        ASSIGN_OR_RETURN(
            nlohmann::json updated,
            ctx_.client.Update(SecretResource(ns, ctx_.mirror_name), action.object, ctx_.cancel));
        common::FaultPoint("mirror.after_secret_write");
        done.outcomes.push_back(
            Written(action, StringAt(updated, {"metadata", "uid"}), v1::MIRROR_WRITE_KIND_UPDATED));
        ++done.counts.updated;
        done.counts.updated_versions.emplace_back(
            ns, StringAt(updated, {"metadata", "resourceVersion"}));
        return absl::OkStatus();
      }
      case MirrorAction::Kind::kAdopt:
        done.outcomes.push_back(Written(action, action.uid, v1::MIRROR_WRITE_KIND_ADOPTED));
        ++done.counts.adopted;
        return absl::OkStatus();
      case MirrorAction::Kind::kDelete: {
        absl::Status deleted = ctx_.client.Delete(SecretResource(ns, ctx_.mirror_name),
                                                  {.precondition_uid = action.uid}, ctx_.cancel);
        if (deleted.ok()) {
          done.outcomes.push_back(RecordMirrorDeleted{ns, MirrorRef(ctx_.mirror_name, action.uid),
                                                      action.deletion_reason});
          ++done.counts.deleted;
        } else if (absl::IsNotFound(deleted)) {
          // Gone between the list and the delete: someone else deleted it.
          if (entry != nullptr && entry->has_mirror()) {
            done.outcomes.push_back(RecordMirrorDeletedExternally{ns, entry->mirror().secret()});
            ++done.counts.deleted_externally;
          }
        } else {
          return deleted;
        }
        return absl::OkStatus();
      }
      case MirrorAction::Kind::kRecordFailure:
        done.outcomes.push_back(RecordMirrorFailed{ns, action.failure_kind, action.message});
        ++done.counts.failed;
        done.counts.retry = true;
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  const MirrorPlanContext& ctx_;
  const MirrorActionPlanner& plan_;
  OwnerCheck owner_check_;

  absl::Mutex mu_;
  // The next action to begin, and the actions running now.
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  // No further action begins (cancelled, or recording failed).
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  // What each action did, once done; the outcomes of the first `taken_` moved to recording.
  std::vector<std::optional<ActionDone>> done_ ABSL_GUARDED_BY(mu_);
  size_t taken_ ABSL_GUARDED_BY(mu_) = 0;
  // The identity's stream version after the last Record call, and whether others appended
  // to it since the plan was made (written by the calling thread only).
  int64_t stream_version_;
  bool others_appended_ = false;
};

}  // namespace

absl::StatusOr<MirrorReconcileResult> RunMirrorPlan(const MirrorPlanContext& ctx, size_t actions,
                                                    const MirrorActionPlanner& plan,
                                                    MirrorReconcileResult counts) {
  PlanRun run(ctx, actions, plan);
  return run.Run(std::move(counts));
}

}  // namespace credledger::kubebridge
