// HeldReports: changed reports waiting for --report-min-interval (docs/reports.md,
// "Limits"). The report decider holds a changed report that arrives too soon after the
// Target's last ReportAccepted; ReportIngest keeps it here, at most one per Target (the one
// with the newest lastReportTime wins), and appends it once it is due.
//
// Memory: one report per Target, each at most --report-max-bytes encoded.
// Thread-safety: all methods are thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "credledger/v1/report.pb.h"
#include "service/bus/prior_request.h"
#include "service/decide/report_commands.h"

namespace credledger::service {

class HeldReports {
 public:
  // A held report with what its append needs.
  struct Held {
    std::string target_namespace;
    std::string name;
    v1::TargetReportSpec report;
    // When the service received it (its ReportAccepted's received_at).
    absl::Time received_at;
    std::string actor;
    RequestKey request;
    // Which way it came in (the field paths of its errors).
    ReportSource source;
    // When it may be appended: the last ReportAccepted's receive time + --report-min-interval.
    absl::Time due;
  };

  // Keeps `held` for its Target unless the one kept has a later lastReportTime.
  void Hold(Held held);

  // The Target's held report; nullopt when none.
  std::optional<Held> Find(absl::string_view target_namespace, absl::string_view name) const;

  // Forgets the Target's held report when its lastReportTime is not later than
  // `report_time`: a newer report or heartbeat superseded it.
  void DropUpTo(absl::string_view target_namespace, absl::string_view name, absl::Time report_time);

  // Removes and returns the held reports due at `now` (due <= now), ordered by namespace,
  // then name.
  std::vector<Held> TakeDue(absl::Time now);

  // Puts back reports TakeDue gave that could not be appended yet, as Hold does.
  void Restore(std::vector<Held> held);

  // Number of reports held.
  size_t size() const;

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, name

  mutable absl::Mutex mu_;
  std::map<Key, Held> held_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::service
