// Kubernetes timestamps: RFC 3339 in UTC with whole seconds and a 'Z' suffix
// (metav1.Time's wire form, e.g. "2026-01-01T00:00:00Z").
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace credledger::kubeapi {

// `t` truncated to seconds, as "YYYY-MM-DDTHH:MM:SSZ".
std::string FormatKubeTime(absl::Time t);

// `t` as an HTTP date (RFC 9110 IMF-fixdate, always GMT), the form of a response's Date
// header: "Thu, 01 Jan 2026 00:00:00 GMT".
std::string FormatHttpDate(absl::Time t);

// Parses any RFC 3339 timestamp; std::nullopt when `text` is not one.
std::optional<absl::Time> ParseKubeTime(absl::string_view text);

// Kubernetes' short age display ("5s", "3m", "2h", "4d") for a duration; used by the Table
// printer. Negative durations print as "0s".
std::string FormatAge(absl::Duration age);

}  // namespace credledger::kubeapi
