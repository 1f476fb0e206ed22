// The list of fault points (test/integration/fault_point_list.h) against the tree: every
// FaultPoint("...") call of the product code is in the list, every listed point is called
// somewhere, and docs/testing.md ("Fault points") names exactly these points, so that the crash
// workload test arms every point there is and the page tells the truth.
#include "test/integration/fault_point_list.h"

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/file_text.h"

namespace credledger::testing {
namespace fault_point_list_test {

// The folders of product code (docs/architecture.md, "Layout").
constexpr const char* kProductFolders[] = {"common",     "store",   "audit", "projections",
                                           "kubebridge", "service", "cli"};

std::set<std::string> Listed() {
  return std::set<std::string>(std::begin(kFaultPoints), std::end(kFaultPoints));
}

// The names of every FaultPoint("<name>") call in the product's .h and .cc files.
std::set<std::string> Called() {
  const std::filesystem::path root = CREDLEDGER_SOURCE_DIR;
  const std::regex call(R"re(FaultPoint\("([^"]+)"\))re");
  std::set<std::string> names;
  for (const char* folder : kProductFolders) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
      const std::string text = ReadText(entry.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), call);
           it != std::sregex_iterator(); ++it) {
        names.insert((*it)[1].str());
      }
    }
  }
  return names;
}

// The point names (`<area>.<before|after>_<what>` in backticks) of the "Fault points" section
// of docs/testing.md.
std::set<std::string> Documented() {
  const std::string page =
      ReadText(std::filesystem::path(CREDLEDGER_SOURCE_DIR) / "docs" / "testing.md");
  const size_t start = page.find("\n## Fault points\n");
  if (start == std::string::npos) return {};
  const size_t end = page.find("\n## ", start + 1);
  const std::string section = page.substr(start, end == std::string::npos ? end : end - start);
  const std::regex name(R"re(`([a-z]+\.(before|after)_[a-z_]+)`)re");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(section.begin(), section.end(), name);
       it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1].str());
  }
  return names;
}

TEST(FaultPointListTest, TheListNamesEveryFaultPointOfTheProductAndNoOther) {
  EXPECT_EQ(Listed().size(), std::size(kFaultPoints)) << "a point is listed twice";
  EXPECT_EQ(Called(), Listed());
}

TEST(FaultPointListTest, DocsTestingNamesEveryListedPoint) { EXPECT_EQ(Documented(), Listed()); }

}  // namespace fault_point_list_test
}  // namespace credledger::testing
