// Fault points for crash tests (docs/testing.md, "Fault points"): named places in the real
// binaries where the process can be killed on purpose.
//
// The environment variable CREDLEDGER_FAULT_POINTS holds a comma-separated list of point
// names, each optionally followed by `:<n>` (n >= 1, default 1). When execution reaches a
// listed point for the n-th time, the process logs the line
// {"msg":"fault point reached","point":"<name>"} on stderr and sends itself SIGKILL (no
// destructors, no further flushing: like a power cut for everything not yet durable). The
// line lets a test tell a kill at the point from any other death. An entry with a bad n is
// logged and ignored. Unset, a point costs one read of a cached flag. Never set it in
// production.
#pragma once

#include "absl/strings/string_view.h"

namespace credledger::common {

// Kills the process with SIGKILL when this is the arrival at `point` that
// CREDLEDGER_FAULT_POINTS arms, after logging that it reached `point`. Returns (doing
// nothing) at any other arrival and at points not armed. Thread-safe.
void FaultPoint(absl::string_view point);

}  // namespace credledger::common
