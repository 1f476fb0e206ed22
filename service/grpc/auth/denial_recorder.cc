#include "service/grpc/auth/denial_recorder.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "kubebridge/model/outcomes.h"
#include "service/decide/validation.h"
#include "store/event_codec.h"

namespace credledger::service {

DenialRecorder::DenialRecorder(DenialLedger* ledger, store::EventStore* store, common::Clock* clock,
                               absl::Duration interval)
    : ledger_(ledger), store_(store), clock_(clock), interval_(interval) {}

DenialRecorder::~DenialRecorder() { Stop(); }

void DenialRecorder::Start() {
  thread_ = std::thread([this] { Loop(); });
}

absl::StatusOr<int64_t> DenialRecorder::Record(absl::Time now) {
  std::vector<v1::CallsDenied> entries = ledger_->TakeEndedBefore(now);
  if (entries.empty()) return 0;
  const store::EventCodec& codec = store::EventCodec::Default();
  absl::Status appended = store_->Execute([&](store::WriteTransaction& tx) -> absl::Status {
    ASSIGN_OR_RETURN(int64_t version, tx.StreamVersion(kAccessStream));
    // The request id names the stream position: an append retried after an unknown outcome
    // finds its own events instead of recording the minute twice.
    const std::string request_id =
        absl::StrCat(kubebridge::kServiceRequestIdPrefix, "calls-denied/", version + 1);
    v1::EventMetadata metadata;
    metadata.set_actor(kServiceActor);
    metadata.set_request_id(request_id);
    metadata.set_command("RecordCallsDenied");
    store::StreamAppend append{kAccessStream, store::ExpectedVersion::Exactly(version), {}};
    for (const v1::CallsDenied& entry : entries) {
      v1::Event event;
      *event.mutable_calls_denied() = entry;
      ASSIGN_OR_RETURN(store::NewEvent encoded, codec.Encode(event, metadata));
      append.events.push_back(std::move(encoded));
    }
    return tx.Append({request_id, {std::move(append)}}).status();
  });
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
