// A database failover under the PostgreSQL event log, outside CI (label postgres-failover;
// docs/testing.md, "Database failover"): a primary and a streaming standby the test starts,
// the store on a connection string naming both with target_session_attrs=read-write, the
// primary killed while writer threads append and the standby promoted.
//
// With synchronous replication no acknowledged append is lost: every acknowledged request is
// in the promoted log at the seq and with the hashes its answer named, the chain and the signed
// checkpoints verify, and a request sent again after kUnavailable is in the log once. Reads
// through the store go on on the promoted server. Without synchronous replication, an
// acknowledged append the standby never received is gone, and the writer stops with kDataLoss
// instead of giving its seq to another event (docs/operations.md, "Database failover").
#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "audit/log_verifier.h"
#include "audit/signing_key.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_event_store.h"
#include "test/store/one_event.h"
#include "test/store/postgres/append_workload.h"
#include "test/store/postgres/postgres_log.h"
#include "test/support/postgres_server.h"
#include "test/support/status_matchers.h"

namespace credledger::store {
namespace postgres_failover_test {

using ::credledger::testing::AcknowledgedAppend;
using ::credledger::testing::AppendWorkload;
using ::credledger::testing::OneEvent;
using ::credledger::testing::PostgresServer;
using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The name the standby streams under, which the primary's synchronous_standby_names names.
constexpr char kStandbyName[] = "credledger_standby";
// libpq's shortest connect timeout (a shorter one counts as 2 s).
constexpr absl::Duration kConnectTimeout = absl::Seconds(2);
// How long a test waits for what must happen well within it; reached only when it fails.
constexpr absl::Duration kGiveUp = absl::Seconds(120);
// The workload: acknowledged events before the kill, and again after the promotion.
constexpr int64_t kEventsBeforeKill = 10000;
constexpr int64_t kEventsAfterPromotion = 10000;
constexpr int kWriters = 8;
// Acknowledged requests a last pass sends once more besides those sent again during the
// failover: every kResendEvery-th.
constexpr size_t kResendEvery = 25;
constexpr int kReadPage = 1000;

class PostgresFailoverTest : public ::testing::Test {
 protected:
  // Starts the primary, with `synchronous` replication to the standby or without, then the
  // standby, waits until the primary lists it so, and makes the test's database.
  void StartServers(bool synchronous) {
    testing::PostgresServerOptions primary_options;
    if (synchronous) {
      primary_options.settings = {absl::StrCat("synchronous_standby_names=", kStandbyName),
                                  "synchronous_commit=on"};
    }
    ASSERT_OK_AND_ASSIGN(primary_, PostgresServer::Start(primary_options));
    ASSERT_OK_AND_ASSIGN(standby_, PostgresServer::StartStandby(*primary_, kStandbyName));
    ASSERT_OK(primary_->AwaitStandby(kStandbyName, synchronous ? "sync" : "async", kGiveUp));
    ASSERT_OK_AND_ASSIGN(database_, primary_->CreateDatabase());
  }

  // The store as credledger opens it for a failover: both servers named, primary first.
  std::unique_ptr<PostgresEventStore> OpenWriter(
      std::function<void(const absl::Status&)> on_stopped = {}) {
    PostgresEventStoreOptions options = testing::PostgresLogOptions(
        testing::ReadWriteConnectionString({primary_.get(), standby_.get()}, database_), &clock_);
    options.connect_timeout = kConnectTimeout;
    options.on_stopped = std::move(on_stopped);
    auto store = PostgresEventStore::Open(std::move(options));
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // The log on the promoted standby alone, read-only.
  std::unique_ptr<PostgresEventStore> OpenPromotedLog() {
    PostgresEventStoreOptions options = testing::PostgresLogOptions(
        standby_->ConnectionString(database_), &clock_, "failover-check");
    options.read_only = true;
    auto store = PostgresEventStore::Open(std::move(options));
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Waits until the standby has replayed everything the primary had written when called.
  void AwaitStandbyReplay() {
    ASSERT_OK_AND_ASSIGN(std::string lsn, primary_->Sql("postgres", "SELECT pg_current_wal_lsn()"));
    ASSERT_FALSE(lsn.empty());
    lsn.pop_back();  // the line break
    ASSERT_OK(primary_->AwaitSql("postgres",
                                 absl::StrCat("SELECT replay_lsn >= '", lsn,
                                              "' FROM pg_stat_replication WHERE "
                                              "application_name = '",
                                              kStandbyName, "'"),
                                 "t\n", kGiveUp));
  }

  common::FakeClock clock_;
  std::unique_ptr<PostgresServer> primary_;
  std::unique_ptr<PostgresServer> standby_;
  std::string database_;
};

// Every event of `log`, in seq order.
std::vector<RecordedEvent> ReadWholeLog(EventStore& log) {
  std::vector<RecordedEvent> events;
  for (;;) {
    absl::StatusOr<std::vector<RecordedEvent>> page =
        log.ReadAll(events.empty() ? 0 : events.back().seq, kReadPage);
    EXPECT_OK(page);
    if (!page.ok() || page->empty()) return events;
    events.insert(events.end(), page->begin(), page->end());
  }
}

// Every acknowledged event is in `log` as its answer named it, and the log holds nothing else:
// each request's events are in it once.
void ExpectEveryAcknowledgedEventIn(EventStore& log,
                                    const std::vector<AcknowledgedAppend>& acknowledged) {
  const std::vector<RecordedEvent> events = ReadWholeLog(log);
  absl::flat_hash_set<std::string> acknowledged_ids;
  int missing = 0;
  for (const AcknowledgedAppend& answer : acknowledged) {
    for (const RecordedEvent& event : answer.events) {
      acknowledged_ids.insert(event.event_id);
      const bool in_log = event.seq >= 1 && event.seq <= static_cast<int64_t>(events.size()) &&
                          events[event.seq - 1].seq == event.seq;
      if (!in_log) {
        ADD_FAILURE() << "request " << answer.request_id << ": acknowledged seq " << event.seq
                      << " is not in the promoted log (" << events.size() << " events)";
        if (++missing == 10) return;
        continue;
      }
      const RecordedEvent& stored = events[event.seq - 1];
      EXPECT_EQ(stored.event_id, event.event_id) << answer.request_id << " at seq " << event.seq;
      EXPECT_EQ(stored.stream, event.stream) << answer.request_id;
      EXPECT_EQ(stored.stream_version, event.stream_version) << answer.request_id;
      EXPECT_EQ(stored.digest, event.digest) << answer.request_id;
      EXPECT_EQ(stored.chain_hash, event.chain_hash) << answer.request_id;
      EXPECT_EQ(stored.stream_hash, event.stream_hash) << answer.request_id;
      EXPECT_EQ(stored.payload, answer.request_id);
    }
  }
  // Every request was answered, so every stored event is an acknowledged one, once.
  EXPECT_EQ(events.size(), acknowledged_ids.size());
  for (const RecordedEvent& event : events) {
    if (!acknowledged_ids.contains(event.event_id)) {
      ADD_FAILURE() << "seq " << event.seq << " (payload " << event.payload
                    << ") belongs to no acknowledged request";
      return;
    }
  }
}

TEST_F(PostgresFailoverTest, NoAcknowledgedAppendIsLostWhenTheSynchronousStandbyIsPromoted) {
  const absl::Time began = absl::Now();
  StartServers(/*synchronous=*/true);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK_AND_ASSIGN(const audit::SigningKey key, audit::SigningKey::Generate());
  std::unique_ptr<PostgresEventStore> store = OpenWriter();
  ASSERT_NE(store, nullptr);
  AppendWorkload workload(*store, key, clock_, {.writers = kWriters});
  workload.Start();
  ASSERT_TRUE(workload.AwaitAcknowledged(kEventsBeforeKill, kGiveUp)) << workload.Summary();

  // The failover, with the writers appending throughout.
  const absl::Time killed = absl::Now();
  ASSERT_OK(primary_->StopImmediate());
  ASSERT_OK(standby_->Promote());
  const absl::Time promoted = absl::Now();
  const int64_t at_promotion = workload.acknowledged_events();
  ASSERT_TRUE(workload.AwaitAcknowledged(at_promotion + 1, kGiveUp)) << workload.Summary();
  const absl::Time resumed = absl::Now();
  ASSERT_TRUE(workload.AwaitAcknowledged(at_promotion + kEventsAfterPromotion, kGiveUp))
      << workload.Summary();
  workload.Stop();
  EXPECT_THAT(workload.failures(), IsEmpty()) << workload.Summary();
  // The kill cut the writer's connection: at least the batch after it failed, and the writer
  // found the promoted standby.
  EXPECT_GT(workload.unavailable_answers(), 0);
  EXPECT_GE(store->writer_state().reconnects, 1);
  EXPECT_THAT(primary_->Sql("postgres", "SELECT 1"), StatusIs(absl::StatusCode::kUnavailable));

  const std::vector<AcknowledgedAppend> acknowledged = workload.acknowledged();
  const std::vector<v1::Checkpoint> checkpoints = workload.checkpoints();
  int64_t acknowledged_head = 0;
  for (const AcknowledgedAppend& answer : acknowledged) {
    for (const RecordedEvent& event : answer.events) {
      acknowledged_head = std::max(acknowledged_head, event.seq);
    }
  }
  std::unique_ptr<PostgresEventStore> promoted_log = OpenPromotedLog();
  ASSERT_NE(promoted_log, nullptr);
  ExpectEveryAcknowledgedEventIn(*promoted_log, acknowledged);

  // The chain and every stored checkpoint verify, as `credledger verify` checks them; every
  // acknowledged checkpoint is stored.
  ASSERT_OK_AND_ASSIGN(
      const audit::Verdict verdict,
      audit::VerifyLog(*promoted_log, audit::KeyRing(key.public_key()), acknowledged_head));
  EXPECT_TRUE(verdict.ok()) << audit::FormatVerdict(verdict);
  EXPECT_EQ(verdict.last_seq, promoted_log->HeadSeq());
  ASSERT_OK_AND_ASSIGN(const std::vector<v1::Checkpoint> stored,
                       promoted_log->ReadCheckpoints(0, 1 << 20));
  EXPECT_EQ(verdict.checkpoints_checked, static_cast<int64_t>(stored.size()));
  std::map<int64_t, std::string> stored_signatures;
  for (const v1::Checkpoint& checkpoint : stored) {
    stored_signatures[checkpoint.seq()] = checkpoint.signature();
  }
  for (const v1::Checkpoint& checkpoint : checkpoints) {
    EXPECT_EQ(stored_signatures[checkpoint.seq()], checkpoint.signature())
        << "acknowledged checkpoint at seq " << checkpoint.seq();
  }

  // A request sent once more, through the writer on the promoted server, gets its original
  // answer and appends nothing: those the failover made the writers send again, and a sample
  // of the rest.
  const int64_t head = store->HeadSeq();
  int resent = 0;
  for (size_t i = 0; i < acknowledged.size(); ++i) {
    const AcknowledgedAppend& answer = acknowledged[i];
    if (answer.attempts == 1 && i % kResendEvery != 0) continue;
    std::vector<StreamAppend> streams;
    for (const RecordedEvent& event : answer.events) {
      streams.push_back(StreamAppend{
          event.stream, ExpectedVersion::Any(), {NewEvent{event.type, 1, "m", event.payload}}});
    }
    ASSERT_OK_AND_ASSIGN(const AppendResult again,
                         store->Append(AppendRequest{answer.request_id, streams}));
    EXPECT_TRUE(again.replayed) << answer.request_id;
    ASSERT_EQ(again.events.size(), answer.events.size()) << answer.request_id;
    for (size_t e = 0; e < again.events.size(); ++e) {
      EXPECT_EQ(again.events[e].seq, answer.events[e].seq) << answer.request_id;
      EXPECT_EQ(again.events[e].chain_hash, answer.events[e].chain_hash) << answer.request_id;
    }
    ++resent;
  }
  EXPECT_EQ(store->HeadSeq(), head);

  std::cout << "failover: " << workload.Summary() << "; log head " << head << ", "
            << store->writer_state().reconnects << " reconnects, " << resent
            << " requests sent once more; kill to promoted "
            << absl::FormatDuration(promoted - killed) << ", promoted to the first acknowledgement "
            << absl::FormatDuration(resumed - promoted) << "; whole test "
            << absl::FormatDuration(absl::Now() - began) << std::endl;
}

TEST_F(PostgresFailoverTest, ReadsThroughTheStoreGoOnOnThePromotedServer) {
  StartServers(/*synchronous=*/true);
  ASSERT_FALSE(HasFatalFailure());
  std::unique_ptr<PostgresEventStore> store = OpenWriter();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  // The read leaves a connection to the primary in the store's read pool.
  ASSERT_OK_AND_ASSIGN(std::vector<RecordedEvent> events, store->ReadAll(0, 10));
  ASSERT_EQ(events.size(), 1u);

  ASSERT_OK(primary_->StopImmediate());
  ASSERT_OK(standby_->Promote());
  EXPECT_THAT(store->Append(OneEvent("r2", "s/a")), StatusIs(absl::StatusCode::kUnavailable));
  ASSERT_OK_AND_ASSIGN(const AppendResult appended, store->Append(OneEvent("r2", "s/a")));
  EXPECT_EQ(appended.events[0].seq, 2);

  // The pooled connection died with the primary: the read drops it and runs on a new one, which
  // reaches the promoted server (docs/postgres.md, "Reads"). Over a unix socket, as here, libpq
  // fails the first statement on such a connection without a SQLSTATE while PQstatus still
  // says CONNECTION_OK; only the next call finds it CONNECTION_BAD (over TCP, the first does).
  ASSERT_OK_AND_ASSIGN(events, store->ReadAll(0, 10));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].chain_hash, appended.events[0].chain_hash);
  ASSERT_OK_AND_ASSIGN(events, store->ReadStream("s/a", 0, 10));
  EXPECT_EQ(events.size(), 2u);
}

TEST_F(PostgresFailoverTest, WithoutSynchronousReplicationTheWriterStopsWithDataLoss) {
  StartServers(/*synchronous=*/false);
  ASSERT_FALSE(HasFatalFailure());
  absl::Status stopped_with;
  std::unique_ptr<PostgresEventStore> store =
      OpenWriter([&stopped_with](const absl::Status& reason) { stopped_with = reason; });
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  ASSERT_OK(store->Append(OneEvent("r2", "s/a")));
  AwaitStandbyReplay();
  // The standby goes away; the primary acknowledges on its own, as asynchronous replication
  // lets it.
  ASSERT_OK(standby_->Stop());
  ASSERT_OK(store->Append(OneEvent("r3", "s/a")));
  ASSERT_OK(store->Append(OneEvent("r4", "s/b")));

  ASSERT_OK(primary_->StopImmediate());
  ASSERT_OK(standby_->StartAgain());
  ASSERT_OK(standby_->Promote());

  // The batch on the killed primary's connection fails; the writer's reconnect then finds the
  // promoted log two events behind what it acknowledged, and it writes nothing more.
  EXPECT_THAT(store->Append(OneEvent("r5", "s/a")), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(store->Append(OneEvent("r5", "s/a")),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("head is seq 2 but this writer had acknowledged up to seq 4")));
  EXPECT_THAT(stopped_with, StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_THAT(store->Append(OneEvent("r6", "s/c")), StatusIs(absl::StatusCode::kDataLoss));
  ASSERT_OK_AND_ASSIGN(const std::string head,
                       standby_->Sql(database_, "SELECT max(seq) FROM events"));
  EXPECT_EQ(head, "2\n");
}

}  // namespace postgres_failover_test
}  // namespace credledger::store
