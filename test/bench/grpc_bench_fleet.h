// The server, clients and fleet of grpc_bench (grpc_bench.cc; docs/performance.md, "gRPC
// API"): a real Server as `credledger serve` wires it, one channel with its own TCP connection
// per client thread, the in-process API objects over the server's own command bus and
// projectors, and the fleet of Targets built over gRPC before the timed runs.
//
// Thread-safety: BuildFleet from one thread; the rest is read-only once built, except
// `revoked` (see there) and `latencies`.
#pragma once

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/histogram.h"
#include "credledger/v1/api.grpc.pb.h"
#include "projections/proto_time.h"
#include "service/api/report_api.h"
#include "service/api/target_api.h"
#include "service/server/server.h"
#include "service/wire/grpc_status.h"
#include "store/event_store.h"
#include "test/support/temp_dir.h"

namespace credledger::service {

constexpr int kTargetsPerNamespace = 100;
// The most client threads of a run; one channel each.
constexpr int kMaxClientThreads = 64;
constexpr int kFleetBuildThreads = 32;
constexpr char kBenchActor[] = "bench";
constexpr absl::Duration kCallDeadline = absl::Seconds(60);

[[noreturn]] inline void Die(absl::string_view what, const absl::Status& status) {
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(what.size()), what.data(),
               status.ToString().c_str());
  std::abort();
}

// One client thread's connection: a channel with a TCP connection of its own, and both stubs.
struct BenchClient {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::TargetService::Stub> targets;
  std::unique_ptr<v1::ReportService::Stub> reports;
};

inline BenchClient ConnectClient(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  BenchClient client;
  client.channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  if (!client.channel->WaitForConnected(absl::ToChronoTime(absl::Now() + absl::Seconds(30)))) {
    Die("connect", absl::UnavailableError(absl::StrCat("no connection to ", address)));
  }
  client.targets = v1::TargetService::NewStub(client.channel);
  client.reports = v1::ReportService::NewStub(client.channel);
  return client;
}

// Names the bench as the caller (loopback plaintext: credledger-actor) and sets a deadline.
inline void PrepareContext(grpc::ClientContext& context) {
  context.AddMetadata(kActorMetadataKey, kBenchActor);
  context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
}

// Calls `rpc` of `stub` with a prepared context. Returns its response, or its status mapped
// one to one (FromGrpcStatus).
template <typename Stub, typename Request, typename Response>
absl::StatusOr<Response> CallRpc(Stub& stub,
                                 grpc::Status (Stub::*rpc)(grpc::ClientContext*, const Request&,
                                                           Response*),
                                 const Request& request) {
  grpc::ClientContext context;
  PrepareContext(context);
  Response response;
  const grpc::Status status = (stub.*rpc)(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

template <typename Response>
Response MustSucceed(absl::string_view what, absl::StatusOr<Response> response) {
  if (!response.ok()) Die(what, response.status());
  return *std::move(response);
}

// The status report every Target sends first (as report_bench's): one release, Ready.
inline v1::TargetReportSpec FirstReport() {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = projections::ToProto(absl::Now());
  v1::ReleaseStatus* release = report.add_releases();
  release->set_name("podinfo");
  release->set_namespace_("apps");
  release->set_phase(v1::RELEASE_PHASE_READY);
  release->set_revision("1.0.0");
  return report;
}

// The running server, its clients, the in-process API objects and the fleet.
struct GrpcBench {
  explicit GrpcBench(int n) : targets(n), revoked(n, 0) {
    for (int i = 0; i < n; ++i) {
      namespaces.push_back(absl::StrCat("fleet-", i / kTargetsPerNamespace));
      names.push_back(absl::StrCat("edge-", i));
    }
    ServeOptions options;
    options.grpc.insecure_allow_all = true;
    options.log.db_path = dir.path() / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.log.synchronous = store::SqliteEventStoreOptions::Synchronous::kFull;
    // One stderr line per call would swamp the output; the figures exclude access logging.
    options.grpc.access_log = false;
    // The stream phase opens its watches from one caller.
    options.grpc.max_streams = static_cast<int64_t>(kMaxStreams);
    options.grpc.max_streams_per_caller = static_cast<int64_t>(kMaxStreams);
    absl::StatusOr<std::unique_ptr<Server>> started = Server::Start(options);
    if (!started.ok()) Die("serve", started.status());
    server = *std::move(started);
    for (int c = 0; c < kMaxClientThreads; ++c) clients.push_back(ConnectClient(server->address()));
    local_targets = std::make_unique<TargetApi>(server->command_bus(), server->projector(),
                                                common::RealClock::Default(), TargetApi::Options{});
    // Only reads are made on it, and ReportApi's reads use only the status projector.
    local_reports = std::make_unique<ReportApi>(/*ingest=*/nullptr, server->status_projector(),
                                                ReportApi::Options{});
  }

  // Registers every Target, binds its release and pushes its first report, over gRPC.
  void BuildFleet() {
    std::vector<std::thread> workers;
    for (int t = 0; t < kFleetBuildThreads; ++t) {
      workers.emplace_back([this, t] {
        for (int i = t; i < targets; i += kFleetBuildThreads) AddTarget(clients[t], i);
      });
    }
    for (std::thread& worker : workers) worker.join();
  }

  void AddTarget(BenchClient& client, int i) {
    auto registration = TargetRequestFor<v1::RegisterTargetRequest>(i);
    registration.set_request_id(absl::StrCat("register-", i));
    MustSucceed("RegisterTarget",
                CallRpc(*client.targets, &v1::TargetService::Stub::RegisterTarget, registration));
    auto binding = TargetRequestFor<v1::SetBoundReleasesRequest>(i);
    binding.set_request_id(absl::StrCat("bind-", i));
    v1::BoundRelease* release = binding.add_releases();
    release->set_name("podinfo");
    release->set_namespace_("apps");
    binding.set_bootstrap_version("1.0.0");
    MustSucceed("SetBoundReleases",
                CallRpc(*client.reports, &v1::ReportService::Stub::SetBoundReleases, binding));
    auto push = TargetRequestFor<v1::PushReportRequest>(i);
    push.set_request_id(absl::StrCat("report-", i));
    *push.mutable_report() = FirstReport();
    const v1::PushReportResponse pushed = MustSucceed(
        "PushReport", CallRpc(*client.reports, &v1::ReportService::Stub::PushReport, push));
    if (pushed.heartbeat() || pushed.seq() == 0) {
      Die("PushReport", absl::InternalError("the first report was not accepted"));
    }
  }

  // A request addressed to Target `i`.
  template <typename Request>
  Request TargetRequestFor(int i) const {
    Request request;
    request.set_namespace_(namespaces[i]);
    request.set_name(names[i]);
    return request;
  }

  // Targets in namespace number `k` (fleet-<k>).
  int NamespaceSize(int k) const {
    return std::min(kTargetsPerNamespace, targets - k * kTargetsPerNamespace);
  }
  int NamespaceCount() const { return (targets + kTargetsPerNamespace - 1) / kTargetsPerNamespace; }

  const int targets;
  std::vector<std::string> namespaces;
  std::vector<std::string> names;
  // Per Target: revoked by the last command. During a run only the thread owning the Target's
  // share touches its entry.
  std::vector<char> revoked;
  std::atomic<int64_t> next_request{0};
  // Latencies (µs) of the running benchmark's calls; replaced before each run.
  std::unique_ptr<common::Histogram> latencies;

  ::credledger::testing::TempDir dir;
  std::unique_ptr<Server> server;
  std::vector<BenchClient> clients;
  // Declared after `server`, whose components they use: destroyed first.
  std::unique_ptr<TargetApi> local_targets;
  std::unique_ptr<ReportApi> local_reports;
};

}  // namespace credledger::service
