// Online backup of the log (store/backup.h): a consistent, verifiable copy taken while the
// writer goes on; the destination is either absent or complete.
#include "store/backup.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "audit/log_verifier.h"
#include "audit/signing_key.h"
#include "credledger/v1/events.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace backup_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

AppendRequest OneEvent(int n) {
  v1::ServiceConfigured payload;
  payload.set_agent_apiserver_url(absl::StrCat("https://agents-", n, ".example:6443"));
  v1::EventMetadata metadata;
  metadata.set_actor("alice");
  metadata.set_request_id(absl::StrCat("r", n));
  return AppendRequest{
      metadata.request_id(),
      {StreamAppend{absl::StrCat("s/", n % 7),
                    ExpectedVersion::Any(),
                    {NewEvent{"credledger.v1.ServiceConfigured", 1, metadata.SerializeAsString(),
                              payload.SerializeAsString()}}}}};
}

class BackupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SqliteEventStoreOptions options;
    options.path = source();
    options.synchronous = SqliteEventStoreOptions::Synchronous::kNormal;
    ASSERT_OK_AND_ASSIGN(store_, SqliteEventStore::Open(options));
  }
  std::filesystem::path source() const { return dir_.path() / "credledger.db"; }

  ::credledger::testing::TempDir dir_;
  std::unique_ptr<SqliteEventStore> store_;
};

TEST_F(BackupTest, CopiesAConsistentVerifiableLogWhileTheWriterGoesOn) {
  for (int n = 1; n <= 200; ++n) ASSERT_OK(store_->Append(OneEvent(n)));
  std::atomic<bool> stop{false};
  std::atomic<int> written{200};
  std::thread writer([&] {
    for (int n = 201; !stop.load() && n < 100000; ++n) {
      if (!store_->Append(OneEvent(n)).ok()) return;
      written = n;
    }
  });
  const std::filesystem::path copy = dir_.path() / "backup" / "copy.db";
  std::filesystem::create_directories(copy.parent_path());
  absl::StatusOr<BackupResult> result = BackupDatabase(source(), copy);
  stop = true;
  writer.join();
  ASSERT_OK(result);
  EXPECT_GE(result->head_seq, 200);
  EXPECT_LE(result->head_seq, written.load());
  EXPECT_EQ(result->bytes, static_cast<int64_t>(std::filesystem::file_size(copy)));
  EXPECT_FALSE(std::filesystem::exists(copy.string() + ".partial"));

  SqliteEventStoreOptions options;
  options.path = copy;
  options.read_only = true;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteEventStore> restored, SqliteEventStore::Open(options));
  EXPECT_EQ(restored->HeadSeq(), result->head_seq);
  ASSERT_OK_AND_ASSIGN(audit::SigningKey key, audit::SigningKey::Generate());
  ASSERT_OK_AND_ASSIGN(audit::Verdict verdict,
                       audit::VerifyLog(*restored, key.public_key(), result->head_seq));
  EXPECT_TRUE(verdict.ok()) << audit::FormatVerdict(verdict);
  EXPECT_EQ(verdict.events, result->head_seq);
}

TEST_F(BackupTest, RefusesAnExistingDestinationAMissingSourceAndOtherFiles) {
  ASSERT_OK(store_->Append(OneEvent(1)));
  const std::filesystem::path taken = dir_.path() / "taken.db";
  std::ofstream(taken) << "keep me";
  EXPECT_THAT(BackupDatabase(source(), taken),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("exists")));
  std::ifstream kept(taken);
  std::string text;
  std::getline(kept, text);
  EXPECT_EQ(text, "keep me");

  EXPECT_THAT(BackupDatabase(dir_.path() / "missing.db", dir_.path() / "a.db"),
              StatusIs(absl::StatusCode::kNotFound));
  const std::filesystem::path other = dir_.path() / "other.db";
  std::ofstream(other) << "";  // an empty file is an empty SQLite database, not a log
  EXPECT_THAT(BackupDatabase(other, dir_.path() / "b.db"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not a credledger event log")));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "b.db"));
}

TEST_F(BackupTest, AnUnwritableFolderLeavesNothingBehind) {
  ASSERT_OK(store_->Append(OneEvent(1)));
  const std::filesystem::path copy = dir_.path() / "no-such-folder" / "copy.db";
  EXPECT_THAT(BackupDatabase(source(), copy),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("cannot create")));
  EXPECT_FALSE(std::filesystem::exists(copy.parent_path()));
}

}  // namespace backup_test
}  // namespace credledger::store
