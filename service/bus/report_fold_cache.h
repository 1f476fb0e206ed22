// ReportFoldCache: per Target, the folds the report decider decides against, kept between
// commands so a command folds only the events after them (see service/bus/report_command_bus.h
// for the cost argument).
//
// A Target's folds are its target-stream state (projections::EvolveTarget) and its status
// (projections::EvolveStatus over its target-stream and report-stream events and
// projections::ApplyLiveness for its newest liveness entry, merged in seq order). Each
// cached fold records the position (stream_version, stream_hash) of the last event it
// includes from each stream; Load checks those positions against the stored events inside
// the transaction and refolds a stream from its start when they do not match. Only folds of
// durable transactions are published. The cache is dropped when the service configuration
// in force changes (the target state's condition depends on it).
//
// Memory: one entry (a TargetState and a TargetStatus) per Target a command addressed.
// Thread-safety: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "service/bus/liveness_index.h"
#include "store/event_store.h"

namespace credledger::service {

// The folds of one Target as of some point of the log.
struct TargetFolds {
  std::string target_namespace;
  std::string name;
  StreamPosition target;  // last folded event of target/<namespace>/<name>
  StreamPosition report;  // last folded event of report/<namespace>/<name>
  // seq of the LivenessObserved whose entry for this Target was folded last; 0 when none.
  int64_t liveness_seq = 0;
  int64_t seq = 0;  // the highest seq folded; 0 when nothing
  v1::TargetState state;
  v1::TargetStatus status;
};

class ReportFoldCache {
 public:
  // The folds of Target <target_namespace>/<name> as `tx` sees them, under `service`.
  // Errors: store read errors; kDataLoss when an event does not decode.
  absl::StatusOr<TargetFolds> Load(store::WriteTransaction& tx, absl::string_view target_namespace,
                                   absl::string_view name, const v1::ServiceConfigured& service,
                                   const LivenessIndex::View& liveness) const;

  // Only the target-stream state of the Target as `tx` sees it (nothing is cached from it).
  // Errors: as Load.
  absl::StatusOr<v1::TargetState> LoadState(store::WriteTransaction& tx,
                                            absl::string_view target_namespace,
                                            absl::string_view name,
                                            const v1::ServiceConfigured& service) const;

  // Folds events this transaction appended to the Target's two streams into `folds`.
  // Errors: kDataLoss when an event does not decode.
  static absl::Status Advance(TargetFolds& folds, const std::vector<store::RecordedEvent>& appended,
                              const v1::ServiceConfigured& service);

  // Keeps `folds` (unless a fold of a later point is kept already).
  // REQUIRES: the transaction that loaded and advanced `folds` is durable.
  void Publish(const TargetFolds& folds, const v1::ServiceConfigured& service);

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, name

  // The cached folds of `key` under `service`, or empty folds of the Target. With
  // `state_only`, the status is left empty.
  TargetFolds Cached(const Key& key, const v1::ServiceConfigured& service, bool state_only) const;

  mutable absl::Mutex mu_;
  std::string service_ ABSL_GUARDED_BY(mu_);  // serialized ServiceConfigured of the entries
  std::map<Key, TargetFolds> folds_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::service
