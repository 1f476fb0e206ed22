#include "test/bench/grpc_ratio_reporter.h"

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::bench {
namespace {

constexpr absl::string_view kGrpcPrefix = "BM_Grpc";
constexpr absl::string_view kLocalPrefix = "BM_Local";

// The value of counter `name` of `run`; 0 when the run has none.
double CounterOf(const benchmark::BenchmarkReporter::Run& run, const std::string& name) {
  auto counter = run.counters.find(name);
  return counter == run.counters.end() ? 0 : counter->second.value;
}

}  // namespace

void GrpcRatioReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    if (run.error_occurred) failed_ = true;
    const std::string name = run.benchmark_name();
    if (!figures_.contains(name)) order_.push_back(name);
    Figures& figures = figures_[name];
    figures.per_second = CounterOf(run, "items_per_second");
    figures.p50_us = CounterOf(run, "p50_us");
    figures.p99_us = CounterOf(run, "p99_us");
    figures.cpu_us = CounterOf(run, "cpu_us_per_call");
  }
  ConsoleReporter::ReportRuns(runs);
}

void GrpcRatioReporter::Finalize() {
  ConsoleReporter::Finalize();
  std::printf(
      "\ngRPC vs in-process API (same process; calls/s; latency and process CPU per call in "
      "microseconds):\n");
  std::printf("  %-16s %7s %10s %8s %8s %6s %12s %8s %8s %6s %7s\n", "call", "threads", "grpc/s",
              "p50", "p99", "cpu", "in-process/s", "p50", "p99", "cpu", "ratio");
  for (const std::string& name : order_) {
    if (!absl::StartsWith(name, kGrpcPrefix)) continue;
    const std::string rest = name.substr(kGrpcPrefix.size());
    auto local = figures_.find(absl::StrCat(kLocalPrefix, rest));
    const Figures& grpc = figures_.find(name)->second;
    const std::string call = rest.substr(0, rest.find('/'));
    const std::string threads = rest.substr(rest.rfind(':') + 1);
    if (local == figures_.end() || local->second.per_second <= 0) {
      // gRPC's own floor (HealthCheck): no in-process call to set beside it.
      std::printf("  %-16s %7s %10.0f %8.0f %8.0f %6.0f %12s %8s %8s %6s %7s\n", call.c_str(),
                  threads.c_str(), grpc.per_second, grpc.p50_us, grpc.p99_us, grpc.cpu_us, "-", "-",
                  "-", "-", "-");
      continue;
    }
    const Figures& in_process = local->second;
    std::printf("  %-16s %7s %10.0f %8.0f %8.0f %6.0f %12.0f %8.0f %8.0f %6.0f %7.3f\n",
                call.c_str(), threads.c_str(), grpc.per_second, grpc.p50_us, grpc.p99_us,
                grpc.cpu_us, in_process.per_second, in_process.p50_us, in_process.p99_us,
                in_process.cpu_us, grpc.per_second / in_process.per_second);
  }
}

}  // namespace credledger::bench
