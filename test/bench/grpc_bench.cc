// The gRPC API under load (docs/testing.md, "Benchmarks"; figures in docs/performance.md):
// status reads/s and p99 on 2 cores, command round-trips/s and p99, each call beside the same
// call made on the in-process API object in the same process, so that the figures show what
// gRPC adds.
//
// One process runs a real Server as `credledger serve` wires it: the SQLite log in a temporary
// directory with synchronous=FULL, plaintext gRPC on 127.0.0.1 port 0, no cluster connection
// (no kubeconfig, KUBERNETES_SERVICE_HOST cleared: the kube bridge is off), the access log off
// (so the figures exclude it), every other option at its default (credentials disabled, no
// authorization policy, no signing key). Clients are generated stubs over loopback: one
// channel per client thread, each with its own TCP connection (a local subchannel pool;
// channels with equal arguments would otherwise share one), connected before the timed runs.
//
//   BM_Grpc<Call>/threads:T   T client threads, each calling over its own channel.
//   BM_Local<Call>/threads:T  T threads making the same call on TargetApi or ReportApi, built
//                             on the server's own command bus and projectors as Server builds
//                             them: no gRPC transport, serialization, caller identity or
//                             authorization.
// Calls:
//   HealthCheck       grpc.health.v1.Health/Check of the server as a whole, gRPC's own service:
//                     the floor of a unary call through gRPC on this machine (no in-process
//                     run; the reporter shows "-" there).
//   GetTargetStatus   ReportService.GetTargetStatus of a random Target.
//   GetTarget         TargetService.GetTarget of a random Target.
//   ListFleetStatus   ReportService.ListFleetStatus of a random namespace of 100 Targets (the
//                     RPC has no paging; a namespace stands for a page of 100).
//   RevokeOrLift      TargetService.Revoke, or LiftRevocation when the Target is revoked, each
//                     with its own request id: one event per call, answered once the batch is
//                     durable and the projector has folded it. Each thread walks its own share
//                     of the fleet (index % threads), so no two calls race on one Target.
//
// Each call is timed on the client with a steady clock; the latencies of all threads of a run
// go into one histogram with buckets 5% wide (common/histogram.h), reported as p50_us and
// p99_us. cpu_us_per_call is the CPU time of the whole process (client threads, gRPC, the
// server's handlers, writer and projectors) over the run divided by the calls: it counts this
// process's work only, so other programs on the machine move it less than the rates. Command
// runs also report events_per_call (growth of the log over the calls made; 1 when each call
// appended exactly its one event). At exit a table sets each gRPC run beside its in-process
// run (grpc_ratio_reporter.h); the exit status is 1 when any run failed.
//
// Before the timed runs the fleet is built over gRPC from 32 threads: N Targets in namespaces
// of 100, each registered, with one bound release and one accepted status report.
//
// After the runs, the stream phase (stream_load.h) opens --streams watches (default 1500) of
// namespace fleet-0 on one channel and prints the threads and resident memory before, with them
// open and after.
//
// Flags: --targets=N (default 10000, at least 64), --streams=N (default 1500, at least 1)
// plus the benchmark library's. Full size:
// `make bench` (docs/performance.md, "gRPC API", adds --benchmark_min_time=2 for steadier p99s);
// the test suite runs it with --targets=200 and a tiny --benchmark_min_time.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "common/clock.h"
#include "common/histogram.h"
#include "credledger/v1/api.grpc.pb.h"
#include "projections/credential_projector.h"
#include "projections/proto_time.h"
#include "projections/status_projector.h"
#include "service/api/report_api.h"
#include "service/api/target_api.h"
#include "service/bus/target_command_bus.h"
#include "service/server/server.h"
#include "service/wire/grpc_status.h"
#include "store/event_store.h"
#include "test/bench/grpc_bench_fleet.h"
#include "test/bench/grpc_ratio_reporter.h"
#include "test/bench/size_flag.h"
#include "test/bench/stream_load.h"
#include "test/support/temp_dir.h"

namespace credledger::service {
namespace {

GrpcBench* g_bench = nullptr;

// A fresh latency histogram for each run: 1 µs to about 15 s in buckets 5% wide.
void ResetLatencies(const benchmark::State&) {
  g_bench->latencies =
      std::make_unique<common::Histogram>(common::ExponentialBuckets(1.0, 1.05, 340));
}

// The p-quantile (0 < p <= 1) of a histogram's observations, interpolated linearly inside the
// bucket that holds it; 0 without observations.
double QuantileOf(const common::Histogram::Snapshot& snapshot, double p) {
  const uint64_t total = snapshot.cumulative.back();
  if (total == 0) return 0;
  const double rank = std::max(1.0, std::ceil(p * static_cast<double>(total)));
  for (size_t i = 0; i < snapshot.bounds.size(); ++i) {
    if (static_cast<double>(snapshot.cumulative[i]) < rank) continue;
    const double below = i == 0 ? 0 : static_cast<double>(snapshot.cumulative[i - 1]);
    const double lower = i == 0 ? 0 : snapshot.bounds[i - 1];
    const double in_bucket = static_cast<double>(snapshot.cumulative[i]) - below;
    return lower + (snapshot.bounds[i] - lower) * (rank - below) / in_bucket;
  }
  return snapshot.bounds.back();  // in the +Inf bucket
}

// CPU time of the whole process so far (every thread), in microseconds.
double ProcessCpuMicros() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

// Runs `call` (returning absl::Status) once per iteration, observing each call's latency in the
// run's histogram; a failed call ends the run with its message. Thread 0 reports the run's
// p50_us, p99_us and cpu_us_per_call: it reads the process CPU time before the loop's start
// barrier and after its end barrier, so every thread's calls fall in between.
template <typename Call>
void MeasureCalls(benchmark::State& state, Call call) {
  common::Histogram& latencies = *g_bench->latencies;
  const double cpu_before = ProcessCpuMicros();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const absl::Status status = call();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    latencies.Observe(std::chrono::duration<double, std::micro>(elapsed).count());
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() != 0 || state.iterations() == 0) return;
  const common::Histogram::Snapshot snapshot = latencies.Read();
  state.counters["p50_us"] = QuantileOf(snapshot, 0.50);
  state.counters["p99_us"] = QuantileOf(snapshot, 0.99);
  state.counters["cpu_us_per_call"] =
      (ProcessCpuMicros() - cpu_before) / static_cast<double>(state.iterations() * state.threads());
}

// A random Target index, or namespace number, per thread.
class RandomPick {
 public:
  RandomPick(const benchmark::State& state, int count)
      : random_(static_cast<uint32_t>(state.thread_index()) + 1), pick_(0, count - 1) {}
  int Next() { return pick_(random_); }

 private:
  std::mt19937 random_;
  std::uniform_int_distribution<int> pick_;
};

absl::Status CheckStatusOf(int i, const v1::GetTargetStatusResponse& response) {
  if (response.status().name() == g_bench->names[i]) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("GetTargetStatus of ", g_bench->names[i], " answered ",
                                          response.status().name()));
}

absl::Status CheckTargetOf(int i, const v1::GetTargetResponse& response) {
  if (response.target().name() == g_bench->names[i]) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("GetTarget of ", g_bench->names[i], " answered ", response.target().name()));
}

absl::Status CheckPageOf(int k, const v1::ListFleetStatusResponse& response) {
  if (response.targets_size() == g_bench->NamespaceSize(k)) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("ListFleetStatus of fleet-", k, " listed ",
                                          response.targets_size(), " Targets, expected ",
                                          g_bench->NamespaceSize(k)));
}

// --- Status reads. ---

// Runs `read(k)` (returning absl::StatusOr<Response>) for a random k in [0, count) per call,
// each answer checked by `check(k, response)`.
template <typename Read, typename Check>
void MeasureReads(benchmark::State& state, int count, Read read, Check check) {
  RandomPick pick(state, count);
  MeasureCalls(state, [&] {
    const int k = pick.Next();
    auto response = read(k);
    return response.ok() ? check(k, *response) : response.status();
  });
}

void BM_GrpcHealthCheck(benchmark::State& state) {
  grpc::GenericStub stub(g_bench->clients[state.thread_index()].channel);
  grpc::CompletionQueue queue;
  // An empty HealthCheckRequest: the server as a whole. (A default ByteBuffer holds no
  // buffer at all, which the health service cannot parse.)
  grpc::Slice empty("", 0);
  const grpc::ByteBuffer request(&empty, 1);
  MeasureCalls(state, [&]() -> absl::Status {
    grpc::ClientContext context;
    PrepareContext(context);
    std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
        stub.PrepareUnaryCall(&context, "/grpc.health.v1.Health/Check", request, &queue);
    call->StartCall();
    grpc::ByteBuffer response;
    grpc::Status status;
    call->Finish(&response, &status, nullptr);
    void* tag = nullptr;
    bool ok = false;
    if (!queue.Next(&tag, &ok) || !ok) return absl::InternalError("health check: no answer");
    return FromGrpcStatus(status);
  });
  queue.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (queue.Next(&tag, &ok)) {
  }
}

void BM_GrpcGetTargetStatus(benchmark::State& state) {
  v1::ReportService::Stub& stub = *g_bench->clients[state.thread_index()].reports;
  MeasureReads(
      state, g_bench->targets,
      [&](int i) {
        return CallRpc(stub, &v1::ReportService::Stub::GetTargetStatus,
                       g_bench->TargetRequestFor<v1::GetTargetStatusRequest>(i));
      },
      CheckStatusOf);
}

void BM_LocalGetTargetStatus(benchmark::State& state) {
  MeasureReads(
      state, g_bench->targets,
      [](int i) {
        return g_bench->local_reports->GetTargetStatus(
            g_bench->TargetRequestFor<v1::GetTargetStatusRequest>(i));
      },
      CheckStatusOf);
}

void BM_GrpcGetTarget(benchmark::State& state) {
  v1::TargetService::Stub& stub = *g_bench->clients[state.thread_index()].targets;
  MeasureReads(
      state, g_bench->targets,
      [&](int i) {
        return CallRpc(stub, &v1::TargetService::Stub::GetTarget,
                       g_bench->TargetRequestFor<v1::GetTargetRequest>(i));
      },
      CheckTargetOf);
}

void BM_LocalGetTarget(benchmark::State& state) {
  MeasureReads(
      state, g_bench->targets,
      [](int i) {
        return g_bench->local_targets->GetTarget(
            g_bench->TargetRequestFor<v1::GetTargetRequest>(i));
      },
      CheckTargetOf);
}

v1::ListFleetStatusRequest PageRequest(int k) {
  v1::ListFleetStatusRequest request;
  request.set_namespace_(absl::StrCat("fleet-", k));
  return request;
}

void BM_GrpcListFleetStatus(benchmark::State& state) {
  v1::ReportService::Stub& stub = *g_bench->clients[state.thread_index()].reports;
  MeasureReads(
      state, g_bench->NamespaceCount(),
      [&](int k) {
        return CallRpc(stub, &v1::ReportService::Stub::ListFleetStatus, PageRequest(k));
      },
      CheckPageOf);
}

void BM_LocalListFleetStatus(benchmark::State& state) {
  MeasureReads(
      state, g_bench->NamespaceCount(),
      [](int k) {
        return g_bench->local_reports->ListFleetStatus(PageRequest(k),
                                                       service::TargetScope::Unrestricted());
      },
      CheckPageOf);
}

// --- Commands. ---

// One Revoke or LiftRevocation answer: it must have appended.
template <typename Response>
absl::Status CheckAppended(const absl::StatusOr<Response>& response) {
  if (!response.ok()) return response.status();
  if (response->seq() > 0 && !response->replayed()) return absl::OkStatus();
  return absl::InternalError("the command appended nothing");
}

// Runs `command(i, lift)` on the thread's share of the fleet in turn (lift: the Target is
// revoked), then reports events_per_call. The head is read before the loop's start barrier
// and after its end barrier, so no other thread's call falls outside.
template <typename Command>
void MeasureCommands(benchmark::State& state, Command command) {
  const int64_t head_before = g_bench->server->event_store()->HeadSeq();
  int i = state.thread_index();
  MeasureCalls(state, [&] {
    const bool lift = g_bench->revoked[i] != 0;
    absl::Status status = command(i, lift);
    if (status.ok()) g_bench->revoked[i] = lift ? 0 : 1;
    i += state.threads();
    if (i >= g_bench->targets) i = state.thread_index();
    return status;
  });
  if (state.thread_index() != 0 || state.iterations() == 0) return;
  const int64_t appended = g_bench->server->event_store()->HeadSeq() - head_before;
  state.counters["events_per_call"] =
      static_cast<double>(appended) / static_cast<double>(state.iterations() * state.threads());
}

// The command for Target `i` with a request id of its own.
template <typename Request>
Request CommandRequest(int i) {
  Request request = g_bench->TargetRequestFor<Request>(i);
  request.set_request_id(absl::StrCat("command-", g_bench->next_request.fetch_add(1)));
  return request;
}

v1::RevokeRequest RevokeRequestFor(int i) {
  v1::RevokeRequest request = CommandRequest<v1::RevokeRequest>(i);
  request.set_reason("bench");
  return request;
}

void BM_GrpcRevokeOrLift(benchmark::State& state) {
  v1::TargetService::Stub& stub = *g_bench->clients[state.thread_index()].targets;
  MeasureCommands(state, [&](int i, bool lift) {
    return lift ? CheckAppended(CallRpc(stub, &v1::TargetService::Stub::LiftRevocation,
                                        CommandRequest<v1::LiftRevocationRequest>(i)))
                : CheckAppended(
                      CallRpc(stub, &v1::TargetService::Stub::Revoke, RevokeRequestFor(i)));
  });
}

void BM_LocalRevokeOrLift(benchmark::State& state) {
  TargetApi& api = *g_bench->local_targets;
  MeasureCommands(state, [&](int i, bool lift) {
    return lift ? CheckAppended(
                      api.LiftRevocation(CommandRequest<v1::LiftRevocationRequest>(i), kBenchActor))
                : CheckAppended(api.Revoke(RevokeRequestFor(i), kBenchActor));
  });
}

// Registers every benchmark at 1, 8 and 64 threads, each run with a fresh latency histogram.
void RegisterGrpcBenchmarks() {
  const std::pair<const char*, void (*)(benchmark::State&)> benchmarks[] = {
      {"BM_GrpcHealthCheck", BM_GrpcHealthCheck},
      {"BM_GrpcGetTargetStatus", BM_GrpcGetTargetStatus},
      {"BM_LocalGetTargetStatus", BM_LocalGetTargetStatus},
      {"BM_GrpcGetTarget", BM_GrpcGetTarget},
      {"BM_LocalGetTarget", BM_LocalGetTarget},
      {"BM_GrpcListFleetStatus", BM_GrpcListFleetStatus},
      {"BM_LocalListFleetStatus", BM_LocalListFleetStatus},
      {"BM_GrpcRevokeOrLift", BM_GrpcRevokeOrLift},
      {"BM_LocalRevokeOrLift", BM_LocalRevokeOrLift},
  };
  for (const auto& [name, fn] : benchmarks) {
    benchmark::RegisterBenchmark(name, fn)
        ->Setup(ResetLatencies)
        ->Threads(1)
        ->Threads(8)
        ->Threads(kMaxClientThreads)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace credledger::service

int main(int argc, char** argv) {
  namespace service = credledger::service;
  benchmark::Initialize(&argc, argv);
  const int targets = static_cast<int>(credledger::bench::TakeSizeFlag(
      "targets", /*fallback=*/10000, /*min=*/service::kMaxClientThreads, argc, argv));
  if (targets < 0) {
    std::fprintf(stderr, "--targets: expected an integer >= %d (one Target per client thread)\n",
                 service::kMaxClientThreads);
    return 1;
  }
  const int streams = static_cast<int>(
      credledger::bench::TakeSizeFlag("streams", /*fallback=*/1500, /*min=*/1, argc, argv));
  if (streams < 0) {
    std::fprintf(stderr, "--streams: expected an integer >= 1\n");
    return 1;
  }
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // Before any thread exists: the server must not find an in-cluster connection.
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");

  service::g_bench = new service::GrpcBench(targets);
  const absl::Time start = absl::Now();
  service::g_bench->BuildFleet();
  const absl::Duration built = absl::Now() - start;

  service::RegisterGrpcBenchmarks();
  credledger::bench::GrpcRatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nfleet of %d Targets built over gRPC (registered, bound, one report each) in %s\n",
              targets, absl::FormatDuration(built).c_str());
  absl::StatusOr<credledger::bench::StreamLoadFigures> load = credledger::bench::RunStreamLoad(
      service::g_bench->server->address(), service::g_bench->namespaces[0], streams);
  if (!load.ok()) {
    std::fprintf(stderr, "streams: %s\n", load.status().ToString().c_str());
    return 1;
  }
  std::printf("%s\n", credledger::bench::Describe(*load).c_str());
  delete service::g_bench;
  benchmark::Shutdown();
  return reporter.failed() ? 1 : 0;
}
