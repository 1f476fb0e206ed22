// Stream names of the report side of the log (docs/events.md, "Streams").
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace credledger::projections {

// The stream of LivenessObserved batches.
inline constexpr char kLivenessStream[] = "liveness";

// "report/<namespace>/<name>": the changed reports, bound releases and staleness of a Target.
std::string ReportStream(absl::string_view target_namespace, absl::string_view name);

}  // namespace credledger::projections
