#include "test/layering/append_check.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/file_text.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kDirectAppend[] =
    "absl::Status Record(store::EventStore* store_) {\n"
    "  return store_->Execute([&](store::WriteTransaction& tx) {\n"
    "    return tx.Append(request).status();\n"
    "  });\n"
    "}\n";

TEST(AppendCheckTest, ADirectAppendIsReportedWithItsLines) {
  EXPECT_THAT(FindAppendsIn(kDirectAppend),
              ElementsAre(HasSubstr("2: names WriteTransaction"), HasSubstr("2: calls Execute")));
}

TEST(AppendCheckTest, TheWritersOtherNamesAndReceiversAreReported) {
  EXPECT_THAT(FindAppendsIn("store::AppendRequest request;\n"
                            "log_->store->Append(std::move(request));\n"
                            "bus.store()->Execute(std::move(command));\n"
                            "store::Command command = Make();\n"),
              ElementsAre(HasSubstr("1: names AppendRequest"), HasSubstr("2: calls Append"),
                          HasSubstr("3: calls Execute"), HasSubstr("4: names store::Command")));
}

TEST(AppendCheckTest, CommentsLiteralsAndOtherExecutesAreNotReported) {
  EXPECT_THAT(FindAppendsIn("// store_->Execute(...) under a WriteTransaction\n"
                            "/* StreamAppend\n   store_->Append( */\n"
                            "Log(\"store_->Execute( failed\");\n"
                            "const char* raw = R\"x(store_->Execute( \"WriteTransaction\")x\";\n"
                            "char quote = '\"'; int n = 1'000;\n"
                            "client_->Execute(\"get\", request);\n"
                            "bus_->Execute(command, context);\n"
                            "store_->SaveCheckpoint(checkpoint);\n"),
              IsEmpty());
}

TEST(AppendCheckTest, BlankingKeepsLinesAndColumns) {
  const std::string text = "a // b\n\"c\" d\n";
  EXPECT_EQ(BlankCommentsAndLiterals(text), "a     \n    d\n");
}

constexpr char kLayers[] =
    "library bus service/bus\n"
    "library store store\n"
    "library api service/api\n"
    "library tests test/service\n";

TEST(AppendCheckTest, OnlyFoldersOutsideTheBusAndTheStoreAreChecked) {
  TempDir root;
  WriteTextCreatingFolders(root.path() / "service/bus/command_bus.h", kDirectAppend);
  WriteTextCreatingFolders(root.path() / "store/event_store.cc", kDirectAppend);
  WriteTextCreatingFolders(root.path() / "test/service/fixture.h", kDirectAppend);
  WriteTextCreatingFolders(root.path() / "service/api/source_api.cc", kDirectAppend);
  absl::StatusOr<Layers> layers = ParseLayers(kLayers);
  ASSERT_TRUE(layers.ok()) << layers.status();
  EXPECT_THAT(FindAppendViolations(*layers, root.path()),
              ElementsAre(HasSubstr("service/api/source_api.cc:2: names WriteTransaction"),
                          HasSubstr("service/api/source_api.cc:2: calls Execute")));
}

}  // namespace
}  // namespace credledger::testing
