#include "test/layering/include_layers.h"

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

Layers Parse(const std::string& text) {
  absl::StatusOr<Layers> layers = ParseLayers(text);
  EXPECT_TRUE(layers.ok()) << layers.status();
  return layers.ok() ? *layers : Layers();
}

constexpr char kTwoLayers[] =
    "library lower lib/lower\n"
    "library upper lib/upper\n"
    "links upper lower\n"
    "links upper yaml-cpp\n"
    "library generated -\n"
    "links generated protobuf::libprotobuf\n"
    "links lower generated\n";

TEST(IncludeLayersTest, AnIncludeDownTheLinkLineIsAllowed) {
  TempDir root;
  WriteTextCreatingFolders(root.path() / "lib/lower/a.h", "#include <string>\n");
  WriteTextCreatingFolders(root.path() / "lib/upper/b.cc",
        "#include \"lib/upper/b.h\"\n#include \"lib/lower/a.h\"\n#include \"yaml-cpp/yaml.h\"\n");
  WriteTextCreatingFolders(root.path() / "lib/upper/b.h", "#pragma once\n");
  EXPECT_THAT(FindLayerViolations(Parse(kTwoLayers), root.path()), IsEmpty());
}

TEST(IncludeLayersTest, AnIncludeUpTheLinkLineIsReported) {
  TempDir root;
  WriteTextCreatingFolders(root.path() / "lib/upper/b.h", "#pragma once\n");
  WriteTextCreatingFolders(root.path() / "lib/lower/a.cc", "#include \"lib/upper/b.h\"\n");
  EXPECT_THAT(FindLayerViolations(Parse(kTwoLayers), root.path()),
              ElementsAre("lib/lower/a.cc: includes lib/upper/b.h, which upper provides; lower "
                          "does not link it"));
}

TEST(IncludeLayersTest, AThirdPartyHeaderNotOnTheLinkLineIsReported) {
  TempDir root;
  WriteTextCreatingFolders(root.path() / "lib/lower/a.cc",
                           "#include <curl/curl.h>\n#include <sqlite3.h>\n");
  EXPECT_THAT(FindLayerViolations(Parse(kTwoLayers), root.path()),
              ElementsAre(HasSubstr("curl/curl.h, which CURL::libcurl provides"),
                          HasSubstr("sqlite3.h, which SQLite::SQLite3 provides")));
}

TEST(IncludeLayersTest, AGeneratedLibraryGivesWhatItLinks) {
  TempDir root;
  WriteTextCreatingFolders(root.path() / "lib/lower/a.cc",
        "#include \"credledger/v1/events.pb.h\"\n#include \"google/protobuf/message.h\"\n");
  Layers layers = Parse(kTwoLayers);
  layers.folder_of["credledger_proto"] = "-";
  layers.links_of["lower"].insert("credledger_proto");
  EXPECT_THAT(FindLayerViolations(layers, root.path()), IsEmpty());
}

TEST(IncludeLayersTest, AHeaderOfAFolderWithoutALibraryIsReported) {
  TempDir root;
  WriteTextCreatingFolders(root.path() / "loose/c.h", "#pragma once\n");
  WriteTextCreatingFolders(root.path() / "lib/lower/a.cc", "#include \"loose/c.h\"\n");
  EXPECT_THAT(FindLayerViolations(Parse(kTwoLayers), root.path()),
              ElementsAre(HasSubstr("which ?loose provides")));
}

TEST(IncludeLayersTest, ALineOfAnotherShapeIsRefused) {
  absl::StatusOr<Layers> layers = ParseLayers("library only-two\n");
  EXPECT_EQ(layers.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(layers.status().message()), HasSubstr("library only-two"));
}

}  // namespace
}  // namespace credledger::testing
