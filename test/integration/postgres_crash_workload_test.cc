// The crash workload (test/integration/crash_workload.h; docs/testing.md, "Crash test") on a
// PostgreSQL log (docs/postgres.md, "The writer" and "The fence"): `credledger serve --store`
// on a database of the test process's own PostgreSQL server, killed with SIGKILL mid-batch,
// at random moments and at every fault point. 84 cycles by default
// (CREDLEDGER_POSTGRES_CRASH_CYCLES), every second arming a fault point: each of the 21 twice.
// After the last cycle the fence's row, log_writer, names the events table's head, and the
// store's password appears in no output.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/crash_workload.h"
#include "test/integration/crash_workload_client.h"
#include "test/support/postgres_server.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {
namespace postgres_crash_workload_test {

using crash_workload::CrashRunPlan;

class PostgresCrashWorkloadTest : public crash_workload::CrashWorkloadTest {
 protected:
  void SetUp() override {
    CrashWorkloadTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_OK_AND_ASSIGN(server_, SharedPostgresServer());
    ASSERT_OK_AND_ASSIGN(database_, server_->CreateDatabase());
    UsePostgresLog(*server_, database_);
  }

  // The head log_writer names and the events table's last row, each as "<seq>|<chain hash in
  // hex>".
  std::string WriterHead() {
    return Query("SELECT seq, encode(chain_hash, 'hex') FROM log_writer");
  }
  std::string EventsHead() {
    return Query("SELECT seq, encode(chain_hash, 'hex') FROM events ORDER BY seq DESC LIMIT 1");
  }

  PostgresServer* server_ = nullptr;
  std::string database_;

 private:
  std::string Query(const std::string& sql) {
    absl::StatusOr<std::string> rows = server_->Sql(database_, sql);
    EXPECT_OK(rows);
    return rows.value_or("");
  }
};

TEST_F(PostgresCrashWorkloadTest, RandomKillsDuringAWorkloadKeepThePostgresLogAndTheCluster) {
  RunCrashWorkload(CrashRunPlan{"CREDLEDGER_POSTGRES_CRASH_CYCLES", 84, 2});
  if (HasFatalFailure()) return;
  // Every batch advances log_writer in the transaction that commits its rows, so no kill
  // leaves the two apart (a serve opening the log refuses that with DATA_LOSS).
  const std::string events_head = EventsHead();
  EXPECT_NE(events_head, "");
  EXPECT_EQ(WriterHead(), events_head);
  ExpectNotFoundAnywhere({kLiveStorePassword});
  // The dump the token search read holds the bytea columns as their bytes: the workload's
  // actor is only in the events' metadata.
  bool dumped = false;
  for (const Haystack& h : haystacks_) {
    if (h.what != "table events at the end") continue;
    dumped = true;
    EXPECT_THAT(h.bytes, ::testing::HasSubstr(crash_workload_client::kActor));
  }
  EXPECT_TRUE(dumped);
}

}  // namespace postgres_crash_workload_test
}  // namespace credledger::testing
