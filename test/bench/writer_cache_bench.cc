// The PostgreSQL writer's caches (docs/postgres.md, "The writer"; docs/performance.md, "The
// writer's caches on PostgreSQL"): the heap that PostgresEventStore's caches of stream heads
// and event id prefixes take, and how long PostgresEventStore::Open takes to load them, for a
// log of N events over S streams.
//
//   BM_OpenPostgresLog/events:N/streams:S  opens and closes the store on a log of N events,
//       event i of stream "target/demo/edge-<(i - 1) % S>" at the stream's next version, filled
//       beforehand without the writer (not measured; see FillLog). Each iteration first opens
//       the store on an empty log, then reads the rows the caches load, page by page, keeping
//       nothing (the raw read), then opens the store on the filled log, the time measured (the
//       library's CPU column is this process's over the whole iteration). Counters:
//         cache_MiB    heap the open of the filled log holds beyond the open of the empty one
//                      (glibc's mallinfo2: chunks in use plus mapped ones), in MiB
//         B_per_event  the same in bytes per event, streams included
//         empty_ms     the open of the empty log, in ms
//         ms_per_100k  (open - empty open) per 100,000 events, in ms
//         x_raw_read   (open - empty open) / the raw read's time: 1 when building the caches
//                      costs nothing beyond reading their rows
//
// At exit it prints the heap per stream (the difference between the runs with S/100 and S
// streams at the same N, over the streams added) and per event (between the runs with N/10 and
// N events over the same S streams, over the events added): at the same N the id prefixes take
// the same room, at the same S the stream heads do, so each difference is one cache's alone.
//
// One PostgreSQL server per process (fsync off: the open only reads, besides taking the epoch),
// started by the first run's set-up; every run gets a fresh empty and a fresh filled database,
// dropped when it ends.
// A server or database that cannot be made stops the process.
// Flags: --events=N (default 1,000,000, at least 1,000): runs of N/10 and N events;
// --streams=S (default 100,000, at least 100 and at most N/10): runs of S/100 and S streams;
// plus the benchmark library's. Full size: `make bench`; the test suite runs it with
// --events=2000 --streams=200. The exit status is 1 when any run failed.
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "common/status_macros.h"
#include "store/event_columns.h"
#include "store/postgres/pg.h"
#include "store/postgres/postgres_event_store.h"
#include "test/bench/size_flag.h"
#include "test/support/postgres_server.h"

namespace credledger::bench {
namespace {

constexpr int64_t kDefaultEvents = 1'000'000;
constexpr int64_t kMinEvents = 1'000;
constexpr int64_t kDefaultStreams = 100'000;
constexpr int64_t kMinStreams = 100;
constexpr int kIterations = 3;
// Rows per INSERT of the fill, each its own psql script (a script may run 60 s at most).
constexpr int64_t kFillChunk = 100'000;
// Rows per page of the raw read: the store's page when it loads its caches
// (postgres_event_store.cc, LoadCaches).
constexpr int kLoadPage = 20'000;
constexpr absl::Duration kConnectTimeout = absl::Seconds(10);
// A known event type (the store's open refuses unknown ones).
constexpr char kEventType[] = "credledger.v1.CredentialIssued";

testing::PostgresServer* g_server = nullptr;
// The databases of the run in progress: an empty log and the filled one.
std::string g_empty;
std::string g_filled;
bool g_failed = false;

// The heap this run measured per (events, streams): the open of the filled log minus the
// open of the empty log, in bytes.
std::map<std::pair<int64_t, int64_t>, double> g_cache_bytes;

// Prints what failed and stops the process: a benchmark without its database measures nothing.
[[noreturn]] void Fail(absl::string_view what, const absl::Status& status) {
  std::fprintf(stderr, "%s: %s\n", std::string(what).c_str(), status.ToString().c_str());
  std::abort();
}

// Bytes of heap this process holds now: malloc's chunks in use plus the blocks it mapped for
// large requests (a big hash table's array is one).
double HeapBytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

// How long one open of the store on `database` took, and the heap it held while open.
struct Opened {
  absl::Duration time;
  double heap_bytes = 0;
};

// Opens the store on `database`, measures, and closes it.
// Errors: those of PostgresEventStore::Open.
absl::StatusOr<Opened> OpenAndClose(const std::string& database) {
  store::PostgresEventStoreOptions options;
  options.conninfo = g_server->ConnectionString(database);
  options.holder = "writer_cache_bench";
  const double heap_before = HeapBytes();
  const absl::Time start = absl::Now();
  absl::StatusOr<std::unique_ptr<store::PostgresEventStore>> opened =
      store::PostgresEventStore::Open(std::move(options));
  Opened result{absl::Now() - start, HeapBytes() - heap_before};
  if (!opened.ok()) return opened.status();
  return result;
}

// Reads what the writer's caches load (seq, stream, stream_version, event_id, stream_hash of
// every event) with the store's paged query, touching every value and keeping none; returns
// the time the pages took, the connection excluded. Errors: PgError's.
absl::StatusOr<absl::Duration> RawRead(const std::string& database) {
  ASSIGN_OR_RETURN(
      std::unique_ptr<store::PgConnection> db,
      store::PgConnection::Open(g_server->ConnectionString(database), kConnectTimeout));
  const absl::Time start = absl::Now();
  size_t bytes = 0;
  for (int64_t after = 0;;) {
    ASSIGN_OR_RETURN(store::PgResult page,
                     db->Query("SELECT seq, stream, stream_version, event_id, stream_hash FROM "
                               "events WHERE seq > $1 ORDER BY seq LIMIT $2",
                               store::PgParams().Int(after).Int(kLoadPage), "raw read"));
    for (int i = 0; i < page.rows(); ++i) {
      bytes += page.Bytes(i, 1).size() + page.Bytes(i, 3).size() + page.Bytes(i, 4).size() +
               static_cast<size_t>(page.Int(i, 2));
    }
    if (page.rows() < kLoadPage) break;
    after = page.Int(page.rows() - 1, 0);
  }
  benchmark::DoNotOptimize(bytes);
  return absl::Now() - start;
}

// Fills the empty log in `database` with `events` events over `streams` streams, as the
// writer would have left them: seq from 1, each stream's versions from 0 without a gap, ids of
// 16 bytes (an MD5), hashes of 32 bytes linked into a chain (not the writer's hashes: the open
// compares only the last chain hash with log_writer's), payloads of 120 bytes and metadata of 60 as
// append_bench's. The log's user triggers are off meanwhile, so the event type is recorded here and
// log_writer pointed at the last row by hand; then `events` is vacuumed and analyzed, as autovacuum
// would have done to a log written over time. Errors: those of PostgresServer::Sql.
absl::Status FillLog(const std::string& database, int64_t events, int64_t streams) {
  RETURN_IF_ERROR(g_server->Sql(database, "ALTER TABLE events DISABLE TRIGGER USER").status());
  for (int64_t first = 1; first <= events; first += kFillChunk) {
    const int64_t last = std::min(events, first + kFillChunk - 1);
    RETURN_IF_ERROR(
        g_server
            ->Sql(database,
                  absl::StrCat(
                      "INSERT INTO events (", store::kEventColumns, ") SELECT g, ",
                      "'target/demo/edge-' || ((g - 1) % ", streams, "), (g - 1) / ", streams,
                      ", '", kEventType, "', 1, 1767225600000000 + g, ",
                      "convert_to(repeat('p', 120), 'UTF8'), decode(md5('event-' || g), 'hex'), ",
                      "convert_to(repeat('m', 60), 'UTF8'), ",
                      "sha256(convert_to('digest-' || g, 'UTF8')), ",
                      "CASE WHEN g = 1 THEN decode(repeat('00', 32), 'hex') ",
                      "ELSE sha256(int8send(g - 1)) END, sha256(int8send(g)), ",
                      "sha256(convert_to('stream-' || g, 'UTF8')) ", "FROM generate_series(", first,
                      "::bigint, ", last, "::bigint) AS g"))
            .status());
  }
  return g_server
      ->Sql(database,
            absl::StrCat("ALTER TABLE events ENABLE TRIGGER USER;",
                         "INSERT INTO event_types VALUES ('", kEventType, "', 1);",
                         "UPDATE log_writer SET seq = ", events, ", chain_hash = sha256(int8send(",
                         events, "::bigint));", "VACUUM ANALYZE events;"))
      .status();
}

// A fresh database with the log's schema, made by opening the store on it once (which also
// makes the process's one-time allocations before anything is measured).
std::string FreshLog() {
  absl::StatusOr<std::string> database = g_server->CreateDatabase();
  if (!database.ok()) Fail("create a PostgreSQL database", database.status());
  absl::StatusOr<Opened> opened = OpenAndClose(*database);
  if (!opened.ok()) Fail("open the empty log", opened.status());
  return *database;
}

void MakeLogs(const benchmark::State& state) {
  if (g_server == nullptr) {
    absl::StatusOr<std::unique_ptr<testing::PostgresServer>> server =
        testing::PostgresServer::Start();
    if (!server.ok()) Fail("start the PostgreSQL server", server.status());
    g_server = server->release();
  }
  g_empty = FreshLog();
  g_filled = FreshLog();
  const absl::Status filled = FillLog(g_filled, state.range(0), state.range(1));
  if (!filled.ok()) Fail("fill the log", filled);
}

void DropLogs(const benchmark::State&) {
  for (const std::string& database : {g_empty, g_filled}) {
    const absl::Status dropped =
        g_server->Sql("postgres", absl::StrCat("DROP DATABASE ", database, " WITH (FORCE)"))
            .status();
    if (!dropped.ok()) Fail("drop a database", dropped);
  }
}

void BM_OpenPostgresLog(benchmark::State& state) {
  const int64_t events = state.range(0);
  absl::Duration empty_total;
  absl::Duration open_total;
  absl::Duration raw_total;
  double cache_bytes = 0;
  bool failed = false;
  for (auto _ : state) {
    absl::StatusOr<Opened> empty = OpenAndClose(g_empty);
    absl::StatusOr<absl::Duration> raw = empty.ok() ? RawRead(g_filled) : empty.status();
    absl::StatusOr<Opened> filled = raw.ok() ? OpenAndClose(g_filled) : raw.status();
    if (!filled.ok()) {
      failed = g_failed = true;
      state.SkipWithError(filled.status().ToString().c_str());
      break;
    }
    state.SetIterationTime(absl::ToDoubleSeconds(filled->time));
    empty_total += empty->time;
    raw_total += *raw;
    open_total += filled->time;
    cache_bytes = filled->heap_bytes - empty->heap_bytes;  // the same every iteration
  }
  if (failed) return;
  const double iterations = static_cast<double>(state.iterations());
  const absl::Duration loading = (open_total - empty_total) / iterations;
  g_cache_bytes[{events, state.range(1)}] = cache_bytes;
  state.counters["cache_MiB"] = cache_bytes / (1024.0 * 1024.0);
  state.counters["B_per_event"] = cache_bytes / static_cast<double>(events);
  state.counters["empty_ms"] = absl::ToDoubleMilliseconds(empty_total / iterations);
  state.counters["ms_per_100k"] =
      absl::ToDoubleMilliseconds(loading) * 100'000.0 / static_cast<double>(events);
  state.counters["x_raw_read"] = absl::FDivDuration(loading, raw_total / iterations);
}

// Prints the heap per stream and per event from the differences between runs (top of file).
void PrintDifferences(int64_t events, int64_t streams) {
  auto cache = [](int64_t n, int64_t s) {
    auto it = g_cache_bytes.find({n, s});
    return it == g_cache_bytes.end() ? -1.0 : it->second;
  };
  std::printf("\nheap of the writer's caches, from differences between runs (bytes):\n");
  for (int64_t n : {events / 10, events}) {
    const double few = cache(n, streams / 100);
    const double many = cache(n, streams);
    if (few < 0 || many < 0) continue;
    std::printf("  per stream at %lld events: %.1f\n", static_cast<long long>(n),
                (many - few) / static_cast<double>(streams - streams / 100));
  }
  for (int64_t s : {streams / 100, streams}) {
    const double few = cache(events / 10, s);
    const double many = cache(events, s);
    if (few < 0 || many < 0) continue;
    std::printf("  per event over %lld streams: %.1f\n", static_cast<long long>(s),
                (many - few) / static_cast<double>(events - events / 10));
  }
}

}  // namespace
}  // namespace credledger::bench

int main(int argc, char** argv) {
  namespace bench = credledger::bench;
  const int64_t events =
      bench::TakeSizeFlag("events", bench::kDefaultEvents, bench::kMinEvents, argc, argv);
  if (events < 0) {
    std::fprintf(stderr, "--events: expected an integer >= %lld\n",
                 static_cast<long long>(bench::kMinEvents));
    return 1;
  }
  const int64_t streams =
      bench::TakeSizeFlag("streams", bench::kDefaultStreams, bench::kMinStreams, argc, argv);
  if (streams < 0 || streams > events / 10) {
    std::fprintf(stderr, "--streams: expected an integer >= %lld and <= --events / 10 (%lld)\n",
                 static_cast<long long>(bench::kMinStreams), static_cast<long long>(events / 10));
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (int64_t n : {events / 10, events}) {
    for (int64_t s : {streams / 100, streams}) {
      benchmark::RegisterBenchmark("BM_OpenPostgresLog", bench::BM_OpenPostgresLog)
          ->ArgNames({"events", "streams"})
          ->Args({n, s})
          ->Setup(bench::MakeLogs)
          ->Teardown(bench::DropLogs)
          ->Iterations(bench::kIterations)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  bench::PrintDifferences(events, streams);
  delete bench::g_server;
  benchmark::Shutdown();
  return bench::g_failed ? 1 : 0;
}
