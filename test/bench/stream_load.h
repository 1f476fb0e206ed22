// The stream phase of grpc_bench (docs/performance.md, "gRPC API"): one loopback channel opens
// `streams` WatchTargets streams of one namespace on a running server, in the same process,
// and reads each one's snapshot; then cancels them all. It measures the process's threads and
// resident memory before, with the streams open, and once the client has finished them, and how
// long a unary read takes while they are open.
//
// Thread-safety: run from one thread.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace credledger::bench {

struct StreamLoadFigures {
  int streams = 0;
  int threads_before = 0;
  int threads_open = 0;
  int threads_after = 0;
  double rss_mib_before = 0;
  double rss_mib_open = 0;
  double rss_mib_after = 0;
  absl::Duration open_time;  // to open every stream and read its snapshot
  absl::Duration list_time;  // one ListTargets while they are open
};

// Opens `streams` watches of `target_namespace` on the server at `address` (plaintext,
// --insecure-allow-all), as above. Errors: kUnavailable or the stream's error when a stream ends
// before its snapshot; kInternal when ListTargets fails.
absl::StatusOr<StreamLoadFigures> RunStreamLoad(const std::string& address,
                                                const std::string& target_namespace, int streams);

// One line of the figures, e.g. "1500 watch streams: threads 47 -> 52 -> 48, ...".
std::string Describe(const StreamLoadFigures& figures);

}  // namespace credledger::bench
