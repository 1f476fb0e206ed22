// RFC 3339 timestamps as Kubernetes writes them (metav1.Time): UTC with a 'Z' suffix.
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include "absl/time/time.h"

namespace credledger::common {

// `t` in UTC as "2026-01-02T03:04:05Z"; a time with a fraction of a second keeps it, with as
// many digits as needed ("2026-01-02T03:04:05.25Z"), so formatting loses nothing.
std::string FormatRfc3339(absl::Time t);

}  // namespace credledger::common
