// ReadSmallFile and StatFile: a file is read whole up to its limit, and every refusal names
// the file with the right code.
#include "common/file_util.h"

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::common {
namespace file_util_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

TEST(FileUtilTest, AFileOfExactlyTheLimitIsReadAndOneByteMoreIsRefused) {
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "token";
  testing::WriteText(path, std::string(100, 'x'));
  ASSERT_OK_AND_ASSIGN(std::string text, ReadSmallFile(path, 100));
  EXPECT_EQ(text, std::string(100, 'x'));
  testing::WriteText(path, std::string(101, 'x'));
  EXPECT_THAT(ReadSmallFile(path, 100),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "\"" + path.string() + "\": larger than the limit of 100 bytes"));
}

TEST(FileUtilTest, AMissingFileIsNotFoundAndAFolderIsNotARegularFile) {
  testing::TempDir dir;
  EXPECT_THAT(ReadSmallFile(dir.path() / "absent"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("absent\": No such file")));
  EXPECT_THAT(ReadSmallFile(dir.path()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not a regular file")));
  EXPECT_THAT(StatFile(dir.path() / "absent"), StatusIs(absl::StatusCode::kNotFound));
}

TEST(FileUtilTest, StatFileStampChangesWhenTheFileIsReplaced) {
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "token";
  testing::WriteText(path, "a");
  ASSERT_OK_AND_ASSIGN(FileStamp first, StatFile(path));
  ASSERT_OK_AND_ASSIGN(FileStamp again, StatFile(path));
  EXPECT_EQ(first, again);
  EXPECT_EQ(first.size, 1);
  // A rotated token arrives as a new file renamed over the old one: a new inode.
  testing::WriteText(dir.path() / "token.new", "bb");
  std::filesystem::rename(dir.path() / "token.new", path);
  ASSERT_OK_AND_ASSIGN(FileStamp replaced, StatFile(path));
  EXPECT_NE(replaced, first);
  EXPECT_EQ(replaced.size, 2);
}

}  // namespace file_util_test
}  // namespace credledger::common
