// Durable append throughput of the event log (docs/design.md, "Group commit") beside raw
// baselines measured in the same process (docs/testing.md, "Benchmarks"). Every run writes the
// same number of events (--events, default 100,000) into a new database, so each group commit
// and its baselines end with databases of the same size.
//
//   BM_GroupCommitAppend/threads:N  N concurrent writers, each appending events/N events of its
//                                   own stream, one event per call, through SqliteEventStore
//                                   (synchronous=FULL, WAL): hash chains, triggers, idempotency
//                                   lookup, one fsync per batch. Counter `batch`: commands per
//                                   group commit, mean.
//   BM_RawSqliteInsert/batch:N      one thread inserting the same rows (N streams, one event of
//                                   each per transaction) into a plain table of the same columns
//                                   and unique indexes (no triggers, hashes precomputed), N rows
//                                   per transaction, synchronous=FULL, WAL.
//   BM_RawSqliteInsertLogSchema/batch:N  the same into the log's own schema (the embedded
//                                   migrations: the triggers that check positions and the chain,
//                                   the time index, the event type table).
//   BM_Fsync                        the disk's latency of one 4 KiB write made durable
//                                   (pwrite + fdatasync), with p50 and p99.
//   BM_PostgresGroupCommitAppend/threads:N, BM_RawPostgresPipelinedInsert/batch:N  the same on
//                                   PostgreSQL (append_bench_postgres.cc).
//
// At exit it prints, for each N, events/s of the SQLite group commit divided by events/s of
// each raw SQLite insert with batch N (the batch a group commit of N writers reaches at best),
// and events/s of the PostgreSQL group commit divided by the raw pipelined PostgreSQL insert's
// with batch N, beside the SQLite group commit's.
// Flags: --events=N (default 100000, at least 256) plus the benchmark library's
// (--benchmark_min_time applies to BM_Fsync only). Full size: `make bench`; the test suite runs
// it with --events=512. The exit status is 1 when any run failed.
#include "test/bench/append_bench.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "store/log_hash.h"
#include "store/migrations.h"
#include "store/sqlite.h"
#include "store/sqlite_event_store.h"
#include "test/bench/size_flag.h"
#include "test/support/temp_dir.h"

namespace credledger::bench {

const std::string& Payload() {
  static const std::string* p = new std::string(120, 'p');
  return *p;
}

const std::string& Metadata() {
  static const std::string* m = new std::string(60, 'm');
  return *m;
}

const std::string& RawHash() {
  static const std::string* h = new std::string(32, 'h');
  return *h;
}

std::string StreamName(int index) { return absl::StrCat("target/bench/t", index); }

RawRow RawRowAt(int64_t seq, int batch) {
  static const std::string* zeros = new std::string(32, '\0');
  RawRow row;
  row.seq = seq;
  row.stream = static_cast<int>((seq - 1) % batch);
  row.stream_version = (seq - 1) / batch;
  row.event_id = store::EventIdFor(absl::StrCat("req-", seq), 0);
  row.recorded_at_us = seq;
  row.prev_chain_hash = seq == 1 ? zeros : &RawHash();
  return row;
}

namespace {

std::atomic<int64_t> g_request{0};

double Percentile(std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t index = std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()));
  return sorted[index];
}

}  // namespace

void RunGroupCommitAppend(benchmark::State& state, store::EventStore& store,
                          const std::function<double()>& mean_batch) {
  std::vector<double> latencies_us;
  const std::string stream = StreamName(state.thread_index());
  for (auto _ : state) {
    store::AppendRequest request{
        absl::StrCat("req-", g_request.fetch_add(1)),
        {store::StreamAppend{stream,
                             store::ExpectedVersion::Any(),
                             {store::NewEvent{kEventType, 1, Metadata(), Payload()}}}}};
    absl::Time start = absl::Now();
    auto result = store.Append(std::move(request));
    latencies_us.push_back(absl::ToDoubleMicroseconds(absl::Now() - start));
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      break;
    }
  }
  std::sort(latencies_us.begin(), latencies_us.end());
  state.SetItemsProcessed(state.iterations());
  state.counters["p50_us"] =
      benchmark::Counter(Percentile(latencies_us, 0.50), benchmark::Counter::kAvgThreads);
  state.counters["p99_us"] =
      benchmark::Counter(Percentile(latencies_us, 0.99), benchmark::Counter::kAvgThreads);
  if (state.thread_index() == 0) state.counters["batch"] = mean_batch();
}

}  // namespace credledger::bench

namespace credledger::store {
namespace {

using bench::kWriters;
using bench::Metadata;
using bench::Payload;
constexpr int64_t kDefaultEvents = 100'000;
constexpr int64_t kMinEvents = 256;

// --- Group commit through the store. ---

testing::TempDir* g_dir = nullptr;
SqliteEventStore* g_store = nullptr;

void OpenStore(const benchmark::State&) {
  g_dir = new testing::TempDir();
  SqliteEventStoreOptions options;
  options.path = g_dir->path() / "events.db";
  options.synchronous = SqliteEventStoreOptions::Synchronous::kFull;
  auto store = SqliteEventStore::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    std::abort();
  }
  g_store = store->release();
}

void CloseStore(const benchmark::State&) {
  delete g_store;
  g_store = nullptr;
  delete g_dir;
  g_dir = nullptr;
}

void BM_GroupCommitAppend(benchmark::State& state) {
  bench::RunGroupCommitAppend(state, *g_store, [] {
    const SqliteEventStore::Stats stats = g_store->stats();
    return stats.batches > 0 ? static_cast<double>(stats.commands) / stats.batches : 0;
  });
}

// --- Raw SQLite baseline. ---

void Check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    std::abort();
  }
}

// The same rows into a plain table (`log_schema` false: the columns and unique indexes of
// `events`, no trigger, no other index) or into the log's own schema (true: the embedded
// migrations, with the triggers that check positions and the chain, the time index and the
// event type table). The rows are bench::RawRowAt's, hashes precomputed.
void RawSqliteInsert(benchmark::State& state, bool log_schema) {
  const int batch = static_cast<int>(state.range(0));
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "raw.db";
  if (log_schema) {
    absl::StatusOr<std::unique_ptr<Connection>> schema =
        Connection::Open(path, /*create=*/true, /*read_only=*/false);
    absl::Status migrated =
        schema.ok() ? ApplyMigrations(**schema, EmbeddedMigrations()) : schema.status();
    if (!migrated.ok()) {
      state.SkipWithError(std::string(migrated.message()).c_str());
      return;
    }
  }
  sqlite3* db = nullptr;
  Check(sqlite3_open(path.c_str(), &db), db, "open");
  Check(sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;", nullptr, nullptr,
                     nullptr),
        db, "pragma");
  if (!log_schema) {
    Check(sqlite3_exec(db,
                       "CREATE TABLE events (seq INTEGER PRIMARY KEY, stream TEXT NOT NULL, "
                       "stream_version INTEGER NOT NULL, event_id BLOB NOT NULL UNIQUE, type TEXT "
                       "NOT NULL, schema_version INTEGER NOT NULL, recorded_at_us INTEGER NOT "
                       "NULL, metadata BLOB NOT NULL, payload BLOB NOT NULL, digest BLOB NOT "
                       "NULL, prev_chain_hash BLOB NOT NULL, chain_hash BLOB NOT NULL, "
                       "stream_hash BLOB NOT NULL, UNIQUE (stream, stream_version)) STRICT;",
                       nullptr, nullptr, nullptr),
          db, "schema");
  }
  sqlite3_stmt* insert = nullptr;
  Check(sqlite3_prepare_v2(db, "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &insert,
                           nullptr),
        db, "prepare");
  std::vector<std::string> streams;
  for (int i = 0; i < batch; ++i) streams.push_back(bench::StreamName(i));
  int64_t seq = 0;
  for (auto _ : state) {
    Check(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), db, "begin");
    for (int i = 0; i < batch; ++i) {
      const bench::RawRow row = bench::RawRowAt(++seq, batch);
      const std::string& hash = bench::RawHash();
      sqlite3_bind_int64(insert, 1, row.seq);
      sqlite3_bind_text(insert, 2, streams[row.stream].c_str(), -1, SQLITE_STATIC);
      sqlite3_bind_int64(insert, 3, row.stream_version);
      sqlite3_bind_blob(insert, 4, row.event_id.data(), 16, SQLITE_TRANSIENT);
      sqlite3_bind_text(insert, 5, bench::kEventType, -1, SQLITE_STATIC);
      sqlite3_bind_int64(insert, 6, 1);
      sqlite3_bind_int64(insert, 7, row.recorded_at_us);
      sqlite3_bind_blob(insert, 8, Metadata().data(), Metadata().size(), SQLITE_STATIC);
      sqlite3_bind_blob(insert, 9, Payload().data(), Payload().size(), SQLITE_STATIC);
      sqlite3_bind_blob(insert, 10, hash.data(), 32, SQLITE_STATIC);
      sqlite3_bind_blob(insert, 11, row.prev_chain_hash->data(), 32, SQLITE_STATIC);
      sqlite3_bind_blob(insert, 12, hash.data(), 32, SQLITE_STATIC);
      sqlite3_bind_blob(insert, 13, hash.data(), 32, SQLITE_STATIC);
      Check(sqlite3_step(insert), db, "insert");
      sqlite3_reset(insert);
    }
    Check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["batch"] = batch;
  sqlite3_finalize(insert);
  sqlite3_close(db);
}

void BM_RawSqliteInsert(benchmark::State& state) { RawSqliteInsert(state, /*log_schema=*/false); }
void BM_RawSqliteInsertLogSchema(benchmark::State& state) {
  RawSqliteInsert(state, /*log_schema=*/true);
}

// The disk's durable-write latency in the same run: one 4 KiB pwrite at offset 0 then
// fdatasync, as a WAL commit of one small batch does, in the benchmark's temp directory.
// Counters p50_ms and p99_ms; the mean is the time per iteration.
void BM_Fsync(benchmark::State& state) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "fsync.bin").string();
  const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    state.SkipWithError("cannot create the file");
    return;
  }
  const std::string block(4096, 'f');
  std::vector<double> latencies_ms;
  for (auto _ : state) {
    const absl::Time start = absl::Now();
    if (pwrite(fd, block.data(), block.size(), 0) != static_cast<ssize_t>(block.size()) ||
        fdatasync(fd) != 0) {
      state.SkipWithError("pwrite or fdatasync failed");
      break;
    }
    latencies_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
  }
  close(fd);
  if (latencies_ms.empty()) return;
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto at = [&](double q) {
    return latencies_ms[std::min(
        latencies_ms.size() - 1,
        static_cast<size_t>(q * static_cast<double>(latencies_ms.size())))];
  };
  state.counters["p50_ms"] = at(0.50);
  state.counters["p99_ms"] = at(0.99);
}

// Console output plus the ratio summary. Rates are kept by function name and writers (threads
// of a group commit, rows per transaction of a baseline), the name without its iterations.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred) failed_ = true;
      auto items = run.counters.find("items_per_second");
      if (items == run.counters.end() || run.run_type != Run::RT_Iteration) continue;
      const int writers = absl::EndsWith(run.run_name.function_name, "GroupCommitAppend")
                              ? static_cast<int>(run.threads)
                              : static_cast<int>(run.counters.at("batch").value);
      rates_[{run.run_name.function_name, writers}] = items->second.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\ngroup commit vs raw SQLite batched insert (events/s, same process):\n");
    for (int n : kWriters) {
      double group = Rate("BM_GroupCommitAppend", n);
      double raw = Rate("BM_RawSqliteInsert", n);
      double raw_log = Rate("BM_RawSqliteInsertLogSchema", n);
      if (group <= 0) continue;
      std::printf("  writers=%-4d group=%10.0f", n, group);
      if (raw > 0) std::printf("  raw(batch %d)=%10.0f ratio=%.2f", n, raw, group / raw);
      if (raw_log > 0) {
        std::printf("  raw, log schema=%10.0f ratio=%.2f", raw_log, group / raw_log);
      }
      std::printf("\n");
    }
    std::printf(
        "\nPostgreSQL group commit vs raw pipelined PostgreSQL insert (events/s, same "
        "process):\n");
    for (int n : kWriters) {
      double group = Rate("BM_PostgresGroupCommitAppend", n);
      double raw = Rate("BM_RawPostgresPipelinedInsert", n);
      if (group <= 0) continue;
      std::printf("  writers=%-4d group=%10.0f", n, group);
      if (raw > 0) std::printf("  raw pipelined(batch %d)=%10.0f ratio=%.2f", n, raw, group / raw);
      std::printf("  SQLite group=%10.0f\n", Rate("BM_GroupCommitAppend", n));
    }
  }

  // True when any run reported an error (State::SkipWithError).
  bool failed() const { return failed_; }

 private:
  double Rate(const std::string& function, int writers) const {
    auto it = rates_.find({function, writers});
    return it == rates_.end() ? 0 : it->second;
  }
  std::map<std::pair<std::string, int>, double> rates_;
  bool failed_ = false;
};

}  // namespace
}  // namespace credledger::store

int main(int argc, char** argv) {
  namespace store = credledger::store;
  const int64_t events = credledger::bench::TakeSizeFlag("events", store::kDefaultEvents,
                                                         store::kMinEvents, argc, argv);
  if (events < 0) {
    std::fprintf(stderr, "--events: expected an integer >= %lld\n",
                 static_cast<long long>(store::kMinEvents));
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (int n : store::kWriters) {
    benchmark::RegisterBenchmark("BM_GroupCommitAppend", store::BM_GroupCommitAppend)
        ->Setup(store::OpenStore)
        ->Teardown(store::CloseStore)
        ->Threads(n)
        ->Iterations(events / n)
        ->UseRealTime();
  }
  for (const auto& [name, baseline] :
       {std::pair{"BM_RawSqliteInsert", &store::BM_RawSqliteInsert},
        std::pair{"BM_RawSqliteInsertLogSchema", &store::BM_RawSqliteInsertLogSchema}}) {
    for (int n : store::kWriters) {
      benchmark::RegisterBenchmark(name, baseline)
          ->ArgName("batch")
          ->Arg(n)
          ->Iterations(events / n)
          ->UseRealTime();
    }
  }
  benchmark::RegisterBenchmark("BM_Fsync", store::BM_Fsync)->UseRealTime();
  // Last, so that the PostgreSQL server starts only after the SQLite runs.
  credledger::bench::RegisterPostgresBenchmarks(events);
  store::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  credledger::bench::StopPostgresServer();
  benchmark::Shutdown();
  return reporter.failed() ? 1 : 0;
}
