// GrpcRatioReporter: the console reporter of grpc_bench (docs/performance.md, "gRPC API"). It
// prints the benchmark library's table, then one line per gRPC run beside the in-process run
// of the same call and callers: run "BM_Grpc<Call>/..." pairs with "BM_Local<Call>/...". Each
// side shows calls/s (items_per_second) and the counters p50_us, p99_us and cpu_us_per_call;
// the ratio is gRPC calls/s divided by in-process calls/s. A gRPC run without an in-process
// run (BM_GrpcHealthCheck, gRPC's own floor) gets its line with "-" on the in-process side.
//
// Plain text: the library's --benchmark_color does not reach a reporter the program makes.
//
// Thread-safety: called by the benchmark runner's thread only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace credledger::bench {

class GrpcRatioReporter : public benchmark::ConsoleReporter {
 public:
  GrpcRatioReporter() : ConsoleReporter(OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // True when any run reported an error (State::SkipWithError).
  bool failed() const { return failed_; }

 private:
  struct Figures {
    double per_second = 0;
    double p50_us = 0;
    double p99_us = 0;
    double cpu_us = 0;
  };

  std::map<std::string, Figures> figures_;
  // Run names in the order they ran.
  std::vector<std::string> order_;
  bool failed_ = false;
};

}  // namespace credledger::bench
