#include "projections/report_streams.h"

#include "absl/strings/str_cat.h"

namespace credledger::projections {

std::string ReportStream(absl::string_view target_namespace, absl::string_view name) {
  return absl::StrCat("report/", target_namespace, "/", name);
}

}  // namespace credledger::projections
