// ForwardingEventStore: an EventStore that hands every call to another one, for tests that
// change one or two calls (fail a read, roll back a commit) and keep the rest real.
// ReadAllInto is left to EventStore's default, which reads through ReadAll: a subclass that
// changes ReadAll changes the reads of a PageReader too.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "store/event_store.h"

namespace credledger::testing {

class ForwardingEventStore : public store::EventStore {
 public:
  // `inner` is not owned and must outlive this store.
  explicit ForwardingEventStore(store::EventStore* inner) : inner_(inner) {}

  absl::Status Execute(store::Command command) override {
    return inner_->Execute(std::move(command));
  }
  absl::StatusOr<std::vector<store::RecordedEvent>> ReadAll(int64_t after_seq, int limit) override {
    return inner_->ReadAll(after_seq, limit);
  }
  absl::StatusOr<std::vector<store::RecordedEvent>> ReadStream(absl::string_view stream,
                                                               int64_t from_version,
                                                               int limit) override {
    return inner_->ReadStream(stream, from_version, limit);
  }
  absl::StatusOr<store::RequestProbe> ProbeRequest(absl::string_view request_id,
                                                   absl::string_view stream) override {
    return inner_->ProbeRequest(request_id, stream);
  }
  int64_t HeadSeq() const override { return inner_->HeadSeq(); }
  absl::StatusOr<int64_t> SeqAtTime(int64_t time_us) override { return inner_->SeqAtTime(time_us); }
  int64_t WaitForHead(int64_t after_seq, absl::Duration timeout) const override {
    return inner_->WaitForHead(after_seq, timeout);
  }
  absl::StatusOr<std::optional<store::Snapshot>> LoadSnapshot(absl::string_view projection,
                                                              int64_t max_seq) override {
    return inner_->LoadSnapshot(projection, max_seq);
  }
  absl::StatusOr<std::vector<store::SnapshotId>> ListSnapshots() override {
    return inner_->ListSnapshots();
  }
  absl::StatusOr<std::vector<store::RecordedEvent>> ReadFiltered(const store::EventFilter& filter,
                                                                 int64_t after_seq,
                                                                 int limit) override {
    return inner_->ReadFiltered(filter, after_seq, limit);
  }
  absl::StatusOr<std::optional<v1::Checkpoint>> LatestCheckpoint() override {
    return inner_->LatestCheckpoint();
  }
  absl::StatusOr<std::vector<v1::Checkpoint>> ReadCheckpoints(int64_t after_seq,
                                                             int limit) override {
    return inner_->ReadCheckpoints(after_seq, limit);
  }

 protected:
  store::EventStore* inner() const { return inner_; }

 private:
  store::EventStore* const inner_;
};

}  // namespace credledger::testing
