// RecordingEventStore: a ForwardingEventStore that records the reads a component makes: every
// ReadAll and ReadAllInto (a PageReader's pages) with the fields asked for and the number of
// events returned, and the seq of every snapshot LoadSnapshot returned. A test learns from it
// where a fold started, for example from which snapshot. For tests only.
//
// Thread-safety: thread-safe (a PageReader reads on its own thread).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "test/support/forwarding_event_store.h"

namespace credledger::testing {

class RecordingEventStore final : public ForwardingEventStore {
 public:
  // One read: its arguments (kAll for ReadAll) and how many events it returned (0 after an
  // error).
  struct Read {
    int64_t after_seq = 0;
    int limit = 0;
    store::EventFields fields = store::EventFields::kAll;
    int64_t events = 0;
  };

  using ForwardingEventStore::ForwardingEventStore;

  absl::StatusOr<std::vector<store::RecordedEvent>> ReadAll(int64_t after_seq, int limit) override {
    absl::StatusOr<std::vector<store::RecordedEvent>> read = inner()->ReadAll(after_seq, limit);
    Record(Read{after_seq, limit, store::EventFields::kAll,
                read.ok() ? static_cast<int64_t>(read->size()) : 0});
    return read;
  }
  absl::Status ReadAllInto(int64_t after_seq, int limit, store::EventFields fields,
                           std::vector<store::RecordedEvent>& page) override {
    absl::Status read = inner()->ReadAllInto(after_seq, limit, fields, page);
    Record(Read{after_seq, limit, fields, read.ok() ? static_cast<int64_t>(page.size()) : 0});
    return read;
  }
  absl::StatusOr<std::optional<store::Snapshot>> LoadSnapshot(absl::string_view projection,
                                                              int64_t max_seq) override {
    absl::StatusOr<std::optional<store::Snapshot>> loaded =
        inner()->LoadSnapshot(projection, max_seq);
    if (loaded.ok() && loaded->has_value()) {
      absl::MutexLock lock(&mu_);
      loaded_snapshots_.push_back((*loaded)->seq);
    }
    return loaded;
  }

  // The reads so far, in call order.
  std::vector<Read> reads() const {
    absl::MutexLock lock(&mu_);
    return reads_;
  }
  // The seqs of the snapshots LoadSnapshot returned so far, in call order.
  std::vector<int64_t> loaded_snapshots() const {
    absl::MutexLock lock(&mu_);
    return loaded_snapshots_;
  }

 private:
  void Record(const Read& read) {
    absl::MutexLock lock(&mu_);
    reads_.push_back(read);
  }

  mutable absl::Mutex mu_;
  std::vector<Read> reads_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> loaded_snapshots_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::testing
