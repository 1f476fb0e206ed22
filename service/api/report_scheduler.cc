#include "service/api/report_scheduler.h"

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "kubebridge/model/outcomes.h"
#include "service/decide/validation.h"

namespace credledger::service {

ReportScheduler::ReportScheduler(ReportCommandBus* bus, LivenessBuffer* liveness,
                                 ReportIngest* ingest, const SpaceReserve* space,
                                 projections::CredentialProjector* targets,
                                 projections::StatusProjector* statuses, common::Clock* clock,
                                 Options options)
    : bus_(bus),
      liveness_(liveness),
      ingest_(ingest),
      space_(space),
      targets_(targets),
      statuses_(statuses),
      clock_(clock),
      options_(options) {}

ReportScheduler::~ReportScheduler() { Stop(); }

void ReportScheduler::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void ReportScheduler::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    cv_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
  if (absl::Status s = FlushLiveness(); !s.ok()) {
    common::Log(common::LogLevel::kError, "heartbeats lost at shutdown", {{"error", s.ToString()}});
  }
  if (absl::Status s = ingest_->FlushHeld(absl::InfiniteFuture()); !s.ok()) {
    common::Log(common::LogLevel::kError, "held reports lost at shutdown",
                {{"error", s.ToString()}});
  }
}

void ReportScheduler::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    if (!clock_->SleepUntil(clock_->Now() + options_.period, mu_, cv_, stopping_)) return;
    mu_.Unlock();
    absl::Status s = RunOnce();
    if (!s.ok()) {
      common::Log(common::LogLevel::kWarning, "report schedule round failed",
                  {{"error", s.ToString()}});
    }
    mu_.Lock();
  }
}

absl::Status ReportScheduler::RunOnce() {
  absl::Status flushed = FlushLiveness();
  absl::Status held = ingest_->FlushHeld(clock_->Now());
  absl::Status marked = MarkStaleTargets();
  for (const absl::Status& s : {flushed, held}) {
    if (!s.ok()) return s;
  }
  return marked;
}

absl::Status ReportScheduler::FlushLiveness() {
  if (!space_->Check().ok()) return absl::OkStatus();
  std::vector<v1::LivenessEntry> entries = liveness_->Drain();
  if (entries.empty()) return absl::OkStatus();
  // The head seq names the batch: a failed batch is retried under the same id, a written
  // one moves the head on.
  CommandContext context{
      "",
      "",
      clock_->Now(),
      kServiceActor,
      absl::StrCat(kubebridge::kServiceRequestIdPrefix, "liveness/", bus_->store()->HeadSeq()),
      targets_->service()};
  absl::StatusOr<ReportCommandResult> result = bus_->Execute(RecordLiveness{entries}, context);
  if (!result.ok()) {
    liveness_->Restore(std::move(entries));
    return result.status();
  }
  return absl::OkStatus();
}

absl::Status ReportScheduler::MarkStaleTargets() {
  const int64_t head = bus_->store()->HeadSeq();
  if (!statuses_->WaitForSeq(head, options_.projector_wait)) {
    return absl::DeadlineExceededError(absl::StrCat("status projector did not reach seq ", head,
                                                    " within ",
                                                    absl::FormatDuration(options_.projector_wait)));
  }
  const absl::Time now = clock_->Now();
  absl::Status first_error;
  for (const projections::SilentTarget& silent :
       statuses_->SilentSince(now - options_.stale_after)) {
    if (liveness_->PendingSeenAt(silent.target_namespace, silent.name).has_value() ||
        ingest_->HasHeld(silent.target_namespace, silent.name)) {
      continue;
    }
    CommandContext context{
        silent.target_namespace,
        silent.name,
        now,
        kServiceActor,
        absl::StrCat(kubebridge::kServiceRequestIdPrefix, "stale/", silent.target_namespace, "/",
                     silent.name, "/", absl::ToUnixMicros(silent.last_seen_at)),
        targets_->service()};
    absl::StatusOr<ReportCommandResult> result =
        bus_->Execute(MarkStale{silent.last_seen_at, options_.stale_after}, context);
    if (!result.ok() && first_error.ok()) first_error = result.status();
  }
  return first_error;
}

}  // namespace credledger::service
