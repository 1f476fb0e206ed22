// What the two files of append_bench share (docs/performance.md, "Durable appends (group
// commit)"): append_bench.cc holds the SQLite benchmarks, the ratio report and main;
// append_bench_postgres.cc the PostgreSQL benchmarks. Every benchmark writes the same rows:
// events of type kEventType with Payload() and Metadata(), the raw baselines with the positions
// and precomputed hashes of RawRowAt.
//
// Thread-safety: everything here may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "benchmark/benchmark.h"
#include "store/event_store.h"

namespace credledger::bench {

// The type of every event the benchmarks write.
inline constexpr char kEventType[] = "credledger.v1.CredentialIssued";
// Concurrent writers of the group commits, and rows per transaction of the raw baselines.
inline constexpr int kWriters[] = {1, 16, 256};

// Sizes close to a credential event: 120 bytes of payload, 60 of metadata.
const std::string& Payload();
const std::string& Metadata();

// "target/bench/t<index>": the stream of writer thread `index`, or of the raw baselines'
// `index`-th row of each transaction.
std::string StreamName(int index);

// The body of a group commit benchmark: each iteration appends one event of the thread's own
// stream (StreamName of its thread index) through `store` under a request id unique in the
// process, and waits for it. Sets items processed and the counters p50_us and p99_us (latency
// per append, averaged over threads) and, on thread 0, `batch` = mean_batch(): commands per
// group commit. An append that fails ends the thread's run with SkipWithError.
void RunGroupCommitAppend(benchmark::State& state, store::EventStore& store,
                          const std::function<double()>& mean_batch);

// The raw baselines' row at global position `seq` (from 1) when every transaction writes one
// event of each of `batch` streams: the index of its stream (StreamName), its stream_version,
// its event id (of request "req-<seq>"), recorded_at_us = seq, and the hashes. The hashes are
// precomputed: every digest, chain hash and stream hash is RawHash(), and prev_chain_hash is
// RawHash() too except at seq 1, where it is 32 zero bytes, so the chain links the log's
// triggers check hold.
struct RawRow {
  int64_t seq = 0;
  int stream = 0;
  int64_t stream_version = 0;
  std::string event_id;
  int64_t recorded_at_us = 0;
  const std::string* prev_chain_hash = nullptr;
};
RawRow RawRowAt(int64_t seq, int batch);
// 32 bytes of 'h'.
const std::string& RawHash();

// Registers BM_PostgresGroupCommitAppend/threads:N and BM_RawPostgresPipelinedInsert/batch:N
// for every N of kWriters, each writing `events` events. They start one PostgreSQL server
// (fsync on) on first use; StopPostgresServer stops it.
void RegisterPostgresBenchmarks(int64_t events);
// Stops the server the PostgreSQL benchmarks started and removes its folder; nothing when
// none was started.
void StopPostgresServer();

}  // namespace credledger::bench
