// Status report ingest over a fleet of N Targets (docs/reports.md, "Ingest" and "Liveness and
// staleness"), through the real stack as serve wires it: SqliteEventStore (synchronous=FULL,
// WAL, the read pool serve keeps), TargetCommandBus, CredentialProjector, StatusProjector,
// ReportCommandBus, LivenessBuffer, ReportIngest and ReportScheduler.
//
//   BM_Heartbeat/threads:T      ReportIngest::Push of reports equal to each Target's last
//                               accepted one apart from lastReportTime; nothing is appended,
//                               and the writer is not asked (docs/reports.md, "How a heartbeat
//                               is decided").
//   BM_LivenessRecord/threads:T the heartbeat's baseline: one LivenessBuffer::Record of an
//                               entry prepared for one of the thread's Targets, the in-memory
//                               insert every heartbeat ends with (into a buffer of its own).
//   BM_ChangedReport/threads:T  pushes whose release revision carries a counter, so each
//                               appends one ReportAccepted (one group commit per batch).
//   BM_FlushLiveness            one ReportScheduler::FlushLiveness of N waiting heartbeats (one
//                               per Target; refilling the buffer is not timed).
//
// Each thread pushes to its own share of the fleet (index % threads), so the reports of one
// Target stay in order. lastReportTime is a fixed base plus a process-wide microsecond
// counter: strictly increasing, and the fake clock stands an hour after the base, so no report
// is ever ahead of the server's clock.
//
// Before the benchmarks the fleet is built (N registrations and one accepted report each, from
// 32 threads so that group commit batches them); at exit it prints heartbeats/s divided by
// LivenessBuffer records/s for each thread count, and the resident memory the fleet added per
// Target (from /proc/self/statm). It exits 1 when a benchmark reported an error.
//
// Flags: --targets=N (default 10000) plus the benchmark library's. Full size: `make bench`; the
// test suite runs it with a tiny N and --benchmark_min_time.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "common/clock.h"
#include "common/uuid.h"
#include "credledger/v1/report.pb.h"
#include "projections/credential_projector.h"
#include "projections/proto_time.h"
#include "projections/status_projector.h"
#include "service/api/liveness_buffer.h"
#include "service/api/report_ingest.h"
#include "service/api/report_scheduler.h"
#include "service/api/space_reserve.h"
#include "service/bus/report_command_bus.h"
#include "service/bus/target_command_bus.h"
#include "service/server/serve_options.h"
#include "store/sqlite_event_store.h"
#include "test/bench/size_flag.h"
#include "test/support/temp_dir.h"

namespace credledger::service {
namespace {

constexpr char kNamespace[] = "demo";
constexpr int kBuildThreads = 32;
const absl::Time kReportBase = absl::FromUnixSeconds(1767225600);  // 2026-01-01

[[noreturn]] void Die(absl::string_view what, const absl::Status& status) {
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(what.size()), what.data(),
               status.ToString().c_str());
  std::abort();
}

// Resident set size of this process in bytes.
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0;
  int64_t resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * sysconf(_SC_PAGESIZE);
}

std::atomic<int64_t> g_report_micros{0};
std::atomic<int64_t> g_request{0};

// A lastReportTime later than every one handed out before.
absl::Time NextReportTime() { return kReportBase + absl::Microseconds(++g_report_micros); }

// The report every Target sends: one release whose revision carries `revision`.
v1::TargetReportSpec Report(absl::Time last_report_time, int64_t revision) {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = projections::ToProto(last_report_time);
  v1::ReleaseStatus* release = report.add_releases();
  release->set_name("podinfo");
  release->set_namespace_("apps");
  release->set_phase(v1::RELEASE_PHASE_READY);
  release->set_revision(absl::StrCat("1.0.", revision));
  return report;
}

// Runs fn(index) for every Target index from `threads` threads, each taking index % threads.
void ForEachTarget(int targets, int threads, const std::function<void(int)>& fn) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = t; i < targets; i += threads) fn(i);
    });
  }
  for (std::thread& worker : workers) worker.join();
}

// The wired service stack and the fleet it serves.
struct Fleet {
  explicit Fleet(int n) : targets(n), revisions(n, 0) {
    for (int i = 0; i < n; ++i) {
      names.push_back(absl::StrCat("edge-", i));
      absl::StatusOr<std::string> uid = common::NewUuidV4();
      if (!uid.ok()) Die("uid", uid.status());
      uids.push_back(*std::move(uid));
    }
    store::SqliteEventStoreOptions options;
    options.path = dir.path() / "events.db";
    options.clock = &clock;
    options.synchronous = store::SqliteEventStoreOptions::Synchronous::kFull;
    options.read_connections = ReadConnections(ServeOptions::Grpc{});
    absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> opened =
        store::SqliteEventStore::Open(options);
    if (!opened.ok()) Die("open", opened.status());
    store = std::move(*opened);
    targets_bus = std::make_unique<TargetCommandBus>(store.get());
    auto credentials = projections::CredentialProjector::Start(store.get(), {0, 1000});
    if (!credentials.ok()) Die("credential projector", credentials.status());
    credential_projector = std::move(*credentials);
    auto status = projections::StatusProjector::Start(store.get(), {0, 1000});
    if (!status.ok()) Die("status projector", status.status());
    status_projector = std::move(*status);
    bus = std::make_unique<ReportCommandBus>(store.get(), ReportBusDecider(targets_bus.get()));
    // No --report-min-interval: every changed report is appended, which is what is measured.
    ingest = std::make_unique<ReportIngest>(
        bus.get(), &liveness, credential_projector.get(), &space, &clock,
        ReportIngest::Limits{.min_interval = absl::ZeroDuration()});
    scheduler = std::make_unique<ReportScheduler>(
        bus.get(), &liveness, ingest.get(), &space, credential_projector.get(),
        status_projector.get(), &clock,
        ReportScheduler::Options{absl::Seconds(5), absl::Minutes(10), absl::Seconds(30)});
  }

  // Registers every Target and pushes its first report; returns when both projectors have
  // folded the log up to the head.
  void Build() {
    ForEachTarget(targets, kBuildThreads, [this](int i) {
      CommandContext context{
          kNamespace, names[i], clock.Now(), "bench", absl::StrCat("register-", i), {}};
      absl::StatusOr<CommandResult> result =
          targets_bus->Execute(RegisterTarget{uids[i], true}, context);
      if (!result.ok()) Die("register", result.status());
    });
    WaitForProjectors();
    ForEachTarget(targets, kBuildThreads, [this](int i) {
      absl::StatusOr<ReportIngest::PushResult> result = Push(i);
      if (!result.ok()) Die("first report", result.status());
    });
    WaitForProjectors();
  }

  void WaitForProjectors() {
    const int64_t head = store->HeadSeq();
    if (!credential_projector->WaitForSeq(head, absl::Minutes(5)) ||
        !status_projector->WaitForSeq(head, absl::Minutes(5))) {
      Die("projectors", absl::DeadlineExceededError("did not reach the head"));
    }
  }

  // Pushes Target `i`'s report with its current revision and a new lastReportTime.
  absl::StatusOr<ReportIngest::PushResult> Push(int i) {
    return ingest->Push(kNamespace, names[i], Report(NextReportTime(), revisions[i]), "agent",
                        {absl::StrCat("push-", ++g_request), ""}, ReportSource::kPushReport);
  }

  const int targets;
  std::vector<std::string> names;
  std::vector<std::string> uids;  // as the API edge generates them
  // Per Target: the revision counter of its last accepted report. Only the thread owning the
  // Target's share touches it during a run.
  std::vector<int64_t> revisions;
  ::credledger::testing::TempDir dir;
  common::FakeClock clock{kReportBase + absl::Hours(1)};
  std::unique_ptr<store::SqliteEventStore> store;
  std::unique_ptr<TargetCommandBus> targets_bus;
  std::unique_ptr<projections::CredentialProjector> credential_projector;
  std::unique_ptr<projections::StatusProjector> status_projector;
  std::unique_ptr<ReportCommandBus> bus;
  LivenessBuffer liveness;
  SpaceReserve space{nullptr, 0};  // no reserve: nothing is refused
  std::unique_ptr<ReportIngest> ingest;
  std::unique_ptr<ReportScheduler> scheduler;
};

Fleet* g_fleet = nullptr;

void BM_Heartbeat(benchmark::State& state) {
  Fleet& fleet = *g_fleet;
  int i = state.thread_index();
  for (auto _ : state) {
    absl::StatusOr<ReportIngest::PushResult> result = fleet.Push(i);
    if (!result.ok() || !result->heartbeat) {
      state.SkipWithError(result.ok() ? "not a heartbeat"
                                      : std::string(result.status().message()).c_str());
      break;
    }
    i += state.threads();
    if (i >= fleet.targets) i = state.thread_index();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Heartbeat)->Threads(1)->Threads(8)->UseRealTime();

void BM_LivenessRecord(benchmark::State& state) {
  static LivenessBuffer* const buffer = new LivenessBuffer();
  Fleet& fleet = *g_fleet;
  std::vector<v1::LivenessEntry> entries;
  for (int i = state.thread_index(); i < fleet.targets; i += state.threads()) {
    v1::LivenessEntry& entry = entries.emplace_back();
    entry.set_namespace_(kNamespace);
    entry.set_name(fleet.names[i]);
    entry.set_target_uid(fleet.uids[i]);
    *entry.mutable_received_at() = projections::ToProto(fleet.clock.Now());
    *entry.mutable_last_report_time() = projections::ToProto(NextReportTime());
  }
  if (entries.empty()) {
    state.SkipWithError("fewer Targets than threads");
    return;
  }
  size_t next = 0;
  for (auto _ : state) {
    buffer->Record(entries[next]);
    if (++next == entries.size()) next = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LivenessRecord)->Threads(1)->Threads(8)->UseRealTime();

void BM_ChangedReport(benchmark::State& state) {
  Fleet& fleet = *g_fleet;
  int i = state.thread_index();
  for (auto _ : state) {
    ++fleet.revisions[i];
    absl::StatusOr<ReportIngest::PushResult> result = fleet.Push(i);
    if (!result.ok() || result->heartbeat || result->seq == 0) {
      state.SkipWithError(result.ok() ? "nothing appended"
                                      : std::string(result.status().message()).c_str());
      break;
    }
    i += state.threads();
    if (i >= fleet.targets) i = state.thread_index();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ChangedReport)->Threads(1)->Threads(8)->UseRealTime();

void BM_FlushLiveness(benchmark::State& state) {
  Fleet& fleet = *g_fleet;
  for (auto _ : state) {
    state.PauseTiming();
    ForEachTarget(fleet.targets, 8, [&fleet](int i) {
      absl::StatusOr<ReportIngest::PushResult> result = fleet.Push(i);
      if (!result.ok()) Die("heartbeat", result.status());
    });
    if (fleet.liveness.pending() != static_cast<size_t>(fleet.targets)) {
      state.SkipWithError("not one heartbeat per Target waiting");
      break;
    }
    state.ResumeTiming();
    absl::Status flushed = fleet.scheduler->FlushLiveness();
    if (!flushed.ok()) {
      state.SkipWithError(std::string(flushed.message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * fleet.targets);
  state.counters["targets"] = fleet.targets;
}
BENCHMARK(BM_FlushLiveness)->Unit(benchmark::kMillisecond)->UseRealTime();

// Console output (without colours), then heartbeats/s divided by LivenessBuffer records/s for
// each thread count.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  RatioReporter() : ConsoleReporter(OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred) failed_ = true;
      auto items = run.counters.find("items_per_second");
      if (items == run.counters.end() || run.run_type != Run::RT_Iteration) continue;
      rates_[{run.run_name.function_name, run.threads}] = items->second.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nheartbeats vs LivenessBuffer::Record (items/s, same process):\n");
    for (const auto& [key, heartbeats] : rates_) {
      auto record = rates_.find({"BM_LivenessRecord", key.second});
      if (key.first != "BM_Heartbeat" || record == rates_.end()) continue;
      std::printf("  threads=%-2lld heartbeat=%9.0f  record=%10.0f  ratio=%.3f\n",
                  static_cast<long long>(key.second), heartbeats, record->second,
                  heartbeats / record->second);
    }
  }

  // True when any run reported an error (State::SkipWithError).
  bool failed() const { return failed_; }

 private:
  std::map<std::pair<std::string, int64_t>, double> rates_;
  bool failed_ = false;
};

}  // namespace
}  // namespace credledger::service

int main(int argc, char** argv) {
  namespace service = credledger::service;
  benchmark::Initialize(&argc, argv);
  const int targets = static_cast<int>(
      credledger::bench::TakeSizeFlag("targets", /*fallback=*/10000, /*min=*/1, argc, argv));
  if (targets < 0) {
    std::fprintf(stderr, "--targets: expected a positive integer\n");
    return 1;
  }
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  service::g_fleet = new service::Fleet(targets);
  const int64_t before = service::ResidentBytes();
  const absl::Time start = absl::Now();
  service::g_fleet->Build();
  const absl::Duration built = absl::Now() - start;
  const int64_t after = service::ResidentBytes();

  service::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nfleet of %d Targets built (registered, one accepted report each) in %s\n", targets,
              absl::FormatDuration(built).c_str());
  std::printf("memory per Target: %.0f bytes (RSS %+.1f MiB)\n",
              static_cast<double>(after - before) / targets,
              static_cast<double>(after - before) / (1024.0 * 1024.0));
  delete service::g_fleet;
  benchmark::Shutdown();
  return reporter.failed() ? 1 : 0;
}
