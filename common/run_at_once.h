// RunAtOnce: runs a few pieces of CPU-bound work side by side, each on a thread of its own,
// and waits for all of them (a rebuild settling the status projection's open runs on the
// reading thread's core once the log is read, projections/projector.h).
//
// Thread-safety: safe to call from any thread; the tasks must not touch the same data.
#pragma once

#include <functional>

#include "absl/types/span.h"

namespace credledger::common {

// Runs every task of `tasks`: the first on the calling thread, each other on a new thread, all
// at once; returns once every task has returned. A task whose thread cannot start runs on the
// calling thread after the first, so every task always runs exactly once. Tasks must not
// throw.
void RunAtOnce(absl::Span<const std::function<void()>> tasks);

}  // namespace credledger::common
