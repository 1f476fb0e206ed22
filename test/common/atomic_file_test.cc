// WriteFileAtomically: the whole text lands at the path (replacing what was there), no
// temporary file is left, and a failure names the file.
#include "common/atomic_file.h"

#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::common {
namespace atomic_file_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AtomicFileTest, ReplacesTheFileAndLeavesNoTemporary) {
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "port";
  ASSERT_OK(WriteFileAtomically(path, "1234\n"));
  EXPECT_EQ(Read(path), "1234\n");
  ASSERT_OK(WriteFileAtomically(path, "7\n"));
  EXPECT_EQ(Read(path), "7\n");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "port.tmp"));
}

TEST(AtomicFileTest, AMissingFolderIsAnInternalErrorNamingTheFile) {
  testing::TempDir dir;
  EXPECT_THAT(WriteFileAtomically(dir.path() / "missing" / "port", "1\n"),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("missing/port.tmp")));
}

}  // namespace atomic_file_test
}  // namespace credledger::common
