// Audit export, verification and forensic replay over one large log (docs/audit.md,
// docs/forensics.md), beside the raw OpenSSL SHA-256 rate measured in the same process
// (docs/testing.md, "Benchmarks").
//
//   BM_Sha256Raw      one SHA-256 (EVP, one reused context) over a buffer of the log's mean
//                     digest input size: the cost floor of hashing one event once. The
//                     baseline of the ratios below.
//   BM_Export         service::AuditApi::ExportEvents of the whole log (signed trailer), every
//                     event rendered as a JSON Lines line (audit::RenderEvent) into a sink that
//                     only counts bytes.
//   BM_Verify         audit::VerifyExport of that JSON Lines export, read from a file written
//                     once before the benchmarks (in the page cache by then).
//   BM_VerifyDb       audit::VerifyLog over the database (`credledger verify --db`): every
//                     event, checkpoint and sealed snapshot.
//   BM_Rebuild        CredentialProjection and StatusProjection folded from seq 1 (no
//                     snapshot) in one pass, side by side (projections::CatchUpTogether).
//                     Freeing the folded projections afterwards is left out of the rate and
//                     reported apart (counter teardown_ms).
//   BM_AsOfOneTarget  AuditApi::GetStateAt for one random Target at a random seq in the last
//                     tenth of the log: from the nearest earlier snapshot, its seal checked
//                     as `serve` checks it, plus the events after it (milliseconds per call,
//                     mean of 20 calls).
//
// Whole-log passes report events/s; at exit the program prints each of them divided by the
// SHA-256 events/s of the same run, per wall-clock second and per CPU second of the process
// (the rebuild reads pages and folds one projection on a second thread, and settles the status
// projection's open runs on two), and how the log was built.
//
// The log (test/bench/audit_fleet_log.h) is built once before the benchmarks in a temporary
// directory, with synchronous=NORMAL: events / 50 Targets with their full credential
// lifecycle and status reports, a signed checkpoint every 1,000 events and projection
// snapshots every 10,000 (every events / 10 below 100,000 events, so that small runs use
// snapshots too). A child process, forked before this one starts any thread, builds the log,
// writes its export and closes the database; the benchmarks then open it here, in a process
// that, like a `credledger` start or CLI command, has not just written a million events (its
// heap and SQLite's page cache not left behind by the build).
//
// Flags: --events=N (default 1000000, at least 100); --fork_builder=0 builds the log in this
// process instead (what the figures before 2026-12-03 measured); plus the benchmark library's.
// Full size: `make bench`; the test suite runs it with --events=2000 and a tiny
// --benchmark_min_time.
#include <openssl/evp.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "audit/export_format.h"
#include "audit/export_verifier.h"
#include "audit/log_verifier.h"
#include "audit/signing_key.h"
#include "audit/snapshot_seal.h"
#include "benchmark/benchmark.h"
#include "common/clock.h"
#include "common/status_macros.h"
#include "projections/credential_projection.h"
#include "projections/projector.h"
#include "projections/snapshot_guard.h"
#include "projections/status_projection.h"
#include "service/offline/audit_api.h"
#include "store/sqlite_event_store.h"
#include "test/bench/audit_fleet_log.h"
#include "test/bench/size_flag.h"
#include "test/support/temp_dir.h"

namespace credledger::bench {
namespace {

constexpr int64_t kDefaultEvents = 1000000;

[[noreturn]] void Die(absl::string_view what, const absl::Status& status) {
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(what.size()), what.data(),
               status.ToString().c_str());
  std::abort();
}

// The log every benchmark reads, and what building it cost.
struct BenchLog {
  ::credledger::testing::TempDir dir;
  common::FakeClock clock;
  std::unique_ptr<store::SqliteEventStore> store;
  std::optional<audit::SigningKey> key;
  FleetLogFacts facts;
  // Snapshots are written every `snapshot_every` events.
  int64_t snapshot_every = 0;
  // Whether a child process built the log (BuildLogInChild) or this one (BuildLog).
  bool built_in_child = false;
  absl::Duration build_time;
  // CPU time of the building process (builder and store writer threads) while building.
  double build_cpu_seconds = 0;
  std::filesystem::path export_path;
  int64_t export_bytes = 0;
  absl::Duration export_write_time;
};

BenchLog* g_log = nullptr;

// Events per second of a whole-log benchmark's last run, measured by the benchmark itself:
// per second of wall time of its loop, and per second of CPU time of the process during it (the
// figure that holds up when other processes share the cores; it counts the rebuild's
// read-ahead and settling threads, and the idle store writer).
struct Rate {
  double wall = 0;
  double cpu = 0;
};
// By benchmark name ("sha256", "export", ...).
std::map<std::string, Rate>* g_rates = nullptr;

// CPU time consumed so far by the process (CLOCK_PROCESS_CPUTIME_ID), in seconds.
double CpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Times a benchmark's loop, less what runs in Untimed; on destruction records `events` per
// iteration as the benchmark's Rate and sets its ratios to the SHA-256 rate as counters
// "vs_sha256" (wall) and "vs_sha256_cpu".
class RateRecorder {
 public:
  RateRecorder(benchmark::State& state, std::string name, int64_t events)
      : state_(state),
        name_(std::move(name)),
        events_(events),
        wall_start_(absl::Now()),
        cpu_start_(CpuSeconds()) {}
  ~RateRecorder() {
    const double wall = absl::ToDoubleSeconds(absl::Now() - wall_start_ - untimed_wall_);
    const double cpu = CpuSeconds() - cpu_start_ - untimed_cpu_;
    if (state_.iterations() == 0 || wall <= 0 || cpu <= 0) return;
    const double events = static_cast<double>(events_ * state_.iterations());
    const Rate rate{events / wall, events / cpu};
    (*g_rates)[name_] = rate;
    auto sha = g_rates->find("sha256");
    if (name_ == "sha256" || sha == g_rates->end()) return;
    state_.counters["vs_sha256"] = rate.wall / sha->second.wall;
    state_.counters["vs_sha256_cpu"] = rate.cpu / sha->second.cpu;
  }

  // Runs `work` outside the rate and the benchmark's timing (work after what is measured,
  // such as freeing its result). Returns the wall-clock seconds it took.
  template <typename F>
  double Untimed(F&& work) {
    state_.PauseTiming();
    const absl::Time wall = absl::Now();
    const double cpu = CpuSeconds();
    work();
    const absl::Duration took = absl::Now() - wall;
    untimed_wall_ += took;
    untimed_cpu_ += CpuSeconds() - cpu;
    state_.ResumeTiming();
    return absl::ToDoubleSeconds(took);
  }

 private:
  benchmark::State& state_;
  std::string name_;
  int64_t events_;
  absl::Time wall_start_;
  double cpu_start_;
  absl::Duration untimed_wall_;
  double untimed_cpu_ = 0;
};

// Exports the whole log as JSON Lines through AuditApi, handing every line (without its
// line break) to `line`. Returns the number of events exported.
absl::StatusOr<int64_t> ExportJsonLines(const std::function<void(absl::string_view)>& line) {
  service::AuditApi api(g_log->store.get(), &*g_log->key, &g_log->clock);
  const store::EventCodec& codec = store::EventCodec::Default();
  int64_t events = 0;
  absl::Status failure;
  RETURN_IF_ERROR(
      api.ExportEvents(v1::ExportEventsRequest(), [&](const v1::ExportEventsResponse& response) {
        for (const v1::ExportedEvent& exported : response.events()) {
          absl::StatusOr<std::string> rendered = audit::RenderEvent(
              audit::ExportFormat::kJsonLines, audit::FromExported(exported), codec);
          if (!rendered.ok()) {
            failure = rendered.status();
            return false;
          }
          line(*rendered);
          ++events;
        }
        if (response.has_trailer()) {
          line(audit::RenderTrailer(audit::ExportFormat::kJsonLines, response.trailer()));
        }
        return true;
      }));
  RETURN_IF_ERROR(failure);
  return events;
}

void BM_Sha256Raw(benchmark::State& state) {
  const int64_t size = g_log->facts.digest_input_bytes / g_log->facts.events;
  std::string buffer(static_cast<size_t>(size), '\0');
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<char>(i * 131);
  EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (md == nullptr || ctx == nullptr) state.SkipWithError("OpenSSL has no SHA-256");
  if (md != nullptr && ctx != nullptr) {
    RateRecorder rate(state, "sha256", 1);
    for (auto _ : state) {
      if (EVP_DigestInit_ex(ctx, md, nullptr) != 1 ||
          EVP_DigestUpdate(ctx, buffer.data(), buffer.size()) != 1 ||
          EVP_DigestFinal_ex(ctx, digest, &length) != 1) {
        state.SkipWithError("OpenSSL SHA-256 failed");
        break;
      }
      benchmark::DoNotOptimize(digest);
      ++buffer[0];
    }
  }
  EVP_MD_CTX_free(ctx);
  EVP_MD_free(md);
  state.SetItemsProcessed(state.iterations());
  state.counters["bytes"] = static_cast<double>(size);
}
BENCHMARK(BM_Sha256Raw);

void BM_Export(benchmark::State& state) {
  const int64_t head = g_log->facts.events;
  int64_t bytes = 0;
  {
    RateRecorder rate(state, "export", head);
    for (auto _ : state) {
      bytes = 0;
      absl::StatusOr<int64_t> events =
          ExportJsonLines([&bytes](absl::string_view line) { bytes += line.size() + 1; });
      if (!events.ok() || *events != head) {
        state.SkipWithError(events.ok() ? "not every event exported"
                                        : std::string(events.status().message()).c_str());
        break;
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * head);
  state.counters["bytes_per_event"] = static_cast<double>(bytes) / static_cast<double>(head);
}
BENCHMARK(BM_Export)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Verify(benchmark::State& state) {
  const int64_t head = g_log->facts.events;
  const audit::KeyRing keys(g_log->key->public_key());
  const audit::ExportVerifyOptions options{&keys, head, &store::EventCodec::Default()};
  {
    RateRecorder rate(state, "verify", head);
    for (auto _ : state) {
      std::ifstream in(g_log->export_path, std::ios::binary);
      const absl::StatusOr<audit::Verdict> verdict = audit::VerifyExport(in, options);
      if (!verdict.ok()) {
        state.SkipWithError(std::string(verdict.status().message()).c_str());
        break;
      }
      if (!verdict->ok() || verdict->events != head || !verdict->checkpoint.has_value()) {
        state.SkipWithError(audit::FormatVerdict(*verdict).c_str());
        break;
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * head);
}
BENCHMARK(BM_Verify)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VerifyDb(benchmark::State& state) {
  const int64_t head = g_log->facts.events;
  {
    RateRecorder rate(state, "verify_db", head);
    for (auto _ : state) {
      absl::StatusOr<audit::Verdict> verdict =
          audit::VerifyLog(*g_log->store, g_log->key->public_key(), head);
      if (!verdict.ok() || !verdict->ok() || verdict->events != head ||
          verdict->checkpoints_checked != g_log->facts.checkpoints) {
        state.SkipWithError(verdict.ok() ? audit::FormatVerdict(*verdict).c_str()
                                         : std::string(verdict.status().message()).c_str());
        break;
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * head);
}
BENCHMARK(BM_VerifyDb)->Unit(benchmark::kMillisecond)->UseRealTime();

// Folds both projections from seq 1 to the head, side by side (the credential projection on
// the reading thread). Errors: store reads, kDataLoss.
absl::Status Rebuild(projections::CredentialProjection& credentials,
                     projections::StatusProjection& statuses) {
  return projections::CatchUpTogether(*g_log->store, g_log->facts.events, credentials, statuses);
}

void BM_Rebuild(benchmark::State& state) {
  const int64_t head = g_log->facts.events;
  double teardown_seconds = 0;
  {
    RateRecorder rate(state, "rebuild", head);
    for (auto _ : state) {
      auto credentials = std::make_unique<projections::CredentialProjection>();
      auto statuses = std::make_unique<projections::StatusProjection>();
      const absl::Status rebuilt = Rebuild(*credentials, *statuses);
      if (!rebuilt.ok() || credentials->seq() != head || statuses->seq() != head) {
        state.SkipWithError(rebuilt.ok() ? "the fold stopped before the head"
                                         : std::string(rebuilt.message()).c_str());
        break;
      }
      // A rebuild keeps what it folded: freeing it is timed apart.
      teardown_seconds += rate.Untimed([&] {
        credentials.reset();
        statuses.reset();
      });
    }
  }
  state.SetItemsProcessed(state.iterations() * head);
  state.counters["teardown_ms"] =
      benchmark::Counter(teardown_seconds * 1000, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Rebuild)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AsOfOneTarget(benchmark::State& state) {
  const int64_t head = g_log->facts.events;
  const audit::KeySnapshotSeal seal(*g_log->key, audit::KeyRing(g_log->key->public_key()));
  projections::SnapshotGuard snapshots(&seal);
  service::AuditApi api(g_log->store.get(), &*g_log->key, &g_log->clock, &snapshots);
  std::mt19937_64 random(42);
  std::uniform_int_distribution<int64_t> seqs(head - head / 10, head);
  std::uniform_int_distribution<int64_t> targets(0, g_log->facts.targets - 1);
  int64_t after_snapshot = 0;
  for (auto _ : state) {
    const int64_t target = targets(random);
    const int64_t seq = seqs(random);
    after_snapshot += seq % g_log->snapshot_every;
    v1::GetStateAtRequest request;
    request.mutable_as_of()->set_seq(seq);
    request.set_namespace_(FleetTargetNamespace(target));
    request.set_name(FleetTargetName(target));
    absl::StatusOr<v1::GetStateAtResponse> response = api.GetStateAt(request);
    if (!response.ok() || response->targets_size() != 1) {
      state.SkipWithError(response.ok() ? "not exactly one Target in the answer"
                                        : std::string(response.status().message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  // Mean events folded after the snapshot the answer started from.
  state.counters["events_after_snapshot"] =
      benchmark::Counter(static_cast<double>(after_snapshot), benchmark::Counter::kAvgIterations);
}
// A mean over 20 random points: at full size one call takes long enough that the minimum
// time alone would stop after one.
BENCHMARK(BM_AsOfOneTarget)->Iterations(20)->Unit(benchmark::kMillisecond)->UseRealTime();

// Opens the log's database. Dies on any error.
void OpenStore() {
  store::SqliteEventStoreOptions options;
  options.path = g_log->dir.path() / "events.db";
  options.clock = &g_log->clock;
  options.synchronous = store::SqliteEventStoreOptions::Synchronous::kNormal;
  absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> opened =
      store::SqliteEventStore::Open(options);
  if (!opened.ok()) Die("open", opened.status());
  g_log->store = *std::move(opened);
}

// Builds the log into the open store and writes its JSON Lines export, filling in g_log's
// facts and costs; dies on any error.
void BuildLog(int64_t events) {
  FleetLogOptions fleet;
  fleet.events = events;
  fleet.snapshot_every = g_log->snapshot_every;
  const absl::Time start = absl::Now();
  const double cpu_start = CpuSeconds();
  absl::StatusOr<FleetLogFacts> facts =
      BuildFleetLog(*g_log->store, g_log->clock, *g_log->key, fleet);
  if (!facts.ok()) Die("building the log", facts.status());
  g_log->build_time = absl::Now() - start;
  g_log->build_cpu_seconds = CpuSeconds() - cpu_start;
  g_log->facts = *std::move(facts);

  std::ofstream out(g_log->export_path, std::ios::binary);
  const absl::Time export_start = absl::Now();
  absl::StatusOr<int64_t> exported = ExportJsonLines([&](absl::string_view line) {
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    out.put('\n');
    g_log->export_bytes += static_cast<int64_t>(line.size()) + 1;
  });
  out.close();
  if (!exported.ok()) Die("writing the export", exported.status());
  if (!out) Die("writing the export", absl::DataLossError("the export file was not written"));
  g_log->export_write_time = absl::Now() - export_start;
}

// What the building child tells the benchmark process, as text: one line of integers (the
// facts' counts, the fake clock's time after the build and the build's costs, in nanoseconds
// since the epoch, nanoseconds and bytes), then one line "<event type> <count>" per type.
std::string EncodeBuild() {
  const BenchLog& log = *g_log;
  const FleetLogFacts& f = log.facts;
  std::string text = absl::StrCat(
      f.targets, " ", f.events, " ", f.checkpoints, " ", f.snapshots, " ", f.newest_snapshot_bytes,
      " ", f.digest_input_bytes, " ", absl::ToUnixNanos(log.clock.Now()), " ",
      absl::ToInt64Nanoseconds(log.build_time), " ",
      static_cast<int64_t>(log.build_cpu_seconds * 1e9), " ", log.export_bytes, " ",
      absl::ToInt64Nanoseconds(log.export_write_time), "\n");
  for (const auto& [type, count] : f.events_by_type) absl::StrAppend(&text, type, " ", count, "\n");
  return text;
}

// Reads EncodeBuild's text into g_log. Errors: kDataLoss when the text is not of that shape.
absl::Status DecodeBuild(absl::string_view text) {
  const absl::Status malformed = absl::DataLossError("malformed report of the building child");
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  if (lines.empty()) return malformed;
  std::vector<int64_t> numbers;
  for (absl::string_view field : absl::StrSplit(lines[0], ' ')) {
    if (!absl::SimpleAtoi(field, &numbers.emplace_back())) return malformed;
  }
  if (numbers.size() != 11) return malformed;
  FleetLogFacts& f = g_log->facts;
  f.targets = numbers[0];
  f.events = numbers[1];
  f.checkpoints = numbers[2];
  f.snapshots = numbers[3];
  f.newest_snapshot_bytes = numbers[4];
  f.digest_input_bytes = numbers[5];
  g_log->clock.Set(absl::FromUnixNanos(numbers[6]));
  g_log->build_time = absl::Nanoseconds(numbers[7]);
  g_log->build_cpu_seconds = static_cast<double>(numbers[8]) * 1e-9;
  g_log->export_bytes = numbers[9];
  g_log->export_write_time = absl::Nanoseconds(numbers[10]);
  for (size_t i = 1; i < lines.size(); ++i) {
    std::pair<absl::string_view, absl::string_view> type =
        absl::StrSplit(lines[i], absl::MaxSplits(' ', 1));
    if (!absl::SimpleAtoi(type.second, &f.events_by_type[std::string(type.first)])) {
      return malformed;
    }
  }
  return absl::OkStatus();
}

// errno as a status: kInternal with strerror's text.
absl::Status ErrnoError() { return absl::InternalError(std::strerror(errno)); }

// Builds the log (BuildLog) in a child process and opens it here. REQUIRES: this process has
// no other thread yet (fork). Dies on any error, the child's included.
void BuildLogInChild(int64_t events) {
  int report[2];
  if (pipe(report) != 0) Die("pipe", ErrnoError());
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) Die("fork", ErrnoError());
  if (child == 0) {
    close(report[0]);
    OpenStore();
    BuildLog(events);
    g_log->store.reset();  // checkpoints the WAL into the database and closes it
    const std::string text = EncodeBuild();
    for (size_t written = 0; written < text.size();) {
      const ssize_t n = write(report[1], text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(1);
      written += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(report[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(report[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Die("reading the building child's report", ErrnoError());
    text.append(buffer, static_cast<size_t>(n));
  }
  close(report[0]);
  int status = 0;
  pid_t waited;
  do {
    waited = waitpid(child, &status, 0);
  } while (waited < 0 && errno == EINTR);
  if (waited != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Die("building the log in a child process",
        absl::InternalError(absl::StrCat("the child ended with wait status ", status)));
  }
  if (absl::Status decoded = DecodeBuild(text); !decoded.ok()) Die("building the log", decoded);
  OpenStore();
}

double MiB(int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void PrintSummary() {
  const BenchLog& log = *g_log;
  const FleetLogFacts& f = log.facts;
  auto file_bytes = [&log](const char* name) {
    std::error_code missing;
    const auto size = std::filesystem::file_size(log.dir.path() / name, missing);
    return missing ? int64_t{0} : static_cast<int64_t>(size);
  };
  std::printf(
      "\nlog: %lld events, %lld Targets, built in %s by %s (%.0f events/s; %.1f s of CPU), "
      "database file %.1f MiB, WAL %.1f MiB\n",
      static_cast<long long>(f.events), static_cast<long long>(f.targets),
      absl::FormatDuration(log.build_time).c_str(),
      log.built_in_child ? "a child process" : "this process",
      static_cast<double>(f.events) / absl::ToDoubleSeconds(log.build_time), log.build_cpu_seconds,
      MiB(file_bytes("events.db")), MiB(file_bytes("events.db-wal")));
  std::printf(
      "     %lld signed checkpoints, %lld snapshots (newest pair %.1f MiB), mean digest "
      "input %lld bytes per event\n",
      static_cast<long long>(f.checkpoints), static_cast<long long>(f.snapshots),
      MiB(f.newest_snapshot_bytes), static_cast<long long>(f.digest_input_bytes / f.events));
  std::printf("     JSON Lines export %.1f MiB written in %s\n", MiB(log.export_bytes),
              absl::FormatDuration(log.export_write_time).c_str());
  std::printf("events by type:");
  for (const auto& [type, count] : f.events_by_type) {
    std::printf(" %s=%lld", std::string(absl::StripPrefix(type, "credledger.v1.")).c_str(),
                static_cast<long long>(count));
  }
  std::printf("\n");
  auto sha = g_rates->find("sha256");
  if (sha == g_rates->end()) return;
  for (const bool cpu : {false, true}) {
    auto value = [cpu](const Rate& rate) { return cpu ? rate.cpu : rate.wall; };
    std::printf("events per %s second, and ratio to SHA-256 (%.0f):", cpu ? "CPU" : "wall-clock",
                value(sha->second));
    for (const char* name : {"export", "verify", "verify_db", "rebuild"}) {
      auto rate = g_rates->find(name);
      if (rate == g_rates->end()) continue;
      std::printf(" %s %.0f (%.4f)", name, value(rate->second),
                  value(rate->second) / value(sha->second));
    }
    std::printf("\n");
  }
}

}  // namespace
}  // namespace credledger::bench

int main(int argc, char** argv) {
  namespace bench = credledger::bench;
  const int64_t events =
      bench::TakeSizeFlag("events", bench::kDefaultEvents, bench::kMinFleetLogEvents, argc, argv);
  if (events < 0) {
    std::fprintf(stderr, "--events: expected an integer >= %lld\n",
                 static_cast<long long>(bench::kMinFleetLogEvents));
    return 1;
  }
  const int64_t fork_builder = bench::TakeSizeFlag("fork_builder", 1, 0, argc, argv);
  if (fork_builder < 0 || fork_builder > 1) {
    std::fprintf(stderr, "--fork_builder: expected 0 or 1\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  bench::g_rates = new std::map<std::string, bench::Rate>();
  bench::g_log = new bench::BenchLog();
  absl::StatusOr<credledger::audit::SigningKey> key = credledger::audit::SigningKey::Generate();
  if (!key.ok()) bench::Die("signing key", key.status());
  bench::g_log->key = *std::move(key);
  bench::g_log->snapshot_every = std::min<int64_t>(10000, events / 10);
  bench::g_log->export_path = bench::g_log->dir.path() / "export.jsonl";
  bench::g_log->built_in_child = fork_builder == 1;
  if (bench::g_log->built_in_child) {
    bench::BuildLogInChild(events);
  } else {
    bench::OpenStore();
    bench::BuildLog(events);
  }
  benchmark::RunSpecifiedBenchmarks();
  bench::PrintSummary();
  delete bench::g_log;
  delete bench::g_rates;
  benchmark::Shutdown();
  return 0;
}
