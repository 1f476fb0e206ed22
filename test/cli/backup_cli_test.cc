// `credledger backup`: a copy of a live log through the CLI, its flags and its errors.
#include "cli/backup_cli.h"

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_event_store.h"
#include "test/cli/in_process_cli.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::cli {
namespace backup_cli_test {

using ::testing::HasSubstr;

using ::credledger::testing::CliRun;
using ::credledger::testing::Credledger;

TEST(BackupCliTest, CopiesTheLogAndSaysUpToWhichSeq) {
  testing::TempDir dir;
  const std::string db = (dir.path() / "credledger.db").string();
  {
    store::SqliteEventStoreOptions options;
    options.path = db;
    ASSERT_OK_AND_ASSIGN(auto log, store::SqliteEventStore::Open(options));
    for (int n = 1; n <= 3; ++n) {
      v1::EventMetadata metadata;
      metadata.set_request_id(absl::StrCat("r", n));
      ASSERT_OK(log->Append(
          {metadata.request_id(),
           {{"s",
             store::ExpectedVersion::Any(),
             {{"credledger.v1.ServiceConfigured", 1, metadata.SerializeAsString(), ""}}}}}));
    }
  }
  const std::string copy = (dir.path() / "copy.db").string();
  CliRun run = Credledger({"backup", "--db", db, "--to", copy});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr(absl::StrCat("copied the log up to seq 3 (")));
  EXPECT_THAT(run.out, HasSubstr(absl::StrCat("bytes) to ", copy)));
  EXPECT_TRUE(std::filesystem::exists(copy));

  CliRun again = Credledger({"backup", "--db", db, "--to", copy});
  EXPECT_EQ(again.code, 1);
  EXPECT_THAT(again.err, HasSubstr("exists; choose a new file name"));
}

TEST(BackupCliTest, ToIsRequired) {
  CliRun run = Credledger({"backup"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("--to: required"));
  CliRun help = Credledger({"backup", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("quick_check"));
}

}  // namespace backup_cli_test
}  // namespace credledger::cli
