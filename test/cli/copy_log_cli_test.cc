// `credledger copy-log` in this process on SQLite files: the line it prints for a log and for
// an empty one. Copies between backends run as processes in
// test/integration/postgres_cli_test.cc.
#include "cli/copy_log_cli.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_event_store.h"
#include "test/cli/in_process_cli.h"
#include "test/store/one_event.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::cli {
namespace copy_log_cli_test {

using ::credledger::testing::CliRun;
using ::credledger::testing::Credledger;

TEST(CopyLogCliTest, SaysWhatItCopiedUpToWhichChainHash) {
  testing::TempDir dir;
  const std::string db = (dir.path() / "credledger.db").string();
  std::string head_chain_hash;
  {
    store::SqliteEventStoreOptions options;
    options.path = db;
    ASSERT_OK_AND_ASSIGN(auto log, store::SqliteEventStore::Open(options));
    for (const char* request : {"r1", "r2", "r3"}) {
      ASSERT_OK_AND_ASSIGN(store::AppendResult appended,
                           log->Append(testing::OneEvent(request, "s/a")));
      head_chain_hash = appended.events.back().chain_hash;
    }
  }
  const std::string copy = (dir.path() / "copy.db").string();
  const CliRun run = Credledger({"copy-log", "--from-db", db, "--to-db", copy});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, absl::StrCat("copied 3 events (seq 1..3, chain ",
                                  common::HexEncode(head_chain_hash).substr(0, 16),
                                  "), 0 checkpoints and 0 snapshots from ", db, " to ", copy,
                                  "; the copy verifies\n"));
}

TEST(CopyLogCliTest, OneEventIsCountedInTheSingular) {
  testing::TempDir dir;
  const std::string db = (dir.path() / "one.db").string();
  {
    store::SqliteEventStoreOptions options;
    options.path = db;
    ASSERT_OK_AND_ASSIGN(auto log, store::SqliteEventStore::Open(options));
    ASSERT_OK(log->Append(testing::OneEvent("r1", "s/a")));
  }
  const CliRun run =
      Credledger({"copy-log", "--from-db", db, "--to-db", (dir.path() / "copy.db").string()});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, ::testing::StartsWith("copied 1 event (seq 1..1, chain "));
  EXPECT_THAT(run.out, ::testing::HasSubstr("), 0 checkpoints and 0 snapshots from "));
}

TEST(CopyLogCliTest, AnEmptyLogIsCopiedWithoutASeqRange) {
  testing::TempDir dir;
  const std::string db = (dir.path() / "empty.db").string();
  {
    store::SqliteEventStoreOptions options;
    options.path = db;
    ASSERT_OK(store::SqliteEventStore::Open(options));
  }
  const std::string copy = (dir.path() / "copy.db").string();
  const CliRun run = Credledger({"copy-log", "--from-db", db, "--to-db", copy});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, absl::StrCat("copied 0 events, 0 checkpoints and 0 snapshots from ", db,
                                  " to ", copy, "; the copy verifies\n"));
}

}  // namespace copy_log_cli_test
}  // namespace credledger::cli
