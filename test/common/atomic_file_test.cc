// The shared writer (common/atomic_file.h): the whole text lands at the path with the mode
// asked for, a refused or failed write leaves no temporary file, a new file is never created
// over anything, and a move without replace keeps what is at the path.
#include "common/atomic_file.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/file_mode.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::common {
namespace atomic_file_test {

namespace fs = std::filesystem;

using ::credledger::testing::ModeOf;
using ::credledger::testing::ReadText;
using ::credledger::testing::ScopedUmask;
using ::credledger::testing::StatusIs;
using ::credledger::testing::WriteText;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// The names in `dir`.
std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

class AtomicFileTest : public ::testing::Test {
 protected:
  ::credledger::testing::TempDir dir_;
  const fs::path path_ = dir_.path() / "port";
};

TEST_F(AtomicFileTest, WritesTheWholeTextOverTheOldFileAndLeavesNoTemporary) {
  ASSERT_OK(WriteFileAtomically(path_, "1234\n", {.label = "--port-file"}));
  EXPECT_EQ(ReadText(path_), "1234\n");
  ASSERT_OK(WriteFileAtomically(path_, "7\n", {.label = "--port-file"}));
  EXPECT_EQ(ReadText(path_), "7\n");
  EXPECT_THAT(Names(dir_.path()), UnorderedElementsAre("port"));
}

TEST_F(AtomicFileTest, TheModeIsLessTheUmaskUnlessExact) {
  ScopedUmask strict(077);
  ASSERT_OK(WriteFileAtomically(path_, "1\n", {.label = "--port-file"}));
  EXPECT_EQ(ModeOf(path_), 0600u);
  const fs::path key = dir_.path() / "key.pub.pem";
  ASSERT_OK(WriteFileAtomically(key, "k", {.label = "--public-key", .mode = 0644,
                                           .exact_mode = true}));
  EXPECT_EQ(ModeOf(key), 0644u);
}

TEST_F(AtomicFileTest, WithoutReplaceAnExistingFileOrDanglingLinkIsKeptAndNoTemporaryLeft) {
  WriteText(path_, "earlier\n");
  EXPECT_THAT(WriteFileAtomically(path_, "new\n", {.label = "--private-key", .replace = false}),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("--private-key: \"" + path_.string() + "\" exists and is kept")));
  EXPECT_EQ(ReadText(path_), "earlier\n");
  const fs::path dangling = dir_.path() / "dangling";
  fs::create_symlink(dir_.path() / "nowhere", dangling);
  EXPECT_THAT(WriteFileAtomically(dangling, "new\n", {.label = "x", .replace = false}),
              StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_FALSE(fs::exists(dir_.path() / "nowhere"));
  EXPECT_THAT(Names(dir_.path()), UnorderedElementsAre("port", "dangling"));
}

TEST_F(AtomicFileTest, AFailedRenameIsUnavailableAndLeavesNoTemporary) {
  fs::create_directories(path_ / "occupied");  // a folder that is not empty: rename fails
  EXPECT_THAT(WriteFileAtomically(path_, "1\n", {.label = "--port-file"}),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(HasSubstr("--port-file: cannot move"),
                             HasSubstr("to \"" + path_.string() + "\""))));
  EXPECT_THAT(Names(dir_.path()), UnorderedElementsAre("port"));
}

TEST_F(AtomicFileTest, AMissingFolderIsAFailedPreconditionNamingTheFile) {
  const fs::path missing = dir_.path() / "missing" / "port";
  EXPECT_THAT(WriteFileAtomically(missing, "1\n", {.label = "--port-file"}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("--port-file: cannot create \"" + missing.string() + "\"")));
  EXPECT_THAT(Names(dir_.path()), UnorderedElementsAre());
}

TEST_F(AtomicFileTest, CreateNewFileSetsTheModeAndRefusesAnythingAtThePath) {
  ScopedUmask permissive(0);
  const fs::path partial = dir_.path() / "all.jsonl.partial";
  ASSERT_OK(CreateNewFile(partial, {.label = "--output", .mode = 0644}));
  EXPECT_EQ(ModeOf(partial), 0644u);
  EXPECT_EQ(ReadText(partial), "");
  EXPECT_THAT(CreateNewFile(partial, {.label = "--output"}),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("exists")));
  const fs::path dangling = dir_.path() / "dangling";
  fs::create_symlink(dir_.path() / "nowhere", dangling);
  EXPECT_THAT(CreateNewFile(dangling, {.label = "--output"}),
              StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_FALSE(fs::exists(dir_.path() / "nowhere"));
}

TEST_F(AtomicFileTest, MoveIntoPlaceReplacesOnlyWhenAskedAndOtherwiseKeepsBothFiles) {
  const fs::path from = dir_.path() / "port.partial";
  WriteText(from, "new\n");
  WriteText(path_, "earlier\n");
  EXPECT_THAT(MoveIntoPlace(from, path_, {.label = "--output", .replace = false}),
              StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_EQ(ReadText(path_), "earlier\n");
  EXPECT_EQ(ReadText(from), "new\n");
  ASSERT_OK(MoveIntoPlace(from, path_, {.label = "--output"}));
  EXPECT_EQ(ReadText(path_), "new\n");
  EXPECT_THAT(Names(dir_.path()), UnorderedElementsAre("port"));
}

TEST_F(AtomicFileTest, MoveIntoPlaceOfAMissingFileFailsAtItsSync) {
  EXPECT_THAT(MoveIntoPlace(dir_.path() / "absent", path_, {.label = "backup"}),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("backup: cannot sync")));
}

TEST_F(AtomicFileTest, SyncFolderOfSyncsTheFolderOfAPathOrTheCurrentOne) {
  EXPECT_OK(SyncFolderOf(path_, "backup"));  // the file need not exist: its folder does
  EXPECT_OK(SyncFolderOf("bare-name", "backup"));
  const fs::path missing = dir_.path() / "missing";
  EXPECT_THAT(SyncFolderOf(missing / "copy.db", "backup"),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("backup: cannot sync the folder \"" + missing.string() + "\"")));
}

}  // namespace atomic_file_test
}  // namespace credledger::common
