#include "service/bridge/bridge_report_sink.h"

#include "absl/strings/str_cat.h"
#include "kubebridge/model/outcomes.h"
#include "service/bridge/bridge_outcome_sink.h"

namespace credledger::service {

absl::Status BridgeReportSink::SubmitReport(absl::string_view target_namespace,
                                            absl::string_view name,
                                            const v1::TargetReportSpec& report,
                                            absl::string_view resource_version) {
  const std::string request_id =
      absl::StrCat(kubebridge::kServiceRequestIdPrefix, "report/", target_namespace, "/", name,
                   "/", resource_version);
  return ingest_
      ->Push(target_namespace, name, report, kServiceActor, {request_id, ""},
             ReportSource::kTargetReport)
      .status();
}

}  // namespace credledger::service
