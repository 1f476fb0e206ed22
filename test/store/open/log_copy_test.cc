// Copying a log between backends (store/open/log_copy.h) on a real SQLite file and a real
// PostgreSQL server: a round trip keeps every byte of every event, checkpoint and sealed
// snapshot, the PostgreSQL copy takes the next append on its head, a target that is not empty
// is refused and left as it was, a copy of a log being written ends at the head seen when it
// began, and a copy of a tampered log does not verify.
#include "store/open/log_copy.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "audit/signed_records.h"
#include "audit/signing_key.h"
#include "audit/snapshot_seal.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/log_hash.h"
#include "store/postgres/pg.h"
#include "store/sqlite.h"
#include "test/store/one_event.h"
#include "test/store/postgres/postgres_log.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace log_copy_test {

using ::credledger::testing::OneEvent;
using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr const char* kStreams[] = {"service", "target/demo/edge-1", "target/prod/core-1"};

// Every stored field of `e` on one line, bytes in hex: what a copy must keep.
std::string Row(const RecordedEvent& e) {
  return absl::StrJoin(
      {absl::StrCat(e.seq), e.stream, absl::StrCat(e.stream_version),
       absl::BytesToHexString(e.event_id), e.type, absl::StrCat(e.schema_version),
       absl::StrCat(e.recorded_at_us), absl::BytesToHexString(e.metadata),
       absl::BytesToHexString(e.payload), absl::BytesToHexString(e.digest),
       absl::BytesToHexString(e.prev_chain_hash), absl::BytesToHexString(e.chain_hash),
       absl::BytesToHexString(e.stream_hash)},
      " ");
}

// Every event of `log`, as Row shows it.
std::vector<std::string> EventRows(EventStore& log) {
  absl::StatusOr<std::vector<RecordedEvent>> events = log.ReadAll(0, 100000);
  EXPECT_OK(events);
  std::vector<std::string> rows;
  for (const RecordedEvent& e : events.value_or(std::vector<RecordedEvent>{})) {
    rows.push_back(Row(e));
  }
  return rows;
}

// Every checkpoint and every snapshot of `log`, each field's bytes in hex.
std::vector<std::string> CheckpointAndSnapshotRows(EventStore& log) {
  std::vector<std::string> rows;
  absl::StatusOr<std::vector<v1::Checkpoint>> checkpoints = log.ReadCheckpoints(0, 1000);
  EXPECT_OK(checkpoints);
  for (const v1::Checkpoint& c : checkpoints.value_or(std::vector<v1::Checkpoint>{})) {
    rows.push_back(absl::StrCat("checkpoint ", absl::BytesToHexString(c.SerializeAsString())));
  }
  absl::StatusOr<std::vector<SnapshotId>> ids = log.ListSnapshots();
  EXPECT_OK(ids);
  for (const SnapshotId& id : ids.value_or(std::vector<SnapshotId>{})) {
    absl::StatusOr<std::optional<Snapshot>> s = log.LoadSnapshot(id.projection, id.seq);
    EXPECT_OK(s);
    if (!s.ok() || !s->has_value()) continue;
    const Snapshot& snapshot = **s;
    rows.push_back(absl::StrJoin(
        {std::string("snapshot"), snapshot.projection, absl::StrCat(snapshot.seq),
         absl::StrCat(snapshot.schema_version), absl::BytesToHexString(snapshot.state),
         absl::BytesToHexString(snapshot.chain_hash), absl::BytesToHexString(snapshot.state_sha256),
         snapshot.key_id, absl::BytesToHexString(snapshot.signature)},
        " "));
  }
  return rows;
}

class LogCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(audit::SigningKey key, audit::SigningKey::Generate());
    key_ = std::make_unique<audit::SigningKey>(std::move(key));
    ASSERT_OK_AND_ASSIGN(postgres_.postgres_conninfo, testing::FreshPostgresLog());
  }

  LogLocation Sqlite(const std::string& name) const {
    return LogLocation{.sqlite_path = dir_.path() / name};
  }

  std::unique_ptr<EventLog> OpenWriter(const LogLocation& at) {
    OpenLogOptions options;
    options.clock = &clock_;
    absl::StatusOr<std::unique_ptr<EventLog>> log = OpenLog(at, options);
    EXPECT_OK(log);
    return log.ok() ? *std::move(log) : nullptr;
  }

  static std::unique_ptr<EventLog> OpenReader(const LogLocation& at) {
    OpenLogOptions options;
    options.read_only = true;
    absl::StatusOr<std::unique_ptr<EventLog>> log = OpenLog(at, options);
    EXPECT_OK(log);
    return log.ok() ? *std::move(log) : nullptr;
  }

  // Appends `requests` requests, a second apart. Request n appends one or two events to one
  // stream and, every fourth request, one more to another stream; its payloads hold a NUL and
  // a 0xff byte, and every fifth one has empty metadata.
  void AppendRequests(EventStore& log, int requests) {
    for (int i = 0; i < requests; ++i, ++requests_made_) {
      const int n = requests_made_;
      auto event = [n](int k) {
        return NewEvent{"credledger.v1.ServiceConfigured", 1,
                        n % 5 == 0 ? "" : absl::StrCat("metadata-", n),
                        absl::StrCat("payload-", n, "-", k, std::string("\0\xff", 2))};
      };
      AppendRequest request{absl::StrCat("request-", n), {}};
      StreamAppend first{kStreams[n % 3], ExpectedVersion::Any(), {event(0)}};
      if (n % 2 == 1) first.events.push_back(event(1));
      request.streams.push_back(std::move(first));
      if (n % 4 == 0) {
        request.streams.push_back({kStreams[(n + 1) % 3], ExpectedVersion::Any(), {event(2)}});
      }
      clock_.Advance(absl::Seconds(1));
      ASSERT_OK(log.Append(std::move(request)));
    }
  }

  void SaveCheckpointAt(EventStore& log, int64_t seq) {
    ASSERT_OK_AND_ASSIGN(std::optional<RecordedEvent> e, log.ReadEvent(seq));
    ASSERT_TRUE(e.has_value());
    ASSERT_OK_AND_ASSIGN(
        v1::Checkpoint checkpoint,
        audit::SignCheckpoint(*key_, seq, e->chain_hash, absl::ToUnixMicros(clock_.Now())));
    ASSERT_OK(log.SaveCheckpoint(checkpoint));
  }

  void SaveSnapshotAt(EventStore& log, const std::string& projection, int64_t seq) {
    ASSERT_OK_AND_ASSIGN(std::optional<RecordedEvent> e, log.ReadEvent(seq));
    ASSERT_TRUE(e.has_value());
    Snapshot snapshot{
        .projection = projection,
        .seq = seq,
        .schema_version = 2,
        .state = absl::StrCat("state of ", projection, " at ", seq, std::string("\0", 1))};
    ASSERT_OK(audit::SealSnapshot(*key_, e->chain_hash, snapshot));
    ASSERT_OK(log.SaveSnapshot(snapshot));
  }

  // A log over three streams, more events than one page of the copy, two checkpoints and
  // three sealed snapshots of two projections.
  void BuildLog(EventStore& log) {
    ASSERT_NO_FATAL_FAILURE(AppendRequests(log, 40));
    ASSERT_NO_FATAL_FAILURE(SaveCheckpointAt(log, 50));
    ASSERT_NO_FATAL_FAILURE(SaveSnapshotAt(log, "credentials", 40));
    ASSERT_NO_FATAL_FAILURE(AppendRequests(log, 200));
    ASSERT_NO_FATAL_FAILURE(SaveCheckpointAt(log, 300));
    ASSERT_NO_FATAL_FAILURE(SaveSnapshotAt(log, "credentials", 300));
    ASSERT_NO_FATAL_FAILURE(SaveSnapshotAt(log, "status", 300));
    ASSERT_NO_FATAL_FAILURE(AppendRequests(log, 5));
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<audit::SigningKey> key_;
  LogLocation postgres_;
  int requests_made_ = 0;
};

TEST_F(LogCopyTest, SqliteToPostgresAndBackKeepsEveryByte) {
  const LogLocation original = Sqlite("original.db");
  {
    std::unique_ptr<EventLog> log = OpenWriter(original);
    ASSERT_NE(log, nullptr);
    ASSERT_NO_FATAL_FAILURE(BuildLog(*log));
  }
  std::unique_ptr<EventLog> source = OpenReader(original);
  ASSERT_NE(source, nullptr);
  const std::vector<std::string> events = EventRows(*source);
  const std::vector<std::string> others = CheckpointAndSnapshotRows(*source);
  ASSERT_GT(events.size(), 300u);
  ASSERT_THAT(others, SizeIs(5));

  ASSERT_OK_AND_ASSIGN(CopiedLog to_postgres, CopyLog(original, postgres_));
  EXPECT_EQ(to_postgres.head_seq, source->HeadSeq());
  EXPECT_THAT(to_postgres.checkpoints, SizeIs(2));
  EXPECT_THAT(to_postgres.snapshots, SizeIs(3));
  const LogLocation back = Sqlite("back.db");
  ASSERT_OK_AND_ASSIGN(CopiedLog to_sqlite, CopyLog(postgres_, back));
  EXPECT_EQ(to_sqlite.head_chain_hash, to_postgres.head_chain_hash);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "back.db.partial"));
  {
    std::unique_ptr<EventLog> on_postgres = OpenReader(postgres_);
    std::unique_ptr<EventLog> on_sqlite = OpenReader(back);
    ASSERT_NE(on_postgres, nullptr);
    ASSERT_NE(on_sqlite, nullptr);
    EXPECT_EQ(EventRows(*on_postgres), events);
    EXPECT_EQ(EventRows(*on_sqlite), events);
    EXPECT_EQ(CheckpointAndSnapshotRows(*on_postgres), others);
    EXPECT_EQ(CheckpointAndSnapshotRows(*on_sqlite), others);
  }

  // log_writer names the copied head, so the copy opens for writing and its next event
  // continues the copied chain and stream.
  std::unique_ptr<EventLog> writer = OpenWriter(postgres_);
  ASSERT_NE(writer, nullptr);
  ASSERT_OK_AND_ASSIGN(std::vector<RecordedEvent> stream,
                       source->ReadStream("target/demo/edge-1", 0, 100000));
  ASSERT_OK_AND_ASSIGN(AppendResult next,
                       writer->Append(OneEvent("after-the-copy", "target/demo/edge-1")));
  ASSERT_THAT(next.events, SizeIs(1));
  EXPECT_EQ(next.events[0].seq, to_postgres.head_seq + 1);
  EXPECT_EQ(next.events[0].prev_chain_hash, to_postgres.head_chain_hash);
  EXPECT_EQ(next.events[0].stream_version, static_cast<int64_t>(stream.size()));
  EXPECT_EQ(next.events[0].stream_hash,
            NextChainHash(stream.back().stream_hash, next.events[0].digest));
}

TEST_F(LogCopyTest, ATargetThatIsNotEmptyIsRefusedAndLeftAsItWas) {
  const LogLocation source = Sqlite("source.db");
  {
    std::unique_ptr<EventLog> log = OpenWriter(source);
    ASSERT_NE(log, nullptr);
    ASSERT_NO_FATAL_FAILURE(AppendRequests(*log, 3));
  }
  std::unique_ptr<EventLog> target = OpenWriter(postgres_);
  ASSERT_NE(target, nullptr);
  ASSERT_OK(target->Append(OneEvent("r1", "s/a")));
  target.reset();
  std::unique_ptr<EventLog> reader = OpenReader(postgres_);
  ASSERT_NE(reader, nullptr);
  const std::vector<std::string> before = EventRows(*reader);

  EXPECT_THAT(CopyLog(source, postgres_),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(absl::StrCat("target ", postgres_.Name(), ": ")),
                             HasSubstr("not empty: it holds events up to seq 1"))));
  EXPECT_EQ(EventRows(*reader), before);
  EXPECT_NE(OpenWriter(postgres_), nullptr);  // log_writer still names its head

  const LogLocation taken = Sqlite("taken.db");
  std::ofstream(taken.sqlite_path) << "someone else's file\n";
  EXPECT_THAT(CopyLog(source, taken),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(taken.sqlite_path.string()), HasSubstr("exists"))));
  std::stringstream kept;
  kept << std::ifstream(taken.sqlite_path).rdbuf();
  EXPECT_EQ(kept.str(), "someone else's file\n");
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "taken.db.partial"));
}

TEST_F(LogCopyTest, AWriterOpenOnTheEmptyTargetStopsOnceTheCopyCommitted) {
  const LogLocation source = Sqlite("source.db");
  {
    std::unique_ptr<EventLog> log = OpenWriter(source);
    ASSERT_NE(log, nullptr);
    ASSERT_NO_FATAL_FAILURE(AppendRequests(*log, 3));
  }
  // A service started on the empty database before the copy: its head is seq 0.
  std::unique_ptr<EventLog> early = OpenWriter(postgres_);
  ASSERT_NE(early, nullptr);
  ASSERT_OK(CopyLog(source, postgres_));

  EXPECT_THAT(early->Append(OneEvent("r1", "s/a")),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("head moved under this writer")));
  early.reset();
  std::unique_ptr<EventLog> reopened = OpenWriter(postgres_);
  ASSERT_NE(reopened, nullptr);
  ASSERT_OK_AND_ASSIGN(AppendResult appended, reopened->Append(OneEvent("r1", "s/a")));
  EXPECT_EQ(appended.events[0].seq, reopened->HeadSeq());
  EXPECT_GT(appended.events[0].seq, 3);
}

TEST_F(LogCopyTest, ACopyOfALogBeingWrittenEndsAtTheHeadSeenWhenItBegan) {
  const LogLocation source = Sqlite("live.db");
  std::unique_ptr<EventLog> live = OpenWriter(source);
  ASSERT_NE(live, nullptr);
  ASSERT_NO_FATAL_FAILURE(AppendRequests(*live, 20));
  ASSERT_NO_FATAL_FAILURE(SaveCheckpointAt(*live, 10));
  const int64_t start_head = live->HeadSeq();
  const std::vector<std::string> start_events = EventRows(*live);

  // The test holds the target's log_writer row: the copy opens the source, then waits for
  // the row in its import, while the service goes on writing.
  ASSERT_OK(MigrateLog(postgres_).status());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgConnection> holder,
                       PgConnection::Open(postgres_.postgres_conninfo, absl::Seconds(10)));
  ASSERT_OK(holder->Exec("BEGIN; SELECT epoch FROM log_writer FOR UPDATE", "hold log_writer"));
  absl::StatusOr<CopiedLog> copied;
  std::thread copy([&] { copied = CopyLog(source, postgres_); });
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgConnection> watcher,
                       PgConnection::Open(postgres_.postgres_conninfo, absl::Seconds(10)));
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  int64_t waiting = 0;
  while (waiting == 0 && absl::Now() < give_up) {
    absl::StatusOr<PgResult> row = watcher->QueryOnce(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
        "wait_event_type = 'Lock'",
        PgParams(), "watch");
    waiting = row.ok() ? row->Int(0, 0) : 0;
  }
  EXPECT_EQ(waiting, 1);
  AppendRequests(*live, 5);
  SaveCheckpointAt(*live, live->HeadSeq());
  SaveSnapshotAt(*live, "credentials", live->HeadSeq());
  EXPECT_OK(holder->Exec("ROLLBACK", "release log_writer"));
  copy.join();

  ASSERT_OK(copied);
  EXPECT_GT(live->HeadSeq(), start_head);
  EXPECT_EQ(copied->head_seq, start_head);
  EXPECT_THAT(copied->checkpoints, SizeIs(1));
  EXPECT_THAT(copied->snapshots, SizeIs(0));
  std::unique_ptr<EventLog> copy_log = OpenReader(postgres_);
  ASSERT_NE(copy_log, nullptr);
  EXPECT_EQ(EventRows(*copy_log), start_events);
  EXPECT_THAT(CheckpointAndSnapshotRows(*copy_log), SizeIs(1));
}

TEST_F(LogCopyTest, ACopyOfATamperedLogDoesNotVerifyAndLeavesNoFile) {
  const LogLocation source = Sqlite("tampered.db");
  {
    std::unique_ptr<EventLog> log = OpenWriter(source);
    ASSERT_NE(log, nullptr);
    ASSERT_NO_FATAL_FAILURE(AppendRequests(*log, 10));
  }
  // An edit behind the store's back: the payload of seq 5 changed, its digest left.
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Connection> db,
                         Connection::Open(source.sqlite_path, /*create=*/false,
                                          /*read_only=*/false));
    ASSERT_OK(
        db->Exec("DROP TRIGGER events_refuse_update; UPDATE events SET payload = x'00' "
                 "WHERE seq = 5",
                 "tamper"));
  }
  const LogLocation copy = Sqlite("copy.db");
  EXPECT_THAT(CopyLog(source, copy),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("the copy does not verify: seq 5: its digest is not that of "
                                 "its stored bytes")));
  EXPECT_FALSE(std::filesystem::exists(copy.sqlite_path));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "copy.db.partial"));
}

}  // namespace log_copy_test
}  // namespace credledger::store
