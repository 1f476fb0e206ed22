// Server faults under the PostgreSQL event log, each on a real server of the test's own
// (docs/postgres.md, "Errors"): a crash restart, a stopped server and one that takes the
// connection but never answers, a connection left on a read-only server, and the server's
// idle_in_transaction_session_timeout. The rules: a fault fails the batch it meets with
// kUnavailable, within the connect timeout; the writer then opens a new connection and reloads
// its head, so nothing committed is lost, the chain verifies and a retry with the same request
// id appends once; the read pool drops the connections the fault ended.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "audit/log_verifier.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/pg.h"
#include "store/postgres/postgres_event_store.h"
#include "test/store/one_event.h"
#include "test/store/postgres/postgres_log.h"
#include "test/support/postgres_server.h"
#include "test/support/status_matchers.h"

namespace credledger::store {
namespace postgres_faults_test {

using ::credledger::testing::OneEvent;
using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// libpq's shortest connect timeout (a shorter one counts as 2 s).
constexpr absl::Duration kConnectTimeout = absl::Seconds(2);
// How long a test waits for what must happen well within it; reached only when it fails.
constexpr absl::Duration kGiveUp = absl::Seconds(30);

// A TCP listener on 127.0.0.1 at `port` that never accepts: the kernel completes a client's
// handshake, and then nothing answers, as with a server that hangs.
class SilentListener {
 public:
  explicit SilentListener(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    const int on = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    listening_ = bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0 &&
                 listen(fd_, 16) == 0;
  }
  // Closing resets every connection still waiting to be accepted.
  ~SilentListener() { Close(); }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  bool listening() const { return listening_; }

 private:
  int fd_ = -1;
  bool listening_ = false;
};

class PostgresFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(server_, testing::PostgresServer::Start());
    ASSERT_OK_AND_ASSIGN(database_, server_->CreateDatabase());
  }

  // The test's database over TCP, so that a stopped server refuses at its port and a listener
  // of the test can take the port; over the server's unix socket with `unix_socket_`.
  std::string conninfo() const {
    return unix_socket_ ? server_->ConnectionString(database_)
                        : server_->TcpConnectionString(database_);
  }

  void ExpectReadsGoOnAfterACrashRestart();

  std::unique_ptr<PostgresEventStore> Open() {
    PostgresEventStoreOptions options = testing::PostgresLogOptions(conninfo(), &clock_);
    options.connect_timeout = kConnectTimeout;
    auto store = PostgresEventStore::Open(options);
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Runs `sql` as the superuser in the database `database`; returns psql's output.
  std::string SqlIn(const std::string& database, const std::string& sql) {
    absl::StatusOr<std::string> out = server_->Sql(database, sql);
    EXPECT_OK(out);
    return out.ok() ? *out : "";
  }

  // Ends every session of the test's database but the caller's.
  void TerminateSessions() {
    SqlIn("postgres", absl::StrCat("SELECT count(pg_terminate_backend(pid)) FROM "
                                   "pg_stat_activity WHERE datname = '",
                                   database_, "'"));
  }

  // Runs `sql` in the test's database until it prints `expected`, at most kGiveUp; whether
  // it did.
  bool WaitForSql(const std::string& sql, const std::string& expected) {
    const absl::Status waited = server_->AwaitSql(database_, sql, expected, kGiveUp);
    EXPECT_OK(waited);
    return waited.ok();
  }

  // Checks the whole log with audit::VerifyLog: seqs 1..head without a gap, every digest and
  // link, the head the store reports.
  static void ExpectLogVerifies(EventStore& store, int64_t head) {
    EXPECT_EQ(store.HeadSeq(), head);
    ASSERT_OK_AND_ASSIGN(audit::Verdict verdict, audit::VerifyLog(store, audit::KeyRing(), head));
    EXPECT_TRUE(verdict.ok()) << audit::FormatVerdict(verdict);
    EXPECT_EQ(verdict.last_seq, head);
  }

  // Opens a session that sits idle in a transaction and waits (at most kGiveUp) until the
  // server ends it: by then the database's idle_in_transaction_session_timeout has passed on
  // the server's clock since the call began. Expects the server to have ended it with
  // SQLSTATE 25P03, which libpq hands to the notice receiver (no statement was running).
  void OutwaitIdleInTransactionTimeout() {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgConnection> canary,
                         PgConnection::Open(conninfo(), kConnectTimeout));
    std::string ended_with;
    PQsetNoticeReceiver(
        canary->raw(),
        [](void* state, const PGresult* notice) {
          const char* code = PQresultErrorField(notice, PG_DIAG_SQLSTATE);
          if (code != nullptr) *static_cast<std::string*>(state) = code;
        },
        &ended_with);
    ASSERT_OK(canary->Exec("BEGIN", "canary"));
    // Reads what the server sends (its error, then the end of the connection) until libpq
    // finds the connection closed.
    while (canary->ok()) {
      pollfd readable{PQsocket(canary->raw()), POLLIN, 0};
      ASSERT_EQ(poll(&readable, 1, static_cast<int>(absl::ToInt64Milliseconds(kGiveUp))), 1)
          << "the server kept a session idle in a transaction";
      PQconsumeInput(canary->raw());
      PQisBusy(canary->raw());  // parses the input, passing the error to the receiver
    }
    EXPECT_EQ(ended_with, "25P03");
  }

  common::FakeClock clock_;
  std::unique_ptr<testing::PostgresServer> server_;
  std::string database_;
  bool unix_socket_ = false;
};

TEST_F(PostgresFaultsTest, ACrashRestartFailsOneAppendThenTheWriterReconnectsAndLosesNothing) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  ASSERT_OK(store->Append(OneEvent("r2", "s/b")));

  ASSERT_OK(server_->RestartImmediate());

  EXPECT_THAT(store->Append(OneEvent("r3", "s/a")),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("at most once")));
  ASSERT_OK_AND_ASSIGN(AppendResult retried, store->Append(OneEvent("r3", "s/a")));
  EXPECT_FALSE(retried.replayed);
  EXPECT_EQ(retried.events[0].seq, 3);
  EXPECT_EQ(retried.events[0].stream_version, 1);
  ASSERT_OK_AND_ASSIGN(AppendResult again, store->Append(OneEvent("r3", "s/a")));
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(again.events[0].chain_hash, retried.events[0].chain_hash);
  // What committed before the crash is known to the reconnected writer.
  ASSERT_OK_AND_ASSIGN(AppendResult first, store->Append(OneEvent("r1", "s/a")));
  EXPECT_TRUE(first.replayed);
  EXPECT_EQ(first.events[0].seq, 1);
  EXPECT_EQ(store->writer_state().reconnects, 1);
  ExpectLogVerifies(*store, 3);
}

// Leaves two connections in the read pool, restarts the server (a crash: the sessions end
// without a goodbye), and expects every read to go on as if nothing happened.
void PostgresFaultsTest::ExpectReadsGoOnAfterACrashRestart() {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  // Two reads held together behind a lock leave two connections in the read pool.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgConnection> locker,
                       PgConnection::Open(conninfo(), kConnectTimeout));
  ASSERT_OK(locker->Exec("BEGIN; LOCK TABLE events", "lock"));
  std::thread all([&] { EXPECT_OK(store->ReadAll(0, 10)); });
  std::thread one([&] { EXPECT_OK(store->ReadStream("s/a", 0, 10)); });
  const bool both_waited = WaitForSql(
      "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'events'::regclass", "2\n");
  ASSERT_OK(locker->Exec("COMMIT", "unlock"));
  all.join();
  one.join();
  ASSERT_TRUE(both_waited);

  // The crash ends both; each read runs on a connection that works.
  ASSERT_OK(server_->RestartImmediate());

  ASSERT_OK_AND_ASSIGN(std::vector<RecordedEvent> events, store->ReadAll(0, 10));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].stream, "s/a");
  ASSERT_OK_AND_ASSIGN(events, store->ReadStream("s/a", 0, 10));
  EXPECT_EQ(events.size(), 1u);
  EXPECT_OK(store->LatestCheckpoint());
}

TEST_F(PostgresFaultsTest, ReadsGoOnAfterACrashRestart) { ExpectReadsGoOnAfterACrashRestart(); }

// Over a unix socket libpq reports the first statement on a connection whose server died as
// failed without a SQLSTATE while the connection still counts as open.
TEST_F(PostgresFaultsTest, ReadsGoOnAfterACrashRestartOverAUnixSocket) {
  unix_socket_ = true;
  ExpectReadsGoOnAfterACrashRestart();
}

TEST_F(PostgresFaultsTest, AStoppedServerFailsAppendsWithinTheConnectTimeoutUntilItIsBack) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));

  ASSERT_OK(server_->Stop());
  // The stop ended the writer's session; then the port refuses.
  EXPECT_THAT(store->Append(OneEvent("r2", "s/a")), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(store->Append(OneEvent("r2", "s/a")),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(HasSubstr("unreachable"), HasSubstr("at most once"))));

  // Something that takes the connection and never answers: the connect timeout ends the wait.
  {
    SilentListener silent(server_->port());
    ASSERT_TRUE(silent.listening());
    absl::Status hung;
    absl::Notification answered;
    const absl::Time start = absl::Now();
    std::thread append([&] {
      hung = store->Append(OneEvent("r2", "s/a")).status();
      answered.Notify();
    });
    const bool in_time = answered.WaitForNotificationWithTimeout(kGiveUp);
    const absl::Duration took = absl::Now() - start;
    silent.Close();  // resets the connection, should the append still wait on it
    append.join();
    ASSERT_TRUE(in_time);
    EXPECT_THAT(hung, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("timeout expired")));
    // libpq ends the wait by a clock of whole seconds: after more than timeout - 1 s.
    EXPECT_GT(took, kConnectTimeout - absl::Seconds(1));
    EXPECT_LT(took, kConnectTimeout + absl::Seconds(5));
  }

  ASSERT_OK(server_->StartAgain());
  ASSERT_OK_AND_ASSIGN(AppendResult resumed, store->Append(OneEvent("r2", "s/a")));
  EXPECT_FALSE(resumed.replayed);
  EXPECT_EQ(resumed.events[0].seq, 2);
  EXPECT_EQ(store->writer_state().reconnects, 3);
  ExpectLogVerifies(*store, 2);
}

TEST_F(PostgresFaultsTest,
       AConnectionOnAReadOnlyServerFailsUnavailableUntilTheWriterFindsAPrimary) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  // A switchover as the writer sees it: its session ends, and the next one it opens is
  // read-only, as on a standby.
  SqlIn("postgres",
        absl::StrCat("ALTER DATABASE ", database_, " SET default_transaction_read_only = on"));
  TerminateSessions();
  EXPECT_THAT(store->Append(OneEvent("r2", "s/a")), StatusIs(absl::StatusCode::kUnavailable));

  EXPECT_THAT(store->Append(OneEvent("r2", "s/a")),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(HasSubstr("read-only transaction"), HasSubstr("[SQLSTATE 25006]"),
                             HasSubstr("at most once"))));
  EXPECT_EQ(store->writer_state().reconnects, 1);

  // The primary is writable again: sessions opened from now on may write. The writer's
  // read-only session would stay read-only; it opens a new one.
  SqlIn("postgres",
        absl::StrCat("ALTER DATABASE ", database_, " RESET default_transaction_read_only"));
  ASSERT_OK_AND_ASSIGN(AppendResult resumed, store->Append(OneEvent("r2", "s/a")));
  EXPECT_EQ(resumed.events[0].seq, 2);
  EXPECT_EQ(store->writer_state().reconnects, 2);
  ExpectLogVerifies(*store, 2);
}

TEST_F(PostgresFaultsTest, TheWriterIsNeverIdleInATransaction) {
  SqlIn("postgres", absl::StrCat("ALTER DATABASE ", database_,
                                 " SET idle_in_transaction_session_timeout = '1s'"));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  SqlIn(database_,
        "CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE "
        "EXCEPTION 'poison refused' USING ERRCODE = 'check_violation'; END $$;"
        "CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.stream = "
        "'poison') EXECUTE FUNCTION refuse_poison();");
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  EXPECT_THAT(store->Append(OneEvent("r2", "poison")), StatusIs(absl::StatusCode::kAborted));
  // The server ends a session idle in a transaction, with its own SQLSTATE...
  OutwaitIdleInTransactionTimeout();
  // ...but not the writer's, left idle longer than that after a commit and a refused batch.
  ASSERT_OK(store->Append(OneEvent("r3", "s/a")));

  // A command that reads on the writer's session and then holds the writer longer than the
  // timeout still commits: the batch's transaction opens only when the batch is sent.
  absl::Notification entered, release;
  absl::Status held;
  std::thread holder([&] {
    held = store->Execute([&](WriteTransaction& tx) -> absl::Status {
      absl::StatusOr<std::vector<RecordedEvent>> read = tx.ReadStream("s/a", 0);
      if (!read.ok()) return read.status();
      entered.Notify();
      if (!release.WaitForNotificationWithTimeout(kGiveUp)) {
        return absl::DeadlineExceededError("the test did not release the command");
      }
      return tx.Append(OneEvent("r4", "s/a")).status();
    });
  });
  const bool in_command = entered.WaitForNotificationWithTimeout(kGiveUp);
  if (in_command) {
    OutwaitIdleInTransactionTimeout();
  }
  release.Notify();
  holder.join();
  ASSERT_TRUE(in_command) << held;
  EXPECT_OK(held);
  EXPECT_EQ(store->writer_state().reconnects, 0);
  ExpectLogVerifies(*store, 3);
}

}  // namespace postgres_faults_test
}  // namespace credledger::store
