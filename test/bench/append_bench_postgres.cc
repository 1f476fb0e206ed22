// The PostgreSQL benchmarks of append_bench (append_bench.h; docs/performance.md, "Durable
// appends (group commit)"): the log's group commit on PostgreSQL beside the fastest insert of
// the same rows that the store's writer could make (docs/postgres.md, "The writer").
//
//   BM_PostgresGroupCommitAppend/threads:N  N concurrent writers, each appending events/N events
//       of its own stream, one event per call, through PostgresEventStore: decided in memory
//       (hash chains, idempotency lookup), each batch sent as one pipeline with the fence's
//       compare-and-set, the log's triggers run by the server. Counter `batch`: commands per
//       group commit, mean.
//   BM_RawPostgresPipelinedInsert/batch:N  one thread inserting the same rows as the raw SQLite
//       baselines (RawRowAt, hashes precomputed) into the log's own schema (the migrations of
//       migrations/postgres, triggers included) with the store's prepared INSERT, N rows per
//       transaction, each transaction sent as one pipeline: BEGIN, N inserts, COMMIT, sync.
//
// One PostgreSQL server per process, started by the first of these benchmarks to run, on the
// same cores as the benchmark; every run gets a fresh database. fsync is on, and autovacuum looks
// every second instead of every minute: until `events` is first analyzed, the planner takes the
// insert trigger's MAX(stream_version) of a stream for a one-row scan and reads every index entry
// of the stream, so each insert costs more the longer its stream is, and a run's figure would
// depend on when autovacuum happened to come (docs/performance.md, "Durable appends (group
// commit)", "On PostgreSQL"). A server or database that cannot be made stops the process.
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "common/status_macros.h"
#include "store/postgres/pg.h"
#include "store/postgres/pg_migrations.h"
#include "store/postgres/postgres_event_rows.h"
#include "store/postgres/postgres_event_store.h"
#include "test/bench/append_bench.h"
#include "test/support/postgres_server.h"

namespace credledger::bench {
namespace {

constexpr absl::Duration kConnectTimeout = absl::Seconds(10);

testing::PostgresServer* g_server = nullptr;
store::PostgresEventStore* g_store = nullptr;

// Prints what failed and stops the process: a benchmark without its database measures nothing.
[[noreturn]] void Fail(absl::string_view what, const absl::Status& status) {
  std::fprintf(stderr, "%s: %s\n", std::string(what).c_str(), status.ToString().c_str());
  std::abort();
}

// The connection string of a fresh database on the process's server, which the first call
// starts (fsync on).
std::string FreshDatabase() {
  if (g_server == nullptr) {
    testing::PostgresServerOptions options;
    options.fsync = true;
    options.settings = {"autovacuum_naptime=1s"};  // see the top of this file
    absl::StatusOr<std::unique_ptr<testing::PostgresServer>> server =
        testing::PostgresServer::Start(std::move(options));
    if (!server.ok()) Fail("start the PostgreSQL server", server.status());
    g_server = server->release();
  }
  absl::StatusOr<std::string> database = g_server->CreateDatabase();
  if (!database.ok()) Fail("create a PostgreSQL database", database.status());
  return g_server->ConnectionString(*database);
}

// --- Group commit through the store. ---

void OpenPostgresStore(const benchmark::State&) {
  store::PostgresEventStoreOptions options;
  options.conninfo = FreshDatabase();
  options.holder = "append_bench";
  absl::StatusOr<std::unique_ptr<store::PostgresEventStore>> opened =
      store::PostgresEventStore::Open(std::move(options));
  if (!opened.ok()) Fail("open the PostgreSQL event store", opened.status());
  g_store = opened->release();
}

void ClosePostgresStore(const benchmark::State&) {
  delete g_store;
  g_store = nullptr;
}

void BM_PostgresGroupCommitAppend(benchmark::State& state) {
  RunGroupCommitAppend(state, *g_store, [] {
    const store::PostgresEventStore::Stats stats = g_store->stats();
    return stats.batches > 0 ? static_cast<double>(stats.commands) / stats.batches : 0;
  });
}

// --- Raw pipelined baseline. ---

// Inserts the `batch` rows from seq `first` on (RawRowAt) in one transaction sent as one
// pipeline: BEGIN, the inserts, COMMIT, sync; then reads every answer.
// Errors: PgError's of the first statement the server refused; kUnavailable when the
// connection fails.
absl::Status InsertTransaction(store::PgConnection& db, const store::PgStatement& insert,
                               const std::vector<std::string>& streams, int64_t first) {
  const int batch = static_cast<int>(streams.size());
  RETURN_IF_ERROR(db.EnterPipeline());
  RETURN_IF_ERROR(db.SendSql("BEGIN"));
  for (int64_t seq = first; seq < first + batch; ++seq) {
    const RawRow row = RawRowAt(seq, batch);
    RETURN_IF_ERROR(db.Send(insert, store::PgParams()
                                        .Int(row.seq)
                                        .TextRef(streams[row.stream])
                                        .Int(row.stream_version)
                                        .TextRef(kEventType)
                                        .Int(1)
                                        .Int(row.recorded_at_us)
                                        .BytesRef(Payload())
                                        .BytesRef(row.event_id)
                                        .BytesRef(Metadata())
                                        .BytesRef(RawHash())
                                        .BytesRef(*row.prev_chain_hash)
                                        .BytesRef(RawHash())
                                        .BytesRef(RawHash())));
  }
  RETURN_IF_ERROR(db.SendSql("COMMIT"));
  RETURN_IF_ERROR(db.Sync());
  absl::Status outcome = absl::OkStatus();
  for (int i = 0; i < batch + 2; ++i) {  // BEGIN, the inserts, COMMIT
    const store::PgResult result = db.NextResult();
    if (outcome.ok()) outcome = store::CheckResult(result, db, "raw insert");
    if (result.raw() == nullptr) return outcome;
  }
  const store::PgResult sync = db.NextResult();
  if (sync.raw() == nullptr || PQresultStatus(sync.raw()) != PGRES_PIPELINE_SYNC) {
    return absl::UnavailableError("raw insert: the connection closed before the sync");
  }
  RETURN_IF_ERROR(db.ExitPipeline());
  return outcome;
}

void BM_RawPostgresPipelinedInsert(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  absl::StatusOr<std::unique_ptr<store::PgConnection>> db =
      store::PgConnection::Open(FreshDatabase(), kConnectTimeout);
  if (!db.ok()) Fail("connect to PostgreSQL", db.status());
  const absl::Status migrated =
      store::ApplyPostgresMigrations(**db, store::EmbeddedPostgresMigrations());
  if (!migrated.ok()) Fail("apply the PostgreSQL migrations", migrated);
  // The store's own statement (postgres_event_store.cc, SendBatch).
  absl::StatusOr<const store::PgStatement*> insert = (*db)->Prepare(store::InsertEventSql());
  if (!insert.ok()) Fail("prepare the INSERT", insert.status());
  std::vector<std::string> streams;
  for (int i = 0; i < batch; ++i) streams.push_back(StreamName(i));
  int64_t next_seq = 1;
  for (auto _ : state) {
    const absl::Status inserted = InsertTransaction(**db, **insert, streams, next_seq);
    if (!inserted.ok()) {
      state.SkipWithError(std::string(inserted.message()).c_str());
      break;
    }
    next_seq += batch;
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["batch"] = batch;
}

}  // namespace

void RegisterPostgresBenchmarks(int64_t events) {
  // Each group commit right before its baseline at the same N, so that the pair whose ratio is
  // reported runs under the same load of a shared host.
  for (int n : kWriters) {
    benchmark::RegisterBenchmark("BM_PostgresGroupCommitAppend", BM_PostgresGroupCommitAppend)
        ->Setup(OpenPostgresStore)
        ->Teardown(ClosePostgresStore)
        ->Threads(n)
        ->Iterations(events / n)
        ->UseRealTime();
    benchmark::RegisterBenchmark("BM_RawPostgresPipelinedInsert", BM_RawPostgresPipelinedInsert)
        ->ArgName("batch")
        ->Arg(n)
        ->Iterations(events / n)
        ->UseRealTime();
  }
}

void StopPostgresServer() {
  delete g_server;
  g_server = nullptr;
}

}  // namespace credledger::bench
