// Fuzz target: the TargetReport decoder and validator on arbitrary JSON text (what the
// report agent reads from a target cluster): DecodeTargetReport
// (kubebridge/reports/target_report_codec.h), then ValidateReportContent
// (projections/report_validation.h) for what decodes. Properties: decoding fails only with
// kInvalidArgument; validation fails only with kInvalidArgument; a valid report survives
// EncodeTargetReportSpec and a second decode unchanged.
#include <cstddef>
#include <cstdint>

#include "google/protobuf/util/message_differencer.h"
#include "kubebridge/reports/target_report_codec.h"
#include "nlohmann/json.hpp"
#include "projections/report_validation.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using credledger::fuzz::CheckDocumentedError;
  using credledger::fuzz::FuzzCheck;
  const nlohmann::json object =
      nlohmann::json::parse(data, data + size, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) return 0;
  auto report = credledger::kubebridge::DecodeTargetReport(object);
  CheckDocumentedError(report.status(), {absl::StatusCode::kInvalidArgument}, "DecodeTargetReport");
  if (!report.ok() || !report->has_value()) return 0;
  const absl::Status valid = credledger::projections::ValidateReportContent(**report, "spec");
  CheckDocumentedError(valid, {absl::StatusCode::kInvalidArgument}, "ValidateReportContent");
  if (!valid.ok()) return 0;

  nlohmann::json again;
  again["spec"] = credledger::kubebridge::EncodeTargetReportSpec(**report);
  auto decoded = credledger::kubebridge::DecodeTargetReport(again);
  FuzzCheck(decoded.ok() && decoded->has_value(), "a valid report does not decode again",
            decoded.status());
  FuzzCheck(google::protobuf::util::MessageDifferencer::Equals(**report, **decoded),
            "a valid report changes through encode and decode");
  return 0;
}
