// BridgeReportSink: the kube bridge's ReportSink. Each report the TargetReport watch reads
// goes through ReportIngest, the same command PushReport runs (docs/reports.md,
// "Ingest"), with actor "credledger" and request id
// "credledger:report/<namespace>/<name>/<resourceVersion>", so one object revision is
// recorded at most once however often it is read.
//
// Thread-safety: thread-safe.
#pragma once

#include "kubebridge/reports/report_watcher.h"
#include "service/api/report_ingest.h"

namespace credledger::service {

class BridgeReportSink final : public kubebridge::ReportSink {
 public:
  // `ingest` is not owned and must outlive the sink.
  explicit BridgeReportSink(ReportIngest* ingest) : ingest_(ingest) {}

  // Errors: ReportIngest::Push's (the watcher logs them). A report refused for a
  // lastReportTime too far ahead still records the clock skew, as for PushReport
  // (docs/reports.md, "Clock skew").
  absl::Status SubmitReport(absl::string_view target_namespace, absl::string_view name,
                            const v1::TargetReportSpec& report,
                            absl::string_view resource_version) override;

 private:
  ReportIngest* ingest_;
};

}  // namespace credledger::service
