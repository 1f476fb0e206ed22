#include "service/grpc/auth/denial_recorder.h"

#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "service/decide/validation.h"

namespace credledger::service {

DenialRecorder::DenialRecorder(DenialLedger* ledger, store::EventStore* store, common::Clock* clock,
                               absl::Duration interval)
    : ledger_(ledger), bus_(store), clock_(clock), interval_(interval) {}

DenialRecorder::~DenialRecorder() { Stop(); }

void DenialRecorder::Start() {
  thread_ = std::thread([this] { Loop(); });
}

absl::StatusOr<int64_t> DenialRecorder::Record(absl::Time now) {
  std::vector<v1::CallsDenied> entries = ledger_->TakeEndedBefore(now);
  if (entries.empty()) return 0;
  absl::Status appended =
      bus_.Execute(RecordCallsDenied{entries}, AccessCommandContext{kServiceActor}).status();
  if (!appended.ok()) {
    ledger_->Restore(std::move(entries));
    return appended;
  }
  return static_cast<int64_t>(entries.size());
}

void DenialRecorder::Loop() {
  absl::MutexLock lock(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(&stopping_), interval_)) {
    mu_.Unlock();
    absl::StatusOr<int64_t> recorded = Record(clock_->Now());
    if (!recorded.ok()) {
      common::Log(common::LogLevel::kWarning, "recording refused calls failed; will retry",
                  {{"error", recorded.status().ToString()}});
    }
    mu_.Lock();
  }
}

void DenialRecorder::Stop() {
  if (stopped_.exchange(true)) return;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  absl::StatusOr<int64_t> recorded = Record(absl::InfiniteFuture());
  if (!recorded.ok()) {
    common::Log(
        common::LogLevel::kError, "refused calls lost at shutdown",
        {{"entries", std::to_string(ledger_->pending())}, {"error", recorded.status().ToString()}});
  }
}

}  // namespace credledger::service
