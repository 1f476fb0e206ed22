// PostgresEventStore (postgres_event_store.h): the writer's batches. Each is decided in memory
// on top of the one in flight and sent as one pipeline while the server still runs the one
// before; their answers are read in order (docs/postgres.md, "The writer" and "Errors").
#include <libpq-fe.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/fault_points.h"
#include "common/status_macros.h"
#include "store/postgres/postgres_event_rows.h"
#include "store/postgres/postgres_event_store_internal.h"

namespace credledger::store {
namespace {

// Whether the server refused a statement of the batch, as opposed to the batch's outcome
// being unknown (a lost connection) or this writer having stopped.
bool Refused(const absl::Status& outcome) {
  switch (outcome.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kCancelled:
      return false;
    default:
      return true;
  }
}

}  // namespace

void PostgresEventStore::RunBatch(std::vector<Pending*>& batch) {
  in_flight_.push_back(DecideAndSend(batch));
  while (in_flight_.size() > 1 || (!in_flight_.empty() && in_flight_.front().statements == 0)) {
    FinishBatch();
  }
}

void PostgresEventStore::RunAlone(std::vector<Pending*> batch) {
  RunBatch(batch);
  while (!in_flight_.empty()) FinishBatch();
}

PostgresEventStore::InFlight PostgresEventStore::DecideAndSend(std::vector<Pending*>& batch) {
  InFlight entry;
  entry.batch = std::move(batch);
  entry.newest_checkpoint = newest_checkpoint_;
  if (reconnect_) {
    // Only once every batch sent on the lost connection has its answer.
    while (!in_flight_.empty()) FinishBatch();
  }
  if (!stopped_.ok()) {
    entry.outcome = stopped_;
    return entry;
  }
  if (reconnect_) {
    absl::Status reconnected = ConnectWriter(/*take_epoch=*/false);
    {
      absl::MutexLock lock(&state_mu_);
      state_.reconnects += 1;
    }
    if (!reconnected.ok()) {
      entry.outcome = !stopped_.ok()
                          ? stopped_
                          : absl::UnavailableError(absl::StrCat(
                                "the PostgreSQL log is unreachable: ", reconnected.message()));
      return entry;
    }
    entry.newest_checkpoint = newest_checkpoint_;
  }
  Transaction& tx = *transaction_;
  tx.Begin();
  const Transaction::Mark start = tx.mark();
  for (Pending* p : entry.batch) {
    const Transaction::Mark before = tx.mark();
    p->result = p->command(tx);
    if (!p->result.ok()) tx.RollbackTo(before);
    common::FaultPoint("store.after_batch_command");
  }
  if (tx.batch_empty()) return entry;
  absl::Status fence = options_.write_fence ? options_.write_fence() : absl::OkStatus();
  absl::StatusOr<size_t> statements = fence.ok() ? SendBatch(start.head.seq) : fence;
  if (!statements.ok()) {
    tx.RollbackTo(start);
    if (statements.status().code() == absl::StatusCode::kUnavailable && fence.ok()) {
      reconnect_ = true;
    }
    entry.outcome = statements.status();
    return entry;
  }
  entry.statements = *statements;
  entry.rows = tx.batch_rows();
  entry.undo = tx.undo_size() - start.undo;
  entry.newest_checkpoint = newest_checkpoint_;
  return entry;
}

absl::StatusOr<size_t> PostgresEventStore::SendBatch(int64_t from_seq) {
  PgConnection& db = *writer_;
  const Transaction& tx = *transaction_;
  RETURN_IF_ERROR(db.EnterPipeline());
  absl::Status status = db.SendSql("BEGIN");
  if (status.ok()) {
    status = db.Send(*statements_.advance,
                     PgParams().Int(epoch_).Int(from_seq).Int(head_.seq).Bytes(head_.chain_hash));
  }
  for (size_t i = tx.rows().size() - tx.batch_rows(); status.ok() && i < tx.rows().size(); ++i) {
    status = db.Send(*statements_.insert, EventRowParams(tx.rows()[i]));
  }
  for (size_t i = 0; status.ok() && i < tx.snapshots().size(); ++i) {
    status = db.Send(*statements_.snapshot, SnapshotRowParams(tx.snapshots()[i]));
  }
  for (size_t i = 0; status.ok() && i < tx.checkpoints().size(); ++i) {
    status = db.Send(*statements_.checkpoint, CheckpointRowParams(tx.checkpoints()[i]));
  }
  common::FaultPoint("store.before_commit");
  if (status.ok()) status = db.SendSql("COMMIT");
  if (status.ok()) status = db.Sync();
  if (!status.ok()) return status;
  return 3 + tx.batch_rows() + tx.snapshots().size() + tx.checkpoints().size();
}

absl::Status PostgresEventStore::ReadResults(size_t statements, bool check) {
  PgConnection& db = *writer_;
  absl::Status outcome = absl::OkStatus();
  for (size_t i = 0; i < statements; ++i) {
    PgResult result = db.NextResult();
    if (result.raw() == nullptr) {
      // The outcome is unknown when the COMMIT was sent: the writer reloads from the database.
      return absl::UnavailableError(absl::StrCat(
          "append: the connection closed mid-batch, the batch may or may not have committed: ",
          PgError(nullptr, db.raw(), "postgres").message()));
    }
    if (check && outcome.ok()) outcome = CheckResult(result, db, "append");
  }
  PgResult sync = db.NextResult();
  if (sync.raw() == nullptr || PQresultStatus(sync.raw()) != PGRES_PIPELINE_SYNC) {
    return absl::UnavailableError(
        absl::StrCat("append: the connection closed mid-batch: ", outcome.message()));
  }
  return outcome;
}

void PostgresEventStore::FinishBatch() {
  InFlight& oldest = in_flight_.front();
  absl::Status outcome = oldest.outcome;
  if (oldest.statements > 0) {
    outcome = ReadResults(oldest.statements, /*check=*/true);
    if (!outcome.ok()) {
      FailInFlight(std::move(outcome));
      return;
    }
  }
  InFlight done = std::move(oldest);
  in_flight_.pop_front();
  if (done.statements > 0) {
    transaction_->Committed(done.rows, done.undo, done.newest_checkpoint);
    bool sent = false;
    for (const InFlight& later : in_flight_) sent = sent || later.statements > 0;
    if (!sent) writer_->ExitPipeline().IgnoreError();  // a later batch reconnects if it failed
    common::FaultPoint("store.after_commit");
  }
  if (!outcome.ok()) {
    FailBatch(done.batch, outcome, /*all=*/false);
    return;
  }
  PublishHead(transaction_->committed().seq);
  CountBatch(done.batch.size(), static_cast<int64_t>(done.rows), /*failed=*/false);
  Complete(done.batch);
}

void PostgresEventStore::FailInFlight(absl::Status outcome) {
  std::deque<InFlight> failed = std::move(in_flight_);
  in_flight_.clear();
  // The server refuses every later batch too: its BEGIN finds the failed transaction still
  // open, or log_writer_advance finds the head where the failed batch started. Read their
  // answers, then roll back what is open.
  bool lost = outcome.code() == absl::StatusCode::kUnavailable;
  for (size_t i = 1; i < failed.size() && !lost; ++i) {
    lost = failed[i].statements > 0 && !ReadResults(failed[i].statements, /*check=*/false).ok();
  }
  if (!lost) {
    absl::Status idle = writer_->ExitPipeline();
    if (idle.ok() && PQtransactionStatus(writer_->raw()) != PQTRANS_IDLE) {
      idle = writer_->Exec("ROLLBACK", "append: rollback");
    }
    lost = !idle.ok();
  }
  if (lost) reconnect_ = true;
  transaction_->RollbackAll();
  if (SqlStateOf(outcome) == kFencedSqlState) {
    outcome = Fenced();
  } else if (SqlStateOf(outcome) == kHeadMovedSqlState) {
    outcome = Stop(absl::DataLossError(absl::StrCat(
        "the PostgreSQL log's head moved under this writer (", outcome.message(),
        "): rows were written outside credledger's writer; this replica writes nothing more. "
        "Verify the log (credledger verify)")));
  }
  InFlight& first = failed.front();
  const bool refused = Refused(outcome);
  if (refused && first.batch.size() > 1) {
    // Each command again in a batch of its own, so that only the one refused fails.
    CountBatch(first.batch.size(), 0, /*failed=*/true);
    {
      absl::MutexLock lock(&state_mu_);
      state_.retried_batches += 1;
    }
    for (Pending* p : first.batch) {
      p->result = absl::OkStatus();
      RunAlone({p});
    }
  } else {
    FailBatch(first.batch, outcome, /*all=*/false);
  }
  for (size_t i = 1; i < failed.size(); ++i) {
    if (refused) {
      for (Pending* p : failed[i].batch) p->result = absl::OkStatus();
      RunAlone(std::move(failed[i].batch));
    } else {
      FailBatch(failed[i].batch, outcome, /*all=*/true);
    }
  }
}

void PostgresEventStore::FailBatch(std::vector<Pending*>& batch, const absl::Status& outcome,
                                   bool all) {
  if (all) {
    for (Pending* p : batch) p->result = absl::OkStatus();
  }
  FailCommands(
      batch,
      absl::Status(outcome.code(), absl::StrCat(outcome.message(),
                                                "; a retry with the same request id appends it at "
                                                "most once")),
      "failed");
  PublishHead(transaction_->committed().seq);
  CountBatch(batch.size(), 0, /*failed=*/true);
  Complete(batch);
}

}  // namespace credledger::store
