#include "service/api/checkpoint_writer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "audit/signed_records.h"
#include "common/log.h"
#include "common/status_macros.h"

namespace credledger::service {
namespace {

// How long the thread waits for the head to move before it looks at the clock again.
constexpr absl::Duration kPollSlice = absl::Milliseconds(100);

}  // namespace

bool CheckpointDue(int64_t head_seq, int64_t last_seq, absl::Time last_signed_at, absl::Time now,
                   const CheckpointPolicy& policy) {
  if (head_seq <= last_seq) return false;
  return head_seq - last_seq >= policy.every_events || now - last_signed_at >= policy.interval;
}

CheckpointWriter::CheckpointWriter(store::EventStore* store, const audit::SigningKey* key,
                                   common::Clock* clock, CheckpointPolicy policy,
                                   CheckpointWitness witness)
    : store_(store), key_(key), clock_(clock), policy_(policy), witness_(witness) {}

CheckpointWriter::~CheckpointWriter() { Stop(); }

absl::Status CheckpointWriter::Start() {
  ASSIGN_OR_RETURN(std::optional<v1::Checkpoint> latest, store_->LatestCheckpoint());
  if (latest.has_value()) {
    last_seq_ = latest->seq();
    last_signed_at_ = absl::FromUnixMicros(latest->signed_at_us());
  }
  thread_ = std::thread([this] { Loop(); });
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CheckpointWriter::CheckpointHead() {
  const int64_t head = store_->HeadSeq();
  if (head <= last_seq_) return 0;
  ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> page, store_->ReadAll(head - 1, 1));
  if (page.empty()) return absl::InternalError("checkpoint: the head event cannot be read");
  const absl::Time now = clock_->Now();
  ASSIGN_OR_RETURN(v1::Checkpoint checkpoint,
                   audit::SignCheckpoint(*key_, page[0].seq, page[0].chain_hash,
                                         absl::ToUnixMicros(now)));
  RETURN_IF_ERROR(store_->SaveCheckpoint(checkpoint));
  last_seq_ = checkpoint.seq();
  last_signed_at_ = now;
  Publish(checkpoint, /*force=*/last_published_at_ == absl::InfinitePast());
  return last_seq_;
}

void CheckpointWriter::Publish(const v1::Checkpoint& checkpoint, bool force) {
  if (witness_.keeper == nullptr) return;
  unpublished_ = checkpoint;
  const absl::Time now = clock_->Now();
  if (!force && now - last_published_at_ < witness_.interval) return;
  if (absl::Status published = witness_.keeper->Append(checkpoint); !published.ok()) {
    common::Log(common::LogLevel::kWarning, "publishing the checkpoint to the witness failed",
                {{"seq", absl::StrCat(checkpoint.seq())}, {"error", published.ToString()}});
    return;
  }
  last_published_at_ = now;
  unpublished_.reset();
}

void CheckpointWriter::Loop() {
  int64_t seen = last_seq_;
  while (!stopping_.load()) {
    seen = store_->WaitForHead(seen, kPollSlice);
    if (!CheckpointDue(seen, last_seq_, last_signed_at_, clock_->Now(), policy_)) {
      // A checkpoint held back by the witness interval goes out once the log is quiet.
      if (unpublished_.has_value()) Publish(*unpublished_, /*force=*/false);
      continue;
    }
    absl::StatusOr<int64_t> written = CheckpointHead();
    if (!written.ok()) {
      // The next due checkpoint covers this one's events; nothing is lost but time.
      common::Log(common::LogLevel::kWarning, "checkpoint failed",
                  {{"error", written.status().ToString()}});
    }
  }
}

void CheckpointWriter::Stop() {
  if (stopping_.exchange(true) || !thread_.joinable()) return;
  thread_.join();
  absl::StatusOr<int64_t> last = CheckpointHead();
  if (!last.ok()) {
    common::Log(common::LogLevel::kWarning, "final checkpoint failed",
                {{"error", last.status().ToString()}});
  }
  if (unpublished_.has_value()) Publish(*unpublished_, /*force=*/true);
}

}  // namespace credledger::service
