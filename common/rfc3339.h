// RFC 3339 timestamps as Kubernetes writes them (metav1.Time): UTC with a 'Z' suffix.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace credledger::common {

// `t` in UTC as "2026-01-02T03:04:05Z"; a time with a fraction of a second keeps it, with as
// many digits as needed ("2026-01-02T03:04:05.25Z"), so formatting loses nothing.
std::string FormatRfc3339(absl::Time t);

// Parses an RFC 3339 date-time (section 5.6): "2026-01-02T03:04:05Z", with an optional
// fraction of a second and a "Z" or "+hh:mm"/"-hh:mm" offset ('T' and 'Z' also in lower
// case). Returns nullopt for anything else, e.g. a date without a time or a missing offset.
std::optional<absl::Time> ParseRfc3339(absl::string_view text);

}  // namespace credledger::common
