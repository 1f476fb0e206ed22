// Fleet scale (docs/testing.md, "Benchmarks"; figures in docs/performance.md): N Targets
// registered and minted against the test API server at a stated client QPS; the Kubernetes
// API calls per Target of the mint, the start pass and a resync (docs/kubernetes.md, "API
// calls per Target"); memory per Target by component; cold start from a snapshot.
//
// One process runs the test Kubernetes API server (test/kubeapi, HTTPS on loopback, one
// namespace per 100 Targets created at its start, 64 workers) and a real Server as
// `credledger serve` wires it: the SQLite log in a temporary directory with synchronous=FULL,
// a signing key (checkpoints signed, snapshots sealed), snapshots every 1000 events (the
// default), the API server's kubeconfig (the admin user),
// the Kubernetes client limited to kFleetKubeQps requests/s with a burst of kFleetKubeBurst,
// credentials enabled (agent URL and CA = the API server's), the access log off. It runs four
// phases and prints one table each, by verb, resource and code, with a summary and the aim:
//
//   1. register and mint: once the bridge's caches and Secret watch have their first lists,
//      N Targets (fleet-<i/100>/edge-<i>) registered over gRPC from 16 client threads, each
//      with its own channel; then waits until every Target's AgentCredentialReady is
//      True/Issued (the projection's condition tally, checked each time the credential bridge
//      is idle, with a deadline of 1 min + 50 ms per Target). The server's resync period is
//      24h here, so no periodic pass runs. Reports the time, Targets/s and the calls; aim: at
//      most kFleetMintCallsAim single-object calls and lists of Secrets per Target.
//   2. cold start: Shutdown, then a new Server on the same database. Times Start returning,
//      both projectors caught up with the log head (they load their snapshots first), and the
//      bridge's first pass over every Target (queued at start) finished (WaitIdle). Aim: no
//      single-object call (the caches' and watches' paged first lists only).
//   3. steady state: on that server, exactly one periodic resync pass: calls counted from the
//      end of the start pass until the first resync's queued keys are all done. Its resync
//      period is max(5s, phase 1 time / 2), so the start pass ends before it; the bench checks
//      that no resync ran during the start pass. Aim: no call besides watch requests.
//   4. memory: VmRSS of the process (/proc/self/status, each read after malloc_trim) after the
//      API server started, before and after phase 1, after the first Server was destroyed,
//      and after the cold start's start pass. What the first Server freed is its own share;
//      what stays is the API server's objects (an upper bound: allocator fragmentation and
//      the first Server's leftovers stay too). Then the heap of the Server's components,
//      each built again alone (fleet_memory.h); aim: projections and work queue at most
//      kFleetMemoryAimKiB per Target; the caches per object.
//
// The exit status is 1 when a phase misses its deadline, a resync overlapped the start pass,
// the resync pass wrote to the cluster, or any Kubernetes call was refused (403) or failed on
// the server (5xx); not when another aim fails: that is a figure, printed as "aim holds: no".
//
// Flags: --targets=N (default 100000, at least 1) plus the benchmark library's (accepted and
// ignored: there are no timed loops). Full size: docs/performance.md, "Fleet scale"; the test
// suite runs it with --targets=50.
#include <grpcpp/grpcpp.h>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "audit/signing_key.h"
#include "benchmark/benchmark.h"
#include "credledger/v1/api.grpc.pb.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "projections/credential_projector.h"
#include "projections/status_projector.h"
#include "projections/target_state.h"
#include "service/api/target_api.h"
#include "service/server/server.h"
#include "store/event_store.h"
#include "test/bench/fleet_memory.h"
#include "test/bench/size_flag.h"
#include "test/kubeapi/api_server.h"
#include "test/kubeapi/request_recorder.h"
#include "test/support/temp_dir.h"

namespace credledger::service {
namespace {

constexpr int kFleetTargetsPerNamespace = 100;
constexpr int kFleetClientThreads = 16;
constexpr double kFleetKubeQps = 500;
constexpr int kFleetKubeBurst = 1000;
// The user of the API server's kubeconfig (its admin token), which the bridge uses.
constexpr char kFleetBridgeUser[] = "kubernetes-admin";
constexpr char kFleetActor[] = "fleet-bench";
// Calls a mint may cost per Target (docs/kubernetes.md, "API calls per Target").
constexpr int kFleetMintCallsAim = 8;
// Heap the projections and the work queue may hold per Target.
constexpr int kFleetMemoryAimKiB = 2;
// Long enough that no periodic resync runs while the fleet is minted.
constexpr absl::Duration kFleetMintResyncPeriod = absl::Hours(24);
constexpr absl::Duration kFleetCallDeadline = absl::Seconds(60);

[[noreturn]] void FleetDie(absl::string_view what, const absl::Status& status) {
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(what.size()), what.data(),
               status.ToString().c_str());
  std::exit(1);
}

// Kubernetes API calls of one user: (verb, resource or path, HTTP code) -> count.
using FleetCallKey = std::tuple<std::string, std::string, int>;
using FleetCallCounts = std::map<FleetCallKey, int64_t>;

FleetCallCounts BridgeCalls(const kubeapi::ApiServer& api) {
  FleetCallCounts counts;
  for (const kubeapi::RequestCount& c : api.requests().CountsOf(kFleetBridgeUser)) {
    if (c.check) continue;  // the create right of an apply, not a request of its own
    std::string what = c.resource.empty() ? c.path : c.resource;
    if (!c.group.empty()) what = absl::StrCat(c.group, "/", what);
    counts[{c.verb, what, c.code}] += c.count;
  }
  return counts;
}

// The calls in `after` that `before` had not counted yet.
FleetCallCounts CallsSince(const FleetCallCounts& before, const FleetCallCounts& after) {
  FleetCallCounts since;
  for (const auto& [key, count] : after) {
    auto it = before.find(key);
    const int64_t added = count - (it == before.end() ? 0 : it->second);
    if (added > 0) since[key] = added;
  }
  return since;
}

bool IsWriteVerb(absl::string_view verb) {
  return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" ||
         verb == "deletecollection";
}

// Totals of one phase's calls, for the summary lines, the aims and the exit status.
struct FleetCallTotals {
  int64_t all = 0;
  int64_t watches = 0;            // watch requests: one per stream and collection, not per Target
  int64_t lists = 0;              // list requests, each page counted
  int64_t secret_lists = 0;       // of them, lists of Secrets
  int64_t writes = 0;             // write verbs, whatever the answer
  int64_t refused_or_failed = 0;  // 403 or 5xx
  // Reads and writes of single objects: what a pass costs besides lists.
  int64_t single_objects() const { return all - watches - lists; }
  // What minting costs: single objects and the list of the Target's credential Secrets
  // (plus any list of Secrets the Secret watch repeats); the caches' lists of other
  // collections are one per collection, not per Target.
  int64_t mint_calls() const { return single_objects() + secret_lists; }
};

// Prints `calls` as a table with a per-Target column and returns their totals.
FleetCallTotals PrintCalls(absl::string_view phase, const FleetCallCounts& calls, int targets) {
  std::printf("\n%.*s: Kubernetes API calls of %s\n", static_cast<int>(phase.size()), phase.data(),
              kFleetBridgeUser);
  std::printf("  %-8s %-40s %5s %10s %12s\n", "verb", "resource", "code", "calls", "per Target");
  FleetCallTotals totals;
  for (const auto& [key, count] : calls) {
    const auto& [verb, what, code] = key;
    std::printf("  %-8s %-40s %5d %10lld %12.3f\n", verb.c_str(), what.c_str(), code,
                static_cast<long long>(count), static_cast<double>(count) / targets);
    totals.all += count;
    if (IsWriteVerb(verb)) totals.writes += count;
    if (verb == "watch") totals.watches += count;
    if (verb == "list") totals.lists += count;
    if (verb == "list" && what == "secrets") totals.secret_lists += count;
    if (code == 403 || code >= 500) totals.refused_or_failed += count;
  }
  std::printf(
      "  total %lld: single-object calls %.3f per Target (writes %.3f), lists %lld (of Secrets "
      "%lld), watch requests %lld\n",
      static_cast<long long>(totals.all), static_cast<double>(totals.single_objects()) / targets,
      static_cast<double>(totals.writes) / targets, static_cast<long long>(totals.lists),
      static_cast<long long>(totals.secret_lists), static_cast<long long>(totals.watches));
  return totals;
}

const char* Holds(bool aim) { return aim ? "yes" : "no"; }

// VmRSS of this process in KiB after malloc_trim returned free heap pages to the system, so
// that memory freed by finished work is not counted; 0 when /proc/self/status cannot be read.
int64_t LiveResidentKiB() {
  malloc_trim(0);
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "VmRSS:")) continue;
    int64_t kib = 0;
    rest = absl::StripSuffix(absl::StripAsciiWhitespace(rest), " kB");
    return absl::SimpleAtoi(rest, &kib) ? kib : 0;
  }
  return 0;
}

std::string FleetNamespace(int i) { return absl::StrCat("fleet-", i / kFleetTargetsPerNamespace); }
std::string FleetTargetName(int i) { return absl::StrCat("edge-", i); }

// The API server, the database directory and the Server under test.
class FleetBench {
 public:
  explicit FleetBench(int targets) : targets_(targets) {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    for (int i = 0; i < targets_; i += kFleetTargetsPerNamespace) {
      api.namespaces.push_back(FleetNamespace(i));
    }
    absl::StatusOr<std::unique_ptr<kubeapi::ApiServer>> started =
        kubeapi::ApiServer::Start(std::move(api));
    if (!started.ok()) FleetDie("start the test API server", started.status());
    api_ = *std::move(started);
    // The service's key: without it no snapshot is written or loaded.
    absl::StatusOr<audit::SigningKey> key = audit::SigningKey::Generate();
    if (!key.ok()) FleetDie("signing key", key.status());
    std::ofstream(signing_key_path()) << key->PrivatePem();
  }

  std::filesystem::path signing_key_path() const { return dir_.path() / "signing-key.pem"; }

  const kubeapi::ApiServer& api() const { return *api_; }

  // Starts a Server on the bench's database with `resync_period`.
  std::unique_ptr<Server> StartServer(absl::Duration resync_period) const {
    ServeOptions options;
    options.grpc.insecure_allow_all = true;
    options.log.db_path = dir_.path() / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.log.synchronous = store::SqliteEventStoreOptions::Synchronous::kFull;
    options.kube.kubeconfig = api_->kubeconfig_path();
    options.kube.qps = kFleetKubeQps;
    options.kube.burst = kFleetKubeBurst;
    options.credentials.agent_apiserver_url = api_->url();
    options.credentials.agent_ca_file = api_->ca_path();
    options.kube.resync_period = resync_period;
    options.grpc.access_log = false;
    options.audit.signing_key = signing_key_path();
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(std::move(options));
    if (!server.ok()) FleetDie("serve", server.status());
    return *std::move(server);
  }

  // Registers every Target over gRPC from kFleetClientThreads threads, each with a channel and
  // TCP connection of its own.
  void RegisterAll(const Server& server) const {
    std::vector<std::thread> clients;
    for (int t = 0; t < kFleetClientThreads; ++t) {
      clients.emplace_back([this, &server, t] {
        grpc::ChannelArguments args;
        args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
        auto stub = v1::TargetService::NewStub(
            grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(), args));
        for (int i = t; i < targets_; i += kFleetClientThreads) Register(*stub, i);
      });
    }
    for (std::thread& client : clients) client.join();
  }

  // Waits until every Target's AgentCredentialReady is True/Issued: each time the bridge is
  // idle, reads the projection's condition tally once the projector has folded the log head;
  // when not all are issued, waits up to 1s for the next event before looking again (a retry
  // waiting for its backoff leaves the bridge idle). Returns false at `give_up`.
  bool WaitAllIssued(const Server& server, absl::Time give_up) const {
    kubebridge::CredentialBridge* bridge = server.credential_bridge();
    while (absl::Now() < give_up) {
      if (!bridge->WaitIdle(give_up - absl::Now())) return false;
      if (!server.projector()->WaitForSeq(server.event_store()->HeadSeq(), give_up - absl::Now())) {
        return false;
      }
      const int64_t folded = server.projector()->seq();
      const auto counts = server.projector()->CredentialReadyCounts();
      auto issued = counts.find({"True", projections::kReasonIssued});
      if (issued != counts.end() && issued->second == targets_) return true;
      // Idle but not done: only a retry due later can change anything, and it appends.
      server.projector()->WaitForSeq(folded + 1, absl::Seconds(1));
    }
    return false;
  }

 private:
  void Register(v1::TargetService::Stub& stub, int i) const {
    v1::RegisterTargetRequest request;
    request.set_namespace_(FleetNamespace(i));
    request.set_name(FleetTargetName(i));
    request.set_request_id(absl::StrCat("register-", i));
    grpc::ClientContext context;
    context.AddMetadata(kActorMetadataKey, kFleetActor);
    context.set_deadline(absl::ToChronoTime(absl::Now() + kFleetCallDeadline));
    v1::RegisterTargetResponse response;
    const grpc::Status status = stub.RegisterTarget(&context, request, &response);
    if (!status.ok()) {
      FleetDie(absl::StrCat("RegisterTarget ", request.namespace_(), "/", request.name()),
               absl::UnknownError(status.error_message()));
    }
  }

  const int targets_;
  ::credledger::testing::TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> api_;
};

void PrintMemory(absl::string_view what, int64_t kib, int targets) {
  std::printf("  %-58.*s %9.1f MiB %9.2f KiB per Target\n", static_cast<int>(what.size()),
              what.data(), static_cast<double>(kib) / 1024, static_cast<double>(kib) / targets);
}

double SecondsOf(absl::Duration d) { return absl::ToDoubleSeconds(d); }

// Runs the four phases; returns the exit status.
int RunFleetBench(int targets) {
  const absl::Duration deadline = absl::Minutes(1) + targets * absl::Milliseconds(50);
  FleetBench bench(targets);
  const int64_t rss_api = LiveResidentKiB();
  std::printf(
      "fleet of %d Targets in %d namespaces; Kubernetes client qps %.0f burst %d; "
      "%d gRPC client threads\n",
      targets, (targets + kFleetTargetsPerNamespace - 1) / kFleetTargetsPerNamespace, kFleetKubeQps,
      kFleetKubeBurst, kFleetClientThreads);

  // Phase 1: register and mint.
  std::unique_ptr<Server> server = bench.StartServer(kFleetMintResyncPeriod);
  if (!server->credential_bridge()->WaitSynced(deadline)) {
    FleetDie("serve", absl::DeadlineExceededError("the bridge's caches and watch did not sync"));
  }
  const int64_t rss_before = LiveResidentKiB();
  const FleetCallCounts calls_at_start = BridgeCalls(bench.api());
  const absl::Time mint_start = absl::Now();
  bench.RegisterAll(*server);
  const absl::Duration registered = absl::Now() - mint_start;
  if (!bench.WaitAllIssued(*server, mint_start + deadline)) {
    FleetDie("mint", absl::DeadlineExceededError(
                         absl::StrCat("not every Target was issued a credential within ",
                                      absl::FormatDuration(deadline))));
  }
  const absl::Duration minted = absl::Now() - mint_start;
  const int64_t rss_minted = LiveResidentKiB();
  const int64_t log_events = server->event_store()->HeadSeq();
  std::printf(
      "\nphase 1, register and mint: registered in %.1f s (%.0f Targets/s); every "
      "credential issued after %.1f s (%.0f Targets/s); %lld events in the log\n",
      SecondsOf(registered), targets / SecondsOf(registered), SecondsOf(minted),
      targets / SecondsOf(minted), static_cast<long long>(log_events));
  const FleetCallTotals mint_totals =
      PrintCalls("phase 1", CallsSince(calls_at_start, BridgeCalls(bench.api())), targets);
  std::printf(
      "  mint: %.3f calls per Target (single objects and lists of Secrets); aim (at most %d) "
      "holds: %s\n",
      static_cast<double>(mint_totals.mint_calls()) / targets, kFleetMintCallsAim,
      Holds(mint_totals.mint_calls() <= kFleetMintCallsAim * targets));

  // Phase 2: cold start from the snapshots.
  server->Shutdown();
  server.reset();
  const int64_t rss_after_server = LiveResidentKiB();
  const absl::Duration steady_resync = std::max(absl::Seconds(5), minted / 2);
  const FleetCallCounts calls_before_restart = BridgeCalls(bench.api());
  const absl::Time restart = absl::Now();
  server = bench.StartServer(steady_resync);
  const absl::Duration started = absl::Now() - restart;
  const int64_t head = server->event_store()->HeadSeq();
  if (!server->projector()->WaitForSeq(head, deadline) ||
      !server->status_projector()->WaitForSeq(head, deadline)) {
    FleetDie("cold start", absl::DeadlineExceededError("the projectors did not catch up"));
  }
  const absl::Duration caught_up = absl::Now() - restart;
  kubebridge::CredentialBridge* bridge = server->credential_bridge();
  if (!bridge->WaitIdle(deadline)) {
    FleetDie("cold start", absl::DeadlineExceededError("the start pass did not finish"));
  }
  const absl::Duration first_pass = absl::Now() - restart;
  if (bridge->resyncs() != 0) {
    FleetDie("cold start", absl::FailedPreconditionError(absl::StrCat(
                               "a periodic resync (every ", absl::FormatDuration(steady_resync),
                               ") ran before the start pass ended")));
  }
  const int64_t rss_cold = LiveResidentKiB();
  std::printf(
      "\nphase 2, cold start on %lld events: Start returned after %.2f s, projectors "
      "caught up after %.2f s, the bridge's start pass over every Target ended after "
      "%.1f s\n",
      static_cast<long long>(head), SecondsOf(started), SecondsOf(caught_up),
      SecondsOf(first_pass));
  const FleetCallCounts calls_after_start_pass = BridgeCalls(bench.api());
  const FleetCallTotals start_totals = PrintCalls(
      "phase 2, start pass", CallsSince(calls_before_restart, calls_after_start_pass), targets);
  std::printf(
      "  aim (no single-object call; lists only the pages of the caches' and watches' first "
      "lists) holds: %s\n",
      Holds(start_totals.single_objects() == 0));

  // Phase 3: one periodic resync pass.
  if (!bridge->WaitResyncs(1, steady_resync + deadline) || !bridge->WaitIdle(deadline)) {
    FleetDie("steady state", absl::DeadlineExceededError("the resync pass did not finish"));
  }
  const int64_t appended = server->event_store()->HeadSeq() - head;
  std::printf("\nphase 3, one resync pass (period %s): %lld events appended since the restart\n",
              absl::FormatDuration(steady_resync).c_str(), static_cast<long long>(appended));
  const FleetCallTotals resync_totals =
      PrintCalls("phase 3, resync pass",
                 CallsSince(calls_after_start_pass, BridgeCalls(bench.api())), targets);
  std::printf("  aim (no call at all besides watch requests) holds: %s\n",
              Holds(resync_totals.all == resync_totals.watches));

  // Phase 4: memory.
  std::printf("\nphase 4, VmRSS growth\n");
  PrintMemory("phase 1 (Server and API server objects)", rss_minted - rss_before, targets);
  PrintMemory("left after the first Server was destroyed (API server objects)",
              rss_after_server - rss_api, targets);
  PrintMemory("freed with the first Server (its share of phase 1)", rss_minted - rss_after_server,
              targets);
  PrintMemory("cold-started Server after its start pass", rss_cold - rss_after_server, targets);
  const bench::FleetMemory parts = bench::MeasureFleetMemory(
      server->event_store(), bench.api(), targets, FleetNamespace, FleetTargetName);
  std::printf("  heap of its components, each built again alone:\n");
  PrintMemory("credential projection", parts.credential_projection / 1024, targets);
  PrintMemory("status projection", parts.status_projection / 1024, targets);
  PrintMemory("credential bridge's work queue", parts.queue / 1024, targets);
  const int64_t per_target_parts =
      parts.credential_projection + parts.status_projection + parts.queue;
  std::printf("  projections and queue: %.2f KiB per Target; aim (at most %d KiB) holds: %s\n",
              static_cast<double>(per_target_parts) / 1024 / targets, kFleetMemoryAimKiB,
              Holds(per_target_parts <= int64_t{kFleetMemoryAimKiB} * 1024 * targets));
  std::printf("  caches: %.1f MiB for %lld objects, %.0f bytes per object\n",
              static_cast<double>(parts.caches) / (1 << 20),
              static_cast<long long>(parts.cached_objects),
              static_cast<double>(parts.caches) / std::max<int64_t>(1, parts.cached_objects));
  server->Shutdown();

  const int64_t bad = mint_totals.refused_or_failed + start_totals.refused_or_failed +
                      resync_totals.refused_or_failed;
  if (bad > 0) {
    std::fprintf(stderr, "%lld Kubernetes calls were refused (403) or failed (5xx)\n",
                 static_cast<long long>(bad));
    return 1;
  }
  if (resync_totals.writes > 0) {
    std::fprintf(stderr, "the resync pass made %lld Kubernetes writes\n",
                 static_cast<long long>(resync_totals.writes));
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace credledger::service

int main(int argc, char** argv) {
  const int64_t targets =
      credledger::bench::TakeSizeFlag("targets", /*fallback=*/100000, /*min=*/1, argc, argv);
  if (targets < 0) {
    std::fprintf(stderr, "--targets: expected an integer >= 1\n");
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  // Before any thread exists: the server must use the bench's kubeconfig only.
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  const int status = credledger::service::RunFleetBench(static_cast<int>(targets));
  benchmark::Shutdown();
  return status;
}
