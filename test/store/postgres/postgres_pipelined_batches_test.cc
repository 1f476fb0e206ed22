// The PostgreSQL writer's batches in flight (docs/postgres.md, "The writer"): the next batch is
// decided on top of the one the server still runs and sent behind it; when the batch in flight
// fails, the one decided on top of it never commits and runs again, or fails with it when the
// connection is lost. Each on a real server, with the fence's row locked by the test so that a
// batch stays at the server until the test lets it go.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "audit/log_verifier.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_event_store.h"
#include "test/store/one_event.h"
#include "test/store/postgres/postgres_log.h"
#include "test/store/writer_gate.h"
#include "test/support/status_matchers.h"

namespace credledger::store {
namespace postgres_pipelined_batches_test {

using ::credledger::testing::OneEvent;
using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

class PostgresPipelinedBatchesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(server_, testing::SharedPostgresServer());
    ASSERT_OK_AND_ASSIGN(database_, server_->CreateDatabase());
    ASSERT_OK_AND_ASSIGN(store_, PostgresEventStore::Open(testing::PostgresLogOptions(
                                     server_->ConnectionString(database_), &clock_)));
    ASSERT_OK_AND_ASSIGN(
        holder_, PgConnection::Open(server_->ConnectionString(database_), absl::Seconds(10)));
  }

  // Runs `sql` as the superuser on the test's database; returns psql's output.
  std::string Sql(const std::string& sql) {
    absl::StatusOr<std::string> out = server_->Sql(database_, sql);
    EXPECT_OK(out);
    return out.ok() ? *out : "";
  }

  // Locks the log_writer row, so that the writer's next batch waits at the server in its
  // log_writer_advance until ReleaseFence.
  void HoldFence() {
    ASSERT_OK(holder_->Exec("BEGIN", "begin"));
    ASSERT_OK(holder_->Query("SELECT epoch FROM log_writer FOR UPDATE", PgParams(), "lock"));
  }
  void ReleaseFence() { ASSERT_OK(holder_->Exec("ROLLBACK", "rollback")); }

  // Starts `first` and `second` as two batches: `second` is queued while the writer still
  // decides `first`, so the writer decides it right after sending `first`, which then waits at
  // the server for the row HoldFence locked. first_ and second_ get their answers; JoinBoth
  // waits for them.
  void StartTwoBatches(AppendRequest first, Command second) {
    a_ = std::thread(
        [this, first = std::move(first)] { first_ = store_->Execute(gate_.Blocker(first)); });
    gate_.WaitEntered();
    b_ = std::thread([this, second = std::move(second)]() mutable {
      second_ = store_->Execute(std::move(second));
    });
    testing::WaitQueueDepth(*store_, 1);
    gate_.Release();
    WaitForBatchAtServer();
  }
  void JoinBoth() {
    a_.join();
    b_.join();
  }

  // Waits (30 s at most) until one session waits for a lock: the writer's batch reached the
  // server and waits for the row HoldFence locked.
  void WaitForBatchAtServer() {
    const absl::Time give_up = absl::Now() + absl::Seconds(30);
    std::string waiting;
    while (absl::Now() < give_up && waiting != "1\n") {
      waiting = Sql("SELECT count(*) FROM pg_locks WHERE NOT granted");
    }
    ASSERT_EQ(waiting, "1\n");
  }

  // A command that appends `request` and then notifies `decided`; counts its runs in `runs`.
  static Command Noting(AppendRequest request, absl::Notification* decided, int* runs) {
    return [request = std::move(request), decided, runs](WriteTransaction& tx) -> absl::Status {
      *runs += 1;
      absl::Status appended = tx.Append(request).status();
      if (!decided->HasBeenNotified()) decided->Notify();
      return appended;
    };
  }

  // Checks the whole log as an auditor would (audit::VerifyLog): seqs 1..head without a gap,
  // every digest and link.
  void ExpectChainVerifies() {
    const int64_t head = store_->HeadSeq();
    ASSERT_OK_AND_ASSIGN(audit::Verdict verdict, audit::VerifyLog(*store_, audit::KeyRing(), head));
    EXPECT_TRUE(verdict.ok()) << audit::FormatVerdict(verdict);
    EXPECT_EQ(verdict.last_seq, head);
  }

  common::FakeClock clock_{absl::FromUnixSeconds(1767225600)};
  testing::PostgresServer* server_ = nullptr;
  std::string database_;
  std::unique_ptr<PostgresEventStore> store_;
  std::unique_ptr<PgConnection> holder_;
  testing::WriterGate gate_;
  std::thread a_, b_;
  absl::Status first_, second_;
};

TEST_F(PostgresPipelinedBatchesTest, TheNextBatchIsDecidedOnTopOfTheOneAtTheServer) {
  HoldFence();
  // Stream s/a is at version 0 only in the batch at the server, and the next command sees it.
  absl::Notification decided;
  int runs = 0;
  StartTwoBatches(OneEvent("r1", "s/a", ExpectedVersion::NoStream()),
                  Noting(OneEvent("r2", "s/a", ExpectedVersion::Exactly(0)), &decided, &runs));
  EXPECT_TRUE(decided.WaitForNotificationWithTimeout(absl::Seconds(30)));
  // Neither is committed, so neither is published.
  EXPECT_EQ(store_->HeadSeq(), 0);
  ReleaseFence();
  JoinBoth();

  EXPECT_OK(first_);
  EXPECT_OK(second_);
  EXPECT_EQ(runs, 1);
  ASSERT_OK_AND_ASSIGN(std::vector<RecordedEvent> stream, store_->ReadStream("s/a", 0, 10));
  ASSERT_EQ(stream.size(), 2u);
  EXPECT_EQ(stream[0].seq, 1);
  EXPECT_EQ(stream[1].seq, 2);
  EXPECT_EQ(store_->HeadSeq(), 2);
  ExpectChainVerifies();
}

TEST_F(PostgresPipelinedBatchesTest, ABatchDecidedOnTopOfARefusedOneRunsAgainOnTheCommittedLog) {
  Sql("CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE "
      "EXCEPTION 'poison refused' USING ERRCODE = 'check_violation'; END $$;"
      "CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.stream = "
      "'poison') EXECUTE FUNCTION refuse_poison();");
  HoldFence();
  absl::Notification decided;
  int runs = 0;
  StartTwoBatches(OneEvent("r1", "poison"), Noting(OneEvent("r2", "s/b"), &decided, &runs));
  EXPECT_TRUE(decided.WaitForNotificationWithTimeout(absl::Seconds(30)));
  ReleaseFence();
  JoinBoth();

  EXPECT_THAT(first_, StatusIs(absl::StatusCode::kAborted, HasSubstr("poison refused")));
  EXPECT_OK(second_);
  // Decided first on top of the refused event (at seq 2), then again on the log without it.
  EXPECT_EQ(runs, 2);
  ASSERT_OK_AND_ASSIGN(std::vector<RecordedEvent> all, store_->ReadAll(0, 10));
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].stream, "s/b");
  EXPECT_EQ(store_->HeadSeq(), 1);
  ExpectChainVerifies();
}

TEST_F(PostgresPipelinedBatchesTest, ABatchOnTopOfOneRefusedAtCommitIsStoppedByTheFence) {
  ASSERT_OK_AND_ASSIGN(AppendResult first, store_->Append(OneEvent("r0", "s/a")));
  // Refused only at COMMIT: that transaction ends there, so the next batch's BEGIN opens a new
  // one, and only log_writer_advance keeps it from committing on a head that never was.
  Sql("CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE "
      "EXCEPTION 'poison refused at commit' USING ERRCODE = 'check_violation'; END $$;"
      "CREATE CONSTRAINT TRIGGER refuse_poison AFTER INSERT ON events DEFERRABLE INITIALLY "
      "DEFERRED FOR EACH ROW WHEN (NEW.stream = 'poison') EXECUTE FUNCTION refuse_poison();");
  HoldFence();
  // A batch without events: the checkpoint of seq 1, on top of the poison at seq 2.
  v1::Checkpoint checkpoint;
  checkpoint.set_seq(1);
  checkpoint.set_chain_hash(first.events[0].chain_hash);
  checkpoint.set_signed_at_us(first.events[0].recorded_at_us + 1);
  checkpoint.set_key_id("0123456789abcdef");
  checkpoint.set_signature("sig-1");
  absl::Notification decided;
  int runs = 0;
  StartTwoBatches(OneEvent("r1", "poison"), [&](WriteTransaction& tx) -> absl::Status {
    runs += 1;
    absl::Status put = tx.PutCheckpoint(checkpoint);
    if (!decided.HasBeenNotified()) decided.Notify();
    return put;
  });
  EXPECT_TRUE(decided.WaitForNotificationWithTimeout(absl::Seconds(30)));
  ReleaseFence();
  JoinBoth();

  EXPECT_THAT(first_, StatusIs(absl::StatusCode::kAborted, HasSubstr("poison refused at commit")));
  EXPECT_OK(second_);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(Sql("SELECT seq FROM log_writer"), "1\n");
  ASSERT_OK_AND_ASSIGN(std::optional<v1::Checkpoint> latest, store_->LatestCheckpoint());
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->seq(), 1);
  // The fence's row still names the events table's head: the next writer opens.
  store_.reset();
  EXPECT_OK(PostgresEventStore::Open(
      testing::PostgresLogOptions(server_->ConnectionString(database_), &clock_)));
}

TEST_F(PostgresPipelinedBatchesTest, ALostConnectionFailsEveryBatchInFlightAndRetriesAppendOnce) {
  HoldFence();
  absl::Notification decided;
  int runs = 0;
  StartTwoBatches(OneEvent("r1", "s/a"), Noting(OneEvent("r2", "s/b"), &decided, &runs));
  EXPECT_TRUE(decided.WaitForNotificationWithTimeout(absl::Seconds(30)));
  Sql("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE NOT granted");
  JoinBoth();
  ReleaseFence();

  EXPECT_THAT(first_, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("at most once")));
  EXPECT_THAT(second_, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("at most once")));
  ASSERT_OK_AND_ASSIGN(AppendResult retried_a, store_->Append(OneEvent("r1", "s/a")));
  ASSERT_OK_AND_ASSIGN(AppendResult retried_b, store_->Append(OneEvent("r2", "s/b")));
  EXPECT_FALSE(retried_a.replayed);
  EXPECT_FALSE(retried_b.replayed);
  ASSERT_OK_AND_ASSIGN(AppendResult again, store_->Append(OneEvent("r1", "s/a")));
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(store_->HeadSeq(), 2);
  EXPECT_EQ(store_->writer_state().reconnects, 1);
  ExpectChainVerifies();
}

}  // namespace postgres_pipelined_batches_test
}  // namespace credledger::store
