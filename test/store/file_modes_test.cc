// The modes of the files that hold the log (docs/operations.md, "File modes"): a database the
// store creates, its -wal and -shm files, and a backup copy are readable by their owner only,
// whatever the umask; an existing database keeps the mode it has.
//
// Every test runs under umask 0, the most permissive, and restores the umask it found.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "credledger/v1/events.pb.h"
#include "gtest/gtest.h"
#include "store/backup.h"
#include "store/sqlite_event_store.h"
#include "test/support/file_mode.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace file_modes_test {

using ::credledger::testing::ModeOf;
using ::credledger::testing::ScopedUmask;

AppendRequest OneEvent(int n) {
  v1::ServiceConfigured payload;
  payload.set_agent_apiserver_url(absl::StrCat("https://agents-", n, ".example:6443"));
  v1::EventMetadata metadata;
  metadata.set_request_id(absl::StrCat("r", n));
  return AppendRequest{
      metadata.request_id(),
      {StreamAppend{"service",
                    ExpectedVersion::Any(),
                    {NewEvent{"credledger.v1.ServiceConfigured", 1, metadata.SerializeAsString(),
                              payload.SerializeAsString()}}}}};
}

class FileModesTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteEventStore> OpenLog() {
    SqliteEventStoreOptions options;
    options.path = db();
    options.synchronous = SqliteEventStoreOptions::Synchronous::kNormal;
    absl::StatusOr<std::unique_ptr<SqliteEventStore>> store = SqliteEventStore::Open(options);
    EXPECT_OK(store.status());
    return store.ok() ? *std::move(store) : nullptr;
  }
  std::filesystem::path db() const { return dir_.path() / "credledger.db"; }

  ScopedUmask permissive_{0};
  ::credledger::testing::TempDir dir_;
};

// SQLite 3.40 creates -wal and -shm with the mode of the database file (checked here, not
// assumed): a database created 0600 gives both 0600.
TEST_F(FileModesTest, ANewLogItsWalAndItsShmAreReadableByTheOwnerOnly) {
  std::unique_ptr<SqliteEventStore> store = OpenLog();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent(1)));
  for (const char* suffix : {"", "-wal", "-shm"}) {
    EXPECT_EQ(ModeOf(db().string() + suffix), mode_t{0600}) << "credledger.db" << suffix;
  }
}

TEST_F(FileModesTest, ABackupIsReadableByTheOwnerOnly) {
  std::unique_ptr<SqliteEventStore> store = OpenLog();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent(1)));
  const std::filesystem::path copy = dir_.path() / "copy.db";
  ASSERT_OK(BackupDatabase(db(), copy).status());
  EXPECT_EQ(ModeOf(copy), mode_t{0600});
}

// An operator's choice stays: an existing database (here empty, as `touch` leaves it) keeps
// its mode, and SQLite gives its -wal and -shm that mode too.
TEST_F(FileModesTest, AnExistingDatabaseKeepsItsMode) {
  std::ofstream(db()).close();
  ASSERT_EQ(chmod(db().c_str(), 0640), 0);
  std::unique_ptr<SqliteEventStore> store = OpenLog();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent(1)));
  for (const char* suffix : {"", "-wal", "-shm"}) {
    EXPECT_EQ(ModeOf(db().string() + suffix), mode_t{0640}) << "credledger.db" << suffix;
  }
}

}  // namespace file_modes_test
}  // namespace credledger::store
