#include "service/bus/liveness_index.h"

#include <vector>

#include "common/status_macros.h"
#include "projections/report_streams.h"
#include "store/event_codec.h"
#include "store/log_hash.h"

namespace credledger::service {
namespace {

// Reads of the stream outside a transaction, in pages of this many events.
constexpr int kCatchUpPage = 256;

// Whether `event` is the stream event right after `position`.
bool Continues(const StreamPosition& position, const store::RecordedEvent& event) {
  const std::string& previous = position.version < 0 ? store::ZeroHash() : position.stream_hash;
  return event.stream_version == position.version + 1 &&
         store::NextChainHash(previous, event.digest) == event.stream_hash;
}

}  // namespace

std::optional<LivenessIndex::Seen> LivenessIndex::View::Find(absl::string_view target_namespace,
                                                             absl::string_view name) const {
  const Key key{std::string(target_namespace), std::string(name)};
  std::optional<Seen> found;
  if (auto it = tail_.find(key); it != tail_.end()) found = it->second;
  if (replaces_) return found;
  absl::MutexLock lock(&index_->mu_);
  // Everything published is durable and thus inside this transaction's view too.
  if (auto it = index_->newest_.find(key);
      it != index_->newest_.end() && (!found.has_value() || it->second.at.seq > found->at.seq)) {
    found = it->second;
  }
  return found;
}

absl::Status LivenessIndex::View::Add(const store::RecordedEvent& event) {
  ASSIGN_OR_RETURN(v1::Event decoded, store::EventCodec::Default().Decode(event));
  const projections::EventPosition at{event.seq, event.stream_version,
                                      absl::FromUnixMicros(event.recorded_at_us)};
  for (const v1::LivenessEntry& entry : decoded.liveness_observed().entries()) {
    tail_[Key{entry.namespace_(), entry.name()}] = Seen{entry, at};
  }
  end_ = {event.stream_version, event.stream_hash};
  return absl::OkStatus();
}

absl::Status LivenessIndex::CatchUp(store::EventStore& store) {
  StreamPosition position;
  {
    absl::MutexLock lock(&mu_);
    if (caught_up_) return absl::OkStatus();
    position = position_;
  }
  View view(this);
  view.base_ = view.end_ = position;
  while (true) {
    ASSIGN_OR_RETURN(auto page, store.ReadStream(projections::kLivenessStream,
                                                 view.end_.version + 1, kCatchUpPage));
    if (page.empty()) break;
    for (const store::RecordedEvent& event : page) RETURN_IF_ERROR(view.Add(event));
  }
  absl::MutexLock lock(&mu_);
  caught_up_ = true;
  if (position_.version == position.version) MergeLocked(view.tail_, view.end_);
  return absl::OkStatus();
}

absl::StatusOr<LivenessIndex::View> LivenessIndex::Open(store::WriteTransaction& tx) const {
  View view(this);
  {
    absl::MutexLock lock(&mu_);
    view.base_ = view.end_ = position_;
  }
  ASSIGN_OR_RETURN(const int64_t version, tx.StreamVersion(projections::kLivenessStream));
  if (version == view.base_.version) return view;
  if (version > view.base_.version) {
    ASSIGN_OR_RETURN(auto tail,
                     tx.ReadStream(projections::kLivenessStream, view.base_.version + 1));
    if (!tail.empty() && Continues(view.base_, tail.front())) {
      for (const store::RecordedEvent& event : tail) RETURN_IF_ERROR(view.Add(event));
      return view;
    }
  }
  // The stream does not continue the index's position: read it whole.
  View whole(this);
  whole.replaces_ = true;
  ASSIGN_OR_RETURN(auto all, tx.ReadStream(projections::kLivenessStream, 0));
  for (const store::RecordedEvent& event : all) RETURN_IF_ERROR(whole.Add(event));
  return whole;
}

void LivenessIndex::Publish(const View& view) {
  absl::MutexLock lock(&mu_);
  if (view.replaces_) {
    if (position_.version > view.end_.version) return;
    newest_.clear();
    MergeLocked(view.tail_, view.end_);
    return;
  }
  // Another view published past this one's base already; a later view reads the rest.
  if (position_.version != view.base_.version || position_.stream_hash != view.base_.stream_hash) {
    return;
  }
  MergeLocked(view.tail_, view.end_);
}

void LivenessIndex::MergeLocked(const std::map<Key, Seen>& tail, const StreamPosition& end) {
  for (const auto& [key, seen] : tail) newest_[key] = seen;
  position_ = end;
}

}  // namespace credledger::service
