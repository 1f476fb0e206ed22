// Where a log is and opening it on either backend (store/open/log_location.h), against a real
// SQLite file and a real PostgreSQL server.
#include "store/open/log_location.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_event_store.h"
#include "test/store/one_event.h"
#include "test/store/postgres/postgres_log.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace {

using ::credledger::testing::OneEvent;
using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(ParseLogLocationTest, DbIsSqliteStoreIsPostgres) {
  ASSERT_OK_AND_ASSIGN(LogLocation sqlite, ParseLogLocation("./var/log.db", true, "", ""));
  EXPECT_FALSE(sqlite.is_postgres());
  EXPECT_EQ(sqlite.Describe(), "--db ./var/log.db");
  // A --db default does not stand in the way of --store.
  ASSERT_OK_AND_ASSIGN(LogLocation pg, ParseLogLocation("./var/log.db", false,
                                                        "postgresql://credledger@db:5433/log", ""));
  EXPECT_TRUE(pg.is_postgres());
  EXPECT_EQ(pg.Describe(), "--store postgresql://credledger@db:5433/log");
  ASSERT_OK_AND_ASSIGN(LogLocation keywords,
                       ParseLogLocation("", false, "host=/run/pg dbname=log user=svc", ""));
  EXPECT_EQ(keywords.Name(), "postgresql://svc@/run/pg/log");
}

TEST(ParseLogLocationTest, RefusesCombinationsAndPasswordsOnTheCommandLine) {
  EXPECT_THAT(ParseLogLocation("a.db", true, "dbname=log", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--db and --store")));
  EXPECT_THAT(ParseLogLocation("", false, "", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--db: required")));
  EXPECT_THAT(ParseLogLocation("a.db", true, "", "/etc/pw"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--store-password-file: only with --store")));
  for (const char* with_password :
       {"postgresql://svc:hunter2@db/log", "host=db dbname=log password=hunter2"}) {
    absl::StatusOr<LogLocation> refused = ParseLogLocation("", false, with_password, "");
    EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("--store-password-file, PGPASSWORD")));
    EXPECT_THAT(refused.status().message(), Not(HasSubstr("hunter2")));
  }
  EXPECT_THAT(ParseLogLocation("", false, "host=db dbname", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a libpq connection")));
}

TEST(ParseLogLocationTest, ErrorsNameTheFlagsOfTheCommand) {
  const LogFlagNames to{
      .db = "--to-db", .store = "--to-store", .store_password_file = "--to-store-password-file"};
  EXPECT_THAT(ParseLogLocation("", false, "", "", to),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--to-db: required (the event log's SQLite file), or --to-store "
                                 "for PostgreSQL")));
  EXPECT_THAT(ParseLogLocation("a.db", true, "dbname=log", "", to),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--to-db and --to-store")));
  EXPECT_THAT(ParseLogLocation("", false, "", "/etc/pw", to),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--to-store-password-file: only with --to-store")));
  EXPECT_THAT(ParseLogLocation("", false, "postgresql://svc:hunter2@db/log", "", to),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("--to-store: carries a password"),
                             HasSubstr("give it with --to-store-password-file"))));
  EXPECT_THAT(ParseLogLocation("", false, "host=db dbname", "", to),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--to-store: not a libpq")));
  testing::TempDir dir;
  EXPECT_THAT(ParseLogLocation("", false, "dbname=log", (dir.path() / "none").string(), to),
              StatusIs(absl::StatusCode::kNotFound, AllOf(HasSubstr("--to-store-password-file: \""),
                                                          HasSubstr("No such file or directory"))));
  EXPECT_THAT(ParseLogLocation("", false, "dbname=log", dir.path().string(), to),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("--to-store-password-file: \"" + dir.path().string() +
                                 "\": not a regular file")));
}

TEST(ParseLogLocationTest, ReadsThePasswordFilesFirstLine) {
  testing::TempDir dir;
  const std::string file = (dir.path() / "password").string();
  std::ofstream(file) << "s3cret\nignored\n";
  ASSERT_OK_AND_ASSIGN(LogLocation location, ParseLogLocation("", false, "dbname=log", file));
  EXPECT_EQ(location.postgres_password, "s3cret");
  EXPECT_THAT(location.Describe(), Not(HasSubstr("s3cret")));
  std::ofstream(file, std::ios::trunc) << "\n";
  EXPECT_THAT(ParseLogLocation("", false, "dbname=log", file),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("the first line of \"" + file + "\" is empty")));
  EXPECT_THAT(ParseLogLocation("", false, "dbname=log", (dir.path() / "none").string()),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("No such file or directory")));
}

TEST(OpenLogTest, OpensEitherBackendWithTheSameEvents) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(std::string conninfo, testing::FreshPostgresLog());
  for (const LogLocation& location : {LogLocation{.sqlite_path = dir.path() / "log.db"},
                                      LogLocation{.postgres_conninfo = conninfo}}) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<EventLog> log, OpenLog(location, OpenLogOptions()));
    ASSERT_OK(log->Append(OneEvent("r1", "s/a")));
    log.reset();
    OpenLogOptions read_only;
    read_only.read_only = true;
    ASSERT_OK_AND_ASSIGN(log, OpenLog(location, read_only));
    EXPECT_EQ(log->HeadSeq(), 1) << location.Describe();
    EXPECT_THAT(log->Append(OneEvent("r2", "s/a")),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("read-only")));
  }
}

TEST(MigrateLogTest, MigratingPostgresLeavesTheRunningWriterWriting) {
  ASSERT_OK_AND_ASSIGN(std::string conninfo, testing::FreshPostgresLog());
  const LogLocation location{.postgres_conninfo = conninfo};
  EXPECT_THAT(MigrateLog(location), ::testing::Eq(absl::StatusOr<int64_t>(3)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<EventLog> writer, OpenLog(location, OpenLogOptions()));
  EXPECT_THAT(MigrateLog(location), ::testing::Eq(absl::StatusOr<int64_t>(3)));
  EXPECT_OK(writer->Append(OneEvent("r1", "s/a")));
}

}  // namespace
}  // namespace credledger::store
