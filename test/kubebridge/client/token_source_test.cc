#include "kubebridge/client/token_source.h"

#include <filesystem>

#include "gtest/gtest.h"
#include "test/kubebridge/test_files.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::kubebridge {
namespace token_source_test {

using ::credledger::testing::TempDir;

TEST(TokenSourceTest, StaticTokenWithoutFile) {
  TokenSource source("static", "");
  ASSERT_OK_AND_ASSIGN(std::string token, source.Token());
  EXPECT_EQ(token, "static");
}

TEST(TokenSourceTest, FileTokenWinsAndUnchangedFileIsNotReadAgain) {
  TempDir dir;
  std::filesystem::path file = WriteTestFile(dir.path() / "token", "from-file\n");
  TokenSource source("static", file);
  ASSERT_OK_AND_ASSIGN(std::string first, source.Token());
  ASSERT_OK_AND_ASSIGN(std::string second, source.Token());
  EXPECT_EQ(first, "from-file");
  EXPECT_EQ(second, "from-file");
  EXPECT_EQ(source.file_reads(), 1);
}

TEST(TokenSourceTest, FileIsReReadWhenItsSizeChanges) {
  TempDir dir;
  std::filesystem::path file = WriteTestFile(dir.path() / "token", "token-one");
  TokenSource source("", file);
  ASSERT_OK_AND_ASSIGN(std::string first, source.Token());
  WriteTestFile(dir.path() / "token", "token-number-two");
  ASSERT_OK_AND_ASSIGN(std::string second, source.Token());
  EXPECT_EQ(first, "token-one");
  EXPECT_EQ(second, "token-number-two");
}

TEST(TokenSourceTest, FileIsReReadWhenOnlyItsModificationTimeChanges) {
  TempDir dir;
  std::filesystem::path file = WriteTestFile(dir.path() / "token", "token-AAAA");
  TokenSource source("", file);
  ASSERT_OK_AND_ASSIGN(std::string first, source.Token());
  auto mtime = std::filesystem::last_write_time(file);
  WriteTestFile(dir.path() / "token", "token-BBBB");  // same size
  std::filesystem::last_write_time(file, mtime + std::chrono::seconds(5));
  ASSERT_OK_AND_ASSIGN(std::string second, source.Token());
  EXPECT_EQ(first, "token-AAAA");
  EXPECT_EQ(second, "token-BBBB");
}

TEST(TokenSourceTest, SymlinkSwapLikeKubeletIsNoticed) {
  // Projected volumes replace the token by re-pointing a symlink at a new file.
  TempDir dir;
  std::filesystem::path v1 = WriteTestFile(dir.path() / "v1/token", "token-v1");
  std::filesystem::path v2 = WriteTestFile(dir.path() / "v2/token", "token-v2");
  std::filesystem::path link = dir.path() / "token";
  std::filesystem::create_symlink(v1, link);
  TokenSource source("", link);
  ASSERT_OK_AND_ASSIGN(std::string first, source.Token());
  std::filesystem::path tmp = dir.path() / "token.tmp";
  std::filesystem::create_symlink(v2, tmp);
  std::filesystem::rename(tmp, link);
  ASSERT_OK_AND_ASSIGN(std::string second, source.Token());
  EXPECT_EQ(first, "token-v1");
  EXPECT_EQ(second, "token-v2");
}

TEST(TokenSourceTest, LastGoodTokenSurvivesAVanishedOrEmptyFile) {
  TempDir dir;
  std::filesystem::path file = WriteTestFile(dir.path() / "token", "good-token");
  TokenSource source("", file);
  ASSERT_OK(source.Token().status());
  WriteTestFile(dir.path() / "token", "");
  ASSERT_OK_AND_ASSIGN(std::string during_rewrite, source.Token());
  EXPECT_EQ(during_rewrite, "good-token");
  std::filesystem::remove(file);
  ASSERT_OK_AND_ASSIGN(std::string after_removal, source.Token());
  EXPECT_EQ(after_removal, "good-token");
}

TEST(TokenSourceTest, NeverReadableFileWithoutStaticTokenIsAnError) {
  TempDir dir;
  TokenSource source("", dir.path() / "absent");
  absl::StatusOr<std::string> token = source.Token();
  EXPECT_EQ(token.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(token.status().message(),
            "token file \"" + (dir.path() / "absent").string() + "\": No such file or directory");
}

}  // namespace token_source_test
}  // namespace credledger::kubebridge
