// ExportOutput (cli/export_output.h): `export --output` never replaces an earlier export
// unless asked, never truncates an interrupted one's .partial, and never shares a .partial.
#include "cli/export_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::cli {
namespace export_output_test {

using ::credledger::testing::ReadText;
using ::credledger::testing::StatusIs;
using ::credledger::testing::WriteText;
using ::testing::HasSubstr;

class ExportOutputTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return (dir_.path() / name).string(); }
  ::credledger::testing::TempDir dir_;
};

TEST_F(ExportOutputTest, ANewFileIsWrittenThroughItsPartialAndMovedIntoPlace) {
  const std::string path = Path("all.jsonl");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportOutput> output, ExportOutput::Open(path, false));
  EXPECT_EQ(output->written_path(), path + ".partial");
  output->stream() << "line\n";
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_OK(output->Commit());
  EXPECT_EQ(ReadText(path), "line\n");
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
}

TEST_F(ExportOutputTest, AnExistingFileOrLinkIsRefusedWithoutOverwriteAndReplacedWithIt) {
  const std::string path = Path("all.jsonl");
  WriteText(path, "earlier\n");
  EXPECT_THAT(ExportOutput::Open(path, false),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("\"" + path + "\" exists; pass --overwrite to replace it")));
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  const std::string dangling = Path("dangling.jsonl");
  std::filesystem::create_symlink(Path("nowhere"), dangling);
  EXPECT_THAT(ExportOutput::Open(dangling, false), StatusIs(absl::StatusCode::kAlreadyExists));

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportOutput> output, ExportOutput::Open(path, true));
  output->stream() << "new\n";
  EXPECT_EQ(ReadText(path), "earlier\n");  // until the export is complete
  ASSERT_OK(output->Commit());
  EXPECT_EQ(ReadText(path), "new\n");
}

TEST_F(ExportOutputTest, APartialIsNeverTruncatedNorSharedByTwoExports) {
  const std::string path = Path("all.jsonl");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportOutput> first, ExportOutput::Open(path, false));
  first->stream() << "first part\n";
  first->stream().flush();
  EXPECT_THAT(ExportOutput::Open(path, true),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("\"" + path + ".partial\" exists: an interrupted export")));
  EXPECT_EQ(ReadText(path + ".partial"), "first part\n");
  // A dangling link as the .partial is refused too (nothing is written through it).
  const std::string other = Path("other.jsonl");
  std::filesystem::create_symlink(Path("elsewhere"), other + ".partial");
  EXPECT_THAT(ExportOutput::Open(other, true), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_FALSE(std::filesystem::exists(Path("elsewhere")));
}

TEST_F(ExportOutputTest, AFileThatAppearedDuringTheExportIsKeptAndTheExportStaysInItsPartial) {
  const std::string path = Path("all.jsonl");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportOutput> output, ExportOutput::Open(path, false));
  output->stream() << "export\n";
  WriteText(path, "someone else's\n");
  EXPECT_THAT(output->Commit(),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("the complete export is in \"" + path + ".partial\"")));
  EXPECT_EQ(ReadText(path), "someone else's\n");
  EXPECT_EQ(ReadText(path + ".partial"), "export\n");
}

TEST_F(ExportOutputTest, AbandonKeepsThePartialOnlyWhenAsked) {
  const std::string kept_path = Path("kept.jsonl");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportOutput> kept, ExportOutput::Open(kept_path, false));
  kept->stream() << "events\n";
  EXPECT_EQ(kept->Abandon(/*keep_partial=*/true), kept_path + ".partial");
  EXPECT_EQ(ReadText(kept_path + ".partial"), "events\n");
  EXPECT_FALSE(std::filesystem::exists(kept_path));

  const std::string empty_path = Path("empty.jsonl");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportOutput> empty, ExportOutput::Open(empty_path, false));
  EXPECT_EQ(empty->Abandon(/*keep_partial=*/false), "");
  EXPECT_FALSE(std::filesystem::exists(empty_path + ".partial"));
}

TEST_F(ExportOutputTest, ADeviceIsWrittenDirectly) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportOutput> output,
                       ExportOutput::Open("/dev/null", false));
  EXPECT_EQ(output->written_path(), "/dev/null");
  output->stream() << "line\n";
  ASSERT_OK(output->Commit());
  EXPECT_EQ(output->Abandon(true), "");
}

TEST_F(ExportOutputTest, ALinkStaysAndTheFileItNamesIsReplaced) {
  const std::string file = Path("exports-all.jsonl");
  const std::string link = Path("latest.jsonl");
  WriteText(file, "earlier\n");
  std::filesystem::create_symlink(file, link);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportOutput> output, ExportOutput::Open(link, true));
  EXPECT_EQ(output->written_path(), file + ".partial");
  output->stream() << "new\n";
  ASSERT_OK(output->Commit());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(ReadText(file), "new\n");
}

TEST_F(ExportOutputTest, APathUnderDevIsWrittenDirectlyEvenWhenItResolvesToAFile) {
  // /dev/stdout redirected to a file is such a path: it must never be replaced.
  const std::string file = Path("redirected.txt");
  WriteText(file, "");
  const int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::string through = "/dev/fd/" + std::to_string(fd);
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportOutput> output, ExportOutput::Open(through, false));
    EXPECT_EQ(output->written_path(), through);
    output->stream() << "line\n";
    ASSERT_OK(output->Commit());
  }
  close(fd);
  EXPECT_EQ(ReadText(file), "line\n");
  EXPECT_FALSE(std::filesystem::exists(file + ".partial"));
}

TEST_F(ExportOutputTest, AFolderThatDoesNotExistCannotBeCreated) {
  EXPECT_THAT(
      ExportOutput::Open(Path("missing/all.jsonl"), false),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("--output: cannot create \"" + Path("missing/all.jsonl.partial") + "\"")));
}

}  // namespace export_output_test
}  // namespace credledger::cli
